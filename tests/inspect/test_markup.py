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


# JupyterLab 4's theme variables the cards use (its light and dark themes' index.css), and
# none (a page with no theme: Voila's classic template, a pasted page, the docs site).
THEMES = {
    "light": {
        "--jp-layout-color0": (255, 255, 255, 1),
        "--jp-content-font-color1": (0, 0, 0, 0.87),
        "--jp-content-font-color2": (0, 0, 0, 0.54),
    },
    "dark": {
        "--jp-layout-color0": (17, 17, 17, 1),
        "--jp-content-font-color1": (255, 255, 255, 1),
        "--jp-content-font-color2": (255, 255, 255, 0.7),
    },
    "none": {},
}


def _colour(css: str, theme: dict) -> tuple[float, ...]:
    """A CSS colour of the cards' kinds (#hex, var() with a fallback, color-mix in srgb of
    two of those) as RGBA, as a browser computes it (color-mix premultiplies alpha)."""
    css = css.strip()
    if css.startswith("#"):
        return (*(int(css[i : i + 2], 16) for i in (1, 3, 5)), 1)
    if css.startswith("var("):
        name, fallback = css[4:-1].split(",", 1)
        return theme.get(name.strip()) or _colour(fallback, theme)
    assert css.startswith("color-mix(in srgb, ") and css.endswith(")"), css
    inner, depth, cut = css[len("color-mix(in srgb, ") : -1], 0, 0
    for i, char in enumerate(inner):  # the comma between the two colours
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            cut = i
    first, second = inner[:cut].strip(), inner[cut + 1 :].strip()
    colour, share = first.rsplit(" ", 1)
    one, two, p = _colour(colour, theme), _colour(second, theme), float(share[:-1]) / 100
    alpha = one[3] * p + two[3] * (1 - p)
    mixed = [(one[i] * one[3] * p + two[i] * two[3] * (1 - p)) / alpha for i in range(3)]
    return (*mixed, alpha)


def _contrast(text: str, ground: str, theme: dict) -> float:
    under, over = _colour(ground, theme), _colour(text, theme)
    seen = [over[i] * over[3] + under[i] * (1 - over[3]) for i in range(3)]

    def luminance(rgb):
        f = [c / 255 for c in rgb]
        f = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in f]
        return 0.2126 * f[0] + 0.7152 * f[1] + 0.0722 * f[2]

    light, dark = sorted((luminance(seen), luminance(under[:3])), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_grey_and_coloured_texts_read_at_4_5_on_every_card_ground():
    # (axe-core: a step card's grey times, versions and writers read at 3.8-4.3:1 on its
    # tints in JupyterLab's light theme; the run's "done" in green at 3.4 on white)
    from graphkit.inspect import markup

    grounds = [markup.GROUND, markup.PLAN[0], markup.EXECUTE[0], markup.UPDATE[0]]
    texts = [markup.MUTED, markup.TEXT, markup.UPDATE_TEXT, markup.ERROR_TEXT]
    low = [
        (name, text, ground, round(_contrast(text, ground, theme), 2))
        for name, theme in THEMES.items()
        for text in texts
        for ground in [*grounds, markup.ERROR[0]]
        if _contrast(text, ground, theme) < 4.5
    ]
    assert low == []
