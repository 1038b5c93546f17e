"""From a state schema (TypedDict, dataclass, pydantic model) to channels.

Each field becomes one channel: ``Annotated[T, reducer]`` a BinaryOperatorAggregate,
``Annotated[T, SomeChannel]`` (class or instance) that channel, a plain field a
LastValue — the same mapping LangGraph uses.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Annotated, Any, NotRequired, Required, get_origin, get_type_hints

from graphkit.channels import BinaryOperatorAggregate, Channel, LastValue
from graphkit.managed import ManagedValue, managed_value_of

__all__ = [
    "channels_from_schema",
    "coerce_to_schema",
    "is_class_schema",
    "managed_from_schema",
    "schema_keys",
]


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
    """
    return {
        name: _channel_for(name, hint)
        for name, hint in _type_hints(schema).items()
        if managed_value_of(_unwrap_required(hint)) is None
    }


def managed_from_schema(schema: Any) -> dict[str, type[ManagedValue]]:
    """The managed values (``RemainingSteps``, ``IsLastStep``) a schema declares.

    >>> from typing import TypedDict
    >>> from graphkit.managed import RemainingSteps
    >>> State = TypedDict("State", {"n": int, "left": RemainingSteps})
    >>> managed_from_schema(State)
    {'left': <class 'graphkit.managed.RemainingStepsManager'>}
    """
    hints = _type_hints(schema).items()
    managed = {name: managed_value_of(_unwrap_required(hint)) for name, hint in hints}
    return {name: manager for name, manager in managed.items() if manager is not None}


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
    """A schema's fields and their annotations, refusing a schema without fields."""
    if not hasattr(schema, "__annotations__") and not inspect.isclass(schema):
        raise TypeError(
            f"State schema {schema!r} has no fields. Use a TypedDict, a dataclass or a "
            "pydantic model whose annotated fields are the state keys."
        )
    try:
        hints = get_type_hints(schema, include_extras=True)
    except NameError as error:
        raise TypeError(
            f"Cannot resolve the annotations of state schema {schema.__name__}: {error}. "
            "Define every type the schema names before building the graph."
        ) from error
    hints.pop("__slots__", None)
    if not hints:
        raise NotImplementedError(
            f"State schema {schema!r} has no annotated fields. graphkit supports "
            "TypedDict, dataclass and pydantic schemas; a single-value ('root') state "
            "is not supported yet."
        )
    if hasattr(schema, "model_fields"):  # pydantic: keep only real fields
        hints = {key: value for key, value in hints.items() if key in schema.model_fields}
    return hints


def _channel_for(name: str, hint: Any) -> Channel:
    """The channel of one field: the one annotated, a reducer's, or a LastValue."""
    hint = _unwrap_required(hint)
    if get_origin(hint) is Annotated:
        value_type = hint.__origin__
        for item in hint.__metadata__:
            if isinstance(item, Channel):
                channel = item.empty_copy()
                channel.key = name
                return channel
            if inspect.isclass(item) and issubclass(item, Channel):
                return item(value_type, key=name)
        reducer = hint.__metadata__[-1]
        if callable(reducer):
            _check_reducer(name, reducer)
            return BinaryOperatorAggregate(value_type, reducer, key=name)
    return LastValue(hint, key=name)


def _check_reducer(name: str, reducer: Callable[..., Any]) -> None:
    """Refuse a reducer that does not take (current, update)."""
    try:
        parameters = inspect.signature(reducer).parameters.values()
    except (TypeError, ValueError):  # builtins without a signature, e.g. operator.add
        return
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) != 2:
        raise ValueError(
            f"The reducer of state key {name!r} must take two arguments (current, update) "
            f"and return the new value; {getattr(reducer, '__name__', reducer)!r} takes "
            f"{len(positional)}."
        )
