"""DOT text for a drawable graph, and SVG from graphviz's ``dot`` binary.

``to_dot`` is a pure text generator: it appends lines to a list. Every node and edge
carries its stable element ``id`` and ``class`` as DOT attributes, which ``dot`` copies
onto the SVG ``<g>`` elements; ``svg_from_dot`` then swaps dot's titles and texts for
the exact names (dot turns repeated spaces into no-break spaces) and adds the
stylesheet.
"""

from __future__ import annotations

import subprocess
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator

from graphkit.constants import END
from graphkit.render.model import DrawableGraph, Edge, Node
from graphkit.render.text import dot_string, encode_name, label_lines, xml_attribute, xml_escape
from graphkit.render.theme import CARD_PAD, COLORS, FONT, STYLE_ID, STYLESHEET, card_attributes

__all__ = ["VIA_CLASS_PREFIX", "svg_from_dot", "to_dot"]

VIA_CLASS_PREFIX = "gk-via-"
"""An edge's class ``gk-via-<encoded channel>`` names a channel that travels along it."""

SVG_NAMESPACE = "http://www.w3.org/2000/svg"
DOT_TIMEOUT_SECONDS = 60

_NODE_STYLE = {
    "start": {"style": '"rounded,filled"', "fillcolor": f'"{COLORS["start_fill"]}"'},
    "end": {"style": '"rounded,filled"', "fillcolor": f'"{COLORS["end_fill"]}"'},
    "node": {},
    "join": {
        "shape": "box",
        "style": "filled",
        "fillcolor": f'"{COLORS["join"]}"',
        "color": f'"{COLORS["join"]}"',
        "width": "0.6",
        "height": "0.07",
        "fixedsize": "true",
        "label": '""',
    },
}
_EDGE_STYLE = {
    "edge": {},
    "conditional": {"style": "dashed"},
    "waiting": {},
    "command": {
        "style": "dashed",
        "color": f'"{COLORS["command"]}"',
        "fontcolor": f'"{COLORS["command"]}"',
        "arrowhead": "vee",
    },
}


def to_dot(graph: DrawableGraph) -> str:
    """The graph in graphviz's DOT language; node ids are the SVG element ids and
    labels the real names, escaped.

    >>> from graphkit.render.model import DrawableGraph, Node, Edge
    >>> graph = DrawableGraph("g", (Node("__start__", "__start__", "start"), Node("a", 'say "hi"')),
    ...                       (Edge("__start__", "a"),))
    >>> print(to_dot(graph).splitlines()[-3])
      "node-a" [id="node-a", class="gk-node gk-node-node", label="say \\"hi\\""];
    """
    lines = [
        f"digraph {dot_string(graph.name)} {{",
        f'  graph [rankdir=TB, nodesep=0.35, ranksep=0.4, fontname="{FONT}"];',
        f'  node [shape=box, style="rounded,filled", fillcolor="{COLORS["node_fill"]}", '
        f'color="{COLORS["node_line"]}", fontcolor="{COLORS["text"]}", fontname="{FONT}", '
        'fontsize=14, height=0.4, margin="0.18,0.06"];',
        f'  edge [color="{COLORS["edge"]}", fontcolor="{COLORS["label"]}", fontname="{FONT}", '
        "fontsize=11, arrowsize=0.7];",
    ]
    lines += [f"  {_node_statement(node)};" for node in graph.nodes]
    ids = {node.id: node.element_id for node in graph.nodes}
    returning = _returning_edges(graph)
    lines += [f"  {_edge_statement(edge, ids, edge in returning)};" for edge in graph.edges]
    lines.append("}")
    return "\n".join(lines) + "\n"


def _node_statement(node: Node) -> str:
    attributes = {
        "id": f'"{node.element_id}"',
        "class": f'"gk-{"join" if node.kind == "join" else "node"} gk-node-{node.kind}"',
        "label": dot_string(node.name),
        **_NODE_STYLE[node.kind],
    }
    return f'"{node.element_id}" [{_attribute_list(attributes)}]'


def _returning_edges(graph: DrawableGraph) -> set[Edge]:
    """Of each pair ``a -> b`` and ``b -> a`` (an agent loop), the edge back from the
    node declared later. dot draws such a pair as two nearly overlapping arrows; this
    one leaves and enters its nodes on the east side, an arc beside the other."""
    order = {node.id: number for number, node in enumerate(graph.nodes)}
    present = {(edge.source, edge.target) for edge in graph.edges}
    return {
        edge
        for edge in graph.edges
        if edge.source != edge.target
        and (edge.target, edge.source) in present
        and order[edge.source] > order[edge.target]
    }


def _edge_statement(edge: Edge, ids: dict[str, str], returning: bool = False) -> str:
    attributes = {"id": f'"{edge.element_id}"', "class": f'"{edge_classes(edge)}"'}
    if edge.label is not None:
        attributes["label"] = dot_string(edge.label)
    if returning:
        attributes |= {"tailport": "e", "headport": "e"}
    attributes.update(_EDGE_STYLE[edge.kind])
    return f'"{ids[edge.source]}" -> "{ids[edge.target]}" [{_attribute_list(attributes)}]'


def _attribute_list(attributes: dict[str, str]) -> str:
    return ", ".join(f"{key}={value}" for key, value in attributes.items())


def _join_tooltip(join: str) -> str:
    _, starts, end = join.split(":", 2)
    return f"{end} waits for all of: {', '.join(starts.split('+'))}"


def edge_classes(edge: Edge) -> str:
    """The CSS classes of an edge: its kind, and ``gk-via-<encoded channel>`` for each
    channel that travels along it (``render.highlight`` reads them back).

    >>> edge_classes(Edge("A", "B", channels=("inbox:B",)))
    'gk-edge gk-edge-edge gk-via-inbox-3a-B'
    """
    via = "".join(f" {VIA_CLASS_PREFIX}{encode_name(channel)}" for channel in edge.channels)
    return f"gk-edge gk-edge-{edge.kind}{via}"


def edge_title(edge: Edge) -> str:
    """The hover text of an edge (with the channels that travel along it, if known)."""
    # (END on a declared edge to END is a marker for highlight, not a channel)
    channels = [channel for channel in edge.channels if channel != END]
    via = f" via {', '.join(channels)}" if channels else ""
    return f"{edge.source} → {edge.target}{via}"


def node_title(node: Node) -> str:
    """The hover text of a node."""
    return _join_tooltip(node.id) if node.kind == "join" else node.name


# -- running dot -----------------------------------------------------------------------


def svg_from_dot(graph: DrawableGraph, dot_text: str, executable: str) -> str:
    """Lay ``dot_text`` out with the ``dot`` binary at ``executable``; return the SVG
    with exact titles and texts and graphkit's stylesheet. Raises ``OSError`` or
    ``subprocess.SubprocessError`` when dot fails."""
    completed = subprocess.run(
        [executable, "-Tsvg", f"-Gpad={CARD_PAD / 72:.4f}"],  # (pad is in inches)
        input=dot_text.encode("utf-8"),
        capture_output=True,
        timeout=DOT_TIMEOUT_SECONDS,
        check=True,
    )
    return _polish(graph, completed.stdout.decode("utf-8"))


def _polish(graph: DrawableGraph, svg_text: str) -> str:
    # dot's SVG starts with an XML prolog, a DOCTYPE and comments; parsing drops them,
    # so the result can be inlined in HTML as it is.
    root = ElementTree.fromstring(svg_text)
    namespace = f"{{{SVG_NAMESPACE}}}"
    titles = {node.element_id: node_title(node) for node in graph.nodes}
    titles |= {edge.element_id: edge_title(edge) for edge in graph.edges}
    texts = {node.element_id: node.name for node in graph.nodes if node.kind != "join"}
    texts |= {edge.element_id: edge.label for edge in graph.edges if edge.label is not None}
    for group in root.iter(f"{namespace}g"):
        element_id = group.get("id", "")
        if element_id not in titles:
            continue
        # Rewrite the tag so every element reads exactly `<g id="..." class="...">`.
        classes = group.get("class", "")
        group.attrib.clear()
        group.set("id", element_id)
        group.set("class", classes)
        title = group.find(f"{namespace}title")
        if title is not None:
            title.text = "\n".join(label_lines(titles[element_id]))
        text_elements = group.findall(f"{namespace}text")
        lines = label_lines(texts.get(element_id) or "")
        if len(text_elements) == len(lines):
            for element, line in zip(text_elements, lines, strict=True):
                element.text = line
    _round_background(root)
    style = ElementTree.Element(f"{namespace}style", {"id": STYLE_ID})
    style.text = STYLESHEET
    root.insert(0, style)
    root.set("xmlns", SVG_NAMESPACE)
    return "".join(_serialize(root))


def _round_background(root: ElementTree.Element) -> None:
    """Swap dot's background, a white polygon first in the graph's group, for the card
    (a rounded rectangle over the same box: ``theme.CARD_CLASS``)."""
    namespace = f"{{{SVG_NAMESPACE}}}"
    group = root.find(f"{namespace}g")
    background = group.find(f"{namespace}polygon") if group is not None else None
    if group is None or background is None:
        return
    corners = [point.split(",") for point in background.get("points", "").split()]
    xs, ys = [float(x) for x, _ in corners], [float(y) for _, y in corners]
    card = card_attributes(
        max(xs) - min(xs), max(ys) - min(ys), min(xs), min(ys), background.get("fill", "white")
    )
    background.tag = f"{namespace}rect"
    background.attrib.clear()
    background.attrib.update(card)


def _serialize(element: ElementTree.Element) -> Iterator[str]:
    """XML text of ``element`` with SVG as the default namespace (ElementTree's own
    writer would prefix every tag, or needs a process-wide namespace registration)."""
    tag = element.tag.rpartition("}")[2]
    attributes = "".join(
        f' {name.rpartition("}")[2]}="{xml_attribute(value)}"' for name, value in element.items()
    )
    yield f"<{tag}{attributes}>"
    if element.text:
        yield xml_escape(element.text)
    for child in element:
        yield from _serialize(child)
        if child.tail:
            yield xml_escape(child.tail)
    yield f"</{tag}>"
