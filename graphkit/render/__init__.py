"""Drawing graphs: DOT, Mermaid and SVG, and restyling an SVG per phase.

Nothing in the core imports this package: ``import graphkit`` gives ``CompiledGraph``
its ``get_graph()`` and its notebook display from here (``graphkit.render.methods``).

>>> from typing import TypedDict
>>> from graphkit import StateGraph, START
>>> class State(TypedDict):
...     x: int
>>> builder = StateGraph(State).add_node("a", lambda s: {}).add_edge(START, "a")
>>> print(builder.compile().get_graph().draw_mermaid().splitlines()[4])
    __start__ --> a
"""

from graphkit.render.build import graph_from_builder
from graphkit.render.display import mimebundle
from graphkit.render.highlight import PHASES, highlight, overlay_path
from graphkit.render.model import DrawableGraph, Edge, Node

__all__ = [
    "PHASES",
    "DrawableGraph",
    "Edge",
    "Node",
    "graph_from_builder",
    "highlight",
    "mimebundle",
    "overlay_path",
]
