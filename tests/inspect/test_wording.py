"""The phrases why answers share."""

from __future__ import annotations

from graphkit.inspect.wording import choices, router_choice, spelling, who_when, wrote_in


def test_who_wrote_when():
    assert who_when(("a", "b"), {"a": 2, "b": 2}) == "both a and b wrote in step 2"
    assert who_when(("a", "b"), {}) == "none has written yet"
    assert wrote_in(("a", "b"), "c", [2]) == "both a and b wrote c in step 2"


def test_a_choice_that_is_not_a_node_is_quoted():
    # quoted as the string the router returned, and so are the names beside it: one way
    # in the whole list ("a and 'B'" read as two kinds of thing)
    assert choices(("a", "B"), ("B",)) == "'a' and 'B' (not a node)"
    assert choices(("a", "a Send to c", "B"), ("B",)) == "'a', a Send to c and 'B' (not a node)"
    assert choices(("a",), ()) == "a"
    assert choices(("a", "b"), ()) == "a and b"


def test_spelling_hints_only_for_a_name_that_looks_like_the_node():
    assert spelling("report", ("Report",)) == "Node names are case-sensitive"
    assert spelling("summarize", ("summarise",)) == "Check the spelling"
    assert spelling("report", ("search",)) == ""


def test_router_choice_for_the_whole_run_with_a_dropped_name():
    text, choice = router_choice("p ran at step 1, and its router 'r'", ("a", "x"), ("x",), "b")
    assert text == (
        "p ran at step 1, and its router 'r' returned 'a' and 'x' (not a node), so nothing ran "
        "for 'x' (the runtime drops such a choice, with a warning). It never chose b."
    )
    assert choice == "'a' and 'x' (not a node), never b"


def test_router_choice_for_several_nodes_says_each_once():
    ran = "p ran at step 1, and its router 'r'"
    assert router_choice(ran, ("a",), (), ("b", "c"))[0] == f"{ran} chose a, never b or c."
    text, choice = router_choice(
        ran, ("Bee", "citation"), ("Bee", "citation"), ("bee", "cite", "d")
    )
    assert text.endswith(
        "Node names are case-sensitive: did you mean bee? Check the spelling: did you mean "
        "cite? It never chose d."
    )
    assert choice == "'Bee' (not a node) and 'citation' (not a node); did you mean bee and cite?"
