"""NamedBarrierValue: a channel that opens once every one of a set of names has written.

It is how a node with several incoming edges (``add_edge(["a", "b"], "c")``) waits
for all of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Generic, Self

from graphkit.channels.base import EMPTY, Channel, Value
from graphkit.errors import InvalidUpdateError

__all__ = ["NamedBarrierValue"]


class NamedBarrierValue(Channel[None, Value], Generic[Value]):
    """Records which of ``names`` were written; available (as ``None``) once all were.

    ``consume()``, called after the waiting task ran, resets a complete barrier.

    >>> channel = NamedBarrierValue(str, {"weather", "news"}, key="join")
    >>> channel.update(["weather"])
    True
    >>> channel.is_available()
    False
    >>> channel.update(["news"])
    True
    >>> channel.get() is None
    True
    >>> channel.consume()
    True
    >>> channel
    NamedBarrierValue 'join'(seen=[], names=['news', 'weather'])
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

    def update(self, values: Sequence[Value]) -> bool:
        for value in values:
            if value not in self.names:
                raise InvalidUpdateError(
                    f"Channel {self.key!r} received {value!r}, but it waits only for "
                    f"{_sorted(self.names)}. Write one of those names, or add {value!r} "
                    "to the names the barrier waits for."
                )
        new = set(values) - self.seen
        self.seen |= new
        return bool(new)

    def consume(self) -> bool:
        if self.seen != self.names:
            return False
        self.seen = set()
        return True

    def from_checkpoint(self, checkpoint: Any) -> Self:
        channel = type(self)(self.typ, self.names, self.key)
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


def _sorted(names: Iterable[Any]) -> list[Any]:
    return sorted(names, key=repr)
