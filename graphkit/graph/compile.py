"""compile(): check a StateGraph, then wire it into nodes and channels for the runtime.

The wiring is LangGraph's, so a debugger shows the channels a LangGraph trace does: each
state key; ``__start__``, whose node writes the input into the state and wakes the entry
nodes; ``branch:to:n``, which wakes node ``n``; and ``join:a+b:c`` for a waiting edge
``[a, b] -> c``."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from graphkit.cache.base import node_namespace
from graphkit.channels import (
    Channel,
    EphemeralValue,
    LastValueAfterFinish,
    NamedBarrierValue,
    NamedBarrierValueAfterFinish,
    Topic,
)
from graphkit.constants import END, START, TASKS
from graphkit.diagnostics import building as diagnose_building
from graphkit.diagnostics import graph as diagnose
from graphkit.diagnostics import schemas as diagnose_schemas
from graphkit.graph.declaration import DEFAULT_ERROR_HANDLER, NodeDeclaration
from graphkit.graph.schema import ROOT, coerce_to_schema
from graphkit.graph.sequence import extra_steps, stepped
from graphkit.graph.writers import branch_channel, node_writer, router_writer
from graphkit.pregel.app import CompiledGraph
from graphkit.pregel.node_builder import has_async_code
from graphkit.pregel.spec import GraphSpec, NodeSpec, Writer, injectable_parameters
from graphkit.types import Send

if TYPE_CHECKING:
    from graphkit.graph.state import StateGraph

__all__ = ["compile_graph"]

EdgeWrites = dict[str, list[tuple[str, Any]]]
"""What each node's edges write when it finishes: ``(channel, value)`` pairs."""


def compile_graph(builder: StateGraph) -> GraphSpec:
    """Validate ``builder`` and build the runtime's ``GraphSpec`` from it."""
    diagnose.validate(builder)
    nodes = _with_defaults(builder)
    channels, triggers, edges = _channels(builder, nodes)
    state_keys = tuple(builder.channels)
    return GraphSpec(
        nodes=_node_specs(builder, nodes, triggers, _writers(builder, nodes, edges)),
        channels=channels,
        input_channel=START,
        output_keys=tuple(k for k in builder.schemas[builder.output_schema] if k in channels),
        managed=dict(builder.managed),
        stream_keys=state_keys,
        state_keys=state_keys,
    )


def _with_defaults(builder: StateGraph) -> dict[str, NodeDeclaration]:
    """The nodes as declared, with ``set_node_defaults``' timeout (every node without one)
    and error handler (a ``__default_error_handler__`` node, for every node that is not a
    handler and has none), as LangGraph applies them at compile."""
    nodes = dict(builder.nodes)
    handler = None
    if builder.default_error_handler is not None:
        handler = DEFAULT_ERROR_HANDLER
        if handler in nodes:
            raise ValueError(
                f"set_node_defaults(error_handler=...): a node named {handler!r} already "
                "exists, and graphkit gives the default error handler that name, as "
                "LangGraph does. Rename that node."
            )
        nodes[handler] = NodeDeclaration(
            handler, builder.default_error_handler, builder.state_schema, is_error_handler=True
        )
    timeout = builder.default_timeout
    for name, node in nodes.items():
        changes: dict[str, Any] = {}
        if timeout is not None and node.timeout is None:
            changes["timeout"] = timeout
        if handler is not None and not node.is_error_handler and node.error_handler is None:
            changes["error_handler"] = handler
        if changes:
            nodes[name] = replace(node, **changes)
    return nodes


def _channels(
    builder: StateGraph, nodes: dict[str, NodeDeclaration]
) -> tuple[dict[str, Channel], dict[str, list[str]], EdgeWrites]:
    """The graph's channels, the channels that wake each node, and its edges' writes."""
    channels: dict[str, Channel] = {  # (the state's keys, then the runtime's own channels)
        START: EphemeralValue(Any, key=START),
        TASKS: Topic(Send, accumulate=False, key=TASKS),
    }
    triggers: dict[str, list[str]] = {}
    for node, declaration in nodes.items():
        if declaration.is_error_handler:  # a failure starts it, no channel
            triggers[node] = []
            continue
        key = branch_channel(node)
        triggers[node] = [key]
        channels[key] = (
            LastValueAfterFinish(Any, key=key)  # a deferred node waits for the run's end
            if declaration.defer
            else EphemeralValue(Any, guard=False, key=key)
        )
    edges: EdgeWrites = {}
    for start, end in sorted(builder.edges):
        if end != END:
            edges.setdefault(start, []).append((branch_channel(end), None))
    for starts, end in sorted(builder.waiting_edges):
        if end != END:
            join = f"join:{'+'.join(starts)}:{end}"
            deferred = builder.nodes[end].defer
            barrier = NamedBarrierValueAfterFinish if deferred else NamedBarrierValue
            channels[join] = barrier(str, set(starts), key=join)
            triggers[end].append(join)
            for start in starts:
                edges.setdefault(start, []).append((join, start))
    # (the names LangGraph itself refuses, '__pregel_tasks'..., are refused by validate)
    if clashes := sorted(channels.keys() & builder.channels.keys()):
        raise ValueError(diagnose_schemas.state_key_is_internal(clashes[0]))
    return {**builder.channels, **channels}, triggers, edges


def _writers(
    builder: StateGraph, nodes: dict[str, NodeDeclaration], edges: EdgeWrites
) -> dict[str, list[Writer]]:
    """Each node's writers: its node writer, then its routers."""
    managed = frozenset(builder.managed)
    keys = (*builder.channels, *managed)  # (in schema order: an object returned is read so)
    schema = builder.input_schema
    own_input = "" if schema is builder.state_schema else getattr(schema, "__name__", repr(schema))
    input_keys = tuple(key for key in builder.schemas[schema] if key not in managed)
    start = node_writer(START, input_keys, managed, edges.get(START, []), own_input)
    writers = {START: [start]}
    for node in nodes:
        writers[node] = [node_writer(node, keys, managed, edges.get(node, []))]
    for source, branches in builder.branches.items():
        declared = builder.nodes.get(source)
        source_schema = declared.input_schema if declared else builder.state_schema
        # where LangGraph's node sequence has the routers (for tracing): after the node
        # (START has none; a chain: its steps), its state write and one write per edge
        position = (source != START) + 1 + len(edges.get(source, []))
        position += extra_steps(declared.action) if declared else 0
        for number, branch in enumerate(branches.values(), start=1):
            schema = branch.input_schema or source_schema
            reads = builder.schemas[schema]
            writers[source].append(router_writer(branch, reads, schema, position + number))
    return writers


def _node_specs(
    builder: StateGraph,
    declared: dict[str, NodeDeclaration],
    triggers: dict[str, list[str]],
    writers: dict[str, list[Writer]],
) -> dict[str, NodeSpec]:
    """The runtime's nodes: START, which writes the input into the state, then the graph's."""
    input_node = NodeSpec(
        START,
        (START,),
        START,
        _identity,
        tuple(writers[START]),
        hidden=True,
        has_routers=START in builder.branches,
    )
    nodes = {START: input_node}
    keys = frozenset(builder.channels) | builder.managed.keys()
    for node, declaration in declared.items():
        timed = declaration.timeout is not None
        action = stepped(declaration.action)
        call, injected = _adapt_call(action, keys, prefer_async=timed)
        if timed and not (_is_async(call) and has_async_code(declaration.action)):
            raise diagnose_building.sync_timeout(node)
        reads = builder.schemas[declaration.input_schema]
        nodes[node] = NodeSpec(
            name=node,
            triggers=tuple(triggers[node]),
            reads=ROOT if reads == (ROOT,) else reads,  # a single-value state: the value
            call=call,
            writers=tuple(writers[node]),
            coerce=coerce_to_schema(declaration.input_schema),
            injected=injected,
            metadata=declaration.metadata,
            retry_policies=(
                builder.default_retry_policies
                if declaration.retry_policies is None
                else declaration.retry_policies
            ),
            is_async=_is_async(call),
            async_call=_async_side(action, call),
            has_routers=node in builder.branches,
            cache_policy=(
                builder.default_cache_policy
                if declaration.cache_policy is None and not declaration.is_error_handler
                else declaration.cache_policy
            ),
            cache_namespace=node_namespace(node, declaration.action),
            timeout=declaration.timeout,
            error_handler=declaration.error_handler,
        )
    return nodes


# -- calling user code -------------------------------------------------------------------


def _adapt_call(
    action: Any, parent_keys: frozenset[str], prefer_async: bool = False
) -> tuple[Callable[..., Any], tuple[str, ...]]:
    """The callable for a node's action, and the parameters to inject into it;
    ``prefer_async``: an object's ``ainvoke`` (a node with a timeout must be awaitable)."""
    if isinstance(action, CompiledGraph) and not hasattr(action.builder, "schemas"):
        # a low-level Pregel: given the state as its input, its output is the update
        run = action.ainvoke if prefer_async else action.invoke
        return run, ("config",)
    if isinstance(action, CompiledGraph):
        return _subgraph_call(action, parent_keys, prefer_async), ("config",)
    plain = inspect.isfunction(action) or inspect.ismethod(action) or inspect.isbuiltin(action)
    method = "ainvoke" if prefer_async and callable(getattr(action, "ainvoke", None)) else "invoke"
    bound = getattr(action, method, None)
    function = bound if not plain and callable(bound) else action
    if not plain and inspect.isasyncgenfunction(getattr(function, "__call__", None)):  # noqa: B004
        function = function.__call__  # (an object with an `async def __call__` that yields)
    if inspect.isgeneratorfunction(function) or inspect.isasyncgenfunction(function):
        function = _folded(function)
    return function, injectable_parameters(function)


def _folded(generator: Callable[..., Any]) -> Callable[..., Any]:
    """A generator function node returns what it yields added up, as LangGraph (through
    langchain-core's ``RunnableLambda``) makes it: chunks joined with ``+`` (lists,
    strings), the last one where they do not add (dicts)."""

    def add(output: Any, chunk: Any) -> Any:
        try:
            return chunk if output is None else output + chunk
        except TypeError:
            return chunk

    if inspect.isasyncgenfunction(generator):

        @functools.wraps(generator)
        async def run_async(*args: Any, **kwargs: Any) -> Any:
            output = None
            async for chunk in generator(*args, **kwargs):
                output = add(output, chunk)
            return output

        return run_async

    @functools.wraps(generator)
    def run(*args: Any, **kwargs: Any) -> Any:
        output = None
        for chunk in generator(*args, **kwargs):
            output = add(output, chunk)
        return output

    return run


def _subgraph_call(
    child: CompiledGraph, parent_keys: frozenset[str], awaited: bool = False
) -> Callable[..., Any]:
    """A compiled graph as a node: it reads the keys it declares, returns the parent's
    keys; ``awaited``: run with ``ainvoke`` (so that a timeout can cancel it)."""
    child_inputs = frozenset(child.builder.schemas[child.builder.input_schema])

    def given(state: Any) -> Any:
        if isinstance(state, dict):
            return {key: value for key, value in state.items() if key in child_inputs}
        return state

    def returned(output: Any) -> Any:
        if isinstance(output, dict):
            return {key: value for key, value in output.items() if key in parent_keys}
        return output

    def explain(error: KeyError) -> None:
        # given nothing (it shares no key with the parent), a node of it reading a key
        # fails (a KeyError naming no key of the child is not that read)
        key = error.args[0] if len(error.args) == 1 else None
        if (
            isinstance(key, str)
            and key in child.builder.channels
            and child_inputs.isdisjoint(parent_keys)
        ):
            error.add_note(diagnose.subgraph_given_nothing(child_inputs, parent_keys))

    def run_subgraph(state: Any, config: Any) -> Any:
        try:
            return returned(child.invoke(given(state), config))
        except KeyError as error:
            explain(error)
            raise

    async def await_subgraph(state: Any, config: Any) -> Any:
        try:
            return returned(await child.ainvoke(given(state), config))
        except KeyError as error:
            explain(error)
            raise

    call = await_subgraph if awaited else run_subgraph
    call.subgraph = child  # type: ignore[attr-defined]  # (a traced run: graphkit.pregel.tracing)
    return call


def _async_side(action: Any, call: Any) -> Any:
    """An object node's ``ainvoke`` when its ``invoke`` is what runs (a Runnable: a
    chain, a ToolNode...), for async runs; None for functions and compiled graphs."""
    ainvoke = getattr(action, "ainvoke", None)
    if isinstance(action, CompiledGraph) or not callable(ainvoke):
        return None
    return ainvoke if call == getattr(action, "invoke", None) else None


def _is_async(call: Any) -> bool:
    """True for a coroutine function, or an object whose ``__call__`` is one."""
    method = getattr(call, "__call__", None)  # noqa: B004
    return inspect.iscoroutinefunction(call) or inspect.iscoroutinefunction(method)


def _identity(value: Any) -> Any:
    return value
