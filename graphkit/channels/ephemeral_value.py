"""EphemeralValue: a channel that holds the previous step's write and nothing older."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, Self

from graphkit.channels.base import EMPTY, Channel, Value
from graphkit.errors import InvalidUpdateError

__all__ = ["EphemeralValue"]


class EphemeralValue(Channel[Value, Value], Generic[Value]):
    """Holds the value written in the previous step; a step without a write clears it.

    With ``guard=True`` (the default) two writes in one step are an error; with
    ``guard=False`` the last of them is kept.

    >>> channel = EphemeralValue(str, key="start")
    >>> channel.update(["go"])
    True
    >>> channel.get()
    'go'
    >>> channel.update([])
    True
    >>> channel.is_available()
    False
    """

    volatile = True

    __slots__ = ("guard", "value")
    replaces_its_value = True

    def __init__(self, typ: Any = Any, guard: bool = True, key: str = "") -> None:
        super().__init__(typ, key)
        self.guard = guard
        self.value: Any = EMPTY

    def get(self) -> Value:
        if self.value is EMPTY:
            raise self._empty_error()
        return self.value

    def is_available(self) -> bool:
        return self.value is not EMPTY

    def checkpoint(self) -> Any:
        return self.value

    def update(self, values: Sequence[Value]) -> bool:
        if not values:
            changed = self.value is not EMPTY
            self.value = EMPTY
            return changed
        if self.guard and len(values) != 1:
            raise InvalidUpdateError(
                f"Channel {self.key!r} received {len(values)} values in one step; an "
                "ephemeral value keeps one value per step. Write it from one node per "
                "step, or create it with EphemeralValue(..., guard=False) to keep the last."
            )
        self.value = values[-1]
        return True

    def from_checkpoint(self, checkpoint: Any) -> Self:
        channel = type(self)(self.typ, guard=self.guard, key=self.key)
        channel.value = checkpoint
        return channel

    def _config(self) -> tuple[Any, ...]:
        return (self.typ, self.guard)
