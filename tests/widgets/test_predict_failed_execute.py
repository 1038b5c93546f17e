"""Predicting a channel's value in a step whose Execute fails: the step runs no Update,
so the channel keeps its value (lesson 12's "what does total hold after the failed
step?"). ``predict`` raised ``RuntimeError: The Execute did not finish`` instead. That a
failed step applies none of its writes is LangGraph's behaviour too: the checkpoint
history there has no checkpoint for the step, and the last one holds the old value."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from graphkit import START, InMemorySaver, StateGraph
from graphkit.widgets import DebugSession


class Order(TypedDict):
    total: Annotated[int, operator.add]


def prices(state: Order) -> dict:
    return {"total": 10}


def stock(state: Order) -> dict:
    return {"total": 20}


def shipping(state: Order) -> dict:
    raise ConnectionError("shipping API is down")


def build(graph_class=StateGraph, start=START):
    builder = graph_class(Order)
    for node in (prices, stock, shipping):
        builder.add_node(node.__name__, node)
        builder.add_edge(start, node.__name__)
    return builder


def planned_step_1() -> DebugSession:
    session = DebugSession(build().compile(), {"total": 0})
    session.step()
    session.step()
    session.plan()
    return session


def test_the_value_before_the_failed_step_is_right():
    session = planned_step_1()
    wrong = session.predict(channel="total", value=30)
    assert not wrong and wrong.expected == 0
    assert "step 1 failed in its Execute (shipping raised ConnectionError" in wrong.explanation
    assert "prices (10) and stock (20), were never applied" in wrong.explanation
    right = session.predict(channel="total", value=0)  # judged again, the same step
    assert right and session.score.asked == 1


def test_the_errors_class_is_right_too():
    session = planned_step_1()
    assert session.predict(channel="total", value=ConnectionError)
    assert planned_step_1().predict(channel="total", value="ConnectionError")
    assert not planned_step_1().predict(channel="total", value=Exception)


@pytest.mark.parametrize("lib", ["langgraph", "graphkit"])
def test_the_failed_step_left_the_saved_value_as_it_was(lib):
    if lib == "langgraph":
        from langgraph.checkpoint.memory import InMemorySaver as Saver
        from langgraph.graph import START as start
        from langgraph.graph import StateGraph as graph_class
    else:
        Saver, start, graph_class = InMemorySaver, START, StateGraph
    app = build(graph_class, start).compile(checkpointer=Saver())
    config = {"configurable": {"thread_id": "t"}}
    with pytest.raises(ConnectionError):
        app.invoke({"total": 0}, config)
    latest = next(iter(app.get_state_history(config)))
    assert (latest.metadata["step"], latest.values) == (0, {"total": 0})


def test_a_channel_no_finished_task_wrote_is_told_without_a_dangling_they():
    class Noted(TypedDict):
        total: Annotated[int, operator.add]
        note: str

    builder = StateGraph(Noted)
    for node in (prices, shipping):
        builder.add_node(node.__name__, node)
        builder.add_edge(START, node.__name__)
    session = DebugSession(builder.compile(), {"total": 0, "note": ""})
    session.step()
    session.step()
    session.plan()
    said = session.predict(channel="note", value="")
    assert said and "note still holds ''" in said.explanation
    assert "were never applied" not in said.explanation
    assert "the writes of the tasks that finished are saved" in said.explanation


def test_a_step_that_paused_is_not_told_as_a_failed_update():
    """A step whose task called interrupt() ran no Update yet: the reveal said "step 1's
    Update failed"."""
    from graphkit.types import interrupt

    class Asked(TypedDict):
        total: Annotated[int, operator.add]
        note: str

    def ask(state: Asked) -> dict:
        return {"note": interrupt("ok?")}

    builder = StateGraph(Asked)
    for node in (prices, ask):
        builder.add_node(node.__name__, node)
        builder.add_edge(START, node.__name__)
    app = builder.compile(checkpointer=InMemorySaver())
    session = DebugSession(app, {"total": 0, "note": ""}, {"configurable": {"thread_id": "t"}})
    session.step()
    session.step()
    session.plan()
    said = session.predict(channel="total", value=0)
    assert said, said.explanation
    assert "step 1 paused in its Execute (ask called interrupt())" in said.explanation
    assert "Update failed" not in said.explanation
