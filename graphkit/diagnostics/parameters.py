"""What graphkit says about a node's ``config`` parameter where LangGraph reads its type.

LangGraph 1.2 passes the run's config to a node's ``config`` parameter only when the
parameter is not typed or is typed ``RunnableConfig`` (or ``Optional`` of it, or either
written as a string); to a ``config: dict`` it passes nothing: it warns, and the node
then fails with ``TypeError`` for the missing argument. graphkit passes the config
whatever the type (see docs/compatibility.md), and warns when the graph is built that the
same node would fail on LangGraph.

>>> def respond(state, config: dict): ...
>>> print(config_type_warning("respond", respond))  # doctest: +ELLIPSIS
Node 'respond': its `config` parameter is typed dict; ... `config: RunnableConfig` ...
>>> def plain(state, config): ...
>>> config_type_warning("plain", plain) is None
True
"""

from __future__ import annotations

import inspect
import types
import typing
from pathlib import Path
from typing import Any

from graphkit.errors import warn

_PACKAGE = str(Path(__file__).resolve().parents[1])
"""graphkit's own folder: its functions (the prebuilt nodes) are not the user's."""

_NAMES = ("RunnableConfig", "Optional[RunnableConfig]")


def _is_runnable_config(annotation: Any) -> bool:
    """Whether LangGraph takes ``annotation`` for a config parameter's type."""
    if annotation is inspect.Parameter.empty:
        return True
    if isinstance(annotation, str):
        return annotation in _NAMES
    if getattr(annotation, "__name__", None) == "RunnableConfig":
        return True
    args = typing.get_args(annotation)
    union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
    return union and len(args) == 2 and type(None) in args and any(map(_is_runnable_config, args))


def config_type_warning(node: str, action: Any) -> str | None:
    """The warning for a node function whose ``config`` parameter LangGraph would leave
    empty, or None."""
    function = action if inspect.isfunction(action) or inspect.ismethod(action) else None
    code = getattr(inspect.unwrap(function), "__code__", None) if function is not None else None
    if code is None or code.co_filename.startswith(_PACKAGE):
        return None
    try:
        parameter = inspect.signature(function).parameters.get("config")
    except (TypeError, ValueError):
        return None
    if parameter is None or _is_runnable_config(parameter.annotation):
        return None
    annotation = parameter.annotation
    shown = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", None)
    return (
        f"Node {node!r}: its `config` parameter is typed {shown or repr(annotation)}; LangGraph "
        "passes the run's config only to a parameter typed RunnableConfig (or not typed), "
        f"so on LangGraph {node!r} would be called without it and fail with TypeError. "
        "graphkit passes it. Type it `config: RunnableConfig` (from "
        "langchain_core.runnables import RunnableConfig)."
    )


def warn_config_type(node: str, action: Any) -> None:
    """Warn, at ``add_node``, about a ``config`` parameter LangGraph would leave empty."""
    if said := config_type_warning(node, action):
        warn(said)
