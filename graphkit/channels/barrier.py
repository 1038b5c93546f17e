"""Barriers: how a node with several incoming edges (``add_edge(["a", "b"], "c")``) waits."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Generic, Self

from graphkit.channels.base import EMPTY, Channel, Value
from graphkit.diagnostics import channels as diagnose


class NamedBarrierValue(Channel[None, Value, set[Value]], Generic[Value]):
    """Records which of ``names`` were written; available (as ``None``) once all were,
    until ``consume()`` (the waiting task ran) resets it.

    >>> channel = NamedBarrierValue(str, {"weather", "news"}, key="join")
    >>> channel.update(["weather"]), channel.is_available()
    (True, False)
    >>> channel.update(["news"]), channel.get()
    (True, None)
    >>> channel.consume(), channel
    (True, NamedBarrierValue 'join'(seen=[], names=['news', 'weather']))
    """

    __slots__ = ("names", "seen")

    def __init__(self, typ: Any, names: Iterable[Value], key: str = "") -> None:
        super().__init__(typ, key)
        self.names = frozenset(names)
        self.seen: set[Value] = set()

    def get(self) -> None:
        if self.seen != self.names:
            raise self._empty_error()
        return None

    def is_available(self) -> bool:
        return self.seen == self.names

    def checkpoint(self) -> Any:
        return set(self.seen) if self.seen else EMPTY

    def saved_empty(self) -> Any:
        return set()

    def update(self, values: Sequence[Value]) -> bool:
        for value in values:
            if value not in self.names:
                raise diagnose.not_a_barrier_name(self.key, value, self.names)
        new = set(values) - self.seen
        self.seen |= new
        return bool(new)

    def consume(self) -> bool:
        if self.seen != self.names:
            return False
        self.seen = set()
        return True

    def from_checkpoint(self, checkpoint: Any) -> Self:
        channel = self._empty_like()
        if checkpoint is not EMPTY:
            channel.seen = set(checkpoint)
        return channel

    def _config(self) -> tuple[Any, ...]:
        return (self.typ, self.names)

    def __repr__(self) -> str:
        # Sets print in hash order, which changes between runs; sort for a stable repr.
        name = f" {self.key!r}" if self.key else ""
        seen, names = _sorted(self.seen), _sorted(self.names)
        return f"{type(self).__name__}{name}(seen={seen}, names={names})"


class NamedBarrierValueAfterFinish(NamedBarrierValue[Value]):
    """Like ``NamedBarrierValue``, but a complete barrier is available only after
    ``finish()`` (when the run would otherwise end): a waiting edge into a ``defer=True`` node.

    >>> channel = NamedBarrierValueAfterFinish(str, {"a", "b"}, key="join")
    >>> channel.update(["a", "b"]), channel.is_available(), channel.finish(), channel.get()
    (True, False, True, None)
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
        return (set(self.seen), self.finished) if self.seen or self.finished else EMPTY

    def saved_empty(self) -> Any:
        return (set(), False)

    def consume(self) -> bool:
        if not self.is_available():
            return False
        self.seen, self.finished = set(), False
        return True

    def finish(self) -> bool:
        if self.finished or self.seen != self.names:
            return False
        self.finished = True
        return True

    def from_checkpoint(self, checkpoint: Any) -> Self:
        channel = self._empty_like()
        if checkpoint is not EMPTY:
            seen, channel.finished = checkpoint
            channel.seen = set(seen)
        return channel


def _sorted(names: Iterable[Any]) -> list[Any]:
    return sorted(names, key=repr)
