"""What an imported LangGraph thread says where LangGraph saved less than graphkit
records: each test runs the graph on LangGraph, reads the thread with
``open_langgraph_thread`` and compares it with graphkit's own run of the same graph
(``from_langgraph``), or with what LangGraph did."""

from __future__ import annotations

import warnings
from typing import TypedDict

import pytest

from graphkit import from_langgraph, open_langgraph_thread

pytest.importorskip("langgraph")

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph


class Order(TypedDict):
    question: str
    answer: str


def _order_bot() -> object:
    builder = StateGraph(Order)
    builder.add_node("bot", lambda state: {"answer": f"re: {state['question']}"})
    builder.add_edge(START, "bot").add_edge("bot", END)
    return builder.compile(checkpointer=InMemorySaver())


def test_an_input_key_the_state_lacks_is_said_dropped_as_in_graphkits_run():
    # an agent's tool read InjectedState("user_id"), given in the input: the state has
    # no user_id, so __start__ dropped it, and the tool raised KeyError
    app, config = _order_bot(), {"configurable": {"thread_id": "1"}}
    given = {"question": "where is my order?", "user_id": "u-42"}
    app.invoke(given, config)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (graphkit warns of the key it drops)
        own = from_langgraph(app).trace(given, {"configurable": {"thread_id": "1"}})
    imported = open_langgraph_thread(app, config)
    line = "wrote question, branch:to:bot; dropped user_id: not a key of the graph's state"
    assert line in own.timeline(width=None)
    assert line in imported.timeline(width=None)
    assert "dropped user_id" in imported.step(0)._repr_html_()


KILLED = """
import os, sqlite3, sys
from typing import TypedDict
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, StateGraph

class Rows(TypedDict):
    raw: str
    rows: list

def enrich(state):
    os._exit(137)  # the worker is killed while enrich runs

builder = StateGraph(Rows).add_node("fetch", lambda state: {"raw": "a,1"})
builder.add_node("enrich", enrich).add_edge(START, "fetch").add_edge("fetch", "enrich")
saver = SqliteSaver(sqlite3.connect(sys.argv[1], check_same_thread=False))
app = builder.compile(checkpointer=saver)
app.invoke({"raw": ""}, {"configurable": {"thread_id": "ingest"}}, durability=sys.argv[2])
"""


def _killed_thread(path, durability: str):
    import sqlite3
    import subprocess
    import sys

    from langgraph.checkpoint.sqlite import SqliteSaver

    done = subprocess.run(
        [sys.executable, "-c", KILLED, str(path), durability], capture_output=True, timeout=120
    )
    assert done.returncode == 137, done.stderr[-2000:]
    builder = StateGraph(dict).add_node("fetch", lambda state: {}).add_edge(START, "fetch")
    saver = SqliteSaver(sqlite3.connect(str(path), check_same_thread=False))
    return builder.compile(checkpointer=saver), {"configurable": {"thread_id": "ingest"}}


def test_a_thread_killed_mid_run_with_durability_exit_says_why_it_has_no_checkpoint(tmp_path):
    from langgraph.errors import EmptyInputError

    app, config = _killed_thread(tmp_path / "exit.sqlite", "exit")
    with pytest.raises(EmptyInputError):  # what the author saw, resuming it in LangGraph
        app.invoke(None, config)
    with pytest.raises(ValueError, match="no checkpoints") as raised:
        open_langgraph_thread(app, config)
    assert (
        "A run with durability='exit' saves its checkpoint only when it ends, so one whose "
        "process was killed mid-run saved nothing (invoke(None, config) then raises "
        "EmptyInputError): run it again with its input, and with durability='sync' to keep "
        "every step."
    ) in str(raised.value)
