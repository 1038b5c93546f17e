"""render.theme: the stylesheet every SVG carries."""

from __future__ import annotations

import re

from graphkit.render.theme import OVERLAY_CLASSES, PHASE_CLASSES, STYLESHEET


def test_every_phase_and_overlay_class_is_styled():
    for name in PHASE_CLASSES + OVERLAY_CLASSES:
        assert re.search(rf"\.gk-(node|edge|join)\.{name}\b", STYLESHEET), name


def test_the_stylesheet_needs_no_escaping_and_cannot_leak_onto_a_page():
    assert not set("<>&") & set(STYLESHEET)
    for rule in STYLESHEET.splitlines():
        selectors = re.sub(r"\([^)]*\)", "", rule.split("{")[0])  # :is(a, b) is one part
        for selector in selectors.split(","):
            assert selector.strip().startswith(".gk-"), selector


def test_an_error_outranks_the_other_node_states():
    order = [m.group(1) for m in re.finditer(r"^\.gk-node\.(\w+) ", STYLESHEET, re.M)]
    assert order.index("error") > max(order.index(n) for n in ("planned", "running", "wrote"))
