"""compile(): check a StateGraph, then wire it into nodes and channels for the runtime.

The wiring is LangGraph's, so the channels a debugger shows are the ones a LangGraph
user will meet in its own traces:

* every state key is a channel;
* ``__start__`` carries the input to the ``__start__`` node, which writes it into
  the state keys and wakes the entry nodes;
* each node ``n`` is woken by ``branch:to:n``, written by edges and routers;
* a waiting edge ``[a, b] -> c`` is a barrier channel ``join:a+b:c``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from graphkit.channels import (
    Channel,
    EphemeralValue,
    LastValueAfterFinish,
    NamedBarrierValue,
    NamedBarrierValueAfterFinish,
    Topic,
)
from graphkit.constants import END, START, TASKS
from graphkit.errors import warn
from graphkit.graph.schema import coerce_to_schema
from graphkit.graph.writers import (
    branch_channel,
    constant_writer,
    goto_writer,
    router_writer,
    state_writer,
)
from graphkit.pregel.app import CompiledGraph
from graphkit.pregel.spec import GraphSpec, NodeSpec, Writer, injectable_parameters
from graphkit.types import Send

if TYPE_CHECKING:
    from graphkit.graph.state import StateGraph

__all__ = ["compile_graph", "validate"]


def compile_graph(builder: StateGraph) -> GraphSpec:
    """Validate ``builder`` and build the runtime's ``GraphSpec`` from it."""
    validate(builder)
    channels, triggers = _channels(builder)
    state_keys = tuple(builder.channels)
    return GraphSpec(
        nodes=_node_specs(builder, triggers, _writers(builder)),
        channels=channels,
        input_channel=START,
        output_keys=tuple(k for k in builder.schemas[builder.output_schema] if k in channels),
        managed=dict(builder.managed),
        stream_keys=state_keys,
        state_keys=state_keys,
    )


def _join_channel(starts: tuple[str, ...], end: str) -> str:
    """The barrier channel of the waiting edge ``starts -> end``."""
    return f"join:{'+'.join(starts)}:{end}"


def _channels(builder: StateGraph) -> tuple[dict[str, Channel], dict[str, list[str]]]:
    """The graph's channels, and the channels that wake each node."""
    channels: dict[str, Channel] = {
        **builder.channels,
        START: EphemeralValue(Any, key=START),
        TASKS: Topic(Send, accumulate=False, key=TASKS),
    }
    triggers: dict[str, list[str]] = {}
    for node, declaration in builder.nodes.items():
        key = branch_channel(node)
        triggers[node] = [key]
        channels[key] = (
            LastValueAfterFinish(Any, key=key)  # a deferred node waits for the run's end
            if declaration.defer
            else EphemeralValue(Any, guard=False, key=key)
        )
    for starts, end in sorted(builder.waiting_edges):
        if end != END:
            join = _join_channel(starts, end)
            deferred = builder.nodes[end].defer
            barrier = NamedBarrierValueAfterFinish if deferred else NamedBarrierValue
            channels[join] = barrier(str, set(starts), key=join)
            triggers[end].append(join)
    return channels, triggers


def _writers(builder: StateGraph) -> dict[str, list[Writer]]:
    """Each node's writers: state updates, Command routes, edges, then routers."""
    managed = frozenset(builder.managed)
    keys = frozenset(builder.channels) | managed
    schema = builder.input_schema
    own_input = "" if schema is builder.state_schema else getattr(schema, "__name__", repr(schema))
    input_keys = frozenset(builder.schemas[schema]) - managed
    writers = {START: [state_writer(START, input_keys, input_schema=own_input)]}
    for node in builder.nodes:
        writers[node] = [state_writer(node, keys, managed), goto_writer(node)]
    edges: dict[str, list[tuple[str, Any]]] = {}
    for start, end in sorted(builder.edges):
        if end != END:
            edges.setdefault(start, []).append((branch_channel(end), None))
    for starts, end in sorted(builder.waiting_edges):
        for start in starts if end != END else ():
            edges.setdefault(start, []).append((_join_channel(starts, end), start))
    for node, writes in edges.items():
        writers[node].append(constant_writer(tuple(writes)))
    for source, branches in builder.branches.items():
        declared = builder.nodes.get(source)
        schema = declared.input_schema if declared else builder.state_schema
        reads = builder.schemas[schema]
        writers[source] += [router_writer(b, reads, schema) for b in branches.values()]
    return writers


def _node_specs(
    builder: StateGraph, triggers: dict[str, list[str]], writers: dict[str, list[Writer]]
) -> dict[str, NodeSpec]:
    """The runtime's nodes: START, which writes the input into the state, then the graph's."""
    routes = START in builder.branches
    nodes = {
        START: NodeSpec(
            START, (START,), START, _identity, tuple(writers[START]), hidden=True, routes=routes
        )
    }
    keys = frozenset(builder.channels) | builder.managed.keys()
    for node, declaration in builder.nodes.items():
        call, injected = _adapt_call(declaration.action, keys)
        nodes[node] = NodeSpec(
            name=node,
            triggers=tuple(triggers[node]),
            reads=builder.schemas[declaration.input_schema],
            call=call,
            writers=tuple(writers[node]),
            coerce=coerce_to_schema(declaration.input_schema),
            injected=injected,
            metadata=declaration.metadata,
            retry_policies=declaration.retry_policies,
            is_async=_is_async(call),
            routes=node in builder.branches,
        )
    return nodes


# -- calling user code -------------------------------------------------------------------


def _adapt_call(
    action: Any, parent_keys: frozenset[str]
) -> tuple[Callable[..., Any], tuple[str, ...]]:
    """The callable for a node's action, and the parameters to inject into it."""
    if isinstance(action, CompiledGraph):
        return _subgraph_call(action, parent_keys), ("config",)
    plain = inspect.isfunction(action) or inspect.ismethod(action) or inspect.isbuiltin(action)
    function = action.invoke if not plain and callable(getattr(action, "invoke", None)) else action
    return function, injectable_parameters(function)


def _subgraph_call(child: CompiledGraph, parent_keys: frozenset[str]) -> Callable[..., Any]:
    """A compiled graph as a node: it gets the keys it declares and gives back the keys
    the parent has (private keys on either side are not an error here)."""
    child_inputs = frozenset(child.builder.schemas[child.builder.input_schema])

    def run_subgraph(state: Any, config: Any) -> Any:
        if isinstance(state, dict):
            state = {key: value for key, value in state.items() if key in child_inputs}
        output = child.invoke(state, config)
        if isinstance(output, dict):
            output = {key: value for key, value in output.items() if key in parent_keys}
        return output

    return run_subgraph


def _is_async(call: Any) -> bool:
    """True for a coroutine function, or an object whose ``__call__`` is one."""
    method = getattr(call, "__call__", None)  # noqa: B004
    return inspect.iscoroutinefunction(call) or inspect.iscoroutinefunction(method)


def _identity(value: Any) -> Any:
    return value


# -- validation -------------------------------------------------------------------------


def validate(builder: StateGraph) -> None:
    """Raise ValueError for what cannot run; warn about what probably should not."""
    known = set(builder.nodes)
    for start, end in sorted(builder.edges):
        for role, node, outside in (("starts", start, START), ("ends", end, END)):
            if node != outside and node not in known:
                raise ValueError(
                    f"Edge {start!r} -> {end!r} {role} at unknown node {node!r}; "
                    f"add_node({node!r}, ...) first. Nodes: {sorted(known)}."
                )
    for source, branches in builder.branches.items():
        if source != START and source not in known:
            raise ValueError(
                f"Conditional edge starts at unknown node {source!r}; add_node({source!r}, ...) "
                f"first. Nodes: {sorted(known)}."
            )
        for branch in branches.values():
            for target in branch.targets() or ():
                if target != END and target not in known:
                    raise ValueError(
                        f"Conditional edge {branch.name!r} of {source!r} maps to unknown "
                        f"node {target!r}; fix its path_map or add_node({target!r}, ...)."
                    )
    if START not in _successors(builder):
        raise ValueError(
            "Graph must have an entrypoint: add an edge from START, e.g. "
            f"add_edge(START, {next(iter(builder.nodes), 'my_node')!r})."
        )
    _warn_about_suspicious_shapes(builder)


def _warn_about_suspicious_shapes(builder: StateGraph) -> None:
    """Warn about a node named like a state key, and about nodes nothing leads to."""
    for node in builder.nodes:
        if node in builder.channels:
            warn(
                f"Node {node!r} has the same name as a state key; updates and the drawn "
                "graph are easy to misread. Consider renaming the node."
            )
    successors, seen, frontier = _successors(builder), {START}, [START]
    while frontier:
        new = successors.get(frontier.pop(), set()) - seen
        seen |= new
        frontier += new
    for node in builder.nodes:
        if node not in seen:
            warn(
                f"Node {node!r} can never run: no edge, conditional edge or declared "
                f"destination leads to it from START. Add an edge to it, e.g. "
                f"add_edge(START, {node!r}); if a node reaches it with Command(goto=...) "
                "or a router with Send(...), declare that: add_node(..., destinations=(...)) "
                "or annotate the node -> Command[Literal[...]]."
            )


def _successors(builder: StateGraph) -> dict[str, set[str]]:
    """Where each node (and START) may lead: edges, routes and declared destinations."""
    successors: dict[str, set[str]] = {}
    for start, end in builder.edges:
        successors.setdefault(start, set()).add(end)
    for starts, end in builder.waiting_edges:
        for start in starts:
            successors.setdefault(start, set()).add(end)
    for source, branches in builder.branches.items():
        for branch in branches.values():
            targets = branch.targets()
            successors.setdefault(source, set()).update(
                builder.nodes if targets is None else targets
            )
    for name, declaration in builder.nodes.items():
        successors.setdefault(name, set()).update(declaration.destinations or ())
    return successors
