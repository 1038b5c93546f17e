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
from collections.abc import Callable, Mapping
from typing import Any

from graphkit.channels import (
    Channel,
    EphemeralValue,
    LastValueAfterFinish,
    NamedBarrierValue,
    NamedBarrierValueAfterFinish,
    Topic,
)
from graphkit.constants import BRANCH_CHANNEL_PREFIX, END, START, TASKS
from graphkit.errors import InvalidUpdateError, ParentCommand, warn
from graphkit.graph.schema import coerce_to_schema
from graphkit.graph.state import Branch, StateGraph
from graphkit.pregel.app import CompiledGraph
from graphkit.pregel.spec import (
    FreshRead,
    GraphSpec,
    NodeSpec,
    Writer,
    accepts_config,
    injectable_parameters,
)
from graphkit.types import Command, Send

__all__ = ["compile_graph", "validate"]


def branch_channel(node: str) -> str:
    """The channel that wakes ``node``."""
    return f"{BRANCH_CHANNEL_PREFIX}{node}"


def compile_graph(
    builder: StateGraph,
    *,
    name: str,
    store: Any = None,
    executor: Any = None,
    debug: bool = False,
    checkpointer: Any = None,
    interrupt_before: Any = (),
    interrupt_after: Any = (),
) -> CompiledGraph:
    """Validate ``builder`` and build the runtime's ``GraphSpec`` from it."""
    validate(builder)
    channels: dict[str, Channel] = dict(builder.channels)
    channels[START] = EphemeralValue(Any, key=START)
    channels[TASKS] = Topic(Send, accumulate=False, key=TASKS)
    for node, declaration in builder.nodes.items():
        key = branch_channel(node)
        channels[key] = (
            LastValueAfterFinish(Any, key=key)  # a deferred node waits for the run's end
            if declaration.defer
            else EphemeralValue(Any, guard=False, key=key)
        )
    triggers: dict[str, list[str]] = {node: [branch_channel(node)] for node in builder.nodes}
    writers: dict[str, list[Writer]] = {node: [] for node in (START, *builder.nodes)}
    all_keys = frozenset(builder.channels) | builder.managed.keys()

    input_keys = frozenset(builder.schemas[builder.input_schema]) - builder.managed.keys()
    schema = builder.input_schema
    named = getattr(schema, "__name__", repr(schema)) if schema is not builder.state_schema else ""
    writers[START].append(_state_writer(START, input_keys, input_schema=named))
    for node in builder.nodes:
        writers[node].append(_state_writer(node, all_keys, frozenset(builder.managed)))
        writers[node].append(_control_writer(node))
    for start, end in sorted(builder.edges):
        if end != END:
            writers[start].append(_constant_writer(((branch_channel(end), None),)))
    for starts, end in sorted(builder.waiting_edges):
        if end == END:
            continue
        join = f"join:{'+'.join(starts)}:{end}"
        barrier = NamedBarrierValueAfterFinish if builder.nodes[end].defer else NamedBarrierValue
        channels[join] = barrier(str, set(starts), key=join)
        triggers[end].append(join)
        for start in starts:
            writers[start].append(_constant_writer(((join, start),)))
    for source, branches in builder.branches.items():
        schema = (
            builder.nodes[source].input_schema if source in builder.nodes else builder.state_schema
        )
        for branch in branches.values():
            writers[source].append(_branch_writer(branch, builder, schema))

    nodes = {
        START: NodeSpec(
            START,
            (START,),
            START,
            _identity,
            tuple(writers[START]),
            hidden=True,
            routes=START in builder.branches,
        )
    }
    for node, declaration in builder.nodes.items():
        call, injected = _adapt_call(node, declaration.action, all_keys)
        is_async = inspect.iscoroutinefunction(call) or inspect.iscoroutinefunction(
            getattr(call, "__call__", None)  # noqa: B004
        )
        nodes[node] = NodeSpec(
            name=node,
            triggers=tuple(triggers[node]),
            reads=builder.schemas[declaration.input_schema],
            call=call,
            writers=tuple(writers[node]),
            coerce=coerce_to_schema(declaration.input_schema),
            injected=injected,
            is_async=is_async,
            metadata=declaration.metadata,
            retry_policies=declaration.retry_policies,
            routes=node in builder.branches,
        )
    state_keys = tuple(builder.channels)
    spec = GraphSpec(
        nodes=nodes,
        channels=channels,
        input_channel=START,
        output_keys=tuple(k for k in builder.schemas[builder.output_schema] if k in channels),
        managed=dict(builder.managed),
        stream_keys=state_keys,
        state_keys=state_keys,
    )
    for option, nodes in (
        ("interrupt_before", interrupt_before),
        ("interrupt_after", interrupt_after),
    ):
        for node in () if nodes == "*" else nodes:
            if node not in builder.nodes:
                raise ValueError(
                    f"compile({option}=[{node!r}]): there is no node {node!r}; nodes: "
                    f"{sorted(builder.nodes)}."
                )
    return CompiledGraph(
        spec,
        builder=builder,
        name=name,
        store=store,
        executor=executor,
        debug=debug,
        checkpointer=checkpointer,
        interrupt_before=interrupt_before,
        interrupt_after=interrupt_after,
    )


# -- validation -------------------------------------------------------------------------


def validate(builder: StateGraph) -> None:
    """Raise ValueError for what cannot run; warn about what probably should not."""
    known = set(builder.nodes)
    for start, end in sorted(builder.edges):
        if start != START and start not in known:
            raise ValueError(
                f"Edge {start!r} -> {end!r} starts at unknown node {start!r}; "
                f"add_node({start!r}, ...) first. Nodes: {sorted(known)}."
            )
        if end != END and end not in known:
            raise ValueError(
                f"Edge {start!r} -> {end!r} ends at unknown node {end!r}; "
                f"add_node({end!r}, ...) first. Nodes: {sorted(known)}."
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
    has_entry = any(start == START for start, _ in builder.edges) or START in builder.branches
    has_entry = has_entry or any(START in starts for starts, _ in builder.waiting_edges)
    if not has_entry:
        raise ValueError(
            "Graph must have an entrypoint: add an edge from START, e.g. "
            f"add_edge(START, {next(iter(builder.nodes), 'my_node')!r})."
        )
    _warn_about_suspicious_shapes(builder)


def _warn_about_suspicious_shapes(builder: StateGraph) -> None:
    for node in builder.nodes:
        if node in builder.channels:
            warn(
                f"Node {node!r} has the same name as a state key; updates and the drawn "
                "graph are easy to misread. Consider renaming the node."
            )
    reachable = _reachable(builder)
    for node in builder.nodes:
        if node not in reachable:
            warn(
                f"Node {node!r} can never run: no edge, conditional edge or declared "
                f"destination leads to it from START. Add an edge to it, e.g. "
                f"add_edge(START, {node!r}); if a node reaches it with Command(goto=...) "
                "or a router with Send(...), declare that: add_node(..., destinations=(...)) "
                "or annotate the node -> Command[Literal[...]]."
            )


def _reachable(builder: StateGraph) -> set[str]:
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
        if declaration.destinations is not None:
            destinations = declaration.destinations
            targets = destinations.keys() if isinstance(destinations, Mapping) else destinations
            successors.setdefault(name, set()).update(targets)
    seen, frontier = {START}, [START]
    while frontier:
        for successor in successors.get(frontier.pop(), ()):
            if successor not in seen:
                seen.add(successor)
                frontier.append(successor)
    return seen


# -- writers: what a node's return value becomes ---------------------------------------


def _state_writer(
    node: str,
    keys: frozenset[str],
    managed: frozenset[str] = frozenset(),
    input_schema: str = "",
) -> Writer:
    """Writes the state keys a node returned; drops (with a warning) unknown keys and
    managed values. ``input_schema``: the name of the graph's own input schema, for
    the input's writer of a graph that has one."""

    def write_state(returned: Any, fresh_read: FreshRead, config: Any) -> list[tuple[str, Any]]:
        if returned is None:
            return []
        writes = []
        for key, value in _update_items(node, returned):
            if key in managed:
                warn(
                    f"Node {node!r} returned {key!r}, a managed value the runtime computes "
                    "for each step; the write is dropped. Store your own value under "
                    "another key."
                )
            elif key in keys:
                writes.append((key, value))
            else:
                message = _unknown_key_message(node, key, keys, input_schema)
                warn(message)
        return writes

    return write_state


def _update_items(node: str, returned: Any) -> list[tuple[str, Any]]:
    if isinstance(returned, dict):
        return list(returned.items())
    if isinstance(returned, Command):
        return _command_update_items(node, returned)
    if isinstance(returned, (list, tuple)) and any(isinstance(i, Command) for i in returned):
        parts = [part for part in returned if part is not None]  # LangGraph skips None
        return [item for part in parts for item in _update_items(node, part)]
    what = "The input" if node == START else f"Node {node!r}"
    _refuse_langgraph_class(what, returned)
    if not isinstance(returned, type) and _annotated_keys(type(returned)):
        return _object_items(returned)
    if node == START:
        raise InvalidUpdateError(
            f"Expected dict, got {returned!r}: the run's input must be a dict of state keys "
            f"(or a state object), not {type(returned).__name__}. "
            "Pass e.g. app.invoke({'key': value})."
        )
    raise InvalidUpdateError(
        f"Expected dict, got {returned!r}: {what} must be a dict of state keys "
        f"(or a state object, a Command, or None), not {type(returned).__name__}. "
        "Return e.g. {'key': value}."
    )


def _refuse_langgraph_class(what: str, value: Any) -> None:
    """A LangGraph ``Command`` or ``Send`` returned to graphkit (an import mixed up while
    moving a graph over) is refused by name: read as a plain object, it would silently
    lose its update and its route."""
    module = type(value).__module__
    if module.partition(".")[0] == "langgraph":
        name = type(value).__name__
        raise InvalidUpdateError(
            f"{what} returned a {name} from {module}, LangGraph's class; graphkit routes "
            f"and updates with its own. Import it from graphkit: from graphkit import {name}."
        )


def _command_update_items(node: str, command: Command) -> list[tuple[str, Any]]:
    if command.graph == Command.PARENT:
        raise ParentCommand(
            f"Node {node!r} returned {command!r}, but this graph is not running as a "
            "subgraph, so there is no parent graph to send it to. Drop graph=Command.PARENT, "
            "or add this graph as a node of a parent graph.",
            command,
        )
    update = command.update
    if update is None:
        return []
    if isinstance(update, dict):
        return list(update.items())
    if isinstance(update, (list, tuple)) and all(
        isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str) for item in update
    ):
        return list(update)
    if _annotated_keys(type(update)):
        return _object_items(update)
    raise InvalidUpdateError(
        f"Node {node!r} returned a Command whose update is {type(update).__name__}; "
        "use a dict of state keys, e.g. Command(update={'key': value})."
    )


def _control_writer(node: str) -> Writer:
    """Turns ``Command(goto=...)`` into the writes that wake the next nodes."""

    def write_goto(returned: Any, fresh_read: FreshRead, config: Any) -> list[tuple[str, Any]]:
        if isinstance(returned, Command):
            commands = [returned]
        elif isinstance(returned, (list, tuple)):
            commands = [item for item in returned if isinstance(item, Command)]
        else:
            return []
        writes = []
        for command in commands:
            try:
                targets = command.destinations()
            except TypeError:  # goto is not a name, a Send or a collection of them
                raise _bad_goto(node, command) from None
            for target in targets:
                writes.extend(_route_writes(target))
        return writes

    return write_goto


def _bad_goto(node: str, command: Command) -> TypeError:
    # LangGraph raises TypeError here too ("'int' object is not iterable")
    return TypeError(
        f"Node {node!r} returned {command!r}: goto takes a node name, END, a Send, or a "
        f"list of them, not {type(command.goto).__name__}."
    )


def _route_writes(target: Any) -> list[tuple[str, Any]]:
    """What waking ``target`` writes: a Send packet, a branch channel, or nothing (END)."""
    if isinstance(target, Send):
        return [(TASKS, target)]
    if target == END:
        return []
    return [(branch_channel(target), None)]


def _annotated_keys(cls: type) -> list[str]:
    keys: list[str] = []
    for base in reversed(cls.__mro__):
        for key in (
            getattr(base, "__annotations__", {}) if "__annotations__" in base.__dict__ else {}
        ):
            if key not in keys:
                keys.append(key)
    return keys


def _object_items(returned: Any) -> list[tuple[str, Any]]:
    """State updates from a dataclass or pydantic instance, as LangGraph reads them:
    fields left at a None default count as "not set"."""
    fields = getattr(type(returned), "model_fields", None)
    explicitly_set = getattr(returned, "model_fields_set", None)
    items = []
    missing = object()
    for key in _annotated_keys(type(returned)):
        value = getattr(returned, key, missing)
        if value is missing:
            continue
        if value is None and fields is not None:
            default = fields[key].default if key in fields else missing
            if default is None and key not in (explicitly_set or ()):
                continue
        items.append((key, value))
    return items


def _unknown_key_message(node: str, key: str, keys: frozenset[str], input_schema: str) -> str:
    where = "The input has" if node == START else f"Node {node!r} returned"
    schema = f"the input schema {input_schema}" if input_schema else "the state schema"
    return (
        f"{where} key {key!r}, which is not in {schema} (keys: {sorted(keys)}); the write "
        f"is dropped, as in LangGraph. Add the key to {input_schema or 'the schema'} or fix "
        "its name."
    )


def _constant_writer(writes: tuple[tuple[str, Any], ...]) -> Writer:
    def write_edges(
        returned: Any, fresh_read: FreshRead, config: Any
    ) -> tuple[tuple[str, Any], ...]:
        return writes

    return write_edges


def _branch_writer(branch: Branch, builder: StateGraph, schema: Any) -> Writer:
    """Runs the router on the state as the source node left it, and wakes its choice."""
    reads = builder.schemas[schema]
    coerce = coerce_to_schema(schema)
    wants_config = accepts_config(branch.path)

    def write_route(returned: Any, fresh_read: FreshRead, config: Any) -> list[tuple[str, Any]]:
        state: Any = fresh_read(reads)
        if coerce is not None:
            state = coerce(state)
        try:
            result = branch.path(state, config=config) if wants_config else branch.path(state)
        except Exception as error:
            error.add_note(
                f"Raised by the router {branch.name} of node {branch.source!r} "
                "(add_conditional_edges)."
            )
            raise
        chosen = list(result) if isinstance(result, (list, tuple)) else [result]
        writes = []
        for choice in chosen:
            _refuse_langgraph_class(f"The router of {branch.source!r}", choice)
            if isinstance(choice, Send):
                if choice.node == END:
                    raise InvalidUpdateError(
                        f"The router of {branch.source!r} returned {choice!r}: a Send cannot "
                        "go to END, which runs nothing. Return END itself to stop, or Send "
                        "to a node."
                    )
                writes.append((TASKS, choice))
                continue
            target = _resolve(branch, choice)
            if target == END:
                continue
            # A name that is not a node is written all the same, as LangGraph does, so the
            # task's record shows what the router returned; Update drops it with a warning.
            writes.append((branch_channel(target), None))
        return writes

    return write_route


def _resolve(branch: Branch, choice: Any) -> Any:
    if choice is None or choice == START:
        raise ValueError(
            f"The router of {branch.source!r} returned {choice!r}, which is not a valid "
            "destination; return a node name, a list of names, or END."
        )
    if branch.path_map is None:
        return choice
    try:
        return branch.path_map[choice]
    except KeyError:
        raise KeyError(
            f"The router of {branch.source!r} returned {choice!r}, which is not a key of its "
            f"path_map {sorted(map(str, branch.path_map))}; add it to the path_map or "
            "return one of its keys."
        ) from None


# -- calling user code -------------------------------------------------------------------


def _subgraph_call(child: CompiledGraph, parent_keys: frozenset[str]) -> Callable[..., Any]:
    """A compiled graph as a node: it gets the keys it declares and gives back the
    keys the parent has (private keys on either side are not an error here)."""
    child_inputs = frozenset(child.builder.schemas[child.builder.input_schema])

    def run_subgraph(state: Any, config: Any) -> Any:
        if isinstance(state, dict):
            state = {key: value for key, value in state.items() if key in child_inputs}
        output = child.invoke(state, config)
        if isinstance(output, dict):
            output = {key: value for key, value in output.items() if key in parent_keys}
        return output

    return run_subgraph


def _identity(value: Any) -> Any:
    return value


def _adapt_call(
    node: str, action: Any, parent_keys: frozenset[str] = frozenset()
) -> tuple[Callable[..., Any], tuple[str, ...]]:
    """Return the callable for a node's action and the parameters to inject into it."""
    if isinstance(action, CompiledGraph):
        return _subgraph_call(action, parent_keys), ("config",)
    if inspect.isfunction(action) or inspect.ismethod(action) or inspect.isbuiltin(action):
        function = action
    elif callable(getattr(action, "invoke", None)):
        function = action.invoke
    else:
        function = action
    return function, injectable_parameters(function)
