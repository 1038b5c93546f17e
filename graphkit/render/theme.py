"""Colours and the stylesheet every graphkit SVG carries.

One place for the look, shared by the DOT attributes, the pure-Python SVG writer,
the Mermaid class definitions and the notebook cards (``inspect.markup``). The phase
classes (``planned``, ``running``, ``wrote`` with ``pending`` or ``applied``,
``wrote-nothing``, ``not-saved``, ``error``, ``interrupted``) and the run overlay's
(``ran``, ``traversed``, ``failed``) are plain CSS classes on node and edge elements, so
showing a phase is restyling, never a new layout.
"""

from __future__ import annotations

__all__ = [
    "CARD_CLASS",
    "CARD_PAD",
    "CARD_RADIUS",
    "COLORS",
    "FONT",
    "OVERLAY_CLASSES",
    "PALETTE",
    "PHASE_CLASSES",
    "STYLESHEET",
    "STYLE_ID",
    "TINTS",
    "card_attributes",
    "card_rect",
]

from graphkit.render.text import xml_attribute

FONT = "Helvetica,Arial,sans-serif"

COLORS = {
    "node_fill": "#f2f0ff",
    "node_line": "#7b6fd0",
    "start_fill": "#ffffff",
    "end_fill": "#d9d3fd",
    "join": "#3f3f46",
    "text": "#1f1f29",
    "edge": "#52525b",
    "label": "#3f3f46",
    "command": "#7c3aed",
}

CARD_CLASS = "gk-card"
CARD_RADIUS = 8
CARD_PAD = 12
"""A drawing sits on a white card with rounded corners and ``CARD_PAD`` points of margin
(``gk-card``, its first shape): a figure, in a light page and in a dark one alike. Its
colours are drawn for a light ground (pale tints under dark text), and JupyterLab shows
an SVG output as an ``<img>``, which no page style or theme variable reaches, so the
drawing cannot follow the theme; in a dark notebook a square white block with nodes at
its edge read as a hole in the page, a card with a margin reads as a figure
(docs/drawing.md, "Light and dark themes")."""


def card_attributes(
    width: float, height: float, x: float = 0, y: float = 0, fill: str = "white"
) -> dict[str, str]:
    """The card's ``<rect>`` attributes over a box: every drawing's first shape (the
    graph's, in both layouts, and the run timeline's), so all of them frame alike.

    >>> card_attributes(100, 40.5)["rx"], card_attributes(100, 40.5)["height"]
    ('8', '40.5')
    """
    box = {"x": x, "y": y, "width": width, "height": height}
    return {
        "class": CARD_CLASS,
        "fill": fill,
        "stroke": "none",
        **{name: f"{value:.2f}".rstrip("0").rstrip(".") for name, value in box.items()},
        "rx": str(CARD_RADIUS),
    }


def card_rect(
    width: float, height: float, x: float = 0, y: float = 0, fill: str = "white", **more: str
) -> str:
    """The card as SVG text; ``more`` adds attributes (a themed ``style``).

    >>> card_rect(100, 40)
    '<rect class="gk-card" fill="white" stroke="none" x="0" y="0" width="100" height="40" rx="8"/>'
    """
    attributes = card_attributes(width, height, x, y, fill) | more
    return "<rect " + " ".join(f'{k}="{xml_attribute(v)}"' for k, v in attributes.items()) + "/>"


PALETTE = {
    "blue": "#0072b2",
    "orange": "#e69f00",
    "green": "#009e73",
    "vermillion": "#d55e00",
    "purple": "#cc79a7",
    "sky": "#56b4e9",
    "yellow": "#f0e442",
    "black": "#000000",
}
"""Okabe and Ito's eight colours, told apart by people with any common colour-vision
deficiency. Every state colour of the graph, the cards and the verdicts is one of them:
Plan / planned blue, Execute / running orange, Update / wrote bluish green, errors
vermillion, interrupted reddish purple (the course's verdicts: right blue, wrong
vermillion)."""

TINTS = {
    "blue": "#dceaf4",
    "orange": "#fbeccb",
    "green": "#d4eee6",
    "vermillion": "#f8ddcc",
    "purple": "#f6e4ee",
    "sky": "#e4f2fb",
}
"""A pale fill per colour, under dark text: readable on a light page and, as the graph
sits on its own light panel, on a dark one."""

PHASE_CLASSES = (
    "planned",
    "running",
    "wrote",
    "wrote-nothing",
    "not-saved",
    "cached",
    "pending",
    "applied",
    "error",
    "interrupted",
)
OVERLAY_CLASSES = ("ran", "traversed", "failed", "not-saved")

STYLE_ID = "gk-style"

# (class, colour, stroke) in increasing priority: a later rule wins when an element has
# several classes (a node that ran and wrote shows "wrote"; an error beats both). A state
# differs from its neighbours by more than its hue: its line (solid, dotted, dashed,
# dash-dot) and width say it too, so it reads in grey and for every colour vision.
_NODE_STATES = (
    ("ran", "sky", "stroke-width: 2.5px;"),
    ("failed", "vermillion", "stroke-width: 4px;"),
    ("planned", "blue", "stroke-width: 2.5px; stroke-dasharray: none;"),
    ("running", "orange", "stroke-width: 3px; stroke-dasharray: 2 3;"),
    ("wrote", "green", "stroke-width: 2.5px;"),
    # ran and returned nothing ({} or None): the writers' green, but hollow (nothing came
    # out of it) and never heavier, as it has nothing pending or applied
    ("wrote-nothing", "green", "stroke-width: 2.5px; stroke-dasharray: none; fill: #ffffff;"),
    # a LangGraph thread saved none of its writes (its process ended): hollow, as what
    # came out of it is not known, in Execute's orange, dash-dot-dot (no other state has it)
    ("not-saved", "orange", "stroke-width: 2.5px; stroke-dasharray: 8 2 2 2 2 2; fill: #ffffff;"),
    # served from the node cache: it did not run, its cached writes apply (dotted sky)
    ("cached", "sky", "stroke-width: 3px; stroke-dasharray: 1 3;"),
    ("interrupted", "purple", "stroke-width: 3px; stroke-dasharray: 9 3 2 3;"),
    ("error", "vermillion", "stroke-width: 4px; stroke-dasharray: none;"),
)
# Written but not yet applied (after Execute) is dashed; applied (after Update) solid
# and heavier. Only the line changes: the colour stays the state's.
_LINE_STATES = (
    ("pending", "stroke-dasharray: 6 3;"),
    ("applied", "stroke-dasharray: none; stroke-width: 4px;"),
)
_EDGE_STATES = (
    ("traversed", "blue"),
    ("planned", "blue"),
    ("wrote", "green"),
)


def _stylesheet() -> str:
    shapes = ":is(path, polygon, ellipse, rect)"
    rules = [
        ".gk-node text, .gk-edge text { white-space: pre; }",
        ".gk-node *, .gk-join *, .gk-edge * { transition: fill .15s, stroke .15s; }",
    ]
    for name, colour, line in _NODE_STATES:
        fill, stroke = TINTS[colour], PALETTE[colour]
        rules.append(f".gk-node.{name} {shapes} {{ fill: {fill}; stroke: {stroke}; {line} }}")
    for name, line in _LINE_STATES[:1]:
        rules.append(f".gk-node.{name} {shapes} {{ {line} }}")
    for name, colour, _ in _NODE_STATES:
        stroke = PALETTE[colour]
        rules.append(f".gk-join.{name} {shapes} {{ fill: {stroke}; stroke: {stroke}; }}")
    for name, colour in _EDGE_STATES:
        stroke = PALETTE[colour]
        rules.append(f".gk-edge.{name} path {{ stroke: {stroke}; stroke-width: 2.5px; }}")
        rules.append(f".gk-edge.{name} polygon {{ fill: {stroke}; stroke: {stroke}; }}")
        rules.append(f".gk-edge.{name} text {{ fill: {stroke}; }}")
    for name, line in _LINE_STATES:
        rules.append(f".gk-edge.{name} path {{ {line} }}")
    for name, line in _LINE_STATES[1:]:  # after the states: applied outweighs them
        rules.append(f".gk-node.{name} {shapes} {{ {line} }}")
    return "\n".join(rules)


STYLESHEET = _stylesheet()
"""CSS for the phase and overlay classes. Selectors only name ``gk-`` classes, so the
rules cannot leak onto the rest of a notebook page when the SVG is inlined."""
