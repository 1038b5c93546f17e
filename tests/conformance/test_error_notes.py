"""Errors raised inside a run keep their class and, like LangGraph's, carry a note naming
the task they were raised in ("During task with name 'X' and id '…'") — issue 17, item 4.
"""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph


class State(TypedDict, total=False):
    n: int
    log: Annotated[list, operator.add]


def _boom(state):
    raise KeyError("boom")


def node_raises(lib: Lib):
    graph = lib.StateGraph(State)
    graph.add_node("ok", lambda state: {"n": 1})
    graph.add_node("bad", _boom)
    graph.add_edge(lib.START, "ok")
    graph.add_edge("ok", "bad")
    return graph.compile(), {"n": 0}


def router_raises(lib: Lib):
    def route(state):
        raise ValueError("no route")

    graph = lib.StateGraph(State)
    graph.add_node("a", lambda state: {"n": 1})
    graph.add_node("b", lambda state: {"n": 2})
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges("a", route)
    return graph.compile(), {"n": 0}


def goto_not_a_name(lib: Lib):
    graph = lib.StateGraph(State)
    graph.add_node("jump", lambda state: lib.Command(goto=5))
    graph.add_edge(lib.START, "jump")
    return graph.compile(), {"n": 0}


def input_not_a_dict(lib: Lib):
    graph = lib.StateGraph(State)
    graph.add_node("a", lambda state: {"n": 1})
    graph.add_edge(lib.START, "a")
    return graph.compile(), 5


def _refuse(total, value):
    raise ZeroDivisionError("refused")


class Picky(TypedDict):
    total: Annotated[int, _refuse]


def reducer_raises(lib: Lib):
    graph = lib.StateGraph(Picky)
    graph.add_node("a", lambda state: {"total": 2})
    graph.add_edge(lib.START, "a")
    return graph.compile(), {"total": 1}


# (build, the task LangGraph's note names, or None where LangGraph adds no task note)
CASES = {
    "node-raises": (node_raises, "bad"),
    "router-raises": (router_raises, "a"),
    "goto-not-a-name": (goto_not_a_name, "jump"),
    "input-not-a-dict": (input_not_a_dict, "__start__"),
    "reducer-raises": (reducer_raises, None),
}


def _raise(lib: Lib, build) -> BaseException:
    app, given = build(lib)
    with pytest.raises(Exception) as raised:
        app.invoke(given)
    return raised.value


def _task_notes(error: BaseException) -> list[str]:
    return [
        note.split(" and id ")[0]
        for note in getattr(error, "__notes__", ())
        if note.startswith("During task with name ")
    ]


@pytest.mark.parametrize("name", CASES)
def test_error_class_and_task_note_match_langgraph(name: str) -> None:
    build, task = CASES[name]
    expected, actual = _raise(load_langgraph(), build), _raise(load_graphkit(), build)
    assert type(actual).__name__ == type(expected).__name__
    assert _task_notes(expected) == ([f"During task with name {task!r}"] if task else [])
    assert _task_notes(actual) == _task_notes(expected)
