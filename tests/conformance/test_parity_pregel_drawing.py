"""A low-level ``Pregel``'s drawing finds each node's writes as LangGraph's does: the
channels a ``ChannelWriteTupleEntry`` declares in ``static`` are dashed (conditional)
edges with their labels, one without ``static`` is drawn from what its mapper returns
for an empty input, and a ``Send`` writer is a dashed edge to the node it starts.

LangGraph finds the writes by running each node's writers on an empty input (None), so
these programs' mappers tolerate one. Where graphkit draws otherwise on purpose (an
entry that can write its channel keeps its edge; a mapper that fails on an empty input
does not fail the drawing), the case says so, as docs/drawing.md does."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import pytest

DrawnEdge = tuple[str, str, bool, str | None]


def _pairs(result: Any) -> list[tuple[str, Any]]:
    """Both channels, from a result or from the empty input drawing passes."""
    return [("quotes", result), ("price", result)]


def _nothing(result: Any) -> None:
    return None


def _items(result: Any) -> list[tuple[str, Any]]:
    return list(result.items())  # (fails on the empty input LangGraph's drawing passes)


def _writers(library: str) -> dict[str, Callable[[Any], tuple[Any, ...]]]:
    """What ``feed`` writes, per case (LangGraph's entries, or graphkit's)."""
    write = importlib.import_module(
        "langgraph.pregel._write" if library == "langgraph" else "graphkit.pregel"
    )
    entry, tuples = write.ChannelWriteEntry, write.ChannelWriteTupleEntry
    send = importlib.import_module(f"{library}.types").Send
    both = [("quotes", None, None), ("price", None, None)]
    return {
        "tuple-static": lambda _: (tuples(_pairs, static=both),),
        "tuple-static-labels": lambda _: (
            tuples(_nothing, static=[("quotes", None, "ask"), ("price", None, "bid")]),
        ),
        "tuple-static-to-end": lambda _: (
            tuples(_nothing, static=[("quotes", None, None), ("__end__", None, "closed")]),
        ),
        "tuple-static-to-end-twice": lambda _: (
            tuples(_nothing, static=[("__end__", None, "shut"), ("__end__", None, "closed")]),
        ),
        "tuple-static-two-labels": lambda _: (
            tuples(_nothing, static=[("quotes", None, "sell"), ("quotes", None, "ask")]),
        ),
        "tuple-static-two-entries": lambda _: (
            tuples(_nothing, static=[("quotes", None, "sell")]),
            tuples(_nothing, static=[("quotes", None, "ask")]),
        ),
        "tuple-static-label-is-target": lambda _: (
            tuples(_nothing, static=[("quotes", None, "sell"), ("quotes", None, "quote")]),
        ),
        "tuple-static-label-and-none": lambda _: (
            tuples(_nothing, static=[("quotes", None, "ask"), ("quotes", None, None)]),
        ),
        "tuple-without-static": lambda _: (tuples(_pairs),),
        "tuple-and-plain": lambda _: (tuples(_nothing, static=both[:1]), "price"),
        "entry-with-mapper": lambda _: (entry("quotes", mapper=str), entry("price", mapper=repr)),
        "send": lambda _: (send("quote", 1), "price"),
        "skip-write": lambda _: (entry("quotes", mapper=lambda v: write.SKIP_WRITE), "price"),
        "skip-none": lambda _: (entry("quotes", skip_none=True), "price"),
        "tuple-failing-mapper": lambda _: (tuples(_items),),
    }


def drawn(library: str, case: str) -> list[DrawnEdge] | str:
    """The edges of ``feed``'s program as ``(source, target, conditional, data)``; a
    drawing that fails reads as the error's type."""
    writers = _writers(library)
    pregel = importlib.import_module(f"{library}.pregel")
    channels = importlib.import_module(f"{library}.channels")
    node = pregel.NodeBuilder
    feed = node().subscribe_only("start").do(lambda x: x).write_to(*writers[case](None))
    app = pregel.Pregel(
        nodes={
            "feed": feed,
            "quote": node().subscribe_only("quotes").do(lambda x: x).write_to("asked"),
            "price": node().subscribe_only("price").do(lambda x: x).write_to("priced"),
        },
        channels={
            "start": channels.LastValue(object),
            "quotes": channels.Topic(object),
            "price": channels.Topic(object),
            "asked": channels.LastValue(object),
            "priced": channels.LastValue(object),
        },
        input_channels="start",
        output_channels=["asked", "priced"],
    )
    try:
        graph = app.get_graph()
    except Exception as error:  # (LangGraph's drawing can fail: compared)
        return type(error).__name__
    return sorted((e.source, e.target, bool(e.conditional), e.data) for e in graph.edges)


def _program(feeds: list[DrawnEdge]) -> list[DrawnEdge]:
    """The whole drawing, given ``feed``'s edges: START leads to it, and the nodes it
    reaches end the run (they write the output channels)."""
    reached = sorted({target for _, target, _, _ in feeds} & {"price", "quote"})
    ends = [(node, "__end__", False, None) for node in reached]
    return sorted([("__start__", "feed", False, None), *feeds, *ends])


@pytest.mark.parametrize(
    ("case", "feeds"),
    [
        ("tuple-static", [("feed", "price", True, None), ("feed", "quote", True, None)]),
        ("tuple-static-labels", [("feed", "price", True, "bid"), ("feed", "quote", True, "ask")]),
        (
            "tuple-static-to-end",
            [("feed", "__end__", True, "closed"), ("feed", "quote", True, None)],
        ),
        # two declarations give one edge different labels: the one that sorts first is
        # drawn (a label that names the target, none)
        ("tuple-static-to-end-twice", [("feed", "__end__", True, "closed")]),
        ("tuple-static-two-labels", [("feed", "quote", True, "ask")]),
        ("tuple-static-two-entries", [("feed", "quote", True, "ask")]),
        ("tuple-static-label-is-target", [("feed", "quote", True, None)]),
        ("tuple-without-static", [("feed", "price", False, None), ("feed", "quote", False, None)]),
        ("tuple-and-plain", [("feed", "price", False, None), ("feed", "quote", True, None)]),
        ("entry-with-mapper", [("feed", "price", False, None), ("feed", "quote", False, None)]),
        ("send", [("feed", "price", False, None), ("feed", "quote", True, None)]),
    ],
)
def test_a_nodes_writes_are_drawn_as_langgraph_draws_them(
    case: str, feeds: list[DrawnEdge]
) -> None:
    expected = _program(feeds)
    assert drawn("langgraph", case) == expected
    assert drawn("graphkit", case) == expected


@pytest.mark.parametrize("case", ["skip-write", "skip-none"])
def test_an_entry_that_can_write_its_channel_keeps_its_edge(case: str) -> None:
    """LangGraph calls the entry's mapper with None (or skips None) and, given nothing to
    write, draws no edge; the entry writes its channel whenever the node's result makes
    it, so graphkit draws the edge (a difference docs/drawing.md names)."""
    price, quote = ("feed", "price", False, None), ("feed", "quote", False, None)
    assert drawn("langgraph", case) == _program([price])
    assert drawn("graphkit", case) == _program([price, quote])


def test_a_tuple_mapper_that_fails_on_an_empty_input_does_not_fail_the_drawing() -> None:
    """Its writes are unknown, so graphkit draws a dashed edge to every node a channel
    write can wake, and to END (an output channel), as for a router without a path map;
    LangGraph's ``get_graph()`` raises the mapper's error."""
    assert drawn("langgraph", "tuple-failing-mapper") == "AttributeError"
    feeds = [(source, target, True, None) for source, target in _anywhere()]
    assert drawn("graphkit", "tuple-failing-mapper") == _program(feeds)


def _anywhere() -> list[tuple[str, str]]:
    return [("feed", "__end__"), ("feed", "feed"), ("feed", "price"), ("feed", "quote")]


def test_a_declaration_without_a_label_leaves_the_edge_the_others_label() -> None:
    """LangGraph 1.2 sorts the edges it found, and a label beside None fails the sort
    (``get_graph()`` raises TypeError); graphkit draws the label given (a difference
    docs/drawing.md names)."""
    assert drawn("langgraph", "tuple-static-label-and-none") == "TypeError"
    feeds = [("feed", "quote", True, "ask")]
    assert drawn("graphkit", "tuple-static-label-and-none") == _program(feeds)
