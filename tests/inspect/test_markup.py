"""escape(): text from a run is always safe in HTML and XML."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

from graphkit.inspect.markup import escape


def test_markup_characters_are_escaped():
    assert escape('<script>alert("x")</script>') == (
        "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"
    )
    assert escape("a & 'b'") == "a &amp; &#x27;b&#x27;"


def test_non_ascii_and_newlines_are_kept():
    assert escape("é 中 🙂\nnext") == "é 中 🙂\nnext"


def test_characters_xml_forbids_become_visible_escapes():
    assert escape("a\x00b\x1bc") == "a\\x00b\\x1bc"
    assert escape("\ud800") == "\\ud800"


def test_anything_escaped_parses_as_xml_text_and_attribute():
    hostile = "<script>\"&'</script>\x00\x07\ud83d\n{}\\ é"
    element = ElementTree.fromstring(f'<t a="{escape(hostile)}">{escape(hostile)}</t>')
    assert element.text.startswith("<script>\"&'</script>\\x00\\x07\\ud83d")
    assert element.get("a").startswith("<script>\"&'</script>")
    assert not list(element)


def test_bidirectional_overrides_become_visible_escapes():
    # (an RLO in a value would show the text after it reversed, in every card)
    assert escape("ok\u202etxt.exe \u2066x\u2069") == "ok\\u202etxt.exe \\u2066x\\u2069"
    assert escape("שלום עולם") == "שלום עולם"  # right-to-left text itself is kept
