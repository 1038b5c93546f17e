"""``why`` on a run that began from a checkpoint (a resume, a replay) says in words what
chose a node in the step before its records: it read "branch:to:prices was written before
the checkpoint this run started from (saved after step 0), by a node the records do not
show", a runtime channel and no answer (lesson 12's resumed shop)."""

from __future__ import annotations

import contextlib
import operator
import sqlite3
import warnings
from typing import Annotated, TypedDict

import pytest

from graphkit import END, START, InMemorySaver, Send, StateGraph
from graphkit.checkpoint.sqlite import SqliteSaver


class Log(TypedDict):
    log: Annotated[list, operator.add]


def _shop(down: list[bool]) -> StateGraph:
    """Lesson 12's shop: three lookups from START, shipping fails, report waits for all."""

    def shipping(state: Log) -> dict:
        if down[0]:
            raise ConnectionError("shipping API is down")
        return {"log": ["shipping"]}

    builder = StateGraph(Log)
    builder.add_node("prices", lambda s: {"log": ["prices"]})
    builder.add_node("stock", lambda s: {"log": ["stock"]})
    builder.add_node("shipping", shipping)
    builder.add_node("report", lambda s: {"log": ["report"]})
    for lookup in ("prices", "stock", "shipping"):
        builder.add_edge(START, lookup)
    builder.add_edge(["prices", "stock", "shipping"], "report").add_edge("report", END)
    return builder


def _run(builder: StateGraph, down: list[bool]) -> tuple[object, object]:
    app = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "1"}}
    with contextlib.suppress(ConnectionError):
        app.trace({"log": []}, config)
    down[0] = False
    return app, app.trace(None, config)


def test_a_resumed_runs_why_names_the_edge_taken_before_the_resume() -> None:
    down = [True]
    app, resumed = _run(_shop(down), down)
    answer = resumed.why("prices", graph=app).answers[0]
    assert answer.summary == (
        "prices was planned at step 1 because the edge START → prices was taken in step 0, "
        "and this run started from that step's checkpoint; its writes were saved before "
        "the run stopped, so it did not run again."
    )
    assert answer.reasons[0].text.startswith(
        "In step 0, before this run, the edge START → prices was taken (it wrote "
        "branch:to:prices, version 2). This run started from the checkpoint saved after "
        "step 0 "
    )
    # without the graph, the step is still said, and how to have the edge named
    plain = resumed.why("shipping").answers[0]
    assert plain.summary == (
        "shipping ran at step 1 because an edge or router chose shipping in step 0, and "
        "this run started from that step's checkpoint."
    )
    assert plain.reasons[0].text.endswith(
        "Pass the graph (run.why(node, graph=app)) to name the edge or router."
    )
    for node in ("prices", "stock", "shipping"):
        assert "records do not show" not in str(resumed.why(node, graph=app))


def test_the_thread_history_names_which_of_two_edges_was_taken() -> None:
    """c has edges from a and from x: the wiring alone cannot say which was taken; the
    writes step 1's tasks saved in the thread's history can."""
    down = [True]

    def c(state: Log) -> dict:
        if down[0]:
            raise ConnectionError("down")
        return {"log": ["c"]}

    builder = StateGraph(Log)
    builder.add_node("a", lambda s: {"log": ["a"]})
    builder.add_node("x", lambda s: {"log": ["x"]})
    builder.add_node("c", c)
    builder.add_edge(START, "a").add_edge("a", "c").add_edge("x", "c")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (x has no way in: only its edge to c matters)
        app, resumed = _run(builder, down)
    assert resumed.why("c", graph=app).answers[0].summary == (
        "c ran at step 2 because the edge a → c was taken in step 1, and this run started "
        "from that step's checkpoint."
    )


def test_a_resumed_waiting_edge_and_router_read_in_words() -> None:
    down = [True]

    def c(state: Log) -> dict:
        if down[0]:
            raise ConnectionError("down")
        return {"log": ["c"]}

    def route(state: Log) -> list[str]:
        return ["b", "c"]

    routed = StateGraph(Log)
    routed.add_node("p", lambda s: {"log": ["p"]})
    routed.add_node("b", lambda s: {"log": ["b"]})
    routed.add_node("c", c)
    routed.add_edge(START, "p").add_conditional_edges("p", route, ["b", "c"])
    app, resumed = _run(routed, down)
    assert resumed.why("c", graph=app).answers[0].summary == (
        "c ran at step 2 because p's router 'route' chose c in step 1, and this run "
        "started from that step's checkpoint."
    )
    down[0] = True
    waiting = StateGraph(Log)
    waiting.add_node("a", lambda s: {"log": ["a"]})
    waiting.add_node("b", lambda s: {"log": ["b"]})
    waiting.add_node("c", c)
    waiting.add_edge(START, "a").add_edge(START, "b").add_edge(["a", "b"], "c")
    app, resumed = _run(waiting, down)
    for graph in (None, app):
        assert resumed.why("c", graph=graph).answers[0].summary == (
            "c ran at step 2 because the waiting edge [a, b] → c was complete in step 1, "
            "and this run started from that step's checkpoint."
        )


def test_a_resumed_send_names_its_sender() -> None:
    down = [True]

    def work(packet: int) -> dict:
        if down[0] and packet == 2:
            raise ConnectionError("down")
        return {"log": [packet]}

    builder = StateGraph(Log)
    builder.add_node("p", lambda s: {"log": ["p"]})
    builder.add_node("w", work)
    builder.add_edge(START, "p")
    builder.add_conditional_edges("p", lambda s: [Send("w", 1), Send("w", 2)], ["w"])
    app, resumed = _run(builder, down)
    answer = resumed.why("w", graph=app).answers[0]
    assert answer.summary == (
        "w ran at step 2 (2 tasks) because p sent it a packet (Send) in step 1, and this "
        "run started from that step's checkpoint."
    )
    assert answer.reasons[0].text.startswith("p sent Send('w', 1) in step 1, before this run")
    assert "records do not show" not in str(resumed.why("w"))


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_why_reads_a_deferred_nodes_waiting_edge_from_a_saved_checkpoint(saver: str) -> None:
    """A waiting edge into a deferred node saves ``(seen, finished)``, which a saver gives
    back as a list (as LangGraph's does): ``why`` read it as a set of names and failed
    with "unhashable type: 'set'" on the run resumed from it."""
    builder = StateGraph(Log)
    for name in ("a", "b", "b2"):
        builder.add_node(name, lambda s, name=name: {"log": [name]})
    builder.add_node("j", lambda s: {"log": ["j"]}, defer=True)
    builder.add_edge(START, "a").add_edge(START, "b").add_edge("b", "b2")
    builder.add_edge(["a", "b2"], "j").add_edge("j", END)
    checkpointer = (
        InMemorySaver()
        if saver == "memory"
        else SqliteSaver(sqlite3.connect(":memory:", check_same_thread=False))
    )
    app = builder.compile(checkpointer=checkpointer, interrupt_before=["b2"])
    config = {"configurable": {"thread_id": "1"}}
    app.invoke({"log": []}, config)
    resumed = app.trace(None, config)
    answer = resumed.why("j", 2)
    assert answer.kinds[0] == "still_waiting"
    assert "still waiting for b2" in str(answer)
