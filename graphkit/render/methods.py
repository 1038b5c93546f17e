"""The methods a compiled graph gets from this layer: ``get_graph()`` and its drawing
in a notebook.

The runtime never imports ``graphkit.render``. Instead ``import graphkit`` calls
:func:`attach`, which makes :func:`get_graph` and :func:`~graphkit.render.display.mimebundle`
methods of ``CompiledGraph``.

>>> from graphkit import CompiledGraph
>>> CompiledGraph.get_graph is get_graph, CompiledGraph._repr_mimebundle_ is mimebundle
(True, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from graphkit.pregel import CompiledGraph
from graphkit.render.build import graph_from_builder
from graphkit.render.display import mimebundle

if TYPE_CHECKING:
    from graphkit.render.model import DrawableGraph

__all__ = ["aget_graph", "attach", "get_graph"]


def get_graph(
    app: CompiledGraph, config: Mapping[str, Any] | None = None, *, xray: bool | int = False
) -> DrawableGraph:
    """The graph as drawn: ``.to_dot()``, ``.draw_mermaid()``, ``.draw_svg()``; a
    compiled LangGraph graph is converted first (``as_graphkit``). ``xray=True`` draws
    subgraph nodes as their own nodes (``xray=n``: n levels). ``config`` is taken as
    LangGraph takes it; the drawing does not depend on it.

    >>> from typing import TypedDict
    >>> from graphkit import StateGraph, START
    >>> class State(TypedDict):
    ...     x: int
    >>> builder = StateGraph(State).add_node("a", lambda s: {})
    >>> app = builder.add_edge(START, "a").compile()
    >>> [(edge.source, edge.target) for edge in app.get_graph().edges]
    [('__start__', 'a'), ('a', '__end__')]
    """
    if config is not None and not isinstance(config, Mapping):
        raise TypeError(
            f"get_graph(config) takes a config dict or None, got {type(config).__name__} "
            f"{config!r}; to draw subgraphs as their nodes, pass xray=True."
        )
    if not isinstance(app, CompiledGraph):  # a LangGraph graph is drawn as converted
        from graphkit.bridge.convert import as_graphkit

        app = as_graphkit(app)
    return graph_from_builder(app.builder, name=app.name, xray=xray, only=app.spec.nodes)


async def aget_graph(
    app: CompiledGraph, config: Mapping[str, Any] | None = None, *, xray: bool | int = False
) -> DrawableGraph:
    """``get_graph``, for async code (LangGraph's twin).

    >>> import asyncio
    >>> from typing import TypedDict
    >>> from graphkit import StateGraph, START
    >>> class State(TypedDict):
    ...     x: int
    >>> builder = StateGraph(State).add_node("a", lambda s: {})
    >>> app = builder.add_edge(START, "a").compile()
    >>> [node.id for node in asyncio.run(app.aget_graph()).nodes]
    ['__start__', 'a', '__end__']
    """
    return get_graph(app, config, xray=xray)


def attach() -> None:
    """Give ``CompiledGraph`` its drawing methods (``import graphkit`` does this)."""
    CompiledGraph.get_graph = get_graph
    CompiledGraph.aget_graph = aget_graph
    CompiledGraph._repr_mimebundle_ = mimebundle
