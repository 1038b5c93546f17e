"""A resumed step's task whose writes were saved before the run stopped did not run
again, and ``why`` says so: it said "prices ran at step 1", and a learner counted the
side effects of prices twice. LangGraph does not run it again either."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest


class Order(TypedDict):
    total: Annotated[int, operator.add]


def shop(lib: str, ran: list[str], down: dict[str, bool]):
    if lib == "langgraph":
        from langgraph.checkpoint.memory import InMemorySaver
        from langgraph.graph import START, StateGraph
    else:
        from graphkit import START, InMemorySaver, StateGraph

    def prices(state: Order) -> dict:
        ran.append("prices")
        return {"total": 10}

    def shipping(state: Order) -> dict:
        ran.append("shipping")
        if down["on"]:
            raise ConnectionError("shipping API is down")
        return {"total": 5}

    builder = StateGraph(Order)
    builder.add_node("prices", prices)
    builder.add_node("shipping", shipping)
    builder.add_edge(START, "prices")
    builder.add_edge(START, "shipping")
    return builder.compile(checkpointer=InMemorySaver())


@pytest.mark.parametrize("lib", ["langgraph", "graphkit"])
def test_a_resume_does_not_run_a_finished_sibling_again(lib):
    ran, down = [], {"on": True}
    app = shop(lib, ran, down)
    config = {"configurable": {"thread_id": "t"}}
    with pytest.raises(ConnectionError):
        app.invoke({"total": 0}, config)
    down["on"], ran[:] = False, []
    assert app.invoke(None, config) == {"total": 15}
    assert ran == ["shipping"]


def test_why_says_a_reused_task_did_not_run_again():
    ran, down = [], {"on": True}
    app = shop("graphkit", ran, down)
    config = {"configurable": {"thread_id": "t"}}
    with pytest.raises(ConnectionError):
        app.invoke({"total": 0}, config)
    down["on"] = False
    run = app.trace(None, config)
    said = run.why("prices", graph=app)
    summary = said.answers[0].summary
    assert summary.startswith("prices was planned at step 1 because")
    assert summary.endswith(
        "its writes were saved before the run stopped, so it did not run again."
    )
    reused = [r for r in said.answers[0].reasons if r.kind == "reused"]
    assert len(reused) == 1 and "was done once" in reused[0].text
    assert run.why("shipping", graph=app).answers[0].summary.startswith("shipping ran at step 1")


def test_why_counts_the_reused_tasks_of_a_node_sent_several_packets():
    """Two of three Send packets finished before the third raised: the resume runs only
    the third, and ``why`` says two were reused, not that the node did not run."""
    from graphkit import START, InMemorySaver, Send, StateGraph

    ran, down = [], {"on": True}

    def work(state: Order) -> dict:
        ran.append(state["total"])
        if state["total"] == 2 and down["on"]:
            raise ConnectionError("down")
        return {"total": state["total"] * 10}

    builder = StateGraph(Order)
    builder.add_node("work", work)
    builder.add_conditional_edges(START, lambda s: [Send("work", {"total": i}) for i in (1, 2, 3)])
    app = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    with pytest.raises(ConnectionError):
        app.invoke({"total": 0}, config)
    down["on"], ran[:] = False, []
    run = app.trace(None, config)
    assert ran == [2] and run.values == {"total": 60}
    answer = run.why("work", graph=app).answers[0]
    assert answer.summary.startswith("work ran at step 1 (3 tasks)")
    reused = [r.text for r in answer.reasons if r.kind == "reused"]
    assert len(reused) == 1 and reused[0].startswith("2 of work's 3 tasks had finished")
    assert "those 2 did not run again" in reused[0]
