"""``get_graph(xray=...)``: draw a subgraph node as the subgraph's own nodes.

A node whose action is a compiled graph, or whose function calls one, runs that graph
inside one task (the subgraphs ``get_subgraphs`` finds). With ``xray``, the node is
replaced by the subgraph's nodes, named ``<node>:<inner node>`` (``:``
cannot occur in a node name, so nothing clashes): the edges into the node go to the
subgraph's entry nodes, and the subgraph's edges to END leave from the node's exits.
``xray=True`` expands every level, ``xray=n`` the first n levels.
"""

from __future__ import annotations

import numbers
from dataclasses import replace
from typing import Any

from graphkit.constants import END, START
from graphkit.render.model import EDGE_KINDS, DrawableGraph, Edge, Node

__all__ = ["expand_subgraphs", "sorted_edges"]


def expand_subgraphs(graph: DrawableGraph, builder: Any, xray: bool | int) -> DrawableGraph:
    """``graph`` with each subgraph node of ``builder`` replaced by its nodes."""
    if xray is None:  # (as LangGraph takes it: no expansion)
        return graph
    if not isinstance(xray, numbers.Real):  # (bool is an int; numpy's numbers are Real)
        raise TypeError(
            f"get_graph(xray=...) takes True, False or a number of subgraph levels to "
            f"expand, got {type(xray).__name__} {xray!r}."
        )
    if xray is False or xray <= 0:
        return graph
    deeper = True if xray is True else xray - 1
    for node in list(graph.nodes):
        declaration = builder.nodes.get(node.id) if node.kind == "node" else None
        inner = _drawable_subgraph(getattr(declaration, "action", None))
        if inner is not None and inner.builder is not builder:  # (not the graph itself)
            graph = _splice(graph, node.id, inner.get_graph(xray=deeper))
    return graph


def _drawable_subgraph(action: Any) -> Any:
    """The subgraph ``get_subgraphs`` finds for a node with ``action`` (the graph it is
    or its function calls; none that keeps no state), if it has a builder to draw."""
    if action is None:
        return None
    from graphkit.pregel.runnable import graph_in

    inner = graph_in(action)
    return inner if getattr(inner, "builder", None) is not None else None


def _splice(graph: DrawableGraph, name: str, inner: DrawableGraph) -> DrawableGraph:
    prefix = f"{name}:"
    inner_nodes = [
        replace(n, id=prefix + n.id, name=prefix + n.name)
        for n in inner.nodes
        if n.kind not in ("start", "end")
    ]
    entries = [e for e in inner.edges if e.source == START]
    exits = [e for e in inner.edges if e.target == END]
    edges = [e for e in graph.edges if name not in (e.source, e.target)]
    edges += [
        replace(e, source=prefix + e.source, target=prefix + e.target)
        for e in inner.edges
        if e.source != START and e.target != END
    ]
    for outer in graph.edges:
        if outer.target == name:  # into the node: into each entry of the subgraph
            sources = [prefix + e.source for e in exits] if outer.source == name else [None]
            for source in sources:
                edges += [_joined(outer, entry, source, prefix + entry.target) for entry in entries]
        elif outer.source == name:  # out of the node: out of each exit of the subgraph
            edges += [_joined(outer, exit_, prefix + exit_.source, None) for exit_ in exits]
    index = next(i for i, n in enumerate(graph.nodes) if n.id == name)
    nodes = [*graph.nodes[:index], *inner_nodes, *graph.nodes[index + 1 :]]
    return DrawableGraph(graph.name, tuple(nodes), tuple(sorted_edges(nodes, edges)))


def _joined(outer: Edge, inner: Edge, source: str | None, target: str | None) -> Edge:
    """One edge standing for an outer edge followed by an inner one (or the reverse):
    the more specific kind and its label win. Into a join, a router's or a Command's
    choice is the more specific: drawn waiting, it would read as always taken."""
    routed = outer.kind == "waiting" and inner.kind in ("conditional", "command")
    chosen = inner if outer.kind == "edge" or routed else outer
    return Edge(source or outer.source, target or outer.target, chosen.kind, chosen.label)


def sorted_edges(nodes: list[Node], edges: list[Edge]) -> list[Edge]:
    """Edges in drawing order (by source, target, kind, label), each drawn once."""
    order = {node.id: index for index, node in enumerate(nodes)}
    edges = sorted(
        edges,
        key=lambda e: (order[e.source], order[e.target], EDGE_KINDS.index(e.kind), e.label or ""),
    )
    unique: dict[tuple[str, str, str, str | None], Edge] = {}
    for edge in edges:
        unique.setdefault((edge.source, edge.target, edge.kind, edge.label), edge)
    return list(unique.values())
