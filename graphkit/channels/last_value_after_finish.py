"""LastValueAfterFinish: a value held back until the run would otherwise end.

It is what wakes a ``defer=True`` node: the node runs only once nothing else is left.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, Self

from graphkit.channels.base import EMPTY, Channel, Value

__all__ = ["LastValueAfterFinish"]


class LastValueAfterFinish(Channel[Value, Value], Generic[Value]):
    """Keeps the last value written, but is available only after ``finish()``;
    ``consume()`` then clears it.

    >>> channel = LastValueAfterFinish(str, key="branch:to:report")
    >>> channel.update(["go"]), channel.is_available()
    (True, False)
    >>> channel.finish(), channel.get()
    (True, 'go')
    >>> channel.consume(), channel.is_available()
    (True, False)
    """

    __slots__ = ("finished", "value")
    replaces_its_value = True

    def __init__(self, typ: Any = Any, key: str = "") -> None:
        super().__init__(typ, key)
        self.value: Any = EMPTY
        self.finished = False

    def get(self) -> Value:
        if self.value is EMPTY or not self.finished:
            raise self._empty_error()
        return self.value

    def is_available(self) -> bool:
        return self.value is not EMPTY and self.finished

    def checkpoint(self) -> Any:
        return EMPTY if self.value is EMPTY else (self.value, self.finished)

    def update(self, values: Sequence[Value]) -> bool:
        if not values:
            return False
        self.finished = False
        self.value = values[-1]
        return True

    def consume(self) -> bool:
        if not self.finished:
            return False
        self.finished = False
        self.value = EMPTY
        return True

    def finish(self) -> bool:
        if self.finished or self.value is EMPTY:
            return False
        self.finished = True
        return True

    def from_checkpoint(self, checkpoint: Any) -> Self:
        channel = type(self)(self.typ, self.key)
        if checkpoint is not EMPTY:
            channel.value, channel.finished = checkpoint
        return channel
