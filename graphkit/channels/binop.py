"""BinaryOperatorAggregate: the channel behind a field with a reducer, e.g.
``Annotated[list, operator.add]``. It folds every write into the value."""

from __future__ import annotations

import collections.abc
from collections.abc import Callable, Sequence
from typing import Any, Generic, NotRequired, Required, Self

from graphkit.channels.base import EMPTY, Channel, Value

__all__ = ["BinaryOperatorAggregate"]

# Abstract collection types cannot be called, so a field declared as one starts from
# the concrete type a reducer would build anyway.
_CONCRETE = {
    collections.abc.Sequence: list,
    collections.abc.MutableSequence: list,
    collections.abc.Set: set,
    collections.abc.MutableSet: set,
    collections.abc.Mapping: dict,
    collections.abc.MutableMapping: dict,
}


def _initial_value(typ: Any) -> Any:
    """Return ``typ()`` for the class behind a type hint, or EMPTY if it can't be built.

    >>> from typing import Annotated
    >>> _initial_value(Annotated[list[str], "reducer"])
    []
    >>> _initial_value(int | None)
    <empty>
    """
    # Annotated[X, ...] and X[args] both keep the class in __origin__; Required[X]
    # and NotRequired[X] keep it in their first argument.
    while (origin := getattr(typ, "__origin__", None)) is not None:
        typ = typ.__args__[0] if origin in (Required, NotRequired) else origin
    typ = _CONCRETE.get(typ, typ)
    try:
        return typ()
    except Exception:
        return EMPTY


class BinaryOperatorAggregate(Channel[Value, Value], Generic[Value]):
    """Folds each write into the value with a binary operator, in the runtime's order.

    It starts from ``typ()`` when the type can be called with no arguments (so a
    ``list`` field starts as ``[]``), and from empty otherwise, in which case the
    first write becomes the value.

    >>> import operator
    >>> channel = BinaryOperatorAggregate(list[str], operator.add, key="log")
    >>> channel.get()
    []
    >>> channel.update([["weather"], ["news"]])
    True
    >>> channel.get()
    ['weather', 'news']
    """

    __slots__ = ("operator", "value")
    replaces_its_value = True

    def __init__(self, typ: Any, operator: Callable[[Value, Value], Value], key: str = "") -> None:
        super().__init__(typ, key)
        self.operator = operator
        self.value: Any = _initial_value(typ)

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
        # Fold into a local so that an operator that raises leaves the channel as it was.
        value, rest = (values[0], values[1:]) if self.value is EMPTY else (self.value, values)
        for item in rest:
            value = self.operator(value, item)
        self.value = value
        return True

    def from_checkpoint(self, checkpoint: Any) -> Self:
        channel = type(self)(self.typ, self.operator, self.key)
        if checkpoint is not EMPTY:
            channel.value = checkpoint
        return channel

    def _config(self) -> tuple[Any, ...]:
        return (self.typ, self.operator)
