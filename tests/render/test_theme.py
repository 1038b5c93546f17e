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


OKABE_ITO = {"#000000", "#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7"}


def _rule(selector: str) -> str:
    return next(line for line in STYLESHEET.splitlines() if line.startswith(selector + " "))


def test_one_colour_blind_safe_palette_for_the_graph_and_the_cards():
    from graphkit.inspect.markup import ERROR, EXECUTE, PLAN, UPDATE

    accents = {"planned": PLAN[1], "running": EXECUTE[1], "wrote": UPDATE[1], "error": ERROR[1]}
    for state, accent in accents.items():
        assert accent in OKABE_ITO, (state, accent)
        assert f"stroke: {accent}" in _rule(f".gk-node.{state}"), state


def test_planned_and_interrupted_differ_by_more_than_hue():
    def dashes(state: str) -> str:
        match = re.search(r"stroke-dasharray: ([^;]+);", _rule(f".gk-node.{state}"))
        return match.group(1) if match else "none"

    assert dashes("planned") != dashes("interrupted")
    assert dashes("pending") != dashes("applied")
