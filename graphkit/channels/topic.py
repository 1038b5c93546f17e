"""Topic: a channel that collects values, one list per step or across all steps."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, Self, Union

from graphkit.channels.base import EMPTY, Channel, Value


class Topic(Channel[list[Value], Value | list[Value], list[Value]], Generic[Value]):
    """Collects every value written, in the runtime's order; a list write adds its items.

    By default it holds only the previous step's values and the next step clears it;
    with ``accumulate=True`` it keeps values across steps. An empty topic has no value.

    >>> channel = Topic(str, key="events")
    >>> channel.update(["start", ["weather", "news"]]), channel.get()
    (True, ['start', 'weather', 'news'])
    >>> channel.update([]), channel.is_available()
    (True, False)
    """

    __slots__ = ("accumulate", "values")

    def __init__(self, typ: Any = Any, accumulate: bool = False, key: str = "") -> None:
        super().__init__(typ, key)
        self.accumulate = accumulate
        self.values: list[Value] = []

    @property
    def volatile(self) -> bool:  # type: ignore[override]
        # A topic that does not accumulate must hear about steps without writes to clear.
        return not self.accumulate

    @property
    def ValueType(self) -> Any:
        """A sequence of values."""
        return Sequence[self.typ]

    @property
    def UpdateType(self) -> Any:
        """One value, or a list of values (spread)."""
        try:
            return self.typ | list[self.typ]
        except TypeError:  # a type that cannot be or-ed, such as a string annotation
            return Union[self.typ, list[self.typ]]  # noqa: UP007 (`|` is what failed)

    def get(self) -> list[Value]:
        if not self.values:
            raise self._empty_error()
        return list(self.values)

    def is_available(self) -> bool:
        return bool(self.values)

    def checkpoint(self) -> Any:
        return list(self.values) if self.values else EMPTY

    def saved_empty(self) -> Any:
        return []

    def update(self, values: Sequence[Value | list[Value]]) -> bool:
        changed = False
        if not self.accumulate:
            changed = bool(self.values)
            self.values = []
        for value in values:
            # Only lists are spread; a tuple or other sequence is one value.
            if isinstance(value, list):
                self.values.extend(value)
                changed = changed or bool(value)
            else:
                self.values.append(value)
                changed = True
        return changed

    def from_checkpoint(self, checkpoint: Any) -> Self:
        channel = self._empty_like()
        if checkpoint is not EMPTY:
            channel.values = list(checkpoint)
        return channel

    def _config(self) -> tuple[Any, ...]:
        return (self.typ, self.accumulate)
