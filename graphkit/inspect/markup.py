"""Escaping and colours shared by the HTML cards, the explanations and the timeline SVG.

The colours are the graph's (``render.theme.PALETTE``, Okabe and Ito's colour-blind-safe
set), so a phase has one colour wherever it is shown.

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

from graphkit.render.theme import PALETTE, TINTS

__all__ = [
    "BORDER",
    "CODE_STYLE",
    "ERROR",
    "EXECUTE",
    "FONT_STYLE",
    "MUTED",
    "PLAN",
    "UPDATE",
    "breakable_names",
    "escape",
    "visible",
]

PLAN = (TINTS["blue"], PALETTE["blue"])
"""Plan phase: (background, accent), the graph's ``planned`` blue."""
EXECUTE = (TINTS["orange"], PALETTE["orange"])
"""Execute phase: (background, accent), the graph's ``running`` orange."""
UPDATE = (TINTS["green"], PALETTE["green"])
"""Update phase: (background, accent), the graph's ``wrote`` bluish green."""
ERROR = (TINTS["vermillion"], PALETTE["vermillion"])
"""A task that raised: (background, accent), vermillion as a wrong verdict."""
MUTED = "#6b7280"
BORDER = "#e5e7eb"
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
