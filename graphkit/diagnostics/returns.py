"""What graphkit says about what a node or a router returned, refused as the run meets it.

The writers (``graphkit.graph.writers``) turn a node's return value into channel
writes and a router's into the next nodes; these say why a value could not be: a key
the state does not have, something other than a dict, a Command or a Send gone wrong,
a route to no node. A run's input is refused here too (it is what START returns), by
``StateGraph``'s run and by a low-level ``Pregel``'s.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from graphkit.constants import END, START
from graphkit.diagnostics.names import constant_meant, constant_or_slip, near_miss
from graphkit.errors import ErrorCode, InvalidUpdateError, create_error_message
from graphkit.types import Command, Send


def unknown_key(
    node: str, key: str, keys: Collection[str], input_schema: str, edited_as: str | None = None
) -> str:
    """A returned key (or an input key, for START; or a key of ``update_state``'s values,
    read as ``edited_as``'s return value) that no channel has."""
    if edited_as is not None:  # (named as read, whether as_node was given or defaulted)
        where = f"update_state's values (read as what {edited_as!r} returned) have"
    else:
        where = "The input has" if node == START else f"Node {node!r} returned"
    schema = f"the input schema {input_schema}" if input_schema else "the state schema"
    return (
        f"{where} key {key!r}, which is not in {schema} (keys: {sorted(keys)}); the "
        f"write is dropped, as in LangGraph. Add the key to {input_schema or 'the schema'} "
        "or fix its name."
    )


def managed_key(node: str, key: str) -> str:
    return (
        f"Node {node!r} returned {key!r}, a managed value the runtime computes for "
        "each step; the write is dropped. Store your own value under another key."
    )


def no_input_channel_named(input_keys: Sequence[str], given: Any) -> str:
    """A low-level ``Pregel``'s dict input naming none of its input channels."""
    return (
        f"Received no input for {list(input_keys)}: the input {given!r} names none of the "
        f"input channels, so the run has nothing to start from. Pass e.g. "
        f"{{{input_keys[0]!r}: ...}}."
    )


def not_a_dict(node: str, returned: Any) -> str:
    if node == START:
        message = (
            f"Expected dict, got {returned!r}: the run's input must be a dict of state keys "
            f"(or a state object), not {type(returned).__name__}. "
            "Pass e.g. app.invoke({'key': value})."
        )
    else:
        message = (
            f"Expected dict, got {returned!r}: node {node!r} returned a value of type "
            f"{type(returned).__name__}, and a node must return a dict of state keys (or a "
            "state object, a Command, or None). Return e.g. {'key': value}."
        )
    code = ErrorCode.INVALID_GRAPH_NODE_RETURN_VALUE
    return create_error_message(message=message, error_code=code)


def refuse_snapshot(node: str, value: Any) -> None:
    """Refuse a ``StateSnapshot`` (what ``get_state`` returns) as an update: read as a
    state object it has none of the state's keys, so LangGraph writes nothing. Told by
    its type (graphkit's or LangGraph's), not its fields: a state may have fields named
    ``values``, ``next`` and ``parent_config``."""
    if isinstance(value, tuple) and type(value).__name__ == "StateSnapshot":
        who = "The run's input is" if node == START else f"Node {node!r} returned"
        raise InvalidUpdateError(
            f"{who} a {type(value).__name__} (what get_state returns), which holds the "
            "state but is none: pass its values, snapshot.values, or a dict of the keys "
            "to change."
        )


def refuse_langgraph_class(what: str, value: Any, verb: str = "returned") -> None:
    """Refuse LangGraph's own Command or Send by name: read as a plain object, it would
    silently lose its update and its route."""
    module = type(value).__module__
    if module.partition(".")[0] == "langgraph":
        name = type(value).__name__
        raise InvalidUpdateError(
            f"{what} {verb} a {name} from {module}, LangGraph's class; graphkit routes "
            f"and updates with its own. Import it from graphkit: from graphkit import {name}."
        )


def langgraph_signal(node: str, error: BaseException) -> BaseException:
    """``error``, or a ``TypeError`` naming it when it is LangGraph's own interrupt or
    ``ParentCommand`` (an import left as it was): graphkit's runtime pauses and routes on
    its own classes only, so it would end the run as an ordinary error."""
    kinds = type(error).__mro__
    if not any(k.__name__ == "GraphBubbleUp" and k.__module__ == "langgraph.errors" for k in kinds):
        return error
    name = type(error).__name__
    refused = TypeError(
        f"Node {node!r} raised LangGraph's {name} (langgraph.errors), which only LangGraph's "
        f"runtime handles. Import graphkit's: from graphkit.errors import {name}."
    )
    refused.__cause__ = error
    return refused


def raised_by_router(name: str, source: str) -> str:
    return f"Raised by the router {name} of node {source!r} (add_conditional_edges)."


def async_router_in_sync_run(name: str, source: str) -> TypeError:
    """An ``async def`` router met in a synchronous run (LangGraph raises TypeError too)."""
    where = "the input" if source == START else f"node {source!r}"
    return TypeError(
        f"The router {name} of {where} (add_conditional_edges) is an async function, "
        "and this run is synchronous. Run the graph with `await app.ainvoke(...)` or "
        "`app.astream(...)`, or make the router a plain def."
    )


def bad_goto(node: str, command: Command) -> str:
    shown = repr(command)
    if command.goto is None:  # (Command's repr leaves a goto of None out)
        shown = f"{shown[:-1]}, goto=None)" if shown != "Command()" else "Command(goto=None)"
    fix = "; to go where the edges lead, leave goto out" if command.goto is None else ""
    return (
        f"Node {node!r} returned {shown}: goto takes a node name, END, a Send, "
        f"or a list of them, not {type(command.goto).__name__}{fix}."
    )


def command_without_parent(node: str, command: Command) -> str:
    return (
        f"Node {node!r} returned {command!r}, but this graph is not running as a subgraph, "
        "so there is no parent graph to send it to. Drop graph=Command.PARENT, or add "
        "this graph as a node of a parent graph."
    )


def bad_command_update(node: str, update: Any) -> str:
    what = type(update).__name__
    if isinstance(update, (list, tuple)):  # pairs gone wrong: say what pairs are
        what += f" {update!r}, which is not a list of (key, value) tuples with string keys"
    return (
        f"Node {node!r} returned a Command whose update is {what}; "
        "use a dict of state keys, e.g. Command(update={'key': value})."
    )


def send_to_end(router: str, send: Send) -> str:
    return (
        f"{router} returned {send!r}: a Send cannot go to END, which runs nothing. "
        "Return END itself to stop, or Send to a node."
    )


def invalid_destination(router: str, choice: Any) -> str:
    return (
        f"{router} returned {choice!r}, which is not a valid destination; return a node "
        "name, a list of names, or END."
    )


def unknown_path_key(
    router: str, choice: Any, path_map: Mapping[Any, str], map_source: str = "path_map"
) -> str:
    """A router's choice that its path_map has no key for; a node name or END that the
    map leads to is told the key that leads there (a router returns the map's keys).

    >>> print(unknown_path_key("The router of 'triage'", END, {"money": "refund", "empty": END}))
    The router of 'triage' returned '__end__' (END), where its path_map's key 'empty' leads; a router with a path_map returns one of its keys ['empty', 'money']: return 'empty'.
    """  # noqa: E501
    fix = "add it there or return one of those"
    keys = [key for key in path_map if isinstance(key, str)]
    leading = _keys_leading_to(choice, path_map)
    if leading:
        told = " (END)" if choice == END else ""
        where = " or ".join(map(repr, leading))
        return (
            f"{router} returned {choice!r}{told}, where its {map_source}'s key {where} leads; "
            f"a router with a {map_source} returns one of its keys "
            f"{sorted(map(str, path_map))}: return {where}."
        )
    if constant_meant(choice) == "END" and END in path_map:
        fix = constant_or_slip(choice, keys, verb="return")
    elif slip := near_miss(choice, keys):
        fix = f"did you mean {slip!r}? Otherwise {fix}"
    return (
        f"{router} returned {choice!r}, which is not a key of its {map_source} "
        f"{sorted(map(str, path_map))}; {fix}."
    )


def _keys_leading_to(choice: Any, path_map: Mapping[Any, str]) -> list[Any]:
    """The keys of ``path_map`` whose destination is ``choice`` (a node name, END)."""
    try:
        return [key for key, target in path_map.items() if target == choice]
    except Exception:  # a choice whose == is not a bool
        return []


def unhashable_choice(router: str, choice: Any, path_map: Mapping[Any, str]) -> str:
    """A router returned a value that cannot be a path_map key (a dict, a set)."""
    names = sorted(map(str, path_map))
    update = (
        " It looks like a state update: a node returns one; a router only chooses where to go."
        if isinstance(choice, dict)
        else ""
    )
    return (
        f"{router} returned {choice!r}, a {type(choice).__name__}, which cannot name a "
        f"destination; return the name of the node to run next (one of {names}).{update}"
    )
