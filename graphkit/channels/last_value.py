"""LastValue: the channel behind a plain state field. It keeps one value per step."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, Self

from graphkit.channels.base import EMPTY, Channel, Value
from graphkit.errors import InvalidUpdateError

__all__ = ["LastValue"]


class LastValue(Channel[Value, Value], Generic[Value]):
    """Keeps the last value written; two writes in one step are an error.

    >>> channel = LastValue(str, key="weather")
    >>> channel.update(["sunny"])
    True
    >>> channel.update(["rain", "snow"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    graphkit.errors.InvalidUpdateError: Channel 'weather' received 2 values in one step; ...
    """

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
            return False
        if len(values) != 1:
            raise InvalidUpdateError(
                f"Channel {self.key!r} received {len(values)} values in one step; a plain "
                "field keeps one value per step. Give it a reducer, e.g. "
                "Annotated[list, operator.add]."
            )
        self.value = values[0]
        return True

    def from_checkpoint(self, checkpoint: Any) -> Self:
        channel = type(self)(self.typ, self.key)
        channel.value = checkpoint
        return channel
