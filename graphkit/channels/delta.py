"""``DeltaChannel``: a reducer field whose reducer folds a whole step's writes at once.

LangGraph 1.2 added it (as a beta) so that its savers can store such a field as the
writes that built it and replay them on reading. graphkit's savers already store only
what a step changed, so here it is the reducer's calling convention that matters:
``reducer(value, [write, write, ...])`` once per step, instead of once per write.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

from graphkit.channels.base import EMPTY
from graphkit.channels.value import _CONCRETE, BinaryOperatorAggregate, Value, _initial_value
from graphkit.diagnostics import channels as diagnose
from graphkit.types import overwritten_value

__all__ = ["DeltaChannel"]


class DeltaChannel(BinaryOperatorAggregate[Value]):
    """A reducer field whose ``reducer(value, writes)`` gets the value and all of one
    step's writes in a single call; the value starts as ``typ()`` (in a state schema,
    the annotated type: ``Annotated[set, DeltaChannel(r)]`` starts from ``set()``).

    The reducer must give the same result whether a step's writes come in one batch or
    several (``r(r(v, xs), ys) == r(v, xs + ys)``): LangGraph replays saved writes in
    batches of its choosing. ``snapshot_frequency`` is how often LangGraph's savers store
    the whole value; graphkit's savers store every changed value, so it is only kept.

    >>> channel = DeltaChannel(lambda value, writes: value + sorted(writes), key="log")
    >>> channel.update(["b", "a"]), channel.get()
    (True, ['a', 'b'])

    An ``Overwrite`` write replaces the value and the step's other writes are dropped;
    ``Overwrite(None)`` empties it:

    >>> from graphkit.types import Overwrite
    >>> channel.update(["c", Overwrite(None)]), channel.get()
    (True, [])
    """

    __slots__ = ("snapshot_frequency",)

    def __init__(
        self,
        reducer: Callable[[Any, Sequence[Any]], Any],
        typ: Any = None,
        *,
        snapshot_frequency: int = 100,
        key: str = "",
    ) -> None:
        if snapshot_frequency <= 0:
            raise ValueError(f"snapshot_frequency must be a positive int, got {snapshot_frequency}")
        super().__init__(list if typ is None else _CONCRETE.get(typ, typ), reducer, key)
        self.snapshot_frequency = snapshot_frequency

    @property
    def reducer(self) -> Callable[[Any, Sequence[Any]], Any]:
        """The batch reducer (LangGraph's name for it)."""
        return self.operator  # type: ignore[return-value]

    def of_type(self, typ: Any) -> DeltaChannel[Value]:
        """This channel for a field annotated ``typ`` (which then is its value type)."""
        return DeltaChannel(
            self.operator, typ, snapshot_frequency=self.snapshot_frequency, key=self.key
        )

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            return False
        replacing = [new for is_new, new in map(overwritten_value, values) if is_new]
        if len(replacing) > 1:
            raise diagnose.overwritten_twice(self.key)
        # Copies, as LangGraph's (``copy.copy``, whatever the type): a reducer that extends
        # its value in place, or a node that changes what it wrote later, must not change
        # what a checkpoint or a record already holds.
        if replacing:
            self.value = self._start() if replacing[0] is None else copy.copy(replacing[0])
        else:
            start = self._start() if self.value is EMPTY else copy.copy(self.value)
            self.value = self.operator(start, list(values))
        return True

    def _start(self) -> Any:
        start = _initial_value(self.typ)
        if start is EMPTY:
            raise TypeError(
                f"Channel {self.key!r} is a DeltaChannel of {self.typ!r}, which cannot be made "
                "empty to start from (calling it failed). Annotate the field with a class that "
                "can, e.g. Annotated[list, DeltaChannel(reducer)], or pass typ=list."
            )
        return start

    def _config(self) -> tuple[Any, ...]:
        return (self.operator, self.typ)  # (the constructor's order: reducer first)

    def _options(self) -> dict[str, Any]:
        return {"snapshot_frequency": self.snapshot_frequency}
