"""A node's ``config`` parameter, typed: LangGraph passes the run's config only to one
typed ``RunnableConfig`` (or ``Optional`` of it) or not typed, and a ``config: dict`` node
fails there with TypeError. graphkit passes it, and warns at ``add_node`` that the node
would fail on LangGraph (found writing lesson 15, whose first draft typed it ``dict``).

(No ``from __future__ import annotations`` here: the annotations are the types themselves,
as in most users' code; string annotations are the second case.)"""

import warnings
from typing import Optional, TypedDict

import pytest
from langchain_core.runnables import RunnableConfig

from graphkit import START, StateGraph
from graphkit.errors import GraphkitWarning


class State(TypedDict, total=False):
    thread: str


def as_dict(state: State, config: dict) -> dict:
    return {"thread": config["configurable"]["thread_id"]}


def as_runnable_config(state: State, config: RunnableConfig) -> dict:
    return {"thread": config["configurable"]["thread_id"]}


def as_optional(state: State, config: Optional[RunnableConfig]) -> dict:  # noqa: UP045
    return {"thread": config["configurable"]["thread_id"]}


def as_union(state: State, config: RunnableConfig | None) -> dict:
    return {"thread": config["configurable"]["thread_id"]}


def as_string(state: State, config: "RunnableConfig") -> dict:
    return {"thread": config["configurable"]["thread_id"]}


def untyped(state, config):
    return {"thread": config["configurable"]["thread_id"]}


def run(graph_class, start, node):
    """Build START → node with ``graph_class`` and invoke it: what it returned (or the
    error's class) and the warnings ``add_node`` gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        builder = graph_class(State)
        builder.add_node("respond", node)
    builder.add_edge(start, "respond")
    try:
        got = builder.compile().invoke({}, {"configurable": {"thread_id": "ada"}})
    except TypeError:
        got = TypeError
    return got, [str(w.message) for w in caught]


TYPED_AS_LANGGRAPH_TAKES = [as_runnable_config, as_optional, as_union, as_string, untyped]


@pytest.mark.parametrize("node", TYPED_AS_LANGGRAPH_TAKES, ids=lambda f: f.__name__)
def test_a_config_typed_as_langgraph_takes_it_is_passed_on_both(node):
    langgraph = pytest.importorskip("langgraph.graph")
    theirs, their_warnings = run(langgraph.StateGraph, langgraph.START, node)
    ours, our_warnings = run(StateGraph, START, node)
    assert ours == theirs == {"thread": "ada"}
    assert our_warnings == their_warnings == []


def test_a_config_typed_dict_fails_on_langgraph_and_graphkit_warns_so():
    langgraph = pytest.importorskip("langgraph.graph")
    theirs, their_warnings = run(langgraph.StateGraph, langgraph.START, as_dict)
    assert theirs is TypeError  # LangGraph passed nothing: a missing argument
    assert any("should be typed as 'RunnableConfig'" in said for said in their_warnings)
    ours, our_warnings = run(StateGraph, START, as_dict)
    assert ours == {"thread": "ada"}  # graphkit passes it (docs/compatibility.md)
    [said] = our_warnings
    assert "Node 'respond': its `config` parameter is typed dict" in said
    assert "would be called without it and fail with TypeError" in said
    assert "config: RunnableConfig" in said


def test_graphkits_own_nodes_do_not_warn():
    """The prebuilt agent's nodes type their config ``Any``: graphkit's own, not the
    user's."""
    from graphkit.prebuilt import ScriptedChatModel, create_react_agent

    with warnings.catch_warnings():
        warnings.simplefilter("error", GraphkitWarning)
        create_react_agent(ScriptedChatModel(responses=["hi"]), [])
