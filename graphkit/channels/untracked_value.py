"""UntrackedValue: a channel whose value lives only for one run and is never saved."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, Self

from graphkit.channels.base import EMPTY, Channel, Value
from graphkit.errors import InvalidUpdateError

__all__ = ["UntrackedValue"]


class UntrackedValue(Channel[Value, Value], Generic[Value]):
    """Keeps the last value written, like ``LastValue``, but checkpoints save nothing.

    Use it for things that cannot or should not be stored, such as an open client.
    With ``guard=True`` (the default) two writes in one step are an error; with
    ``guard=False`` the last of them is kept.

    >>> channel = UntrackedValue(str, key="client")
    >>> channel.update(["connection"])
    True
    >>> channel.get()
    'connection'
    >>> channel.checkpoint()
    <empty>
    >>> channel.copy().get()
    'connection'
    """

    __slots__ = ("guard", "value")

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
        return EMPTY

    def update(self, values: Sequence[Value]) -> bool:
        if not values:
            return False
        if self.guard and len(values) != 1:
            raise InvalidUpdateError(
                f"Channel {self.key!r} received {len(values)} values in one step; an "
                "untracked value keeps one value per step. Write it from one node per "
                "step, or create it with UntrackedValue(..., guard=False) to keep the last."
            )
        self.value = values[-1]
        return True

    def from_checkpoint(self, checkpoint: Any) -> Self:
        # The value is never saved, so there is nothing to restore.
        return type(self)(self.typ, guard=self.guard, key=self.key)

    def copy(self) -> Self:
        # A copy within a run keeps the value, unlike a restore from a checkpoint.
        channel = self.empty_copy()
        channel.value = self.value
        return channel

    def _config(self) -> tuple[Any, ...]:
        return (self.typ, self.guard)

    # The state is not in the checkpoint, so compare and show the value itself.
    def __eq__(self, other: object) -> bool:
        return super().__eq__(other) and self.value == other.value  # type: ignore[attr-defined]

    __hash__ = Channel.__hash__

    def __repr__(self) -> str:
        name = f" {self.key!r}" if self.key else ""
        return f"{type(self).__name__}{name}({self.value!r})"
