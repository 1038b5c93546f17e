"""Escaping and colours shared by the HTML cards, the explanations and the timeline SVG.

The colours are the graph's (``render.theme.PALETTE``, Okabe and Ito's colour-blind-safe
set), so a phase has one colour wherever it is shown. The ground, the text and the
greys are JupyterLab's theme variables with light fallbacks, and a phase's tint is its
colour mixed into that ground: a card reads as the notebook around it, light or dark
(classic Jupyter, Voila and a pasted page have no variables, so they get the fallbacks).

Every piece of text a run produced (node names, channel names, values, error messages)
goes through ``escape`` before it lands in markup, so quotes, ``<script>``, ``&`` and
any Unicode render as text. Characters XML forbids even when escaped (most control
characters, lone surrogates) are written as visible ``\\xNN`` escapes instead, and so
are the bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069), which would
show the text after them in another order than it has (the drawings write them so too).
"""

from __future__ import annotations

import html
import re

from graphkit.render.theme import PALETTE

__all__ = [
    "BORDER",
    "CODE_STYLE",
    "ERROR",
    "ERROR_TEXT",
    "EXECUTE",
    "FONT_STYLE",
    "GROUND",
    "LIGHT",
    "MUTED",
    "PLAN",
    "TEXT",
    "UPDATE",
    "UPDATE_TEXT",
    "breakable_names",
    "escape",
    "tint",
    "visible",
]

LIGHT = {"ground": "#ffffff", "text": "#111827", "muted": "#6b7280", "border": "#e5e7eb"}
"""The colours where no theme says otherwise (and an SVG's attributes, for a renderer
that reads no CSS variables)."""
GROUND = f"var(--jp-layout-color0, {LIGHT['ground']})"
"""A card's ground: the notebook's own (white in Lab's light theme, near black in its dark)."""
TEXT = f"var(--jp-content-font-color1, {LIGHT['text']})"
"""Text on the ground or on a tint."""
MUTED = f"color-mix(in srgb, var(--jp-content-font-color2, {LIGHT['muted']}) 60%, {TEXT})"
"""Secondary text: times, arrows, notes. The theme's grey taken 40% of the way to its
text: the grey alone read at 4.3:1 on a card's tints in JupyterLab's light theme (3.7 with
no theme), under WCAG's 4.5; so mixed it reads at 4.5 at least on every ground and tint,
light, dark or none (tests/inspect/test_markup.py)."""
BORDER = f"var(--jp-border-color2, {LIGHT['border']})"


def tint(accent: str, share: int = 18) -> str:
    """A CSS colour: ``accent`` mixed into the ground, ``share`` percent of it (a light
    tint on a light theme, a dark one on a dark theme; the graph's ``TINTS`` are about
    18% of their colours on white). A browser without ``color-mix`` drops it, leaving
    the ground.

    >>> tint("#0072b2")
    'color-mix(in srgb, #0072b2 18%, var(--jp-layout-color0, #ffffff))'
    """
    return f"color-mix(in srgb, {accent} {share}%, {GROUND})"


PLAN = (tint(PALETTE["blue"]), PALETTE["blue"])
"""Plan phase: (background, accent), the graph's ``planned`` blue."""
EXECUTE = (tint(PALETTE["orange"]), PALETTE["orange"])
"""Execute phase: (background, accent), the graph's ``running`` orange."""
UPDATE = (tint(PALETTE["green"]), PALETTE["green"])
"""Update phase: (background, accent), the graph's ``wrote`` bluish green."""
ERROR = (tint(PALETTE["vermillion"]), PALETTE["vermillion"])
"""A task that raised: (background, accent), vermillion as a wrong verdict."""
ERROR_TEXT = f"color-mix(in srgb, {PALETTE['vermillion']} 60%, {TEXT})"
UPDATE_TEXT = f"color-mix(in srgb, {PALETTE['green']} 60%, {TEXT})"
"""A text in the Update's green ("done", a diff's title): the green itself reads at 3.4:1
on white, so it is darkened on a light theme and lightened on a dark one as errors are."""
"""An error's text on its tint: vermillion darkened on a light theme, lightened on a dark."""
FONT_STYLE = (
    "font-family:system-ui,-apple-system,'Segoe UI',sans-serif;font-size:13px;line-height:1.45"
)
CODE_STYLE = "font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px"

_WRITTEN_AS_ESCAPES = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]"
)


def breakable_names(table: str) -> str:
    """pandas' HTML ``table`` with each column name breakable after its ``_`` (a
    ``<wbr>``): ``version_before`` kept a column of one-digit versions 14 characters
    wide. Only the ``<thead>`` is touched, where a name is escaped text in cells without
    attributes; the table's own tag, a ``<style>`` before it and the cells are not.

    >>> breakable_names('<table class="a_b"><thead><tr><th>x_y</th></tr></thead><td>c_d</td>')
    '<table class="a_b"><thead><tr><th>x_<wbr>y</th></tr></thead><td>c_d</td>'
    """
    before, start, rest = table.partition("<thead>")
    names, end, body = rest.partition("</thead>")
    if not end:
        return table
    return before + start + names.replace("_", "_<wbr>") + end + body


def escape(text: object) -> str:
    """``text`` made safe for HTML and XML content and attribute values.

    >>> escape('<script>alert("hi")</script> & \\x00')
    '&lt;script&gt;alert(&quot;hi&quot;)&lt;/script&gt; &amp; \\\\x00'
    """
    return html.escape(visible(str(text)), quote=True)


def visible(text: str) -> str:
    """``text`` with what ``escape`` writes as escapes so written, and nothing else
    changed: for a writer that escapes markup itself, as pandas' ``to_html`` does.

    >>> visible("a\\u202eb <i>")
    'a\\\\u202eb <i>'
    """
    return _WRITTEN_AS_ESCAPES.sub(_visible, text)


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
