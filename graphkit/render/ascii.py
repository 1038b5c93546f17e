"""ASCII art of a graph, for the line LangGraph's tutorials name beside the PNG drawings:
``print(app.get_graph().draw_ascii())``.

LangGraph's drawable graph draws it with langchain-core's ``graph_ascii``, which lays the
graph out with ``grandalf``; graphkit hands its nodes and edges to the same function, so
the art is the same where the nodes and edges are (see ``docs/compatibility.md`` for
where graphkit's drawing has other edges), and without ``grandalf`` both raise
langchain-core's ``ImportError`` saying to install it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from graphkit.constants import END

if TYPE_CHECKING:
    from graphkit.render.model import DrawableGraph, Edge

__all__ = ["as_langchain_graph", "draw_ascii"]


def draw_ascii(graph: DrawableGraph) -> str:
    """The graph as ASCII art: a box per node, ``*`` for an edge, ``.`` for a
    conditional one (a router's or a ``Command``'s choice)."""
    try:
        from langchain_core.runnables.graph_ascii import draw_ascii as draw
    except ImportError as error:
        raise ImportError(
            "draw_ascii() draws with langchain-core and grandalf, as LangGraph does: "
            "pip install langchain-core grandalf"
        ) from error
    joins = {node.id for node in graph.nodes if node.kind == "join"}
    nodes = {node.id: node.name for node in graph.nodes if node.id not in joins}
    return draw(nodes, _as_langgraph_lists(graph.edges, joins))


def as_langchain_graph(graph: DrawableGraph) -> Any:
    """The graph as langchain-core's drawable ``Graph``, the kind LangGraph's
    ``get_graph()`` returns: what LangChain joins when it draws a chain the graph is a
    step of (``(app | runnable).get_graph()``), with the nodes and edges ``draw_ascii``
    draws."""
    from langchain_core.runnables.graph import Graph, Node

    drawn = Graph()
    joins = {node.id for node in graph.nodes if node.kind == "join"}
    for node in graph.nodes:
        if node.id not in joins:
            drawn.nodes[node.id] = Node(node.id, node.name, None, dict(node.metadata) or None)
    for source, target, data, conditional in _as_langgraph_lists(graph.edges, joins):
        drawn.add_edge(drawn.nodes[source], drawn.nodes[target], data, conditional)
    return drawn


def _as_langgraph_lists(edges: Sequence[Edge], joins: set[str]) -> list[tuple[Any, ...]]:
    """The edges as LangGraph's drawable graph lists them, as ``(source, target, data,
    conditional)``, since their order shapes the layout: a waiting edge as an edge from
    each of its sources (LangGraph draws no join point), sorted by names as LangGraph
    sorts them rather than in graphkit's node order, and the plain edges into END last
    (LangGraph adds them after the others, for the nodes with no other way out)."""
    sources_of_join: dict[str, list[str]] = defaultdict(list)
    for edge in edges:
        if edge.target in joins:
            sources_of_join[edge.target].append(edge.source)
    listed = {
        (source, edge.target, edge.conditional, edge.data or "")
        for edge in edges
        if edge.target not in joins
        for source in sources_of_join.get(edge.source, [edge.source])
    }
    return [
        (source, target, data or None, conditional)
        for source, target, conditional, data in sorted(listed, key=_plain_end_edges_last)
    ]


def _plain_end_edges_last(edge: tuple[str, str, bool, str]) -> tuple[bool, tuple[Any, ...]]:
    _, target, conditional, _ = edge
    return (target == END and not conditional, edge)
