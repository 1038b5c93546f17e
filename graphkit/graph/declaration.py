"""What the builder records: a node's declaration and a conditional edge, with the
options it reads off the user's functions (name, input schema, Command destinations)."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

from graphkit.diagnostics import building as diagnose
from graphkit.types import CachePolicy, Command, RetryPolicy, TimeoutPolicy

__all__ = [
    "DEFAULT_ERROR_HANDLER",
    "ERROR_HANDLER_PREFIX",
    "Branch",
    "NodeDeclaration",
    "command_destinations",
    "infer_name",
    "input_schema_of",
    "named_action",
]


ERROR_HANDLER_PREFIX = "__error_handler__"
"""``add_node(name, ..., error_handler=h)`` declares ``h`` as node ``__error_handler__<name>``."""

DEFAULT_ERROR_HANDLER = "__default_error_handler__"
"""The node ``set_node_defaults(error_handler=h)`` declares at ``compile()`` (LangGraph's)."""


@dataclass(frozen=True, slots=True)
class NodeDeclaration:
    """A node as declared: its action and options, before compilation."""

    name: str
    action: Any
    input_schema: Any
    metadata: Mapping[str, Any] = field(default_factory=dict)
    destinations: tuple[str, ...] | Mapping[str, str] | None = None
    defer: bool = False
    retry_policies: tuple[RetryPolicy, ...] | None = None
    """None when ``add_node`` named none (``set_node_defaults`` then gives the graph's)."""
    cache_policy: CachePolicy | None = None
    """None when ``add_node`` named none (``set_node_defaults`` then gives the graph's)."""
    timeout: TimeoutPolicy | None = None
    """None when ``add_node`` named none (``set_node_defaults`` then gives the graph's)."""
    error_handler: str | None = None
    """The name of the node that handles this one's failures (``add_node(...,
    error_handler=...)`` declares it as ``__error_handler__<name>``)."""
    is_error_handler: bool = False
    """This node is an error handler: nothing wakes it, a failure starts it."""


@dataclass(frozen=True, slots=True)
class Branch:
    """A conditional edge: ``path(state)`` returns the next node(s) or path_map key(s).
    ``input_schema``: the schema class annotating the router's first parameter, if any
    (the router then reads that schema's keys instead of its source node's)."""

    source: str
    path: Callable[..., Any]
    path_map: Mapping[Hashable, str] | None
    name: str
    input_schema: Any = None
    map_source: str = "path_map"
    """Where the path_map came from, as error messages name it: ``path_map``, or the
    router's ``-> Literal[...]`` return annotation."""
    runnable: bool = False
    """Whether ``path`` is a LangChain Runnable's ``invoke``: the Runnable makes its own
    trace run, which LangGraph wraps in none."""

    def targets(self) -> list[str] | None:
        """The nodes this branch can route to, or None when any node can be chosen."""
        return list(dict.fromkeys(self.path_map.values())) if self.path_map else None


def infer_name(action: Any) -> str:
    """A node's default name: the action's ``name`` or ``__name__``, else its class's; a
    LangChain Runnable's ``get_name()``, as LangGraph names it (a ``with_retry()`` or
    ``bind(...)`` is named after what it wraps, a ``RunnableParallel`` after its keys)."""
    runnables = sys.modules.get("langchain_core.runnables.base")
    if runnables is not None and isinstance(action, runnables.Runnable):
        return action.get_name()
    name = getattr(action, "name", None) or getattr(action, "__name__", None)
    if not isinstance(name, str) or not name:
        name = type(action).__name__
    if name == "<lambda>":
        raise ValueError("A lambda has no usable name: pass one, add_node('name', lambda s: ...).")
    return name


def named_action(node: Any, action: Any) -> tuple[str, Any]:
    """The name and action ``add_node(node, action)`` declares; ``add_node(f)`` is named ``f``.

    ``add_node(f, "f")``, the name after the action, is accepted when it is the action's
    own name: LangGraph's SQL-agent tutorial writes ``add_node(tool_node, "get_schema")``
    (LangGraph takes the name from the action and ignores the string, so they agree)."""
    if not isinstance(node, str) and (action is None or _is_own_name(action, node)):
        action, node = node, infer_name(node)
    if isinstance(node, str) and isinstance(action, dict):
        action = _runnable_parallel(node, action)
    diagnose.check_action(node, action)
    return node, action


def _runnable_parallel(node: str, steps: dict[str, Any]) -> Any:
    """A dict given as a node's action, as LangGraph takes it: LangChain's
    ``RunnableParallel``, which runs each value on the state and returns their results
    under its keys (``{"messages": pick | model}``)."""
    try:
        from langchain_core.runnables import RunnableParallel
    except ImportError:
        raise TypeError(
            f"Node {node!r}: a dict as a node is LangChain's RunnableParallel; install "
            "langchain-core, or give a function returning the dict of updates."
        ) from None
    return RunnableParallel(steps)


def _is_own_name(name: Any, action: Any) -> bool:
    """Whether ``name`` is the name ``action`` would be given anyway (never for a lambda)."""
    try:
        return isinstance(name, str) and name == infer_name(action)
    except ValueError:
        return False


def input_schema_of(action: Any) -> Any:
    """The schema class annotating the first parameter of a node or a router, as in
    LangGraph, or None."""
    function = action
    if not (inspect.isfunction(action) or inspect.ismethod(action)):
        function = getattr(action, "__call__", None)  # noqa: B004
        if not inspect.ismethod(function):
            return None
    try:
        hint = get_type_hints(function).get(next(iter(inspect.signature(function).parameters)))
        return hint if isinstance(hint, type) and get_type_hints(hint) else None
    except (NameError, TypeError, ValueError, StopIteration):
        return None


def _return_hint(function: Any) -> Any:
    """A function's (or method's) return annotation, resolved; None when it has none,
    is not a function, or the annotation cannot be resolved."""
    if not (inspect.isfunction(function) or inspect.ismethod(function)):
        return None
    try:
        return get_type_hints(function).get("return")
    except (NameError, TypeError):
        return None


def literal_path_map(path: Any) -> dict[Any, str] | None:
    """A router's ``-> Literal["a", "b"]`` return annotation as its path_map (exactly a
    Literal: not in a union or a list), as LangGraph reads it; None without one."""
    function = path
    runnables = sys.modules.get("langchain_core.runnables")
    if runnables is not None and isinstance(path, runnables.RunnableLambda):
        function = path.func or path.afunc  # (LangGraph reads the function it wraps)
    returns = _return_hint(function)
    if get_origin(returns) is not Literal:
        return None
    return {name: name for name in get_args(returns)}


def command_destinations(action: Any) -> tuple[str, ...] | None:
    """The nodes a ``-> Command[Literal["a", "b"]]`` return annotation names, if any: a
    function's, or a callable object's ``__call__``'s (LangGraph reads that too)."""
    call = getattr(action, "__call__", None)  # noqa: B004 (the method, not whether it is callable)
    returns = _return_hint(action) or (_return_hint(call) if inspect.ismethod(call) else None)
    candidates = get_args(returns) if get_origin(returns) in (Union, UnionType) else (returns,)
    for candidate in candidates:
        arguments = get_args(candidate)
        if get_origin(candidate) is Command and arguments and get_origin(arguments[0]) is Literal:
            return tuple(get_args(arguments[0]))
    return None
