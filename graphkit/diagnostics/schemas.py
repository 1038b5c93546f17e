"""What graphkit says about the state schemas: the classes whose fields are the keys.

Checked as ``StateGraph(...)`` reads its state, input and output schemas and makes a
channel per key (``graphkit.graph.schema``): a value where a class goes, a schema
without fields, a TypedDict's field given a value it never applies, a reducer that
does not take (current, update), a key two schemas declare differently, a key named
like one of the runtime's own channels.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, get_origin

from graphkit.diagnostics.names import shown


def check_schema(schema: Any, where: str, of_the_state: bool = False) -> None:
    """Refuse a value given where a schema class goes (a dict of values, a list of key
    names: LangGraph's TypeError too, "unhashable type"); ``where``: the call, with
    ``{}`` for the schema. A state schema that is no type is refused where its keys
    are read (``schema_without_fields``)."""
    try:
        hash(schema)
        is_type = inspect.isclass(schema) or hasattr(schema, "__annotations__")
        if of_the_state or is_type or get_origin(schema) is not None:
            return
    except TypeError:
        pass
    call = (where or "{}").format(shown(schema))
    if isinstance(schema, dict):
        types = all(isinstance(value, type) for value in schema.values())
        fields = {k: (v if types else type(v)).__name__ for k, v in schema.items()}
        declared = "{" + ", ".join(f"{key!r}: {kind}" for key, kind in fields.items()) + "}"
        raise TypeError(
            f"{call}: a schema is a class whose annotated fields are the keys, not a dict"
            f"{'' if types else ' of values'}. Declare one, e.g. State = TypedDict('State', "
            f"{declared}) (from typing import TypedDict), and pass State"
            f"{'.' if types else '; values go to invoke().'}"
        )
    if isinstance(schema, (list, tuple, set)) and all(isinstance(k, str) for k in schema):
        declared = "{" + ", ".join(f"{key!r}: str" for key in schema) + "}"
        raise TypeError(
            f"{call}: a schema is a class whose annotated fields are the keys, not a "
            f"{type(schema).__name__} of names. Declare one, e.g. State = TypedDict('State', "
            f"{declared}) (each key with its type), and pass State."
        )
    raise TypeError(
        f"{call}: a schema is a class (a TypedDict, a dataclass or a pydantic model) whose "
        f"annotated fields are the keys, got {type(schema).__name__} {schema!r}."
    )


def typed_dict_defaults(schema: Any, keys: tuple[str, ...], of_the_state: bool) -> list[str]:
    """A warning for each of ``keys`` a TypedDict ``schema`` gives a value in its body
    (``tries: int = 0``): a TypedDict keeps no defaults, so the state starts without the
    key, in LangGraph as here (langgraph#1662, #740), and the node that reads it first
    raises KeyError far from this line."""
    # (by shape: before Python 3.12 typing.is_typeddict misses typing_extensions')
    if not (inspect.isclass(schema) and issubclass(schema, dict)):
        return []
    if not hasattr(schema, "__required_keys__"):
        return []
    values = vars(schema)
    kind = "State schema" if of_the_state else "Schema"
    return [
        f"{kind} {schema.__name__!r} gives {key!r} a value (= {values[key]!r}), but a "
        f"TypedDict keeps no defaults: the state starts without {key!r}, as in LangGraph, "
        f"and a node that reads state[{key!r}] before anything wrote it raises KeyError. "
        "Give it in the input, or declare the schema as a dataclass or a pydantic model, "
        "whose defaults are used."
        for key in keys
        if key in values
    ]


def schema_without_fields(schema: Any) -> str:
    return (
        f"State schema {schema!r} has no fields. Use a TypedDict, a dataclass or a "
        "pydantic model whose annotated fields are the state keys, or a type for a "
        "single-value state, e.g. StateGraph(int) or StateGraph(Annotated[list, operator.add])."
    )


def unresolved_annotations(schema: Any, error: NameError) -> str:
    return (
        f"Cannot resolve the annotations of state schema {schema.__name__}: {error}. "
        "Define every type the schema names before building the graph, at module level: "
        "annotations written as strings (`from __future__ import annotations`) are looked "
        "up in the schema's module, where a type defined inside a function is not found."
    )


def schema_without_annotated_fields(schema: Any) -> str:
    return (
        f"State schema {schema!r} has no annotated fields, so its graph would have no "
        "state. Annotate the fields that are the state keys (e.g. `count: int`), or use "
        "a type for a single-value state, e.g. StateGraph(int)."
    )


def refuse_langgraph_channel(where: str, channel: Any) -> None:
    """Refuse LangGraph's own channel (an instance or a class): read as a plain field it
    would silently keep one value, and graphkit's runtime cannot run it.

    >>> class Topic: ...
    >>> Topic.__module__ = "langgraph.channels.topic"
    >>> refuse_langgraph_channel("State key 'log' is annotated with", Topic())
    Traceback (most recent call last):
    TypeError: State key 'log' is annotated with LangGraph's Topic (from langgraph.channels); graphkit runs its own channels. Import it from graphkit: from graphkit.channels import Topic.
    """  # noqa: E501
    kind = channel if isinstance(channel, type) else type(channel)
    if not kind.__module__.startswith("langgraph.channels."):
        return
    raise TypeError(
        f"{where} LangGraph's {kind.__name__} (from langgraph.channels); graphkit runs its "
        f"own channels. Import it from graphkit: from graphkit.channels import {kind.__name__}."
    )


def check_reducer(name: str, reducer: Callable[..., Any]) -> None:
    """Refuse a reducer that does not take (current, update)."""
    try:
        parameters = inspect.signature(reducer).parameters.values()
    except (TypeError, ValueError):  # (a builtin without one, such as max: LangGraph refuses it)
        shown = getattr(reducer, "__name__", repr(reducer))
        raise ValueError(
            f"The reducer of state key {name!r} is {shown!r}, whose arguments Python cannot "
            "read (it has no signature), and LangGraph refuses such a reducer when it builds "
            "the graph. Wrap it in a function of two arguments (current, update), e.g. "
            f"Annotated[..., lambda current, update: {shown}(current, update)]."
        ) from None
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) != 2:
        raise ValueError(
            f"The reducer of state key {name!r} must take two arguments (current, update) "
            f"and return the new value; {getattr(reducer, '__name__', reducer)!r} takes "
            f"{inspect.signature(reducer)}."
        )


def managed_in_io_schema(schema: Any, keys: list[str]) -> str:
    name = getattr(schema, "__name__", repr(schema))
    return (
        f"The input or output schema {name} declares managed values {keys}; they are "
        "computed for nodes, never given or returned: declare them in the state schema only."
    )


def channel_redeclared(schema: Any, key: str, known: Any, declared: Any) -> str:
    name = getattr(schema, "__name__", repr(schema))
    return (
        f"{name} declares {key!r} as {_kind(declared)}, but another schema of this graph "
        f"declared it as {_kind(known)}; a key has one reducer: annotate it the same way "
        "in every schema (or as a plain type, which keeps the first one)."
    )


def _kind(channel: Any) -> str:
    operator = getattr(channel, "operator", None)
    if operator is not None:
        kind = f"{type(channel).__name__} with reducer {getattr(operator, '__name__', operator)!r}"
        frequency = getattr(channel, "snapshot_frequency", None)  # (a DeltaChannel's)
        return kind if frequency is None else f"{kind} and snapshot_frequency={frequency}"
    return getattr(channel, "__name__", type(channel).__name__)


def state_key_is_internal(key: str) -> str:
    """A state key named like a channel the runtime makes for itself."""
    return (
        f"State key {key!r} has the name of a channel the runtime makes for itself (the "
        "input is '__start__', the edges into node X 'branch:to:X', a wait for several "
        "nodes 'join:...'). Rename the key."
    )
