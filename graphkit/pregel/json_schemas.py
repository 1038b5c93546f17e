"""A compiled graph's JSON schemas, as LangGraph makes them (with pydantic):
``get_input_jsonschema()``, ``get_output_jsonschema()`` and
``get_context_jsonschema()`` read the graph's schemas here, a dataclass, a single-value
state or a graph without a state schema each in LangGraph's shape."""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from graphkit.constants import ROOT
from graphkit.graph.schema import is_root_schema

__all__: list[str] = []  # (private to RunnableMethods)


def _json_schema(app: Any, which: str) -> dict[str, Any]:
    side = which.split("_")[0]
    schema = getattr(app.builder, which, None)
    if dataclasses.is_dataclass(schema):
        return _dataclass_json_schema(app, schema, side)
    if schema is not None and is_root_schema(schema):
        return _root_json_schema(app, side)
    if schema is not None:
        return _type_json_schema(schema, f"get_{side}_jsonschema()")
    # a graph without a state schema (a low-level Pregel, an entrypoint): as LangGraph,
    # the type of its one input (output) channel, titled by the graph's name
    channel = getattr(app, f"{side}_channels", None)
    typ = getattr(app.channels.get(channel), "typ", None) if isinstance(channel, str) else None
    if typ is None:
        raise NotImplementedError(
            f"get_{side}_jsonschema() is not supported by graphkit yet for a graph without "
            f"a state schema whose {side} is not one typed channel (a low-level Pregel "
            f"with {side}_channels as a list)."
        )
    from graphkit.extras import require

    require("pydantic", extra="agents", feature=f"get_{side}_jsonschema()")
    from pydantic import RootModel

    title = app.get_name(side.capitalize())
    return type(title, (RootModel[typ],), {"__module__": __name__}).model_json_schema()


def _root_json_schema(app: Any, side: str) -> dict[str, Any]:
    """A single-value state's schema as LangGraph makes it: its one value, what the
    channel takes, titled by the graph's name (``LangGraphInput``), defaulting to None."""
    from graphkit.extras import require

    require("pydantic", extra="agents", feature=f"get_{side}_jsonschema()")
    from pydantic import RootModel, create_model

    typ = app.channels[ROOT].UpdateType
    title = app.get_name(side.capitalize())
    model = create_model(title, __base__=RootModel[typ], __module__=__name__, root=(typ, None))
    return model.model_json_schema()


def _dataclass_json_schema(app: Any, schema: Any, side: str) -> dict[str, Any]:
    """A dataclass state's schema as LangGraph makes it: a model titled by the graph's
    name (``LangGraphInput``) with a field per state key, typed by what its channel takes;
    a field's default is the dataclass's (a factory's value), else None for an optional
    type, else the field is required."""
    from graphkit.extras import require

    require("pydantic", extra="agents", feature=f"get_{side}_jsonschema()")
    from pydantic import create_model

    declared = {field.name: field for field in dataclasses.fields(schema)}
    fields = {}
    for key in app.builder.schemas[schema]:
        channel = app.channels.get(key)
        if channel is not None and hasattr(channel, "UpdateType"):
            typ = channel.UpdateType
            fields[key] = (typ, _field_default(declared.get(key), typ))
    title = app.get_name(side.capitalize())
    return create_model(title, __module__=__name__, **fields).model_json_schema()


def _field_default(field: Any, typ: Any) -> Any:
    if field is not None and field.default is not dataclasses.MISSING and field.default is not ...:
        return field.default
    if field is not None and field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    while typing.get_origin(typ) is typing.Annotated:
        typ = typ.__origin__
    optional = type(None) in typing.get_args(typ) or typ in (None, type(None))
    return None if optional else ...


def _type_json_schema(schema: Any, feature: str) -> dict[str, Any]:
    from graphkit.extras import require

    require("pydantic", extra="agents", feature=feature)
    from pydantic import TypeAdapter

    return TypeAdapter(schema).json_schema()
