"""Text for drawings and terminals: element ids that survive any node name, and
escaping for XML, DOT, Mermaid and the terminal.

Node names may hold anything but ``:`` and ``|`` (quotes, ``<script>``, newlines,
escape sequences, any Unicode), so every output escapes them its own way, and element
ids encode them into ``[A-Za-z0-9_-]``.
"""

from __future__ import annotations

import re

__all__ = [
    "decode_name",
    "dot_string",
    "edge_element_id",
    "encode_name",
    "label_lines",
    "mermaid_label",
    "node_element_id",
    "parse_edge_element_id",
    "terminal_text",
    "xml_attribute",
    "xml_escape",
]

_PLAIN = re.compile(r"[A-Za-z0-9_]")
_ESCAPE = re.compile(r"-([0-9a-f]+)-")


def encode_name(name: str) -> str:
    """Encode a name into ``[A-Za-z0-9_-]``, one-to-one: letters, digits and ``_``
    stay, any other character becomes ``-<hex code point>-``.

    >>> encode_name("weather")
    'weather'
    >>> encode_name("call news!")
    'call-20-news-21-'
    >>> decode_name(encode_name('a "b" <c>'))
    'a "b" <c>'
    """
    return "".join(c if _PLAIN.fullmatch(c) else f"-{ord(c):x}-" for c in name)


def decode_name(encoded: str) -> str:
    """Invert ``encode_name``."""
    return _ESCAPE.sub(lambda match: chr(int(match.group(1), 16)), encoded)


def node_element_id(node_id: str) -> str:
    """The SVG element id of a node: ``node-<encoded id>``.

    >>> node_element_id("__start__"), node_element_id("my node")
    ('node-__start__', 'node-my-20-node')
    """
    return f"node-{encode_name(node_id)}"


def edge_element_id(source: str, target: str, number: int = 1) -> str:
    """The SVG element id of an edge: ``edge-<source>.<target>``, with ``.<n>`` for
    the n-th edge between the same two nodes. ``.`` never occurs in an encoded name.

    >>> edge_element_id("planner", "weather"), edge_element_id("a", "b", 2)
    ('edge-planner.weather', 'edge-a.b.2')
    """
    suffix = f".{number}" if number > 1 else ""
    return f"edge-{encode_name(source)}.{encode_name(target)}{suffix}"


def parse_edge_element_id(element_id: str) -> tuple[str, str] | None:
    """The (source, target) of an edge element id, or None if it is not one.

    >>> parse_edge_element_id("edge-my-20-node.__end__.2")
    ('my node', '__end__')
    """
    if not element_id.startswith("edge-"):
        return None
    parts = element_id[len("edge-") :].split(".")
    if len(parts) not in (2, 3):
        return None
    return decode_name(parts[0]), decode_name(parts[1])


# -- escaping --------------------------------------------------------------------------


def _visible(character: str) -> str:
    # XML 1.0 cannot hold C0 control characters at all, not even escaped: draw them as
    # their Unicode "control pictures" (U+2400...) so they stay visible. C1 controls and
    # bidirectional controls have no pictures: they are drawn as their escapes, so that
    # DOT or Mermaid text printed to a terminal cannot steer it either.
    code = ord(character)
    if code < 0x20 and character not in "\t\n":
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    if 0xD800 <= code <= 0xDFFF or code in (0xFFFE, 0xFFFF):
        return "\ufffd"
    if 0x80 <= code <= 0x9F or code >= 0x2000:  # fast path for most characters below
        return terminal_text(character)
    return character


def label_lines(text: str) -> list[str]:
    r"""Split a label into the lines drawn, with control characters made visible.

    >>> label_lines("one\r\ntwo\x07")
    ['one', 'two␇']
    >>> print(label_lines("csi\x9b rlo\u202e")[0])
    csi\x9b rlo\u202e
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return ["".join(map(_visible, line)) for line in text.split("\n")]


def xml_escape(text: str) -> str:
    """Escape text for XML content or a double- or single-quoted attribute.

    >>> xml_escape('<script>"&\\'')
    '&lt;script&gt;&quot;&amp;&#39;'
    """
    text = "".join(map(_visible, text.replace("\r", "")))
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
    )


def xml_attribute(text: str) -> str:
    r"""Escape text for a double-quoted XML attribute, keeping tabs and newlines (which
    a parser would otherwise turn into spaces).

    >>> xml_attribute("a\tb\nc")
    'a&#9;b&#10;c'
    """
    return xml_escape(text).replace("\t", "&#9;").replace("\n", "&#10;")


def dot_string(text: str) -> str:
    r"""A double-quoted DOT string whose text graphviz draws exactly as given.

    Backslashes and quotes are escaped, newlines become ``\n`` (graphviz's line
    break), and ``&`` becomes ``&amp;`` because graphviz reads ``&name;`` in labels
    as an entity.

    >>> print(dot_string('say "hi" & \\ bye\nnow'))
    "say \"hi\" &amp; \\ bye\nnow"
    """
    lines = [
        line.replace("\\", "\\\\").replace('"', '\\"').replace("&", "&amp;")
        for line in label_lines(text)
    ]
    return '"' + "\\n".join(lines) + '"'


# Characters that mean something inside a quoted Mermaid label (entity codes start
# with '#', HTML and markdown strings use the others, and Mermaid reads '%%{...}%%'
# anywhere in the text, quoted or not, as a directive that sets its config: themeCSS
# too) are written as '#<code>;'.
_MERMAID_SPECIAL = {c: f"#{ord(c)};" for c in '#"&<>`%'}


def mermaid_label(text: str) -> str:
    """A double-quoted Mermaid label that shows ``text`` as plain text.

    >>> print(mermaid_label('a "b" <script> #1 %%{init}%%'))
    "a #34;b#34; #60;script#62; #35;1 #37;#37;{init}#37;#37;"
    >>> print(mermaid_label("two\\nlines"))
    "two<br>lines"
    """
    lines = ["".join(_MERMAID_SPECIAL.get(c, c) for c in line) for line in label_lines(text)]
    return '"' + "<br>".join(lines) + '"'


# C0 and C1 controls and DEL (ESC starts the sequences that clear the screen or retitle
# the terminal, CR and LF move the cursor), line and paragraph separators, and the
# bidirectional controls that make text display in another order than it is stored.
_TERMINAL_CONTROLS = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _terminal_escape(match: re.Match[str]) -> str:
    character = match.group()
    if character in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[character]
    code = ord(character)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def terminal_text(text: str) -> str:
    r"""``text`` with every control character shown as its Python escape, so that a
    name or a message printed to a terminal cannot move the cursor, clear the screen,
    retitle the window or start a new line. Everything else is kept as it is.

    >>> print(terminal_text("news\x1b[2J\nEXECUTE  fake"))
    news\x1b[2J\nEXECUTE  fake
    """
    return _TERMINAL_CONTROLS.sub(_terminal_escape, text)
