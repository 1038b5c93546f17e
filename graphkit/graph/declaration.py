"""What the builder records: a node's declaration and a conditional edge, with the
options it reads off the user's functions (name, input schema, Command destinations)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

from graphkit.types import Command, RetryPolicy

__all__ = [
    "Branch",
    "NodeDeclaration",
    "command_destinations",
    "infer_name",
    "input_schema_of",
    "named_action",
    "retry_policies",
]


@dataclass(frozen=True, slots=True)
class NodeDeclaration:
    """A node as declared: its action and options, before compilation."""

    name: str
    action: Any
    input_schema: Any
    metadata: Mapping[str, Any] = field(default_factory=dict)
    destinations: tuple[str, ...] | Mapping[str, str] | None = None
    defer: bool = False
    retry_policies: tuple[RetryPolicy, ...] = ()


@dataclass(frozen=True, slots=True)
class Branch:
    """A conditional edge: ``path(state)`` returns one or more names (or path_map
    keys); the chosen nodes run in the next step."""

    source: str
    path: Callable[..., Any]
    path_map: Mapping[Hashable, str] | None
    name: str

    def targets(self) -> list[str] | None:
        """The nodes this branch can route to, or None when any node can be chosen."""
        return list(dict.fromkeys(self.path_map.values())) if self.path_map else None


def infer_name(action: Any) -> str:
    """A node's default name: the action's ``name`` or ``__name__``, else its class's."""
    name = getattr(action, "name", None) or getattr(action, "__name__", None)
    if not isinstance(name, str) or not name:
        name = type(action).__name__
    if name == "<lambda>":
        raise ValueError("A lambda has no usable name: pass one, add_node('name', lambda s: ...).")
    return name


def named_action(node: Any, action: Any) -> tuple[str, Any]:
    """The name and action ``add_node(node, action)`` declares: ``add_node(f)`` names
    the node after ``f``."""
    if not isinstance(node, str):
        if action is not None:
            raise TypeError(
                f"add_node({node!r}, ...): a node's name must be a string, got "
                f"{type(node).__name__}. Write add_node('name', function)."
            )
        action, node = node, infer_name(node)
    if action is None:
        raise ValueError(f"add_node({node!r}) needs an action: a function or a runnable.")
    if not callable(action) and not callable(getattr(action, "invoke", None)):
        raise TypeError(
            f"Node {node!r}: expected a function or an object with .invoke(), got "
            f"{type(action).__name__}."
        )
    return node, action


def input_schema_of(action: Any) -> Any:
    """The schema class annotating a node's first parameter, as in LangGraph, or None."""
    function = action if inspect.isfunction(action) or inspect.ismethod(action) else None
    if function is None:
        call = getattr(action, "__call__", None)  # noqa: B004
        function = call if inspect.ismethod(call) else None
    if function is None:
        return None
    try:
        hint = get_type_hints(function).get(next(iter(inspect.signature(function).parameters)))
        return hint if isinstance(hint, type) and get_type_hints(hint) else None
    except (NameError, TypeError, ValueError, StopIteration):
        return None


def command_destinations(action: Any) -> tuple[str, ...] | None:
    """The nodes a ``-> Command[Literal["a", "b"]]`` return annotation names, if any."""
    if not (inspect.isfunction(action) or inspect.ismethod(action)):
        return None
    try:
        returns = get_type_hints(action).get("return")
    except (NameError, TypeError):
        return None
    candidates = get_args(returns) if get_origin(returns) in (Union, UnionType) else (returns,)
    for candidate in candidates:
        arguments = get_args(candidate)
        if get_origin(candidate) is Command and arguments and get_origin(arguments[0]) is Literal:
            return tuple(get_args(arguments[0]))
    return None


def retry_policies(node: str, retry_policy: Any) -> tuple[RetryPolicy, ...]:
    """Validate ``add_node(retry_policy=...)``: one RetryPolicy or a sequence of them."""
    if retry_policy is None:
        return ()
    policies = (retry_policy,) if isinstance(retry_policy, RetryPolicy) else retry_policy
    if not isinstance(policies, (list, tuple)) or not all(
        isinstance(p, RetryPolicy) for p in policies
    ):
        raise TypeError(
            f"Node {node!r}: retry_policy must be a RetryPolicy or a list of them, got "
            f"{retry_policy!r}. Use e.g. RetryPolicy(max_attempts=3)."
        )
    for policy in policies:
        retry_on = policy.retry_on
        if isinstance(retry_on, (list, tuple)) and not retry_on:
            raise TypeError(f"Node {node!r}: RetryPolicy(retry_on=[]) retries nothing.")
        classes = retry_on if isinstance(retry_on, (list, tuple)) else (retry_on,)
        for item in classes:
            is_exception_class = isinstance(item, type) and issubclass(item, BaseException)
            is_predicate = callable(item) and not isinstance(item, type) and len(classes) == 1
            if not (is_exception_class or is_predicate):
                raise TypeError(
                    f"Node {node!r}: RetryPolicy(retry_on={retry_on!r}) must be an exception "
                    "class, a list of exception classes, or a function (error) -> bool, e.g. "
                    "RetryPolicy(retry_on=ConnectionError)."
                )
    return tuple(policies)
