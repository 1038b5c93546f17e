"""SVG drawing: graphviz's ``dot`` when installed, else graphkit's own layered layout;
computed once per graph and cached.

Both paths give the same kind of SVG: one ``<g id="..." class="...">`` per node
(``gk-node``, or ``gk-join`` for a join point) and per edge (``gk-edge``), each with a
``<title>`` holding the exact name, and graphkit's stylesheet for the phase classes.
"""

from __future__ import annotations

import itertools
import math
import shutil
import subprocess
import threading
import unicodedata
import xml.etree.ElementTree as ElementTree
from collections import OrderedDict

from graphkit.render.dot import edge_classes, edge_title, node_title, svg_from_dot, to_dot
from graphkit.render.layout import Layout, LayoutEdge, Route, layered_layout
from graphkit.render.model import DrawableGraph, Edge, Node
from graphkit.render.text import label_lines, xml_escape
from graphkit.render.theme import COLORS, FONT, STYLE_ID, STYLESHEET, card_rect

__all__ = ["ENGINES", "draw_svg", "svg_from_layout"]

ENGINES = ("auto", "dot", "python")
CACHE_SIZE = 64
NODE_FONT_SIZE = 14.0
LABEL_FONT_SIZE = 11.0
ARROW_LENGTH = 8.0

_cache: OrderedDict[tuple[str, str], str] = OrderedDict()
_cache_lock = threading.Lock()


def draw_svg(graph: DrawableGraph, engine: str = "auto") -> str:
    """The graph as an SVG document (a string), laid out once and cached by its DOT
    text, so drawing the same graph again costs a dictionary lookup.

    ``engine="auto"`` uses ``dot`` when it is on PATH and falls back to the pure-Python
    layout if it is missing or fails; ``"dot"`` insists on dot, ``"python"`` never
    runs it.

    >>> from graphkit.render.model import DrawableGraph, Node, Edge
    >>> graph = DrawableGraph("g", (Node("__start__", "__start__", "start"), Node("a", "a")),
    ...                       (Edge("__start__", "a"),))
    >>> svg = draw_svg(graph, engine="python")
    >>> svg.startswith("<svg"), '<g id="node-a" class="node gk-node gk-node-node">' in svg
    (True, True)
    """
    if engine not in ENGINES:
        raise ValueError(f"Unknown engine {engine!r}; use one of {list(ENGINES)}.")
    dot_text = to_dot(graph)
    executable = shutil.which("dot") if engine != "python" else None
    if engine == "dot" and executable is None:
        raise FileNotFoundError(
            "graphviz's `dot` is not on PATH. Install graphviz (e.g. apt-get install "
            "graphviz), or draw with engine='python'."
        )
    if executable is not None:
        cached = _cached("dot", dot_text)
        if cached is not None:
            return cached
        try:
            return _store("dot", dot_text, svg_from_dot(graph, dot_text, executable))
        except (OSError, subprocess.SubprocessError, ElementTree.ParseError):
            if engine == "dot":
                raise
    cached = _cached("python", dot_text)
    if cached is not None:
        return cached
    return _store("python", dot_text, svg_from_layout(graph))


def _cached(engine: str, dot_text: str) -> str | None:
    with _cache_lock:
        svg = _cache.get((engine, dot_text))
        if svg is not None:
            _cache.move_to_end((engine, dot_text))
        return svg


def _store(engine: str, dot_text: str, svg: str) -> str:
    with _cache_lock:
        _cache[engine, dot_text] = svg
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return svg


# -- the pure-Python drawing ------------------------------------------------------------------


def text_width(text: str, font_size: float) -> float:
    """An estimate of ``text``'s width in a sans-serif font (no font files needed)."""
    width = 0.0
    for character in text:
        if unicodedata.east_asian_width(character) in "WF":
            width += 1.0
        elif character in "iljtf.,:;'|!I ()[]":
            width += 0.3
        elif character in "mwMW@%":
            width += 0.85
        elif character.isupper() or character.isdigit():
            width += 0.66
        else:
            width += 0.56
    return width * font_size


def _node_size(node: Node) -> tuple[float, float]:
    if node.kind == "join":
        return (44.0, 5.0)
    lines = label_lines(node.name)
    width = max(text_width(line, NODE_FONT_SIZE) for line in lines) + 28
    return (max(width, 56.0), 30.0 + 17.0 * (len(lines) - 1))


def _label_size(edge: Edge) -> tuple[float, float] | None:
    if edge.label is None:
        return None
    lines = label_lines(edge.label)
    return (max(text_width(line, LABEL_FONT_SIZE) for line in lines), 14.0 * len(lines))


def svg_from_layout(graph: DrawableGraph) -> str:
    """Draw ``graph`` with the pure-Python layered layout (``graphkit.render.layout``)."""
    layout = layered_layout(
        {node.id: _node_size(node) for node in graph.nodes},
        [LayoutEdge(e.source, e.target, _label_size(e)) for e in graph.edges],
    )
    width, height = math.ceil(layout.width), math.ceil(layout.height)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}pt" height="{height}pt" '
        f'viewBox="0 0 {width} {height}">',
        f'<style id="{STYLE_ID}">{STYLESHEET}</style>',
        '<g id="graph0" class="graph">',
        f"<title>{xml_escape(graph.name)}</title>",
        card_rect(width, height),
    ]
    parts += [_node_svg(node, layout) for node in graph.nodes]
    parts += [
        _edge_svg(edge, route) for edge, route in zip(graph.edges, layout.routes, strict=True)
    ]
    parts += ["</g>", "</svg>"]
    return "\n".join(parts)


def _node_svg(node: Node, layout: Layout) -> str:
    box = layout.boxes[node.id]
    kind = "join" if node.kind == "join" else "node"
    x, y = box.x - box.width / 2, box.y - box.height / 2
    if node.kind == "join":
        fill = line = COLORS["join"]
        radius = 1.5
    else:
        fill = COLORS[{"start": "start_fill", "end": "end_fill"}.get(node.kind, "node_fill")]
        line = COLORS["node_line"]
        radius = box.height / 2 if node.kind in ("start", "end") else 6.0
    parts = [
        f'<g id="{node.element_id}" class="node gk-{kind} gk-node-{node.kind}">',
        f"<title>{_title(node_title(node))}</title>",
        f'<rect fill="{fill}" stroke="{line}" x="{x:.2f}" y="{y:.2f}" width="{box.width:.2f}" '
        f'height="{box.height:.2f}" rx="{radius:.2f}" ry="{radius:.2f}"/>',
    ]
    if node.kind != "join":
        parts += _text_lines(
            node.name, box.x, box.y, "middle", NODE_FONT_SIZE, 17.0, COLORS["text"]
        )
    parts.append("</g>")
    return "\n".join(parts)


def _edge_svg(edge: Edge, route: Route) -> str:
    color = COLORS["command"] if edge.kind == "command" else COLORS["edge"]
    dashes = ' stroke-dasharray="5,2"' if edge.conditional else ""
    path, tip, direction = _loop_path(route) if route.loop else _curve(route.points)
    parts = [
        f'<g id="{edge.element_id}" class="edge {edge_classes(edge)}">',
        f"<title>{_title(edge_title(edge))}</title>",
        f'<path fill="none" stroke="{color}"{dashes} d="{path}"/>',
        _arrowhead(tip, direction, color, open_=edge.kind == "command"),
    ]
    if edge.label is not None and route.label_at is not None:
        parts += _edge_label(edge, route)
    parts.append("</g>")
    return "\n".join(parts)


def _edge_label(edge: Edge, route: Route) -> list[str]:
    """A self-loop's label beside the loop; any other on the edge, over a white
    backing that interrupts the line."""
    x, y = route.label_at
    color = COLORS["command"] if edge.kind == "command" else COLORS["label"]
    if route.loop:
        return _text_lines(edge.label, x, y, "start", LABEL_FONT_SIZE, 14.0, color)
    width, height = _label_size(edge) or (0.0, 0.0)
    backing = (
        f'<rect fill="white" fill-opacity="0.9" stroke="none" x="{x - width / 2 - 2:.2f}" '
        f'y="{y - height / 2:.2f}" width="{width + 4:.2f}" height="{height:.2f}"/>'
    )
    return [backing, *_text_lines(edge.label, x, y, "middle", LABEL_FONT_SIZE, 14.0, color)]


def _title(text: str) -> str:
    return xml_escape("\n".join(label_lines(text)))


def _text_lines(
    text: str, x: float, y: float, anchor: str, size: float, spacing: float, color: str
) -> list[str]:
    lines = label_lines(text)
    fill = color
    first = y - spacing * (len(lines) - 1) / 2 + size * 0.35
    return [
        f'<text text-anchor="{anchor}" x="{x:.2f}" y="{first + k * spacing:.2f}" '
        f'font-family="{FONT}" font-size="{size:.1f}" fill="{fill}">{xml_escape(line)}</text>'
        for k, line in enumerate(lines)
    ]


Point = tuple[float, float]


def _curve(points: tuple[Point, ...]) -> tuple[str, Point, Point]:
    """A smooth path through ``points`` that crosses every layer vertically (so it
    clears the boxes beside it) and turns in the gaps between layers; it stops short
    of the last point to leave room for the arrowhead."""
    tip = points[-1]
    direction = (0.0, 1.0 if tip[1] >= points[-2][1] else -1.0)
    points = (*points[:-1], (tip[0], tip[1] - direction[1] * ARROW_LENGTH))
    commands = [f"M{points[0][0]:.2f},{points[0][1]:.2f}"]
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        middle = (y0 + y1) / 2
        commands.append(f"C{x0:.2f},{middle:.2f} {x1:.2f},{middle:.2f} {x1:.2f},{y1:.2f}")
    return " ".join(commands), tip, direction


def _loop_path(route: Route) -> tuple[str, Point, Point]:
    start, control1, control2, tip = route.points
    dx, dy = tip[0] - control2[0], tip[1] - control2[1]
    length = math.hypot(dx, dy) or 1.0
    direction = (dx / length, dy / length)
    end = (tip[0] - direction[0] * ARROW_LENGTH, tip[1] - direction[1] * ARROW_LENGTH)
    path = (
        f"M{start[0]:.2f},{start[1]:.2f} C{control1[0]:.2f},{control1[1]:.2f} "
        f"{control2[0]:.2f},{control2[1]:.2f} {end[0]:.2f},{end[1]:.2f}"
    )
    return path, tip, direction


def _arrowhead(tip: Point, direction: Point, color: str, *, open_: bool) -> str:
    (x, y), (dx, dy) = tip, direction
    back = (x - dx * ARROW_LENGTH, y - dy * ARROW_LENGTH)
    half = 3.5
    left = (back[0] - dy * half, back[1] + dx * half)
    right = (back[0] + dy * half, back[1] - dx * half)
    corners = [left, tip, right]
    if open_:  # a "vee": the base is notched halfway to the tip
        corners.append((x - dx * ARROW_LENGTH * 0.6, y - dy * ARROW_LENGTH * 0.6))
    else:
        corners.append(left)
    points = " ".join(f"{px:.2f},{py:.2f}" for px, py in corners)
    return f'<polygon fill="{color}" stroke="{color}" points="{points}"/>'
