"""Colours and the stylesheet every graphkit SVG carries.

One place for the look, shared by the DOT attributes, the pure-Python SVG writer
and the Mermaid class definitions. The phase classes (``planned``, ``running``,
``wrote``, ``error``, ``interrupted``) and the run overlay's (``ran``, ``traversed``,
``failed``) are plain CSS classes on node and edge elements, so showing a phase is
restyling, never a new layout.
"""

from __future__ import annotations

__all__ = ["COLORS", "FONT", "OVERLAY_CLASSES", "PHASE_CLASSES", "STYLESHEET", "STYLE_ID"]

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

PHASE_CLASSES = ("planned", "running", "wrote", "error", "interrupted")
OVERLAY_CLASSES = ("ran", "traversed", "failed")

STYLE_ID = "gk-style"

# (class, fill, line) in increasing priority: a later rule wins when an element has
# several classes (a node that ran and wrote shows "wrote"; an error beats both).
_NODE_STATES = (
    ("ran", "#e0e7ff", "#4338ca"),
    ("failed", "#fee2e2", "#dc2626"),
    ("planned", "#fef3c7", "#d97706"),
    ("running", "#dbeafe", "#2563eb"),
    ("wrote", "#dcfce7", "#16a34a"),
    ("interrupted", "#ffedd5", "#ea580c"),
    ("error", "#fee2e2", "#dc2626"),
)
_EDGE_STATES = (
    ("traversed", "#4338ca"),
    ("planned", "#d97706"),
    ("wrote", "#16a34a"),
)


def _stylesheet() -> str:
    shapes = ":is(path, polygon, ellipse, rect)"
    rules = [
        ".gk-node text, .gk-edge text { white-space: pre; }",
        ".gk-node *, .gk-join *, .gk-edge * { transition: fill .15s, stroke .15s; }",
    ]
    for name, fill, line in _NODE_STATES:
        rules.append(
            f".gk-node.{name} {shapes} {{ fill: {fill}; stroke: {line}; stroke-width: 2.5px; }}"
        )
    for name, _, line in _NODE_STATES:
        rules.append(f".gk-join.{name} {shapes} {{ fill: {line}; stroke: {line}; }}")
    for name, line in _EDGE_STATES:
        rules.append(f".gk-edge.{name} path {{ stroke: {line}; stroke-width: 2.5px; }}")
        rules.append(f".gk-edge.{name} polygon {{ fill: {line}; stroke: {line}; }}")
        rules.append(f".gk-edge.{name} text {{ fill: {line}; }}")
    return "\n".join(rules)


STYLESHEET = _stylesheet()
"""CSS for the phase and overlay classes. Selectors only name ``gk-`` classes, so the
rules cannot leak onto the rest of a notebook page when the SVG is inlined."""
