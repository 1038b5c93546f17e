"""What graphkit says about a declared graph as a whole, checked before it compiles.

``validate`` reads the finished builder, where each argument has already been checked
as it was given (``building``): edges, routes and declared destinations to nodes that
were never added, no entry point, reserved names, and (warnings) a node named like a
state key or one nothing leads to. The compiled graph's deprecated ``config_schema()``
is built here too.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from graphkit.constants import END, RESERVED_NAMES, START, TASKS
from graphkit.diagnostics import some_names
from graphkit.diagnostics.names import (
    constant_or_slip,
    into_start,
    near_miss,
    not_a_node_name,
    shown,
    unknown_node_fix,
)
from graphkit.errors import LangGraphDeprecatedSinceV10, warn

if TYPE_CHECKING:
    from graphkit.graph.state import StateGraph


# -- validating a declared graph ----------------------------------------------------------


def validate(builder: StateGraph) -> None:
    """Raise ValueError for what cannot run; warn about what probably should not."""
    known = set(builder.nodes)
    # (by the names' text: an edge to a function or a number cannot be compared with one to a name)
    for start, end in sorted(builder.edges, key=lambda edge: [str(node) for node in edge]):
        for role, node, outside in (("starts", start, START), ("ends", end, END)):
            if node != outside and node not in known:
                what = f"unknown node {node!r}"
                if not isinstance(node, str):
                    what = f"{shown(node)}, which is not a node's name"
                fix = (role == "ends" and into_start(node, known)) or unknown_node_fix(node, known)
                raise ValueError(
                    f"Edge {shown(start)} -> {shown(end)} {role} at {what}; {fix}. "
                    f"Nodes: {some_names(known)}."
                )
    for source, branches in builder.branches.items():
        if source == END:  # (LangGraph: "unknown node '__end__'")
            raise ValueError(
                "A conditional edge cannot start at END: nothing runs after END. Start it "
                "at the node whose result it routes, e.g. add_conditional_edges('my_node', ...)."
            )
        if source != START and source not in known:
            what, fix = f"unknown node {source!r}", f"add_node({source!r}, ...) first"
            if not isinstance(source, str):
                what = f"{shown(source)}, which is not a node's name"
                fix = not_a_node_name(source, known)
            raise ValueError(
                f"Conditional edge starts at {what}; {fix}. Nodes: {some_names(known)}."
            )
        for branch in branches.values():
            for key, target in (branch.path_map or {}).items():
                if not isinstance(target, str):  # (LangGraph: "found unknown target 'None'")
                    raise ValueError(_no_node_target(branch, key, target))
            for key, target in (branch.path_map or {}).items():
                if target != END and target not in known:
                    raise ValueError(_unknown_target(branch, key, target, known))
    _check_destinations(builder, known)
    if START not in _successors(builder):
        raise ValueError(
            "Graph must have an entrypoint: add an edge from START, e.g. "
            f"add_edge(START, {next(iter(builder.nodes), 'my_node')!r})."
        )
    # (a state key may not be the channel Send packets travel in, either)
    for kind, names, reserved in (
        ("State key", builder.channels, RESERVED_NAMES | {TASKS}),
        ("Node", builder.nodes, RESERVED_NAMES),
    ):
        if taken := sorted(reserved.intersection(names)):
            raise ValueError(
                f"{kind} name {taken[0]!r} is reserved by the runtime (LangGraph refuses it "
                "too); rename it."
            )
    _warn_about_suspicious_shapes(builder)


def _no_node_target(branch: Any, key: Any, target: Any) -> str:
    """A path map entry whose value is no node's name (``'empty': None``): name the key,
    and what it can map to instead.

    >>> from graphkit.graph.declaration import Branch
    >>> branch = Branch("triage", len, {"empty": None, "other": "human"}, "route")
    >>> print(_no_node_target(branch, "empty", None).replace("; ", ";\\n"))
    Conditional edge 'route' of 'triage': its path_map maps 'empty' to None, which is no node;
    map 'empty' to END (from graphkit import END) to end the run there, or to the name of a node.
    """
    where = f"Conditional edge {branch.name!r} of {branch.source!r}: its {branch.map_source}"
    if key == target:  # (a list, or a Literal annotation: each name is its own key)
        return (
            f"{where} lists {target!r}, which is no node; list END (from graphkit import "
            "END) or the name of a node instead."
        )
    return (
        f"{where} maps {key!r} to {target!r}, which is no node; map {key!r} to END (from "
        "graphkit import END) to end the run there, or to the name of a node."
    )


def _unknown_target(branch: Any, key: Any, target: str, known: Collection[str]) -> str:
    """A path map entry whose value names no node (``'bug': 'bgu'``): name the key, as
    for a value of None, and the fix (the constant END, a slip, or a node to add).

    >>> from graphkit.graph.declaration import Branch
    >>> branch = Branch("triage", len, {"other": "humna"}, "route")
    >>> print(_unknown_target(branch, "other", "humna", ["bug", "human"]).replace("; ", ";\\n"))
    Conditional edge 'route' of 'triage': its path_map maps 'other' to unknown node 'humna';
    fix its path_map (did you mean 'human'?) or add_node('humna', ...).
    """
    where = f"Conditional edge {branch.name!r} of {branch.source!r}: its {branch.map_source}"
    # (a list, or a Literal annotation: each name is its own key)
    node = f"unknown node {target!r}"
    entry = f"lists {node}" if key == target else f"maps {key!r} to {node}"
    fix = f"fix its {branch.map_source} or add_node({target!r}, ...)"
    if back := into_start(target, known):  # (START is no node to add, nor a constant to use)
        fix = back
    elif constant := constant_or_slip(target, known):
        fix = constant
    elif slip := near_miss(target, known):
        fix = f"fix its {branch.map_source} (did you mean {slip!r}?) or add_node({target!r}, ...)"
    return f"{where} {entry}; {fix}."


def _check_destinations(builder: StateGraph, known: set[str]) -> None:
    """A node's declared ``destinations`` (or ``-> Command[Literal[...]]``) must name
    nodes, as in LangGraph."""
    for name, declaration in builder.nodes.items():
        destinations = declaration.destinations
        if destinations is not None and not isinstance(destinations, (tuple, Mapping)):
            raise TypeError(  # (LangGraph's, here too: "'int' object is not iterable")
                f"add_node({name!r}, ..., destinations={shown(destinations)}): give the nodes "
                "it may go to as a tuple of names, e.g. destinations=('a', 'b'), or a dict "
                "of names to edge labels."
            )
        for target in destinations or ():
            if isinstance(target, (list, set, dict)):  # (LangGraph's: "unhashable type")
                raise TypeError(
                    f"add_node({name!r}, ..., destinations=...) lists {shown(target)}; give "
                    "one flat tuple of node names, e.g. destinations=('a', 'b')."
                )
            if target != END and target not in known:
                fix = "fix its destinations (or its Command[Literal[...]] annotation) or "
                fix += f"add_node({target!r}, ...). If {shown(target)} is a node of a "
                fix += "parent graph (the node returns Command(graph=Command.PARENT, ...)), "
                fix += "leave it out: they name this graph's own nodes (annotate -> Command)"
                if not isinstance(target, str):
                    fix = not_a_node_name(target, known)
                elif _letters(destinations, known):
                    word = "".join(destinations)  # (a str is iterable: tuple("orders"))
                    fix = f"its destinations are the string {word!r}, letter by letter: a tuple "
                    fix += f"of one name needs its comma, destinations=({word!r},)"
                raise ValueError(
                    f"Node {name!r} declares destination {shown(target)}, which is not a "
                    f"node; {fix}. Nodes: {some_names(known)}."
                )


def _letters(destinations: Any, known: set[str]) -> bool:
    """Whether ``destinations`` is a string made a tuple: single letters that, joined,
    name a node (``("b", "c")`` may be a tuple naming a missing node ``"c"``)."""
    return (
        isinstance(destinations, tuple)
        and len(destinations) > 1
        and all(isinstance(target, str) and len(target) == 1 for target in destinations)
        and "".join(destinations) in known
    )


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
                f"Node {node!r}: nothing leads to it from START (no edge, conditional edge "
                "or declared destination), so it runs only if a Command(goto=...) or a "
                "Send(...) goes there unannounced, and the drawing shows no way in. Add an "
                f"edge to it, e.g. "
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
    handles_all = builder.default_error_handler is not None
    for name, declaration in builder.nodes.items():
        successors.setdefault(name, set()).update(declaration.destinations or ())
        if declaration.error_handler is not None:  # a failure leads to its handler
            successors[name].add(declaration.error_handler)
        if declaration.is_error_handler and not declaration.destinations:
            successors[name].update(builder.nodes)  # its Command may go anywhere
    if handles_all:  # the default handler's Command may go anywhere
        for name in builder.nodes:
            successors[name].update(builder.nodes)
    return successors


# -- deprecated: CompiledGraph.config_schema() --------------------------------------------


def legacy_config_model(
    graph_name: str, context_schema: Any, include: Sequence[str], method: str = "config_schema"
) -> Any:
    """What LangGraph's deprecated ``compiled.config_schema()`` returns: a pydantic model
    named ``<graph name>Config`` with a ``configurable`` field typed by the context schema
    (when there is one) and the RunnableConfig keys named in ``include``. It warns
    ``LangGraphDeprecatedSinceV10`` (in LangGraph's words for ``method``, the deprecated
    method called); read ``compiled.context_schema`` instead. Needs pydantic
    (``pip install graphkit[agents]``)."""
    replacement = "for the relevant schema " if method == "config_schema" else ""
    warn(
        f"`{method}` is deprecated. Use `get_context_jsonschema` {replacement}instead. "
        "(Configuration moved to the context schema: read compiled.context_schema, given "
        "as StateGraph(..., context_schema=...).)",
        LangGraphDeprecatedSinceV10,
    )
    try:
        from pydantic import create_model
    except ImportError as missing:  # pragma: no cover - pydantic comes with the extra
        raise ImportError(
            "compiled.config_schema() builds a pydantic model: pip install graphkit[agents], "
            "or read the context schema (compiled.builder.context_schema) instead."
        ) from missing
    fields: dict[str, Any] = {}
    if context_schema is not None:
        fields["configurable"] = (context_schema, None)
    keys = [key for key in include if key != "configurable"]
    if keys:
        from typing import get_type_hints

        from langchain_core.runnables import RunnableConfig

        hints = get_type_hints(RunnableConfig)
        fields |= {key: (hints[key], None) for key in keys if key in hints}
    suffix = "Config" if graph_name[:1].isupper() else "_config"
    return create_model(graph_name + suffix, **fields)


def subgraph_given_nothing(child_keys: Iterable[str], parent_keys: Iterable[str]) -> str:
    """A note for a ``KeyError`` raised in a subgraph added as a node whose state shares no
    key with its parent's: it was given none of the parent's state (as in LangGraph)."""
    return (
        "This subgraph, added as a node, was given none of its parent's state: its keys "
        f"({some_names(child_keys)}) and the parent's ({some_names(parent_keys)}) share "
        "none, so it started empty (and what it returns is dropped; only a "
        "Command(graph=Command.PARENT) it sends reaches the parent). Give the two states a "
        "shared key, or call it inside a node function and translate the keys both ways: "
        "def my_node(state): result = subgraph.invoke({...}); return {...}."
    )
