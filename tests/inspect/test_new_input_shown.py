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
from langgraph.types import Command, interrupt

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
    "stopped before it finished); the new input's Update cleared branch:to:bar, so bar never ran "
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


@pytest.mark.parametrize(
    "command",
    [Command(update={"log": ["note"]}), Command(goto="foo")],
    ids=["update", "goto"],
)
def test_a_command_given_to_a_paused_thread_is_not_said_to_start_it_over(command):
    """A Command as the input writes no __start__: the thread goes on, and bar, which it
    had paused before, runs in the next step (as in LangGraph)."""
    app = _paused_before_bar()
    config = {"configurable": {"thread_id": "1"}}
    app.invoke({"log": ["hello"]}, config)
    expected = app.invoke(command, config)
    graph = from_langgraph(_paused_before_bar())
    graph.invoke({"log": ["hello"]}, config)
    run = graph.trace(command, config)
    assert run.values == expected and "bar" in expected["log"]
    answer = run.why("bar", step=1).answers[0]
    assert answer.summary == (
        "bar did not run at step 1: step 1 is the input step of an invoke given a Command, "
        "which runs only __input__; bar runs at step 2."
    )
    assert [reason.kind for reason in answer.reasons] == ["input_step"]
    assert answer.reasons[0].text == (
        "Step 1 is the input step of an invoke given a Command: it runs only __input__, "
        "which applies the Command's update and goto. A Command writes no __start__, so "
        "the thread does not start over: what it had left to run stays due, and runs at "
        "step 2."
    )


def test_a_new_input_to_a_finished_thread_is_not_told_how_to_go_on_from_a_pause():
    builder = StateGraph(Log)
    builder.add_node("foo", lambda state: {"log": ["foo"]})
    graph = from_langgraph(builder.add_edge(START, "foo").compile(checkpointer=InMemorySaver()))
    config = {"configurable": {"thread_id": "done"}}
    graph.invoke({"log": ["one"]}, config)
    run = graph.trace({"log": ["two"]}, config)
    answer = run.why("foo", step=run.steps[0].step).answers[0]
    assert [reason.kind for reason in answer.reasons] == ["new_input"]
    assert "pause" not in answer.reasons[0].text
    assert "dropped" not in answer.summary


def test_a_node_paused_in_its_interrupt_is_not_said_to_have_stopped_before_it_ran():
    """foo ran, up to its interrupt(), before the thread was given a new input."""
    builder = StateGraph(Log)
    builder.add_node("foo", lambda state: {"log": [interrupt("ok?")]})
    app = builder.add_edge(START, "foo").compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "asked"}}
    app.invoke({"log": ["hello"]}, config)
    app.invoke({"log": ["again"]}, config)
    text = open_langgraph_thread(app, config).why("foo", step=1, graph=app)
    assert "stopped before it finished" in text.answers[0].reasons[0].text
