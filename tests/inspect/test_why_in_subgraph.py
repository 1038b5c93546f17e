"""``why`` asked about a node inside a subgraph said "Node 'a' is not in this graph; its
nodes are ['sub']" while ``why("sub")`` said "sub ran": the error now says which
subgraph has the node and how to ask its own records."""

from __future__ import annotations

import contextlib
import operator
from typing import Annotated, TypedDict

import pytest

from graphkit import END, START, InMemorySaver, StateGraph


class Log(TypedDict):
    log: Annotated[list, operator.add]


def _inner(down: list[bool]) -> StateGraph:
    def b(state: Log) -> dict:
        if down[0]:
            raise ConnectionError("down")
        return {"log": ["b"]}

    inner = StateGraph(Log)
    inner.add_node("a", lambda s: {"log": ["a"]})
    inner.add_node("b", b)
    return inner.add_edge(START, "a").add_edge(START, "b")


def test_why_of_a_subgraphs_node_says_where_to_ask() -> None:
    """Lesson 12's resume, one level down: sub's b failed, a was reused."""
    down = [True]
    outer = StateGraph(Log)
    outer.add_node("sub", _inner(down).compile()).add_edge(START, "sub")
    app = outer.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "1"}}
    with contextlib.suppress(ConnectionError):
        app.trace({"log": []}, config)
    down[0] = False
    resumed = app.trace(None, config)
    for graph in (None, app):
        with pytest.raises(ValueError) as raised:
            resumed.why("a", graph=graph)
        assert str(raised.value).endswith(
            "its nodes are ['sub']. 'a' is a node of subgraph sub, whose run has its own "
            "records: ask them with run.step(1).execution.results[0].subruns[0].why('a')."
        )
    asked = resumed.step(1).execution.results[0].subruns[0].why("a").answers[0]
    assert asked.summary.startswith("a was planned at step 1 because")


def test_why_of_a_node_of_a_subgraph_that_did_not_run_says_which_subgraph() -> None:
    outer = StateGraph(Log)
    outer.add_node("first", lambda s: {"log": ["first"]})
    outer.add_node("sub", _inner([False]).compile())
    outer.add_edge(START, "first").add_conditional_edges(
        "first", lambda s: END, {"sub": "sub", END: END}
    )
    app = outer.compile()
    run = app.trace({"log": []})
    with pytest.raises(ValueError, match="'b' is a node of subgraph sub, which this run did not"):
        run.why("b", graph=app)
    with pytest.raises(ValueError, match="Did you mean 'first'"):
        run.why("frist", graph=app)
