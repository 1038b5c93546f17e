"""A state restored from a saved checkpoint, and a snapshot of one, are the reader's own:
changing them (as the runtime changes a restored state, and beyond) leaves the saved
thread as it was. ``StepState.restored`` and the history read copy as little as that
takes, so this checks that what they share is not the saver's."""

from __future__ import annotations

import operator
import sqlite3
from typing import Annotated, TypedDict

import langgraph.checkpoint.memory
import langgraph.graph
import pytest

from graphkit import END, START, InMemorySaver, SqliteSaver, StateGraph
from graphkit.pregel import phases

THREAD = {"configurable": {"thread_id": "t"}}


class State(TypedDict):
    n: int
    log: Annotated[list, operator.add]


def looping(builder_class, saver):
    builder = builder_class(State)
    builder.add_node("f", lambda state: {"n": state["n"] + 1, "log": [state["n"]]})
    builder.add_edge(START, "f")
    builder.add_conditional_edges("f", lambda state: "f" if state["n"] < 40 else END)
    app = builder.compile(checkpointer=saver)
    app.invoke({"n": 0, "log": []}, THREAD)
    return app


def saved(saver):
    """Everything the saver holds for the thread, as plain data."""
    return [
        (
            dict(t.checkpoint.channel_values),
            dict(t.checkpoint.channel_versions),
            {node: dict(seen) for node, seen in t.checkpoint.versions_seen.items()},
        )
        for t in saver.list(THREAD)
    ]


@pytest.fixture(params=["memory", "sqlite"])
def saver(request):
    if request.param == "memory":
        return InMemorySaver()
    return SqliteSaver(sqlite3.connect(":memory:", check_same_thread=False))


def test_changing_a_restored_state_leaves_the_saved_thread_as_it_was(saver):
    app = looping(StateGraph, saver)
    before = saved(saver)
    for read in saver.list(THREAD):
        state = phases.StepState.restored(app.spec, read.checkpoint)
        state.versions["log"] = 10_000
        state.versions_seen.pop("f", None)
        for seen in state.versions_seen.values():  # (the runtime replaces these, never edits)
            seen["log"] = 10_000
        state.pass_breakpoints()
        state.channels["log"].get().append("changed")
        plan = phases.plan(app.spec, state)
        phases.update(app.spec, state, [])
        assert plan is not None
    assert saved(saver) == before


@pytest.mark.parametrize("library", ["graphkit", "langgraph"])
def test_a_history_snapshots_values_are_the_callers_to_change(library):
    if library == "graphkit":
        app = looping(StateGraph, InMemorySaver())
    else:
        app = looping(langgraph.graph.StateGraph, langgraph.checkpoint.memory.InMemorySaver())
    first = [snapshot.values for snapshot in app.get_state_history(THREAD)]
    for values in first:
        values.get("log", []).append("changed")
        values["n"] = -1
    again = [snapshot.values for snapshot in app.get_state_history(THREAD)]
    assert again[0] == {"n": 40, "log": list(range(40))}
    assert all("changed" not in values.get("log", []) for values in again)
    assert app.get_state(THREAD).values == again[0]
