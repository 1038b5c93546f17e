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
