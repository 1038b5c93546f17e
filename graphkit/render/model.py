"""The drawable graph: a frozen record of nodes and edges, with its drawings.

``CompiledGraph.get_graph()`` builds one (see ``graphkit.render.build``); its
``to_dot()``, ``draw_mermaid()``, ``draw_ascii()`` and ``draw_svg()`` are pure text
generators (the SVG layout runs graphviz's ``dot`` when it is installed, and is cached).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from graphkit.render.text import edge_element_id, node_element_id

__all__ = ["EDGE_KINDS", "GOTO", "NODE_KINDS", "DrawableGraph", "Edge", "Node"]

NODE_KINDS = ("start", "node", "join", "end")
"""``start`` and ``end`` are START/END, ``join`` the point where a waiting edge's
inputs meet (its id is the runtime's barrier channel, ``join:a+b:c``)."""

EDGE_KINDS = ("edge", "conditional", "waiting", "command")
"""``edge``: ``add_edge``; ``conditional``: a router's possible choice;
``waiting``: into or out of a join point; ``command``: a ``Command(goto=...)`` route
declared with ``destinations=`` or a ``Command[Literal[...]]`` return annotation."""


GOTO = "goto"
"""The label drawn on a ``command`` edge whose node gave it none (``destinations`` as a
tuple, or a ``Command[Literal[...]]`` annotation)."""

_MERMAID_TEXT_OPTIONS = frozenset(
    {"curve_style", "node_colors", "wrap_label_n_words", "frontmatter_config"}
)
"""LangGraph's ``draw_mermaid`` options that graphkit takes and ignores."""


@dataclass(frozen=True, slots=True)
class Node:
    """A node as drawn. ``id`` is its name in the runtime's records."""

    id: str
    name: str
    kind: str = "node"
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def element_id(self) -> str:
        """Its SVG element id, ``node-<encoded id>`` (see ``render.text``)."""
        return node_element_id(self.id)


@dataclass(frozen=True, slots=True)
class Edge:
    """An edge as drawn: ``kind`` is one of ``EDGE_KINDS``; ``label`` is the router
    result (path_map key) or Command label that takes it, if any. ``channels`` are the
    channels a write to which travels along it, when the graph says so (a low-level
    ``Pregel``: the messages its source sends its target; ``END`` among them marks an
    edge to END its source declares in ``static``); empty for a ``StateGraph``, whose
    edge ``a -> b`` is the channel ``branch:to:b``."""

    source: str
    target: str
    kind: str = "edge"
    label: str | None = None
    element_id: str = ""
    channels: tuple[str, ...] = ()

    @property
    def conditional(self) -> bool:
        """True when a choice made at run time decides whether it is taken."""
        return self.kind in ("conditional", "command")

    @property
    def data(self) -> str | None:
        """The label under LangGraph's name for it (``Edge.data`` of its drawable graph);
        None for a ``Command`` destination its node gave no label, as LangGraph leaves it
        (a ``destinations={"b": "approve"}`` label is its data there too)."""
        return None if self.kind == "command" and self.label == GOTO else self.label

    # LangGraph's drawn edge is the NamedTuple (source, target, data, conditional): code
    # written for it unpacks an edge or indexes it, so this one reads the same way.
    def __iter__(self) -> Iterator[Any]:
        """``source, target, data, conditional = edge``, as with LangGraph's edge.

        >>> source, target, data, conditional = Edge("a", "b", "conditional", "go")
        >>> (source, target, data, conditional)
        ('a', 'b', 'go', True)
        """
        return iter((self.source, self.target, self.data, self.conditional))

    def __len__(self) -> int:
        return 4

    def __getitem__(self, index: int | slice) -> Any:
        return tuple(self)[index]


@dataclass(frozen=True, slots=True, repr=False)
class DrawableGraph:
    """Nodes and edges to draw, in a deterministic order.

    >>> graph = DrawableGraph("demo", (Node("__start__", "__start__", "start"), Node("a", "a")),
    ...                       (Edge("__start__", "a"),))
    >>> graph
    DrawableGraph('demo', nodes=['__start__', 'a'], edges=1)
    >>> graph.edges[0].element_id
    'edge-__start__.a'
    """

    name: str
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]

    def __post_init__(self) -> None:
        seen: dict[tuple[str, str], int] = {}
        numbered = []
        for edge in self.edges:
            count = seen[edge.source, edge.target] = seen.get((edge.source, edge.target), 0) + 1
            numbered.append(
                replace(edge, element_id=edge_element_id(edge.source, edge.target, count))
            )
        object.__setattr__(self, "edges", tuple(numbered))

    def node(self, node_id: str) -> Node:
        """The node with id ``node_id``."""
        for node in self.nodes:
            if node.id == node_id:
                return node
        raise KeyError(f"No node {node_id!r}; nodes: {[n.id for n in self.nodes]}.")

    def to_dot(self) -> str:
        """The graph in graphviz's DOT language (see ``graphkit.render.dot``)."""
        from graphkit.render.dot import to_dot

        return to_dot(self)

    def draw_mermaid(self, *, with_styles: bool = True, **options: Any) -> str:
        """The graph as a Mermaid flowchart (see ``graphkit.render.mermaid``);
        ``with_styles=False`` leaves out the colours. LangGraph's other options
        (``curve_style``, ``node_colors``, ``wrap_label_n_words``, ``frontmatter_config``)
        are taken and change nothing."""
        from graphkit.render.mermaid import draw_mermaid

        unknown = sorted(options.keys() - _MERMAID_TEXT_OPTIONS)
        if unknown:
            raise TypeError(f"draw_mermaid() got an unexpected keyword argument {unknown[0]!r}")
        return draw_mermaid(self, with_styles=with_styles)

    def draw_mermaid_png(self, **options: Any) -> bytes:
        """The graph as PNG bytes, drawn by graphviz's ``dot`` (LangGraph asks a Mermaid
        web service): ``output_file_path``, ``background_color`` and ``padding`` as
        LangGraph's; its Mermaid-only options are taken and change nothing (see
        ``graphkit.render.png``)."""
        from graphkit.render.png import draw_mermaid_png

        return draw_mermaid_png(self, **options)

    def draw_png(
        self, output_file_path: str | None = None, fontname: str | None = None, labels: Any = None
    ) -> bytes | None:
        """The graph as PNG bytes drawn by graphviz's ``dot``; with ``output_file_path``,
        written there and None returned (as LangGraph's)."""
        from graphkit.render.png import draw_png

        return draw_png(self, output_file_path, fontname, labels)

    def draw_ascii(self) -> str:
        """The graph as ASCII art, drawn as LangGraph draws it (langchain-core's drawing,
        which needs ``grandalf``: ``pip install grandalf``; see ``graphkit.render.ascii``)."""
        from graphkit.render.ascii import draw_ascii

        return draw_ascii(self)

    def as_langchain_graph(self) -> Any:
        """The graph as langchain-core's ``Graph`` (what LangGraph's ``get_graph()``
        returns), for LangChain to draw a chain the graph is a step of; needs
        langchain-core (see ``graphkit.render.ascii``)."""
        from graphkit.render.ascii import as_langchain_graph

        return as_langchain_graph(self)

    def print_ascii(self) -> None:
        """Print ``draw_ascii()`` (LangGraph's name for it)."""
        print(self.draw_ascii())

    def draw_svg(self, engine: str = "auto") -> str:
        """The graph as SVG: laid out by graphviz's ``dot`` when it is installed
        (``engine="auto"`` or ``"dot"``), else (or with ``engine="python"``) by
        graphkit's own layered layout. Computed once per graph, then cached."""
        from graphkit.render.svg import draw_svg

        return draw_svg(self, engine=engine)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        from graphkit.render.display import mimebundle

        return mimebundle(self, include=include, exclude=exclude)

    def __repr__(self) -> str:
        nodes: Any = [node.id for node in self.nodes]
        if len(nodes) > 10:
            nodes = len(nodes)
        return f"DrawableGraph({self.name!r}, nodes={nodes}, edges={len(self.edges)})"
