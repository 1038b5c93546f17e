"""Build the drawable graph from a StateGraph builder: what can run, and nothing else.

* ``add_edge(a, b)`` is an ``edge``;
* a conditional edge is one ``conditional`` edge per node its router can choose,
  labelled with the path_map keys that choose it (unless the key is just the
  target's name). Without a path_map, the router's
  ``Literal[...]`` return annotation names its choices; without one either, it can
  choose any node or END, and all of them are drawn;
* a waiting edge ``[a, b] -> c`` goes through a join point: ``a`` and ``b`` into it,
  one edge out to ``c`` (``waiting`` edges), so nobody reads it as "c runs twice";
* ``destinations=`` (or a ``Command[Literal[...]]`` return annotation) are
  ``command`` edges;
* a node's ``error_handler`` is reached by a ``conditional`` edge labelled "on error";
* a node with no way out at all ends the run, so it gets an edge to END. A node whose
  way out is a router or a Command does not: that edge would be a phantom;
* only what a walk from START along these edges reaches is drawn with edges (as in
  LangGraph): a node only a ``Send`` or an unannotated ``Command`` reaches stands alone.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable, Collection, Iterator, Mapping
from typing import Any

from graphkit.constants import END, START
from graphkit.render.model import GOTO, DrawableGraph, Edge, Node
from graphkit.render.xray import expand_subgraphs, sorted_edges

__all__ = ["graph_from_builder", "literal_names"]


def graph_from_builder(
    builder: Any,
    *,
    name: str = "LangGraph",
    xray: bool | int = False,
    only: Collection[str] | None = None,
) -> DrawableGraph:
    """The drawable graph of a ``StateGraph``; ``only`` restricts it to the nodes a
    compiled graph actually has (nodes added after ``compile()`` are not drawn).

    ``xray=True`` draws a subgraph node as the subgraph's own nodes (``xray=n``: the
    first n levels of nesting); see ``graphkit.render.xray``.

    >>> from typing import TypedDict
    >>> from graphkit import StateGraph, START
    >>> class State(TypedDict):
    ...     x: int
    >>> builder = StateGraph(State).add_node("a", lambda s: {}).add_edge(START, "a")
    >>> [(e.source, e.target, e.kind) for e in graph_from_builder(builder).edges]
    [('__start__', 'a', 'edge'), ('a', '__end__', 'edge')]
    """
    if builder is None:
        raise ValueError(
            "There is no StateGraph builder to draw this graph from; build it with "
            "StateGraph(...).compile() to draw it."
        )
    declared = [n for n in builder.nodes if only is None or n in only]
    names = set(declared)
    edges = [*_static_edges(builder), *_waiting_edges(builder)]
    edges += _branch_edges(builder, names)
    edges += _command_edges(builder, names)
    edges = [e for e in edges if _known(e.source, names) and _known(e.target, names)]
    has_exit = {edge.source for edge in edges}
    edges += [Edge(node, END) for node in declared if node not in has_exit]
    edges += [  # a failure hands over to the node's error handler
        Edge(node, handler, "conditional", "on error")
        for node in declared
        if (handler := getattr(builder.nodes[node], "error_handler", None)) in names
    ]

    edges = _reached_from_start(edges)

    joins = sorted({e.target for e in edges if e.target.startswith("join:")})
    nodes = [Node(START, START, "start")]
    nodes += [Node(n, n, "node", dict(builder.nodes[n].metadata)) for n in declared]
    nodes += [Node(join, join, "join") for join in joins]
    if any(edge.target == END for edge in edges):
        nodes.append(Node(END, END, "end"))
    graph = DrawableGraph(name, tuple(nodes), tuple(sorted_edges(nodes, edges)))
    return expand_subgraphs(graph, builder, xray)


def _reached_from_start(edges: list[Edge]) -> list[Edge]:
    """The edges whose source a path of drawn edges reaches from START (LangGraph draws
    what a walk from START finds: a node only a Send or an unannotated Command reaches
    is drawn with no edges)."""
    targets: dict[str, list[str]] = {}
    for edge in edges:
        targets.setdefault(edge.source, []).append(edge.target)
    reached, frontier = {START}, [START]
    while frontier:
        for target in targets.get(frontier.pop(), ()):
            if target not in reached:
                reached.add(target)
                frontier.append(target)
    return [edge for edge in edges if edge.source in reached]


def _known(node: str, names: set[str]) -> bool:
    return node in names or node in (START, END) or node.startswith("join:")


def _static_edges(builder: Any) -> list[Edge]:
    # A low-level Pregel's wiring also says which channels carry each edge, may label
    # it, and marks the conditional ones (see ChannelWiring); a StateGraph builder's
    # edges are plain, unlabelled and carry no channels.
    channels = getattr(builder, "edge_channels", None) or {}
    labels = getattr(builder, "edge_labels", None) or {}
    kinds = getattr(builder, "edge_kinds", None) or {}
    return [
        Edge(
            start,
            end,
            kinds.get((start, end), "edge"),
            labels.get((start, end)),
            channels=channels.get((start, end), ()),
        )
        for start, end in builder.edges
    ]


def _waiting_edges(builder: Any) -> list[Edge]:
    edges = []
    for starts, end in builder.waiting_edges:
        # The join point's id is the barrier channel the runtime uses (see compile.py),
        # so the records' triggers name it. ':' cannot occur in a node name.
        join = f"join:{'+'.join(starts)}:{end}"
        edges += [Edge(start, join, "waiting") for start in starts]
        edges.append(Edge(join, end, "waiting"))
    return edges


def _branch_edges(builder: Any, names: set[str]) -> list[Edge]:
    edges = []
    for source, branches in builder.branches.items():
        for branch in branches.values():
            for target, label in _choices(branch.path, branch.path_map, names):
                edges.append(Edge(source, target, "conditional", label))
    return edges


def _choices(
    path: Callable[..., Any], path_map: Mapping[Any, str] | None, names: set[str]
) -> list[tuple[str, str | None]]:
    """(target, label) for each node a router can choose."""
    if path_map is not None:
        keys_by_target: dict[str, list[str]] = {}
        for key, target in path_map.items():
            keys_by_target.setdefault(target, []).append(str(key))
        # A key that just repeats its target's name says nothing the arrow does not.
        return [
            (target, None if keys == [target] else ", ".join(keys))
            for target, keys in keys_by_target.items()
        ]
    annotated = literal_names(path, "return")
    if annotated is not None:
        # The runtime drops a choice that is not a node (with a warning): no edge for it.
        targets = [n for n in annotated if n in names or n == END]
        if targets:
            return [(target, None) for target in targets]
    return [(target, None) for target in (*sorted(names), END)]


def _command_edges(builder: Any, names: set[str]) -> list[Edge]:
    edges = []
    for node, declaration in builder.nodes.items():
        destinations = declaration.destinations
        if destinations is None:
            destinations = literal_names(declaration.action, "return", wrapper="Command")
        if not destinations:
            continue
        labels = destinations if isinstance(destinations, Mapping) else {}
        for target in destinations:
            if target in names or target == END:
                # (a label that repeats the target's name is none, as a path_map key's)
                label = labels.get(target)
                edges.append(
                    Edge(node, target, "command", GOTO if label in (None, "", target) else label)
                )
    return edges


# -- reading Literal[...] annotations ------------------------------------------------------


def literal_names(function: Any, hint_name: str, *, wrapper: str | None = None) -> list[str] | None:
    """The string values of the ``Literal[...]`` in a function's annotation, looking
    inside unions and containers (``list[Literal["a", "b"]]``); with ``wrapper``, only
    inside that generic (``Command[Literal["a"]]``). None when there are none.

    >>> from typing import Literal
    >>> def route(state) -> list[Literal["a", "b"]] | None: ...
    >>> literal_names(route, "return")
    ['a', 'b']
    """
    hint = _type_hints(function).get(hint_name)
    if hint is None:
        return None
    names: list[str] = []
    for literal_hint in _literals(hint, inside=wrapper is None, wrapper=wrapper):
        names += [v for v in typing.get_args(literal_hint) if isinstance(v, str) and v not in names]
    return names or None


def _type_hints(function: Any) -> dict[str, Any]:
    if not inspect.isroutine(function):  # a runnable, or an object with __call__
        invoke = getattr(function, "invoke", None)
        function = invoke if callable(invoke) else getattr(type(function), "__call__", None)  # noqa: B004
    try:
        return typing.get_type_hints(function)
    except Exception:  # unresolvable forward references, builtins, partials...
        return {}


def _literals(hint: Any, *, inside: bool, wrapper: str | None) -> Iterator[Any]:
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        if inside:
            yield hint
        return
    if wrapper is not None and getattr(origin or hint, "__name__", None) == wrapper:
        inside = True
    elif wrapper is not None and origin not in (typing.Union, types.UnionType):
        return  # e.g. dict[Literal["x"], int]: not a route
    for argument in typing.get_args(hint):
        yield from _literals(argument, inside=inside, wrapper=wrapper)
