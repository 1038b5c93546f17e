"""A compiled graph's input and output types as LangChain reads them: ``InputType`` /
``OutputType``, the pydantic models ``get_input_schema()`` / ``get_output_schema()``
(also as ``input_schema`` / ``output_schema``) and ``config_specs``. LangServe's
``add_routes``, a ``RunnableSequence`` that starts with the graph, ``as_tool`` and
schema readers validate input and output with these models.

They follow LangGraph's rules: a pydantic model given as the input schema is the input
model itself; any other input type (a ``TypedDict``, a dataclass, a single value) is
wrapped in a ``RootModel`` named by the graph (``LangGraphInput``). The output model of a
graph that returns a dict has one optional field per output key, typed by its channel
(``LangGraphOutput``); a graph that returns one value wraps that value's type. (The JSON
schemas, ``get_input_jsonschema()`` and friends, are ``graphkit.pregel.runnable``'s.)"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Sequence
from types import GenericAlias
from typing import Any

from graphkit.constants import ROOT

__all__ = ["RunnableSchemas"]


class RunnableSchemas:
    """Mixed into ``CompiledGraph``: what these need is its ``builder``, ``channels``,
    ``input_channels``, ``output_channels`` and ``get_name``."""

    builder: Any
    channels: dict[str, Any]
    input_channels: Any
    output_channels: Any
    get_name: Any

    @property
    def InputType(self) -> Any:  # (LangChain's name)
        """What the graph takes: a StateGraph's input schema, else the type of a low-level
        graph's one input channel (None when it takes several).

        >>> from typing import TypedDict
        >>> from graphkit import StateGraph, START
        >>> class State(TypedDict):
        ...     n: int
        >>> builder = StateGraph(State).add_node("a", lambda s: {})
        >>> app = builder.add_edge(START, "a").compile()
        >>> app.InputType.__name__, app.OutputType
        ('State', None)
        """
        declared = getattr(self.builder, "input_schema", None)
        if declared is not None:
            return declared
        return _channel_type(self, self.input_channels, "UpdateType")

    @property
    def OutputType(self) -> Any:  # (LangChain's name)
        """What ``invoke`` returns when that is one value (a single-value state's type, the
        type of a low-level graph's one output channel); None when it returns a dict."""
        if self.output_channels == ROOT and hasattr(self.builder, "state_schema"):
            return self.builder.state_schema  # (as declared: Annotated[list, add] stays so)
        return _channel_type(self, self.output_channels, "ValueType")

    @property
    def config_specs(self) -> list[Any]:
        """The configurable fields LangChain offers for the graph: none, as in LangGraph
        (a graph's options are its ``context_schema``)."""
        return []

    def get_input_schema(self, config: Any = None) -> type:
        """A pydantic model that validates the graph's input (needs pydantic): the input
        schema itself when it is a pydantic model, else a ``RootModel`` of the input
        type named ``<name>Input``, as LangGraph's.

        >>> from graphkit import StateGraph, START
        >>> builder = StateGraph(int).add_node("a", lambda n: n + 1)
        >>> app = builder.add_edge(START, "a").compile()
        >>> model = app.get_input_schema()
        >>> model.__name__, model.model_validate(3).root
        ('LangGraphInput', 3)
        """
        typ = self.InputType
        if typ is not None or isinstance(self.input_channels, str):
            return _root_model(self.get_name("Input"), typ)
        keys = self.input_channels or list(self.channels)
        return _fields_model(self.get_name("Input"), self, keys, "UpdateType")

    def get_output_schema(self, config: Any = None) -> type:
        """A pydantic model of what ``invoke`` returns (needs pydantic): for a dict, one
        optional field per output key, typed by its channel, named ``<name>Output``.

        >>> from typing import TypedDict
        >>> from graphkit import StateGraph, START
        >>> class State(TypedDict):
        ...     n: int
        >>> builder = StateGraph(State).add_node("a", lambda s: {})
        >>> app = builder.add_edge(START, "a").compile()
        >>> app.get_output_schema().model_validate({"n": 1})
        LangGraphOutput(n=1)
        """
        if isinstance(self.output_channels, str):
            return _root_model(self.get_name("Output"), self.OutputType)
        return _fields_model(self.get_name("Output"), self, self.output_channels, "ValueType")

    @property
    def input_schema(self) -> type:
        """``get_input_schema()``."""
        return self.get_input_schema()

    @property
    def output_schema(self) -> type:
        """``get_output_schema()``."""
        return self.get_output_schema()


def _channel_type(app: Any, channel: Any, which: str) -> Any:
    """The ``ValueType`` / ``UpdateType`` of the one channel named, else None."""
    found = app.channels.get(channel) if isinstance(channel, str) else None
    return getattr(found, which, None)


def _root_model(name: str, typ: Any) -> type:
    if inspect.isclass(typ) and not isinstance(typ, GenericAlias) and _is_model(typ):
        return typ
    return _cached(_cached_root_model, name, typ)


def _fields_model(name: str, app: Any, keys: Sequence[str], which: str) -> type:
    fields = tuple(
        (key, getattr(app.channels[key], which))
        for key in keys
        if hasattr(app.channels.get(key), which)
    )
    return _cached(_cached_fields_model, name, fields)


def _cached(make: Any, *args: Any) -> type:
    """``make(*args)`` from its cache, or made each time for a type that cannot be hashed."""
    try:
        return make(*args)
    except TypeError:
        return make.__wrapped__(*args)


@functools.lru_cache(maxsize=256)
def _cached_root_model(name: str, typ: Any) -> type:
    """A ``RootModel`` of ``typ`` named ``name`` (one per name and type, as LangChain
    keeps one, so ``app.input_schema is app.input_schema``)."""
    pydantic = _pydantic()
    return type(name, (pydantic.RootModel[typ],), {"__module__": __name__})


@functools.lru_cache(maxsize=256)
def _cached_fields_model(name: str, fields: tuple[tuple[str, Any], ...]) -> type:
    """A model named ``name`` with an optional field (default None) per ``(key, type)``."""
    pydantic = _pydantic()
    definitions: dict[str, Any] = {key: (typ, None) for key, typ in fields}
    return pydantic.create_model(name, __module__=__name__, **definitions)


def _is_model(typ: type) -> bool:
    return issubclass(typ, _pydantic().BaseModel)


def _pydantic() -> Any:
    from graphkit.extras import require

    return require("pydantic", extra="agents", feature="a graph's input and output schemas")
