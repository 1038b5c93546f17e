"""From a state schema (TypedDict, dataclass, pydantic model) to channels, as LangGraph
maps them: ``Annotated[T, reducer]`` a BinaryOperatorAggregate, ``Annotated[T, SomeChannel]``
(class or instance) that channel, a plain field a LastValue. A type without fields (``int``,
``Annotated[list, operator.add]``) is a single-value ("root") state: one channel, ``ROOT``."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Annotated, Any, NotRequired, Required, get_origin, get_type_hints

from graphkit.channels import BinaryOperatorAggregate, Channel, DeltaChannel, LastValue
from graphkit.constants import ROOT
from graphkit.diagnostics import schemas as diagnose
from graphkit.managed import ManagedValue, managed_value_of

__all__ = [
    "ROOT",
    "channels_from_schema",
    "coerce_to_schema",
    "is_class_schema",
    "is_root_schema",
    "managed_from_schema",
    "schema_keys",
]


def is_root_schema(schema: Any) -> bool:
    """True for a single-value state: a type without annotations, as LangGraph tells them.

    >>> import operator
    >>> from typing import Annotated, TypedDict
    >>> is_root_schema(int), is_root_schema(Annotated[list, operator.add])
    (True, True)
    >>> is_root_schema(TypedDict("State", {"n": int}))
    False
    """
    is_type = inspect.isclass(schema) or get_origin(schema) is not None
    return is_type and not hasattr(schema, "__annotations__")


def declares_no_keys(schema: Any) -> bool:
    """True for a schema class without annotated fields (``class Empty(TypedDict): ...``):
    no state, but a fine input or output schema, as LangGraph takes it (a node that reads
    nothing, a graph whose output is nothing).

    >>> from typing import TypedDict
    >>> declares_no_keys(TypedDict("Empty", {})), declares_no_keys(TypedDict("S", {"n": int}))
    (True, False)
    """
    if is_root_schema(schema) or not hasattr(schema, "__annotations__"):
        return False
    try:
        hints = get_type_hints(schema)
    except NameError:  # (reported, naming the schema, where its keys are read)
        return False
    hints.pop("__slots__", None)
    return not hints


def schema_keys(schema: Any) -> tuple[str, ...]:
    """The field names of a state schema, in declaration order.

    >>> from typing import TypedDict
    >>> class State(TypedDict):
    ...     question: str
    ...     answer: str
    >>> schema_keys(State)
    ('question', 'answer')
    """
    return tuple(_type_hints(schema))


def channels_from_schema(schema: Any) -> dict[str, Channel]:
    """Build one fresh channel per field of ``schema``.

    >>> import operator
    >>> from typing import Annotated, TypedDict
    >>> State = TypedDict("State", {"total": Annotated[int, operator.add], "name": str})
    >>> channels_from_schema(State)
    {'total': BinaryOperatorAggregate 'total'(0), 'name': LastValue 'name'(<empty>)}
    >>> channels_from_schema(Annotated[list, operator.add])
    {'__root__': BinaryOperatorAggregate '__root__'([])}
    """
    if is_root_schema(schema):
        return {ROOT: _channel_for(ROOT, schema)}
    return {
        name: _channel_for(name, hint)
        for name, hint in _type_hints(schema).items()
        if managed_value_of(hint) is None
    }


def managed_from_schema(schema: Any) -> dict[str, type[ManagedValue]]:
    """The managed values (``RemainingSteps``, ``IsLastStep``) a schema declares.

    >>> from typing import TypedDict
    >>> from graphkit.managed import RemainingSteps
    >>> State = TypedDict("State", {"n": int, "left": RemainingSteps})
    >>> managed_from_schema(State)
    {'left': <class 'graphkit.managed.RemainingStepsManager'>}
    """
    if is_root_schema(schema):
        return {}
    hints = _type_hints(schema).items()
    managed = {name: managed_value_of(hint) for name, hint in hints}
    return {name: manager for name, manager in managed.items() if manager is not None}


def different_kinds(known: Channel, declared: Channel) -> bool:
    """Whether two schemas' channels for one key disagree, by LangGraph's rule: another
    class, another reducer (any lambda matches any reducer: they cannot be told apart),
    another ``snapshot_frequency`` of a ``DeltaChannel``, or another configuration (a
    Topic's ``accumulate``, a guard); the value type aside."""
    if type(known) is not type(declared):
        return True
    frequencies = (getattr(channel, "snapshot_frequency", None) for channel in (known, declared))
    if len(set(frequencies)) > 1:  # (two DeltaChannels differ by it too, in LangGraph)
        return True
    if isinstance(known, BinaryOperatorAggregate):
        operators = (known.operator, declared.operator)  # type: ignore[attr-defined]
        lambdas = any(getattr(op, "__name__", "") == "<lambda>" for op in operators)
        return not lambdas and operators[0] is not operators[1]
    return known._config()[1:] != declared._config()[1:]


def _unwrap_required(hint: Any) -> Any:
    """``T`` for ``Required[T]`` and ``NotRequired[T]``."""
    return hint.__args__[0] if get_origin(hint) in (Required, NotRequired) else hint


def is_class_schema(schema: Any) -> bool:
    """True for schemas whose nodes receive an instance (dataclass, pydantic model)."""
    return inspect.isclass(schema) and (
        dataclasses.is_dataclass(schema) or hasattr(schema, "model_fields")
    )


def coerce_to_schema(schema: Any) -> Callable[[dict[str, Any]], Any] | None:
    """The function turning a state dict into what a node receives; None for a dict."""
    if not is_class_schema(schema):
        return None
    return lambda values: schema(**values)


def _type_hints(schema: Any) -> dict[str, Any]:
    """A schema's fields and their annotations (``T`` for ``Required[T]``); a single-value
    schema's one "field" is ``ROOT``."""
    if is_root_schema(schema):
        return {ROOT: schema}
    if not hasattr(schema, "__annotations__") and not inspect.isclass(schema):
        raise TypeError(diagnose.schema_without_fields(schema))
    try:
        hints = get_type_hints(schema, include_extras=True)
    except NameError as error:
        raise NameError(diagnose.unresolved_annotations(schema, error)) from error
    hints.pop("__slots__", None)
    if not hints:
        raise TypeError(diagnose.schema_without_annotated_fields(schema))
    fields = getattr(schema, "model_fields", hints)  # pydantic: keep only real fields
    return {key: _unwrap_required(hint) for key, hint in hints.items() if key in fields}


def _channel_for(name: str, hint: Any) -> Channel:
    """The channel of one field: the one annotated, a reducer's, or a LastValue."""
    if get_origin(hint) is Annotated:
        value_type = hint.__origin__
        for item in hint.__metadata__:
            diagnose.refuse_langgraph_channel(f"State key {name!r} is annotated with", item)
            if isinstance(item, DeltaChannel):  # (its value type is the field's, as LangGraph's)
                item = item.of_type(_unwrap_required(value_type))
            if isinstance(item, Channel):
                channel = item.empty_copy()
                channel.key = name
                return channel
            if inspect.isclass(item) and issubclass(item, Channel):
                return item(value_type, key=name)
        reducer = hint.__metadata__[-1]
        if callable(reducer):
            diagnose.check_reducer(name, reducer)
            return BinaryOperatorAggregate(value_type, reducer, key=name)
    return LastValue(hint, key=name)
