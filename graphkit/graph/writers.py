"""Writers: what a node's return value becomes. Each is ``writer(returned, fresh_read,
config) -> writes`` (``graphkit.pregel.spec.Writer``); a node runs its writers in turn:
its node writer (state updates, Command routes, edges), then its conditional edges' routers."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
from collections.abc import Callable, Sequence
from typing import Any

from graphkit.constants import BRANCH_CHANNEL_PREFIX, END, START, TASKS
from graphkit.diagnostics import returns as diagnose
from graphkit.diagnostics.returns import refuse_langgraph_class
from graphkit.errors import InvalidUpdateError, ParentCommand, warn
from graphkit.graph.declaration import Branch
from graphkit.graph.schema import ROOT, coerce_to_schema
from graphkit.pregel.editing import caller_loop, edited_as
from graphkit.pregel.runtime import task_values
from graphkit.pregel.spec import FreshRead, Writer, injectable_parameters
from graphkit.pregel.task_scope import current_scope
from graphkit.pregel.tracing import traced_route, traced_runnable_route
from graphkit.streaming.aio import run_on_loop
from graphkit.types import Command, Send, state_items

__all__ = ["branch_channel", "node_writer", "router_writer"]

Writes = list[tuple[str, Any]]


def branch_channel(node: str) -> str:
    """The channel that wakes ``node``."""
    return f"{BRANCH_CHANNEL_PREFIX}{node}"


def node_writer(
    node: str,
    keys: Sequence[str],
    managed: frozenset[str],
    edges: Writes,
    input_schema: str = "",
) -> Writer:
    """Writes the state keys a node (or the input) returned, dropping others with a warning,
    then wakes the nodes its Commands go to (a Command input's too), then its edges. In a
    single-value state (keys: just ``ROOT``), what a node returns is the new value. An
    object returned (a pydantic model, a dataclass) is read, as in LangGraph, for each of
    ``keys`` (in their order) that is no managed value."""
    read_keys = tuple(key for key in keys if key not in managed)
    items = _root_items if read_keys == (ROOT,) else _update_items
    known = frozenset(keys)

    def write_node(returned: Any, fresh_read: FreshRead, config: Any) -> Writes:
        writes = []
        for key, value in [] if returned is None else items(node, returned, read_keys):
            if key in managed:  # dropped; silently from the input (a parent's whole state)
                if node != START:
                    warn(diagnose.managed_key(node, key))
            elif key in known:
                writes.append((key, value))
            else:
                warn(diagnose.unknown_key(node, key, known, input_schema, edited_as()))
        if isinstance(returned, Send):  # as in LangGraph: a Command(goto=Send) for short
            writes += _route_writes(returned)
        elif isinstance(returned, (Command, list, tuple)):
            for command in returned if isinstance(returned, (list, tuple)) else [returned]:
                if isinstance(command, Command):
                    writes += _goto_writes(node, command)
        writes += edges
        return writes

    return write_node


def router_writer(branch: Branch, reads: tuple[str, ...], schema: Any, position: int) -> Writer:
    """Runs the router on the state as the source node left it, and wakes its choice;
    in a traced run, the router is a chain run of its own, at ``position`` in LangGraph's
    node sequence (``graphkit.pregel.tracing``).

    As in LangGraph, a router without a schema annotation of its own reads its source's
    input schema, plus the keys the node returned (a dict state only; the state wins):
    a router after a node with a private input schema still sees the node's update."""
    coerce = coerce_to_schema(schema)
    route = _router_call(branch)
    merge = branch.input_schema is None
    root = reads == (ROOT,)
    run_name = _traced_name(branch.path)

    def write_route(returned: Any, fresh_read: FreshRead, config: Any) -> Writes:
        state: Any = fresh_read(reads)
        if root:
            state = state.get(ROOT)
        elif coerce is not None:
            state = coerce(state)
        if merge and isinstance(returned, dict) and isinstance(state, dict):
            state = {**returned, **state}
        if config is None:  # (a task given no config is not traced)
            result = route(state, config)
        elif branch.runnable:
            result = traced_runnable_route(current_scope(), position, route, state, config)
        else:
            result = traced_route(current_scope(), position, run_name, route, state, config)
        chosen = result if isinstance(result, (list, tuple)) else [result]
        return [write for choice in chosen for write in _route_writes(_resolve(branch, choice))]

    return write_route


def _traced_name(path: Any) -> str | None:
    """The name a router's chain run has in LangGraph: its function's, none for a lambda
    or a callable object (LangChain then shows "Unnamed"). (The branch's own name, its key
    in ``builder.branches``, is "condition" for those.)"""
    name = getattr(path, "__name__", None)
    return None if name == "<lambda>" or not isinstance(name, str) else name


def _router_call(branch: Branch) -> Callable[[Any, Any], Any]:
    """``call(state, config)``: the router's answer; what the router raises gets a note
    naming it. An ``async def`` router (known here, once) is awaited as in LangGraph: its
    coroutine runs on the event loop of the async run calling it, as an async node's
    does; a synchronous run refuses it."""
    path, is_async = branch.path, _is_async(branch.path)
    wanted = tuple(name for name in injectable_parameters(path) if name != "error")

    def call(state: Any, config: Any) -> Any:
        loop = _caller_loop(branch) if is_async else None
        try:
            result = path(state, **task_values(wanted, config)) if wanted else path(state)
            return result if loop is None else run_on_loop(result, loop)
        except Exception as error:
            error.add_note(diagnose.raised_by_router(branch.name, branch.source))
            raise

    return call


def _is_async(path: Any) -> bool:
    """True for an ``async def`` router, or an object whose ``__call__`` is one."""
    method = getattr(path, "__call__", None)  # noqa: B004
    return inspect.iscoroutinefunction(path) or inspect.iscoroutinefunction(method)


def _caller_loop(branch: Branch) -> asyncio.AbstractEventLoop:
    """The event loop of the async run (or ``aupdate_state``) calling the router (else
    TypeError)."""
    loop = caller_loop()
    if loop is None:
        raise diagnose.async_router_in_sync_run(branch.name, branch.source)
    return loop


def _goto_writes(node: str, command: Command) -> Writes:
    """The writes that wake where ``Command(goto=...)`` goes."""
    goto_of = f"Node {node!r} returned a Command whose goto"
    refuse_langgraph_class(goto_of, command.goto, "is")  # (no list: one LangGraph Send)
    try:
        targets = command.destinations()
    except TypeError:  # LangGraph raises TypeError too ("'int' object is not iterable")
        raise TypeError(diagnose.bad_goto(node, command)) from None
    for target in targets:
        refuse_langgraph_class(goto_of, target, "holds")
    return [write for target in targets for write in _route_writes(target)]


def _route_writes(target: Any) -> Writes:
    """What waking ``target`` writes: a Send packet, a branch channel, or nothing (END)."""
    if isinstance(target, Send):
        return [(TASKS, target)]
    if target == END:
        return []
    # A name that is not a node is written all the same, as LangGraph does, so the task's
    # record shows what was chosen; Update drops it with a warning.
    return [(branch_channel(target), None)]


def _resolve(branch: Branch, choice: Any) -> Any:
    """Where a router's choice leads: a Send, or a name looked up in the path_map."""
    router = f"The router of {branch.source!r}"
    refuse_langgraph_class(router, choice)
    if isinstance(choice, Send):
        if choice.node == END:
            raise InvalidUpdateError(diagnose.send_to_end(router, choice))
        return choice
    if branch.path_map is not None:  # (its keys may be anything, None too)
        try:
            return branch.path_map[choice]
        except KeyError:
            message = diagnose.unknown_path_key(router, choice, branch.path_map, branch.map_source)
            raise KeyError(message) from None
        except TypeError:  # unhashable: LangGraph raises TypeError too ("unhashable type")
            message = diagnose.unhashable_choice(router, choice, branch.path_map)
            raise TypeError(message) from None
    if choice is None or choice == START:
        raise ValueError(diagnose.invalid_destination(router, choice))
    return choice


# -- the (key, value) updates in what a node returned -------------------------------------


def _update_items(node: str, returned: Any, keys: Sequence[str]) -> Writes:
    """The updates in a dict, a state object (read for ``keys``), a Command or a list
    mixing Commands."""
    if isinstance(returned, dict):
        return list(returned.items())
    if isinstance(returned, Command):
        return _command_items(node, returned)
    if isinstance(returned, Send):  # no update: it routes (see ``write_node``)
        return []
    if isinstance(returned, (list, tuple)) and any(isinstance(i, Command) for i in returned):
        parts = [part for part in returned if part is not None]  # LangGraph skips None
        return [item for part in parts for item in _update_items(node, part, keys)]
    refuse_langgraph_class("The input" if node == START else f"Node {node!r}", returned)
    diagnose.refuse_snapshot(node, returned)
    if (items := state_items(returned, keys)) is not None:
        return items
    raise InvalidUpdateError(diagnose.not_a_dict(node, returned))


def _root_items(node: str, returned: Any, keys: Sequence[str] = ()) -> Writes:
    """A single-value state's updates: the value returned, or a Command's update
    (``keys``: unread, as the one key is the value; ``_update_items``' signature)."""
    if isinstance(returned, Command):
        return _command_items(node, returned, root=True)
    if isinstance(returned, (list, tuple)) and any(isinstance(i, Command) for i in returned):
        return [
            item
            for part in returned
            for item in (_root_items(node, part) if isinstance(part, Command) else [(ROOT, part)])
        ]
    refuse_langgraph_class(f"Node {node!r}", returned)
    return [(ROOT, returned)]


def _command_items(node: str, command: Command, root: bool = False) -> Writes:
    """The updates in ``Command(update=...)``: a dict, (key, value) pairs or a state object;
    in a single-value state (``root``), any other value is the new value."""
    if command.graph == Command.PARENT:
        # (at the root, LangGraph's Command names the parent namespace: "")
        sent = dataclasses.replace(command, graph="")
        raise ParentCommand(sent, diagnose.command_without_parent(node, command))
    items = command.update_items(root)
    if items is None:
        raise InvalidUpdateError(diagnose.bad_command_update(node, command.update))
    return items
