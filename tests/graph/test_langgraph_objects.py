"""LangGraph's own objects in a graphkit program (a LangGraph import left as it was): each
works as LangGraph would where it is plain data, converted where it enters, or is refused
at once, naming the object, where it was used and graphkit's import. LangGraph 1.2 is the
oracle where it runs the same program."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from langgraph.types import Overwrite as LangGraphOverwrite

import graphkit
from graphkit import START, StateGraph
from graphkit.checkpoint import InMemorySaver

THREAD = {"configurable": {"thread_id": "t"}}


class Log(TypedDict):
    items: Annotated[list, operator.add]


def _reset(library: Any, overwrite: Any) -> Any:
    builder = library.StateGraph(Log)
    builder.add_node("reset", lambda state: {"items": overwrite([9])})
    builder.add_edge(library.START, "reset")
    return builder.compile().invoke({"items": [1]})


def test_langgraphs_overwrite_returned_by_a_node_replaces_as_on_langgraph() -> None:
    import langgraph.graph

    assert _reset(graphkit, LangGraphOverwrite) == {"items": [9]}
    assert _reset(langgraph.graph, LangGraphOverwrite) == {"items": [9]}


def test_langgraphs_overwrite_in_the_input_and_in_update_state() -> None:
    builder = StateGraph(Log).add_node("noop", lambda state: {}).add_edge(START, "noop")
    assert builder.compile().invoke({"items": LangGraphOverwrite([2])}) == {"items": [2]}
    app = builder.compile(checkpointer=InMemorySaver())
    app.invoke({"items": [1]}, THREAD)
    app.update_state(THREAD, {"items": LangGraphOverwrite([7])})
    assert app.get_state(THREAD).values == {"items": [7]}
