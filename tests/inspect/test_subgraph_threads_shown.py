"""The views say where a subgraph's state is kept (issue 14, item 9): its own thread
(``compile(checkpointer=True)``), this call's namespace (the default), or nowhere
(``checkpointer=False``, or a parent without a checkpointer) — in the records
(``Run.saved_in``), the ``subgraphs`` table, the thread tables and the debugger."""

from __future__ import annotations

import html
import operator
from typing import Annotated, Any, TypedDict

import pytest

from graphkit import START, InMemorySaver, StateGraph
from graphkit.inspect.threads import checkpoints_frame
from graphkit.widgets import DebugSession


class Outer(TypedDict):
    log: Annotated[list, operator.add]


class Inner(TypedDict):
    log: Annotated[list, operator.add]
    seen: int


def _sub(checkpointer: Any):
    def count(state):
        return {"seen": len(state["log"]), "log": ["inner"]}

    builder = StateGraph(Inner).add_node("count", count).add_edge(START, "count")
    return builder.compile() if checkpointer == "default" else builder.compile(checkpointer)


def _app(checkpointer: Any, saver: Any = "memory", calls: int = 1):
    sub = _sub(checkpointer)

    def node(state):
        outputs = [sub.invoke({"log": [f"call{i}"]}) for i in range(calls)]
        return {"log": [output["seen"] for output in outputs]}

    builder = StateGraph(Outer).add_node("node", node).add_edge(START, "node")
    return builder.compile(checkpointer=InMemorySaver() if saver == "memory" else None)


CONFIG = {"configurable": {"thread_id": "t"}}


@pytest.mark.parametrize(
    ("checkpointer", "saver", "kept", "saved_in"),
    [
        (True, "memory", "own thread", "node"),
        ("default", "memory", "this call", "node:*"),
        (None, "memory", "this call", "node:*"),
        (False, "memory", "not saved", None),
        (True, None, "not saved", None),
    ],
)
def test_the_subgraphs_table_says_where_state_is_kept(checkpointer, saver, kept, saved_in):
    run = _app(checkpointer, saver).trace({"log": []}, CONFIG)
    rows = run.to_frame("subgraphs").to_dict("records")
    assert [(row["node"], row["call"], row["kept"], row["status"]) for row in rows] == [
        ("node", 0, kept, "done")
    ]
    task_id = rows[0]["task_id"]
    expected = saved_in.replace("*", task_id) if saved_in else None
    assert rows[0]["saved_in"] == expected
    # a subgraph keeping its own thread runs under its node's name, as in LangGraph
    assert rows[0]["namespace"] == ("node" if checkpointer is True else f"node:{task_id}")
    subrun = run.steps[-1].execution.results[0].subruns[0]
    assert subrun.saved_in == expected and run.saved_in == ("" if saver else None)


def test_two_calls_from_one_task_are_numbered_and_kept_apart():
    app = _app(True, calls=2)
    run = app.trace({"log": []}, CONFIG)
    rows = run.to_frame("subgraphs")
    assert rows["call"].tolist() == [0, 1]
    assert rows["saved_in"].tolist() == ["node", "node|1"]
    second = app.trace({"log": []}, CONFIG)
    # each call's own thread grew by its first run: the subgraph saw call0's log again
    assert second.values["log"][-2:] == [3, 3]


def test_the_checkpoints_table_of_a_subgraphs_own_thread():
    app = _app(True)
    for _ in range(2):
        app.invoke({"log": []}, CONFIG)
    own = checkpoints_frame(app, {"configurable": {"thread_id": "t", "checkpoint_ns": "node"}})
    assert list(own.columns)[-2:] == ["log", "seen"]  # the subgraph's keys, not the parent's
    assert set(own["ns"]) == {"node"}
    assert own.iloc[0]["log"] == ["call0", "inner", "call0", "inner"]
    assert own.iloc[0]["seen"] == 3
    root = checkpoints_frame(app, CONFIG)
    assert set(root["ns"]) == {""} and "seen" not in root.columns


def test_get_state_with_subgraphs_shows_the_own_thread_of_a_paused_subgraph():
    from graphkit import interrupt

    def ask(state):
        return {"log": [interrupt("ok?")]}

    sub = StateGraph(Outer).add_node("ask", ask).add_edge(START, "ask").compile(checkpointer=True)
    app = StateGraph(Outer).add_node("sub", sub).add_edge(START, "sub")
    app = app.compile(checkpointer=InMemorySaver())
    app.invoke({"log": ["x"]}, CONFIG)
    task = app.get_state(CONFIG, subgraphs=True).tasks[0]
    assert task.state.config["configurable"]["checkpoint_ns"] == "sub"
    assert task.state.next == ("ask",) and task.state.values == {"log": ["x"]}
    shallow = app.get_state(CONFIG).tasks[0].state
    assert shallow["configurable"]["checkpoint_ns"] == f"sub:{task.id}"


def test_the_debugger_shows_the_subgraph_run_and_its_thread():
    session = DebugSession(_app(True), {"log": []}, CONFIG)
    view = session.step_view()  # the input step
    assert view.tables["subgraphs"].empty
    for _ in range(2):  # step 0 (START), step 1 (node runs the subgraph)
        view = session.step_view()
    row = view.tables["subgraphs"].iloc[0]
    assert (row["node"], row["kept"], row["saved_in"], row["status"]) == (
        "node",
        "own thread",
        "node",
        "done",
    )
    page = html.unescape(session.to_html())
    assert "own thread" in page
