"""``get_graph(xray=True)`` keeps a subgraph's routes as LangGraph draws them: where a
router inside the subgraph chooses the subgraph's END (or a ``Command`` goes there), the
drawn edge out of that node is conditional and keeps the router's label, also when
the parent goes on from the subgraph node through a waiting edge.

LangGraph keeps the subgraph's END as a node (``sub:__end__``) and draws the router's
edge into it; graphkit joins the parent's edge to the inner node instead (a known
difference, docs/compatibility.md), so the comparison is of what leaves each inner
node towards the subgraph's way out: whether it is conditional, and its label."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from typing_extensions import TypedDict


class State(TypedDict):
    x: int


def _node(state: State) -> dict:
    return {}


def _hand_over(state: State) -> Any:
    return importlib.import_module("langgraph.types").Command(goto="tail")  # (not run)


def _app(library: str, waiting: bool) -> Any:
    graph = importlib.import_module(f"{library}.graph")
    StateGraph, START, END = graph.StateGraph, graph.START, graph.END

    inner = StateGraph(State).add_node("check", _node)
    inner.add_node("hand", _hand_over, destinations=("tail", END))
    inner.add_node("work", _node).add_node("tail", _node)
    inner.add_edge(START, "check").add_edge("work", "hand")
    inner.add_conditional_edges("check", lambda s: "work", {"work": "work", "stop": END})
    outer = StateGraph(State).add_node("sub", inner.compile()).add_node("side", _node)
    outer.add_node("after", _node).add_edge(START, "sub")
    if waiting:  # the parent goes on once both the subgraph and its sibling finished
        outer.add_edge(START, "side").add_edge(["sub", "side"], "after")
    else:
        outer.add_edge("sub", "after").add_edge(START, "side")
    return outer.compile()


def _ways_out(library: str, waiting: bool) -> list[tuple[str, bool, str | None]]:
    """(inner node, conditional, label) of each edge from a subgraph node towards the
    subgraph's way out (LangGraph's ``sub:__end__``, graphkit's next node or join)."""
    drawn = _app(library, waiting).get_graph(xray=True)
    ways = []
    for edge in drawn.edges:
        source, target, label, conditional = edge
        inner_source = source.startswith("sub:") and source != "sub:__end__"
        if (inner_source and not target.startswith("sub:")) or target == "sub:__end__":
            ways.append((source, conditional, label))
    return sorted(ways)


@pytest.mark.parametrize("waiting", [False, True], ids=["plain-edge", "waiting-edge"])
def test_a_subgraph_s_routes_out_keep_their_kind_and_label(waiting: bool) -> None:
    expected = [
        ("sub:check", True, "stop"),
        ("sub:hand", True, None),
        ("sub:tail", False, None),
    ]
    assert _ways_out("langgraph", waiting) == expected
    assert _ways_out("graphkit", waiting) == expected
