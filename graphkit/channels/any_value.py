"""AnyValue: a channel for a value that parallel writers are expected to agree on."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, Self

from graphkit.channels.base import EMPTY, Channel, Value

__all__ = ["AnyValue"]


class AnyValue(Channel[Value, Value], Generic[Value]):
    """Keeps the last value written in a step; a step without a write clears it.

    Several writes in one step are allowed, on the assumption that they are equal,
    so which one is kept does not matter.

    >>> channel = AnyValue(bool, key="done")
    >>> channel.update([True, True])
    True
    >>> channel.get()
    True
    >>> channel.update([])
    True
    >>> channel.is_available()
    False
    """

    volatile = True

    __slots__ = ("value",)
    replaces_its_value = True

    def __init__(self, typ: Any = Any, key: str = "") -> None:
        super().__init__(typ, key)
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
        self.value = values[-1]
        return True

    def from_checkpoint(self, checkpoint: Any) -> Self:
        channel = type(self)(self.typ, self.key)
        channel.value = checkpoint
        return channel
