"""What graphkit says about a ``config`` parameter where LangGraph reads its type.

LangGraph 1.2 passes the run's config to a node's or a router's ``config`` parameter only
when the parameter is not typed or its annotation is, as written, ``RunnableConfig`` (from
langchain_core) or ``Optional`` of it, or one of those two names as a string; to a
``config: dict`` it passes nothing: it warns, and the function then fails with
``TypeError`` for the missing argument (or gets the parameter's default). It reads the
signature of whatever it calls: a function, a method, a ``functools.partial``, an
object's ``__call__``; a Runnable is called by its ``invoke`` and given the config.
graphkit passes the config whatever the type (see docs/compatibility.md), and warns when
the graph is built that the same graph would fail on LangGraph.

>>> def respond(state, config: dict): ...
>>> print(config_type_warning("Node 'respond'", respond))  # doctest: +ELLIPSIS
Node 'respond': its `config` parameter is typed dict; ... `config: RunnableConfig` ...
>>> def plain(state, config): ...
>>> config_type_warning("Node 'plain'", plain) is None
True
"""

from __future__ import annotations

import functools
import inspect
import sys
from pathlib import Path
from typing import Any, Optional

from graphkit.errors import warn

_PACKAGE = str(Path(__file__).resolve().parents[1])
"""graphkit's own folder: its functions (the prebuilt nodes) are not the user's."""

_NAMES = ("RunnableConfig", "Optional[RunnableConfig]")
"""The string annotations LangGraph takes, compared as written."""

_KINDS = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
"""The parameter kinds LangGraph looks at (it ignores a positional-only ``config``)."""


def _is_runnable_config(annotation: Any) -> bool:
    """Whether LangGraph takes ``annotation`` for a config parameter's type: it compares
    the annotation itself, so a string is taken only as one of two spellings."""
    if annotation is inspect.Parameter.empty:
        return True
    if isinstance(annotation, str):
        return annotation in _NAMES
    # (not imported here: an annotation that is langchain_core's type has imported it)
    module = sys.modules.get("langchain_core.runnables.config")
    config = getattr(module, "RunnableConfig", None)
    # (== as LangGraph's `in`: Optional[X], X | None and Union[None, X] are equal)
    return config is not None and (annotation == config or annotation == Optional[config])  # noqa: UP045


def _code(action: Any) -> Any:
    """The code LangGraph would call for ``action``, None for what it calls by ``invoke``
    (a Runnable, a compiled graph), a class, or a builtin."""
    if inspect.isclass(action) or callable(getattr(action, "invoke", None)):
        return None
    while isinstance(action, functools.partial):
        action = action.func
    if not (inspect.isfunction(action) or inspect.ismethod(action)):
        action = getattr(type(action), "__call__", None)  # noqa: B004 (its method, not a test)
    return getattr(inspect.unwrap(action), "__code__", None) if action is not None else None


def config_type_warning(what: str, action: Any) -> str | None:
    """The warning for a function (``what`` names it: "Node 'respond'") whose ``config``
    parameter LangGraph would leave empty, or None."""
    code = _code(action)
    if code is None or code.co_filename.startswith(_PACKAGE):
        return None
    try:
        parameter = inspect.signature(action).parameters.get("config")
    except (TypeError, ValueError):
        return None
    if parameter is None or parameter.kind not in _KINDS:
        return None
    annotation = parameter.annotation
    if _is_runnable_config(annotation):
        return None
    if isinstance(annotation, str) and "RunnableConfig" in annotation:
        typed = (
            f"annotated with the string {annotation!r} (`from __future__ import annotations` "
            "makes every annotation a string); LangGraph compares such a string as written "
            "and takes only 'RunnableConfig' and 'Optional[RunnableConfig]'"
        )
    else:
        shown = annotation if isinstance(annotation, str) else None
        shown = shown or getattr(annotation, "__name__", None) or repr(annotation)
        if shown == "RunnableConfig":  # a type of that name, not langchain_core's
            shown = f"{annotation.__module__}.{annotation.__qualname__}"
        typed = (
            f"typed {shown}; LangGraph passes the run's config only to a parameter typed "
            "RunnableConfig (or Optional of it) or not typed"
        )
    missing = (
        f"get its default, {parameter.default!r}"
        if parameter.default is not inspect.Parameter.empty
        else "fail with TypeError"
    )
    return (
        f"{what}: its `config` parameter is {typed}, so on LangGraph it would be called "
        f"without it and {missing}. graphkit passes it. Type it `config: RunnableConfig` "
        "(from langchain_core.runnables import RunnableConfig)."
    )


def warn_config_type(what: str, action: Any) -> None:
    """Warn, where the graph is built, about a ``config`` parameter LangGraph would leave
    empty."""
    if said := config_type_warning(what, action):
        warn(said)
