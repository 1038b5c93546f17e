"""NamedBarrierValueAfterFinish: a barrier that opens only when the run would end.

It is what a waiting edge into a ``defer=True`` node becomes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Generic, Self

from graphkit.channels.base import EMPTY, Value
from graphkit.channels.named_barrier_value import NamedBarrierValue

__all__ = ["NamedBarrierValueAfterFinish"]


class NamedBarrierValueAfterFinish(NamedBarrierValue[Value], Generic[Value]):
    """Like ``NamedBarrierValue``, but a complete barrier is available only after
    ``finish()``.

    >>> channel = NamedBarrierValueAfterFinish(str, {"a", "b"}, key="join")
    >>> channel.update(["a", "b"]), channel.is_available()
    (True, False)
    >>> channel.finish(), channel.is_available()
    (True, True)
    >>> channel.consume(), channel.is_available()
    (True, False)
    """

    __slots__ = ("finished",)

    def __init__(self, typ: Any, names: Iterable[Value], key: str = "") -> None:
        super().__init__(typ, names, key)
        self.finished = False

    def get(self) -> None:
        if not self.finished:
            raise self._empty_error()
        return super().get()

    def is_available(self) -> bool:
        return self.finished and super().is_available()

    def checkpoint(self) -> Any:
        if not self.seen and not self.finished:
            return EMPTY
        return (set(self.seen), self.finished)

    def consume(self) -> bool:
        if not self.is_available():
            return False
        self.finished = False
        self.seen = set()
        return True

    def finish(self) -> bool:
        if self.finished or self.seen != self.names:
            return False
        self.finished = True
        return True

    def from_checkpoint(self, checkpoint: Any) -> Self:
        channel = type(self)(self.typ, self.names, self.key)
        if checkpoint is not EMPTY:
            seen, channel.finished = checkpoint
            channel.seen = set(seen)
        return channel
