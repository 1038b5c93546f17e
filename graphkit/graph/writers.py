"""Writers: what a node's return value becomes. Each is ``writer(returned, fresh_read,
config) -> writes`` (``graphkit.pregel.spec.Writer``); a node runs its writers in turn:
state updates, Command routes, edges, then the routers of its conditional edges."""

from __future__ import annotations

from typing import Any

from graphkit.constants import BRANCH_CHANNEL_PREFIX, END, START, TASKS
from graphkit.errors import InvalidUpdateError, ParentCommand, warn
from graphkit.graph.declaration import Branch
from graphkit.graph.schema import coerce_to_schema
from graphkit.pregel.spec import FreshRead, Writer, accepts_config
from graphkit.types import Command, Send

__all__ = ["branch_channel", "constant_writer", "goto_writer", "router_writer", "state_writer"]

Writes = list[tuple[str, Any]]


def branch_channel(node: str) -> str:
    """The channel that wakes ``node``."""
    return f"{BRANCH_CHANNEL_PREFIX}{node}"


def constant_writer(writes: tuple[tuple[str, Any], ...]) -> Writer:
    """Writes ``writes`` whatever the node returned: its edges."""
    return lambda returned, fresh_read, config: writes


def state_writer(
    node: str, keys: frozenset[str], managed: frozenset[str] = frozenset(), input_schema: str = ""
) -> Writer:
    """Writes the state keys a node (or the input) returned, dropping others with a warning."""
    where = "The input has" if node == START else f"Node {node!r} returned"
    schema = f"the input schema {input_schema}" if input_schema else "the state schema"
    fix = input_schema or "the schema"

    def write_state(returned: Any, fresh_read: FreshRead, config: Any) -> Writes:
        writes = []
        for key, value in [] if returned is None else _update_items(node, returned):
            if key in managed:
                warn(
                    f"Node {node!r} returned {key!r}, a managed value the runtime computes for "
                    "each step; the write is dropped. Store your own value under another key."
                )
            elif key in keys:
                writes.append((key, value))
            else:
                warn(
                    f"{where} key {key!r}, which is not in {schema} (keys: {sorted(keys)}); the "
                    f"write is dropped, as in LangGraph. Add the key to {fix} or fix its name."
                )
        return writes

    return write_state


def goto_writer(node: str) -> Writer:
    """Turns ``Command(goto=...)`` into the writes that wake the next nodes."""

    def write_goto(returned: Any, fresh_read: FreshRead, config: Any) -> Writes:
        writes = []
        for command in returned if isinstance(returned, (list, tuple)) else [returned]:
            if not isinstance(command, Command):
                continue
            try:
                targets = command.destinations()
            except TypeError:  # LangGraph raises TypeError too ("'int' object is not iterable")
                raise TypeError(
                    f"Node {node!r} returned {command!r}: goto takes a node name, END, a Send, "
                    f"or a list of them, not {type(command.goto).__name__}."
                ) from None
            writes += [write for target in targets for write in _route_writes(target)]
        return writes

    return write_goto


def router_writer(branch: Branch, reads: tuple[str, ...], schema: Any) -> Writer:
    """Runs the router on the state as the source node left it, and wakes its choice."""
    coerce = coerce_to_schema(schema)
    wants_config = accepts_config(branch.path)

    def write_route(returned: Any, fresh_read: FreshRead, config: Any) -> Writes:
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
        chosen = result if isinstance(result, (list, tuple)) else [result]
        return [write for choice in chosen for write in _route_writes(_resolve(branch, choice))]

    return write_route


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
    _refuse_langgraph_class(router, choice)
    if isinstance(choice, Send):
        if choice.node == END:
            raise InvalidUpdateError(
                f"{router} returned {choice!r}: a Send cannot go to END, which runs nothing. "
                "Return END itself to stop, or Send to a node."
            )
        return choice
    if choice is None or choice == START:
        raise ValueError(
            f"{router} returned {choice!r}, which is not a valid destination; return a node "
            "name, a list of names, or END."
        )
    if branch.path_map is None:
        return choice
    try:
        return branch.path_map[choice]
    except KeyError:
        keys = sorted(map(str, branch.path_map))
        raise KeyError(
            f"{router} returned {choice!r}, which is not a key of its path_map {keys}; add it "
            "to the path_map or return one of its keys."
        ) from None


def _refuse_langgraph_class(what: str, value: Any) -> None:
    """Refuse LangGraph's own Command or Send by name: read as a plain object, it would
    silently lose its update and its route."""
    module = type(value).__module__
    if module.partition(".")[0] == "langgraph":
        name = type(value).__name__
        raise InvalidUpdateError(
            f"{what} returned a {name} from {module}, LangGraph's class; graphkit routes "
            f"and updates with its own. Import it from graphkit: from graphkit import {name}."
        )


# -- the (key, value) updates in what a node returned -------------------------------------


def _update_items(node: str, returned: Any) -> Writes:
    """The updates in a dict, a state object, a Command or a list mixing Commands."""
    if isinstance(returned, dict):
        return list(returned.items())
    if isinstance(returned, Command):
        return _command_items(node, returned)
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


def _command_items(node: str, command: Command) -> Writes:
    """The updates in ``Command(update=...)``: a dict, (key, value) pairs or a state object."""
    if command.graph == Command.PARENT:
        raise ParentCommand(
            f"Node {node!r} returned {command!r}, but this graph is not running as a subgraph, "
            "so there is no parent graph to send it to. Drop graph=Command.PARENT, or add "
            "this graph as a node of a parent graph.",
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


def _object_items(value: Any) -> Writes:
    """The fields of a dataclass or pydantic instance; as in LangGraph, a field left at a
    None default counts as not set."""
    fields = getattr(type(value), "model_fields", None) or {}
    explicitly_set = getattr(value, "model_fields_set", None) or ()
    items = []
    for key in _annotated_keys(type(value)):
        field_value = getattr(value, key, _MISSING)
        unset = field_value is None and key in fields and key not in explicitly_set
        if field_value is not _MISSING and not (unset and fields[key].default is None):
            items.append((key, field_value))
    return items


def _annotated_keys(cls: type) -> list[str]:
    """The annotated attributes of ``cls`` and its bases, base classes' first."""
    keys: dict[str, None] = {}
    for base in reversed(cls.__mro__):
        if "__annotations__" in base.__dict__:
            keys.update(dict.fromkeys(getattr(base, "__annotations__", {})))
    return list(keys)


_MISSING = object()
