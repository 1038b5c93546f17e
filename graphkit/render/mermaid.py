"""Mermaid flowchart text for a drawable graph: a pure function that appends lines to
a list. Mermaid renders natively in JupyterLab >= 4.1 and on GitHub, with no binary.

Node ids are safe identifiers (the node's name when it is one, else ``node_<n>``);
the real name is always in the quoted, escaped label.
"""

from __future__ import annotations

import re

from graphkit.render.model import DrawableGraph, Edge, Node
from graphkit.render.text import mermaid_label
from graphkit.render.theme import COLORS

__all__ = ["draw_mermaid", "mermaid_ids"]

_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_]*|__start__|__end__")
# Words the flowchart grammar reads as keywords where a node id is expected.
_RESERVED = frozenset(
    [
        "end",
        "graph",
        "flowchart",
        "subgraph",
        "style",
        "class",
        "classdef",
        "click",
        "linkstyle",
        "default",
        "direction",
        "call",
        "href",
        "interpolate",
        "td",
        "tb",
        "bt",
        "rl",
        "lr",
    ]
)
_SHAPES = {"start": '(["{}"])', "end": '(["{}"])', "node": '("{}")', "join": '(("{}"))'}
_ARROWS = {"edge": "-->", "waiting": "-->", "conditional": "-.->", "command": "-.->"}


def mermaid_ids(graph: DrawableGraph) -> dict[str, str]:
    """A Mermaid-safe id for every node, unique within the graph.

    >>> from graphkit.render.model import DrawableGraph, Node
    >>> graph = DrawableGraph("g", (Node("plan", "plan"), Node("end", "end"),
    ...                             Node("a b", "a b")), ())
    >>> mermaid_ids(graph)
    {'plan': 'plan', 'end': 'node_1', 'a b': 'node_2'}
    """
    ids: dict[str, str] = {}
    taken = {n.id for n in graph.nodes if _usable(n.id)}
    for index, node in enumerate(graph.nodes):
        if _usable(node.id):
            ids[node.id] = node.id
            continue
        candidate = f"join_{index}" if node.kind == "join" else f"node_{index}"
        while candidate in taken:
            candidate += "_"
        taken.add(candidate)
        ids[node.id] = candidate
    return ids


def _usable(name: str) -> bool:
    return bool(_IDENTIFIER.fullmatch(name)) and name.lower() not in _RESERVED


def draw_mermaid(graph: DrawableGraph, *, with_styles: bool = True) -> str:
    """The graph as a Mermaid ``flowchart``: solid arrows for edges, dotted arrows for
    routers' choices (labelled with their path_map keys) and Command routes (purple),
    a small ``&`` circle where a waiting edge's inputs join; ``with_styles=False``
    leaves out the colours (the ``classDef`` and ``linkStyle`` lines).

    >>> from graphkit.render.model import DrawableGraph, Node, Edge
    >>> graph = DrawableGraph("g", (Node("__start__", "__start__", "start"), Node("a", 'say "hi"')),
    ...                       (Edge("__start__", "a"),))
    >>> print(draw_mermaid(graph).splitlines()[2])
        a("say #34;hi#34;")
    """
    ids = mermaid_ids(graph)
    lines = ["flowchart TD"]
    lines += [f"    {_node_line(node, ids[node.id], with_styles)}" for node in graph.nodes]
    lines += [f"    {_edge_line(edge, ids)}" for edge in graph.edges]
    if not with_styles:
        return "\n".join(lines) + "\n"
    commands = [str(i) for i, edge in enumerate(graph.edges) if edge.kind == "command"]
    if commands:
        color = COLORS["command"]
        lines.append(f"    linkStyle {','.join(commands)} stroke:{color},color:{color}")
    lines += [
        f"    classDef default fill:{COLORS['node_fill']},stroke:{COLORS['node_line']}",
        f"    classDef gk_start fill:{COLORS['start_fill']},stroke:{COLORS['node_line']}",
        f"    classDef gk_end fill:{COLORS['end_fill']},stroke:{COLORS['node_line']}",
        f"    classDef gk_join fill:{COLORS['join']},stroke:{COLORS['join']},color:#ffffff",
    ]
    return "\n".join(lines) + "\n"


def _node_line(node: Node, mermaid_id: str, with_styles: bool = True) -> str:
    text = "&" if node.kind == "join" else node.name
    shape = _SHAPES[node.kind].replace('"{}"', mermaid_label(text))
    style = "" if node.kind == "node" or not with_styles else f":::gk_{node.kind}"
    return f"{mermaid_id}{shape}{style}"


def _edge_line(edge: Edge, ids: dict[str, str]) -> str:
    arrow = _ARROWS[edge.kind]
    if edge.label is not None:
        arrow += f"|{mermaid_label(edge.label)}|"
    return f"{ids[edge.source]} {arrow} {ids[edge.target]}"
