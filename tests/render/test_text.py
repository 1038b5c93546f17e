"""render.text: element ids that survive any name; escaping for XML, DOT and Mermaid."""

from __future__ import annotations

import re
import unicodedata
import xml.etree.ElementTree as ElementTree

from hypothesis import given
from hypothesis import strategies as st

from graphkit.render.text import (
    decode_name,
    dot_string,
    edge_element_id,
    encode_name,
    label_lines,
    mermaid_label,
    node_element_id,
    parse_edge_element_id,
    terminal_text,
    xml_attribute,
    xml_escape,
)

from .conftest import HOSTILE

names = st.text(st.characters(exclude_categories=("Cs",)), max_size=30)


@given(names)
def test_encoding_round_trips_and_uses_only_id_characters(name):
    encoded = encode_name(name)
    assert re.fullmatch(r"[A-Za-z0-9_-]*", encoded)
    assert decode_name(encoded) == name


@given(names, names)
def test_different_names_get_different_ids(first, second):
    if first != second:
        assert node_element_id(first) != node_element_id(second)


@given(names, names, st.integers(1, 5))
def test_edge_ids_parse_back_to_their_ends(source, target, number):
    assert parse_edge_element_id(edge_element_id(source, target, number)) == (source, target)


def test_ids_are_readable_for_ordinary_names():
    assert node_element_id("call_news") == "node-call_news"
    assert node_element_id("__end__") == "node-__end__"
    assert edge_element_id("a-b", "c") == "edge-a-2d-b.c"
    assert parse_edge_element_id("node-a") is None
    assert parse_edge_element_id("edge-a") is None


def test_label_lines_split_newlines_and_show_control_characters():
    assert label_lines("a\r\nb\rc\nd") == ["a", "b", "c", "d"]
    assert label_lines("bell\x07 nul\x00 del\x7f") == ["bell␇ nul␀ del␡"]


@given(names)
def test_xml_escaped_text_and_attributes_parse_back(name):
    element = ElementTree.fromstring(f'<t a="{xml_attribute(name)}">{xml_escape(name)}</t>')
    visible = "\n".join(label_lines(name.replace("\r", "")))  # control characters shown
    assert (element.text or "") == visible
    assert element.get("a") == visible


def test_xml_escape_of_markup():
    assert xml_escape("<script>\"a\"&'b'") == "&lt;script&gt;&quot;a&quot;&amp;&#39;b&#39;"


def test_dot_string_escapes_quotes_backslashes_entities_and_newlines():
    assert dot_string('a "q" \\ & b\nc') == '"a \\"q\\" \\\\ &amp; b\\nc"'
    assert dot_string("{x} <y> ünï") == '"{x} <y> ünï"'


def test_dot_string_is_one_quoted_token():
    quoted = dot_string(HOSTILE)
    body = quoted[1:-1]
    assert quoted[0] == quoted[-1] == '"'
    # every quote inside is escaped, and no raw newline is left
    assert re.search(r'(?<!\\)"', body.replace("\\\\", "")) is None
    assert "\n" not in quoted


def test_mermaid_label_is_quoted_and_has_no_markup():
    label = mermaid_label(HOSTILE)
    body = label[1:-1]
    assert label[0] == label[-1] == '"'
    for character in '"<>&`':
        assert character not in body.replace("<br>", "")
    assert body.count("<br>") == 1
    assert "#60;script#62;" in body
    assert "ünï 中文 👋" in body


def test_c1_and_bidirectional_controls_in_labels_are_drawn_as_escapes():
    assert label_lines("csi\x9b31m rlo\u202eabc") == ["csi\\x9b31m rlo\\u202eabc"]
    assert mermaid_label("a\x1b\x9b") == '"a␛\\x9b"'


def test_terminal_text_shows_control_characters_as_escapes():
    assert terminal_text("plain é 中 \\ text") == "plain é 中 \\ text"
    assert terminal_text("a\x1b[2J\x07\r\n\t\x00\x7f\x9b\u202e\u2028b") == (
        "a\\x1b[2J\\x07\\r\\n\\t\\x00\\x7f\\x9b\\u202e\\u2028b"
    )


BIDI_CONTROLS = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


@given(st.text(max_size=30))
def test_terminal_text_leaves_no_control_character_and_is_idempotent(text):
    shown = terminal_text(text)
    assert not [
        character
        for character in shown
        if unicodedata.category(character) in ("Cc", "Zl", "Zp") or character in BIDI_CONTROLS
    ]
    assert terminal_text(shown) == shown
