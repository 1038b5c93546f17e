"""StateGraph: declare nodes, edges and conditional edges over a state schema."""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

from graphkit.channels import Channel
from graphkit.constants import END, RESERVED_CHARACTERS, START
from graphkit.errors import warn
from graphkit.graph.schema import channels_from_schema, managed_from_schema, schema_keys
from graphkit.managed import ManagedValue
from graphkit.types import RetryPolicy

__all__ = ["Branch", "NodeDeclaration", "StateGraph"]


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


class StateGraph:
    """A graph whose nodes read and update a shared state, as in LangGraph.

    Each field of ``state_schema`` becomes a channel: a plain field keeps the last
    value written, ``Annotated[T, reducer]`` combines writes with the reducer.
    LangGraph's old argument names (``input=``, ``output=``, ``config_schema=``) work
    too, with a DeprecationWarning, as in LangGraph.

    >>> import operator
    >>> from typing import Annotated, TypedDict
    >>> from graphkit import StateGraph, START, END
    >>> State = TypedDict("State", {"steps": Annotated[list[str], operator.add]})
    >>> builder = StateGraph(State)
    >>> builder = builder.add_sequence([
    ...     ("plan", lambda s: {"steps": ["plan"]}),
    ...     ("act", lambda s: {"steps": ["act"]}),
    ... ])
    >>> builder = builder.add_edge(START, "plan")
    >>> builder.compile().invoke({"steps": []})
    {'steps': ['plan', 'act']}
    """

    def __init__(
        self,
        state_schema: Any,
        context_schema: Any = None,
        *,
        input_schema: Any = None,
        output_schema: Any = None,
        **deprecated: Any,
    ) -> None:
        old = _renamed_arguments(deprecated)
        context_schema = context_schema or old.get("context_schema")
        input_schema = input_schema or old.get("input_schema")
        output_schema = output_schema or old.get("output_schema")
        self.state_schema = state_schema
        self.context_schema = context_schema
        self.input_schema = input_schema or state_schema
        self.output_schema = output_schema or state_schema
        self.channels: dict[str, Channel] = {}
        self.managed: dict[str, type[ManagedValue]] = {}
        self.schemas: dict[Any, tuple[str, ...]] = {}
        self.nodes: dict[str, NodeDeclaration] = {}
        self.edges: set[tuple[str, str]] = set()
        self.waiting_edges: set[tuple[tuple[str, ...], str]] = set()
        self.branches: dict[str, dict[str, Branch]] = {}
        self.compiled = False
        for schema in (state_schema, self.input_schema, self.output_schema):
            self._add_schema(schema)

    def _add_schema(self, schema: Any) -> None:
        if schema in self.schemas:
            return
        channels = channels_from_schema(schema)
        managed = managed_from_schema(schema)
        self.schemas[schema] = schema_keys(schema)
        for key, channel in channels.items():
            self.channels.setdefault(key, channel)
        for key, manager in managed.items():
            self.managed.setdefault(key, manager)

    # -- nodes ----------------------------------------------------------------------------

    def add_node(
        self,
        node: str | Callable[..., Any] | Any,
        action: Callable[..., Any] | Any = None,
        *,
        defer: bool = False,
        metadata: Mapping[str, Any] | None = None,
        input_schema: Any = None,
        retry_policy: Any = None,
        cache_policy: Any = None,
        destinations: Sequence[str] | Mapping[str, str] | None = None,
        **kwargs: Any,
    ) -> StateGraph:
        """Add a node: a function ``(state) -> update`` (or ``(state, config)``), or an
        object with ``.invoke``. The name defaults to the function's ``__name__``."""
        for option, value in (("cache_policy", cache_policy), *kwargs.items()):
            if value:
                raise NotImplementedError(
                    f"add_node(..., {option}=...) is not supported by graphkit yet."
                )
        if not isinstance(node, str) and action is not None:
            raise TypeError(
                f"add_node({node!r}, ...): a node's name must be a string, got "
                f"{type(node).__name__}. Write add_node('name', function)."
            )
        if not isinstance(node, str):
            action, node = node, _infer_name(node)
        if action is None:
            raise ValueError(f"add_node({node!r}) needs an action: a function or a runnable.")
        if not callable(action) and not callable(getattr(action, "invoke", None)):
            raise TypeError(
                f"Node {node!r}: expected a function or an object with .invoke(), got "
                f"{type(action).__name__}."
            )
        self._check_node_name(node)
        policies = _retry_policies(node, retry_policy)
        if self.compiled:
            warn(
                f"Node {node!r} was added after compile(); the compiled graph does not "
                "have it. Call compile() again."
            )
        schema = input_schema or _inferred_input_schema(action) or self.state_schema
        self._add_schema(schema)
        if destinations is None:
            destinations = _command_destinations(action)
        elif not isinstance(destinations, Mapping):
            destinations = tuple(destinations)
        self.nodes[node] = NodeDeclaration(
            node, action, schema, dict(metadata or {}), destinations, bool(defer), policies
        )
        return self

    def _check_node_name(self, name: str) -> None:
        if name in (START, END):
            raise ValueError(f"Node name {name!r} is reserved for the graph's start/end.")
        for character in RESERVED_CHARACTERS:
            if character in name:
                raise ValueError(
                    f"Node name {name!r} contains {character!r}, which is reserved for "
                    "subgraph namespaces; pick a name without ':' or '|'."
                )
        if name in self.nodes:
            raise ValueError(
                f"Node {name!r} already present; give the second one another name, e.g. "
                f"add_node('{name}_2', ...)."
            )

    def add_sequence(self, nodes: Sequence[Any]) -> StateGraph:
        """Add nodes (functions or ``(name, function)`` pairs) chained by edges."""
        if not nodes:
            raise ValueError("add_sequence needs at least one node.")
        previous = None
        for item in nodes:
            name, action = item if isinstance(item, tuple) else (_infer_name(item), item)
            self.add_node(name, action)
            if previous is not None:
                self.add_edge(previous, name)
            previous = name
        return self

    # -- edges ----------------------------------------------------------------------------

    def add_edge(self, start_key: str | Sequence[str], end_key: str) -> StateGraph:
        """Run ``end_key`` in the step after ``start_key`` ran. With a list of start
        nodes, ``end_key`` waits until every one of them has run."""
        if isinstance(start_key, str):
            if start_key == END:
                raise ValueError("END cannot be the start of an edge; edges leave END nowhere.")
            if end_key == START:
                raise ValueError("START cannot be the end of an edge; nothing runs into START.")
            self.edges.add((start_key, end_key))
            return self
        starts = tuple(start_key)
        for start in starts:
            if start == END:
                raise ValueError("END cannot be the start of an edge.")
            if start not in self.nodes and start != START:
                raise ValueError(
                    f"Waiting edge {list(starts)} -> {end_key!r}: add_node({start!r}) first."
                )
        if end_key == START:
            raise ValueError("START cannot be the end of an edge.")
        if end_key not in self.nodes and end_key != END:
            raise ValueError(
                f"Waiting edge {list(starts)} -> {end_key!r}: add_node({end_key!r}) first."
            )
        self.waiting_edges.add((starts, end_key))
        return self

    def add_conditional_edges(
        self,
        source: str,
        path: Callable[..., Any] | Any,
        path_map: Mapping[Hashable, str] | Sequence[str] | None = None,
    ) -> StateGraph:
        """After ``source`` runs, call ``path(state)``; run the node(s) it names (or
        that ``path_map`` maps its result to) in the next step. END stops that branch.
        """
        if not callable(path):
            invoke = getattr(path, "invoke", None)
            if not callable(invoke):
                raise TypeError(f"Conditional edge from {source!r}: path must be callable.")
            path = invoke
        if isinstance(path_map, Mapping):
            mapping: dict[Hashable, str] | None = dict(path_map)
        elif path_map is not None:
            mapping = {name: name for name in path_map}
        else:
            mapping = None
        name = getattr(path, "__name__", None) or "condition"
        if name == "<lambda>":
            name = "condition"
        branches = self.branches.setdefault(source, {})
        if name in branches:
            raise ValueError(
                f"Node {source!r} already has a conditional edge named {name!r}; use "
                "a function with another name for the second one."
            )
        branches[name] = Branch(source, path, mapping, name)
        return self

    def set_entry_point(self, key: str) -> StateGraph:
        """The same as ``add_edge(START, key)``."""
        return self.add_edge(START, key)

    def set_conditional_entry_point(
        self,
        path: Callable[..., Any],
        path_map: Mapping[Hashable, str] | Sequence[str] | None = None,
    ) -> StateGraph:
        """The same as ``add_conditional_edges(START, path, path_map)``."""
        return self.add_conditional_edges(START, path, path_map)

    def set_finish_point(self, key: str) -> StateGraph:
        """The same as ``add_edge(key, END)``."""
        return self.add_edge(key, END)

    # -- compile --------------------------------------------------------------------------

    def validate(self) -> None:
        """Raise ValueError for edges to unknown nodes or a graph with no entry point;
        warn about what LangGraph accepts silently but is likely a mistake."""
        from graphkit.graph.compile import validate

        validate(self)

    def compile(
        self,
        checkpointer: Any = None,
        *,
        store: Any = None,
        executor: Any = None,
        interrupt_before: Any = None,
        interrupt_after: Any = None,
        debug: bool = False,
        name: str | None = None,
        **kwargs: Any,
    ) -> Any:
        """Check the graph and turn it into a runnable ``CompiledGraph``.

        ``executor`` (a graphkit extension) is any ``concurrent.futures.Executor`` to
        run a superstep's parallel tasks on, e.g. a ``dask.distributed`` client's
        ``get_executor()``; by default they run on a shared thread pool.
        """
        from graphkit.graph.compile import compile_graph

        for option, value in (*kwargs.items(),):
            if value:
                raise NotImplementedError(
                    f"compile({option}=...) is not supported by graphkit yet."
                )
        compiled = compile_graph(
            self,
            name=name or "LangGraph",
            store=store,
            executor=executor,
            debug=debug,
            checkpointer=checkpointer,
            interrupt_before=interrupt_before or (),
            interrupt_after=interrupt_after or (),
        )
        self.compiled = True
        return compiled


_RENAMED = {"input": "input_schema", "output": "output_schema", "config_schema": "context_schema"}
"""LangGraph's old ``StateGraph`` argument names, which it still accepts with a warning."""


def _renamed_arguments(given: dict[str, Any]) -> dict[str, Any]:
    """Map ``StateGraph(input=..., output=..., config_schema=...)`` to the new names,
    warning (a DeprecationWarning, as LangGraph does) about each old name used."""
    unknown = sorted(set(given) - set(_RENAMED))
    if unknown:
        raise TypeError(
            f"StateGraph() got unexpected keyword argument(s) {unknown}; it takes "
            "state_schema, context_schema, input_schema and output_schema."
        )
    for old, new in _RENAMED.items():
        if old in given:
            warnings.warn(
                f"StateGraph({old}=...) is the old name of `{new}`: `{old}` still works but "
                f"is deprecated (LangGraph will remove it). Write StateGraph(..., {new}=...).",
                DeprecationWarning,
                stacklevel=3,
            )
    return {new: given[old] for old, new in _RENAMED.items() if old in given}


def _infer_name(action: Any) -> str:
    name = getattr(action, "name", None) or getattr(action, "__name__", None)
    if not isinstance(name, str) or not name:
        name = type(action).__name__
    if name == "<lambda>":
        raise ValueError("A lambda has no usable name: pass one, add_node('name', lambda s: ...).")
    return name


def _inferred_input_schema(action: Any) -> Any:
    """A node's own input schema, from the annotation of its first parameter (as
    LangGraph does): a node annotated with a smaller TypedDict reads only those keys."""
    function = action if inspect.isfunction(action) or inspect.ismethod(action) else None
    if function is None:
        call = getattr(action, "__call__", None)  # noqa: B004
        function = call if inspect.ismethod(call) else None
    if function is None:
        return None
    try:
        hints = get_type_hints(function)
        first = next(iter(inspect.signature(function).parameters))
    except (NameError, TypeError, ValueError, StopIteration):
        return None
    hint = hints.get(first)
    if isinstance(hint, type):
        try:
            return hint if get_type_hints(hint) else None
        except (NameError, TypeError):
            return None
    return None


def _command_destinations(action: Any) -> tuple[str, ...] | None:
    """The nodes a ``-> Command[Literal["a", "b"]]`` return annotation names, if any."""
    function = action if inspect.isfunction(action) or inspect.ismethod(action) else None
    if function is None:
        return None
    try:
        returns = get_type_hints(function).get("return")
    except (NameError, TypeError):
        return None
    from graphkit.types import Command

    candidates = get_args(returns) if get_origin(returns) in (Union, UnionType) else (returns,)
    for candidate in candidates:
        arguments = get_args(candidate)
        if get_origin(candidate) is Command and arguments and get_origin(arguments[0]) is Literal:
            return tuple(get_args(arguments[0]))
    return None


def _retry_policies(node: str, retry_policy: Any) -> tuple[RetryPolicy, ...]:
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
        classes = retry_on if isinstance(retry_on, (list, tuple)) else (retry_on,)
        if isinstance(retry_on, (list, tuple)) and not retry_on:
            raise TypeError(f"Node {node!r}: RetryPolicy(retry_on=[]) retries nothing.")
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
