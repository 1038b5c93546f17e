"""A thread paused before a node (``interrupt_before``), then invoked with an input
instead of ``None`` (langgraph#1569): the input starts the thread over from START, and
the node that was next never runs. ``why`` said it "did not run at step 2: none of its
trigger channels changed", which is not so: step 1's Update had written its trigger,
and step 2's input step dropped it."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

pytest.importorskip("langgraph")

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from graphkit import from_langgraph, open_langgraph_thread


class Log(TypedDict):
    log: Annotated[list, operator.add]


def _paused_before_bar():
    builder = StateGraph(Log)
    builder.add_node("foo", lambda state: {"log": ["foo"]})
    builder.add_node("bar", lambda state: {"log": ["bar"]})
    builder.add_edge(START, "foo").add_edge("foo", "bar").add_edge("bar", END)
    return builder.compile(checkpointer=InMemorySaver(), interrupt_before=["bar"])


def _resumed_with_an_input(app):
    config = {"configurable": {"thread_id": "1"}}
    app.invoke({"log": ["hello"]}, config)
    result = app.invoke({"log": ["go on"]}, config)  # not None: a new input
    return config, result


EXPECTED = (
    "Step 2 is the input step of a new invoke on the thread: it was given an input, "
    "not None, so it runs only __input__, and the thread starts again from START. "
    "Step 1's Update had written branch:to:bar, so bar was due at step 2 (the thread had "
    "stopped before it ran); the new input's Update cleared branch:to:bar, so bar never ran "
    "on it. To go on from a pause, call invoke(None, config), or "
    "invoke(Command(resume=...), config) to answer an interrupt()."
)


def test_why_says_a_new_input_dropped_the_node_the_thread_had_paused_before():
    app = _paused_before_bar()
    config, result = _resumed_with_an_input(app)
    assert result["log"] == ["hello", "foo", "go on", "foo"]  # LangGraph's: foo again
    answer = open_langgraph_thread(app, config).why("bar", step=2, graph=app).answers[0]
    assert answer.summary == (
        "bar did not run at step 2: step 2 is a new input, which started the thread "
        "again from START and dropped bar's pending run."
    )
    assert [reason.kind for reason in answer.reasons] == ["new_input"]
    assert answer.reasons[0].text == EXPECTED


def test_graphkit_runs_it_as_langgraph_does_and_says_the_same():
    graph = from_langgraph(_paused_before_bar())
    config, result = _resumed_with_an_input(graph)
    assert result["log"] == ["hello", "foo", "go on", "foo"]
    assert graph.get_state(config).next == ("bar",)
    run = graph.trace({"log": ["again"]}, config)
    answer = run.why("bar", step=5).answers[0]
    assert [reason.kind for reason in answer.reasons] == ["new_input"]
    assert answer.reasons[0].text == EXPECTED.replace("Step 2", "Step 5").replace(
        "Step 1's", "Step 4's"
    ).replace("step 2", "step 5")
