"""Notebook display: the MIME bundle a compiled graph (or a drawable graph) shows.

``_repr_mimebundle_`` hooks are one-line delegates to ``mimebundle``. There is no
network access and no web service: the SVG comes from ``draw_svg`` (graphviz's
``dot`` when installed, else the pure-Python layout), cached per graph.
"""

from __future__ import annotations

from collections.abc import Container
from typing import Any

from graphkit.render.model import DrawableGraph

__all__ = ["mimebundle", "plain_text"]

_ARROWS = {"edge": "-->", "waiting": "-->", "conditional": "-.->", "command": "-.->"}
MAX_PLAIN_EDGES = 40


def mimebundle(
    subject: Any, include: Container[str] | None = None, exclude: Container[str] | None = None
) -> dict[str, str]:
    """``{"text/plain": ..., "image/svg+xml": ...}`` for a ``CompiledGraph`` or a
    ``DrawableGraph``, honouring IPython's ``include``/``exclude``; ``text/plain`` is
    always there, and the SVG is only drawn when it is wanted.

    >>> from graphkit.render.model import DrawableGraph, Node, Edge
    >>> graph = DrawableGraph("g", (Node("__start__", "__start__", "start"), Node("a", "a")),
    ...                       (Edge("__start__", "a"),))
    >>> print(mimebundle(graph, include=["text/plain"])["text/plain"])
    DrawableGraph 'g'
      __start__ --> a
    """
    graph = subject if isinstance(subject, DrawableGraph) else _graph_of(subject)
    title = f"{type(subject).__name__} {getattr(subject, 'name', '')!r}"
    if graph is None:
        return {"text/plain": f"{title} (no builder to draw it from)"}
    bundle = {"text/plain": plain_text(graph, title)}
    if (include is None or "image/svg+xml" in include) and (
        exclude is None or "image/svg+xml" not in exclude
    ):
        bundle["image/svg+xml"] = graph.draw_svg()
    return bundle


def _graph_of(app: Any) -> DrawableGraph | None:
    if getattr(app, "builder", None) is None:
        return None
    if type(app).__module__.startswith("langgraph"):  # drawn as converted, by graphkit
        from graphkit.render.methods import get_graph

        return get_graph(app)
    return app.get_graph()


def plain_text(graph: DrawableGraph, title: str) -> str:
    """One line per edge (``-.->`` for a router's or a Command's choice), at most
    ``MAX_PLAIN_EDGES`` of them."""
    lines = [title]
    for edge in graph.edges[:MAX_PLAIN_EDGES]:
        label = f"  [{edge.label}]" if edge.label is not None else ""
        lines.append(f"  {edge.source} {_ARROWS[edge.kind]} {edge.target}{label}")
    if len(graph.edges) > MAX_PLAIN_EDGES:
        lines.append(f"  ... and {len(graph.edges) - MAX_PLAIN_EDGES} more edges")
    return "\n".join(lines)
