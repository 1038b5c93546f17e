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

if TYPE_CHECKING:
    from graphkit.render.model import DrawableGraph, Edge

__all__ = ["draw_ascii"]


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


def _as_langgraph_lists(edges: Sequence[Edge], joins: set[str]) -> list[tuple[Any, ...]]:
    """The edges as LangGraph's drawable graph lists them, as ``(source, target, data,
    conditional)``, since their order shapes the layout: a waiting edge as an edge from
    each of its sources (LangGraph draws no join point), sorted by names as LangGraph
    sorts them rather than in graphkit's node order."""
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
        for source, target, conditional, data in sorted(listed)
    ]
