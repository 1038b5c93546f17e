"""The channels whose state is one value: a plain field's ``LastValue``, its variants,
and a reducer field's ``BinaryOperatorAggregate``."""

from __future__ import annotations

import collections.abc
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Generic, NotRequired, Required, Self

from graphkit.channels.base import EMPTY, Channel, Value
from graphkit.diagnostics import channels as diagnose
from graphkit.types import Overwrite, overwritten_value


class _OneValue(Channel[Value, Value, Value], Generic[Value]):
    """A channel whose state is ``self.value``, by default the last write of a step; with
    ``volatile``, a step without a write clears it."""

    __slots__ = ("value",)
    _extra_slots: ClassVar[tuple[str, ...]] = ()  # the slots a kind adds (guard, operator...)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        every = (name for k in cls.__mro__ for name in k.__dict__.get("__slots__", ()))
        cls._extra_slots = tuple(n for n in every if n not in ("typ", "key", "value"))

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
            if not self.volatile or self.value is EMPTY:
                return False
            self.value = EMPTY
            return True
        if len(values) > 1:
            self._check_writes(len(values))
        self.value = values[-1]
        return True

    def _check_writes(self, count: int) -> None:
        """Raise ``InvalidUpdateError`` if one step may not bring ``count`` (> 1) writes."""

    def from_checkpoint(self, checkpoint: Any) -> Self:
        channel = self._empty_like()
        if checkpoint is not EMPTY:
            channel.value = checkpoint
        return channel

    def copy(self) -> Self:
        # update() rebinds attributes, never mutates what they hold, so a copy shares them.
        # Assigning the common slots directly keeps this per-write copy cheap (a
        # getattr/setattr loop over them cost about 5% of a step of a chain).
        clone = object.__new__(type(self))
        clone.typ, clone.key, clone.value = self.typ, self.key, self.value
        for name in self._extra_slots:
            setattr(clone, name, getattr(self, name))
        return clone


class LastValue(_OneValue[Value]):
    """Keeps the last value written; two writes in one step are an error.

    >>> channel = LastValue(str, key="weather")
    >>> channel.update(["sunny"])
    True
    >>> channel.update(["rain", "snow"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    graphkit.errors.InvalidUpdateError: Channel 'weather' received 2 values ...
    """

    __slots__ = ()

    def _check_writes(self, count: int) -> None:
        if count > 1:
            raise diagnose.plain_field_written_twice(self.key, count, self.typ)


class BinaryOperatorAggregate(_OneValue[Value]):
    """Folds each write into the value with a binary operator, in the runtime's order,
    starting from ``typ()`` (a ``list`` field starts as ``[]``) or, if that fails, empty.

    >>> import operator
    >>> channel = BinaryOperatorAggregate(list[str], operator.add, key="log")
    >>> channel.update([["weather"], ["news"]]), channel.get()
    (True, ['weather', 'news'])

    An ``Overwrite`` write replaces the value instead (and wins over the step's other
    writes):

    >>> from graphkit.types import Overwrite
    >>> channel.update([["sports"], Overwrite(["fresh"])]), channel.get()
    (True, ['fresh'])
    """

    __slots__ = ("operator",)

    def __init__(self, typ: Any, operator: Callable[[Value, Value], Value], key: str = "") -> None:
        super().__init__(typ, key)
        self.operator = operator
        self.value = _initial_value(typ)

    def update(self, values: Sequence[Value]) -> bool:
        if not values:
            return False
        for item in values:
            # (LangGraph's Overwrite too, by its class's name: no call for a plain write)
            maybe = isinstance(item, (Overwrite, dict)) or type(item).__name__ == "Overwrite"
            if maybe and overwritten_value(item)[0]:
                return self._update_with_overwrite(values)
        # Fold into a local so that an operator that raises leaves the channel as it was.
        value, rest = (values[0], values[1:]) if self.value is EMPTY else (self.value, values)
        if rest:
            value = _own_copy(value)
        for item in rest:
            value = self.operator(value, item)
        self.value = value
        return True

    def _update_with_overwrite(self, values: Sequence[Value]) -> bool:
        """A step with an ``Overwrite``: it replaces what was folded so far and the
        step's later plain writes are dropped, so it wins wherever it comes."""
        value, replaced, owned = self.value, False, False
        for item in values:
            is_overwrite, new_value = overwritten_value(item)
            if is_overwrite:
                if replaced:
                    raise diagnose.overwritten_twice(self.key)
                value, replaced = new_value, True
            elif not replaced and value is EMPTY:
                value = item
            elif not replaced:  # (copied once, and only if a write is folded in)
                value = self.operator(value if owned else _own_copy(value), item)
                owned = True
        self.value = value
        return True

    def _config(self) -> tuple[Any, ...]:
        return (self.typ, self.operator)


def _own_copy(value: Any) -> Any:
    """A shallow copy of a list, dict or set, for an operator to fold into: one that
    changes its left side in place (``x.extend(y); return x``) must not change the value
    a checkpoint, a record or a chunk already holds (LangGraph's savers keep serialized
    copies; graphkit keeps the values). An operator that builds a new value, as
    ``operator.add`` does, costs as much again as this copy."""
    return value.copy() if type(value) in (list, dict, set) else value


class AnyValue(_OneValue[Value]):
    """Keeps the last value written in a step (parallel writers are expected to agree);
    a step without a write clears it.

    >>> channel = AnyValue(bool, key="done")
    >>> channel.update([True, True]), channel.get()
    (True, True)
    >>> channel.update([]), channel.is_available()
    (True, False)
    """

    volatile = True
    __slots__ = ()


class _Guarded(_OneValue[Value]):
    """A kind for which two writes in one step are an error, unless ``guard=False``."""

    __slots__ = ("guard",)
    _kind: ClassVar[str] = ""  # what the error calls it, e.g. "an ephemeral value"

    def __init__(self, typ: Any = Any, guard: bool = True, key: str = "") -> None:
        super().__init__(typ, key)
        self.guard = guard

    def _check_writes(self, count: int) -> None:
        if self.guard and count > 1:
            raise diagnose.one_value_per_step(self.key, count, self._kind, type(self).__name__)

    def _config(self) -> tuple[Any, ...]:
        return (self.typ, self.guard)


class EphemeralValue(_Guarded[Value]):
    """Holds the value written in the previous step; a step without a write clears it.
    Two writes in one step are an error, unless ``guard=False``: then the last is kept.

    >>> channel = EphemeralValue(str, key="start")
    >>> channel.update(["go"]), channel.get()
    (True, 'go')
    >>> channel.update([]), channel.is_available()
    (True, False)
    """

    volatile = True
    __slots__ = ()
    _kind = "an ephemeral value"


class UntrackedValue(_Guarded[Value]):
    """Keeps the last value written, but checkpoints save nothing: for what should not be
    stored, such as an open client. ``guard`` works as in ``EphemeralValue``.

    >>> channel = UntrackedValue(str, key="client")
    >>> channel.update(["connection"]), channel.checkpoint(), channel.copy().get()
    (True, <empty>, 'connection')
    """

    __slots__ = ()
    _kind = "an untracked value"

    def checkpoint(self) -> Any:
        return EMPTY

    def from_checkpoint(self, checkpoint: Any) -> Self:
        return self._empty_like()  # nothing was saved

    # The state is not in the checkpoint, so compare and show the value itself.
    def __eq__(self, other: object) -> bool:
        return super().__eq__(other) and self.value == other.value  # type: ignore[attr-defined]

    __hash__ = Channel.__hash__

    def __repr__(self) -> str:
        name = f" {self.key!r}" if self.key else ""
        return f"{type(self).__name__}{name}({self.value!r})"


class LastValueAfterFinish(_OneValue[Value]):
    """Keeps the last value written, available only after ``finish()`` (when the run would
    otherwise end); ``consume()`` then clears it. It is what wakes a ``defer=True`` node.

    >>> channel = LastValueAfterFinish(str, key="branch:to:report")
    >>> channel.update(["go"]), channel.is_available(), channel.finish(), channel.get()
    (True, False, True, 'go')
    >>> channel.consume(), channel.is_available()
    (True, False)
    """

    __slots__ = ("finished",)

    def __init__(self, typ: Any = Any, key: str = "") -> None:
        super().__init__(typ, key)
        self.finished = False

    def get(self) -> Value:
        if not self.finished:
            raise self._empty_error()
        return super().get()

    def is_available(self) -> bool:
        return self.finished and self.value is not EMPTY

    def checkpoint(self) -> Any:
        return EMPTY if self.value is EMPTY else (self.value, self.finished)

    def update(self, values: Sequence[Value]) -> bool:
        if not values:
            return False
        self.value, self.finished = values[-1], False
        return True

    def consume(self) -> bool:
        if not self.finished:
            return False
        self.value, self.finished = EMPTY, False
        return True

    def finish(self) -> bool:
        if self.finished or self.value is EMPTY:
            return False
        self.finished = True
        return True

    def from_checkpoint(self, checkpoint: Any) -> Self:
        channel = self._empty_like()
        if checkpoint is not EMPTY:
            channel.value, channel.finished = checkpoint
        return channel


# Abstract collection types cannot be called, so a field declared as one starts from the
# concrete type a reducer would build anyway.
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
    >>> _initial_value(Annotated[list[str], "reducer"]), _initial_value(int | None)
    ([], <empty>)
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
