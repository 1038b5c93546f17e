"""``stream_mode`` values at the edges, against LangGraph: an empty list streams nothing
(and ``invoke`` returns no chunks); an unknown mode is refused by graphkit with the modes
it knows, where LangGraph streams nothing for it (docs/compatibility.md). And when the
``updates`` of a step's only task are streamed: after its Update, as the message ids
``add_messages`` gives show."""

from __future__ import annotations

from typing import Annotated, TypedDict

import pytest
from langchain_core.messages import AIMessage
from langgraph.graph.message import add_messages as langgraph_add_messages

from graphkit.graph.message import add_messages as graphkit_add_messages

from .harness import Lib, load_graphkit, load_langgraph


class State(TypedDict):
    x: int


def _app(lib: Lib):
    graph = lib.StateGraph(State).add_node("a", lambda state: {"x": state["x"] + 1})
    return graph.add_edge(lib.START, "a").compile()


def test_an_empty_list_of_modes_streams_nothing_as_in_langgraph():
    def seen(lib: Lib) -> tuple:
        app = _app(lib)
        return list(app.stream({"x": 0}, stream_mode=[])), app.invoke({"x": 0}, stream_mode=[])

    assert seen(load_graphkit()) == seen(load_langgraph()) == ([], [])


@pytest.mark.parametrize("mode", ["bogus", ["values", "bogus"]], ids=["alone", "in-a-list"])
def test_an_unknown_mode_is_refused_where_langgraph_streams_nothing_for_it(mode):
    theirs = list(_app(load_langgraph()).stream({"x": 0}, stream_mode=mode))
    assert all(chunk[0] != "bogus" for chunk in theirs if isinstance(chunk, tuple))
    with pytest.raises(ValueError, match="Unknown stream_mode 'bogus'"):
        list(_app(load_graphkit()).stream({"x": 0}, stream_mode=mode))


class ChatLangGraph(TypedDict):
    messages: Annotated[list, langgraph_add_messages]


class ChatGraphkit(TypedDict):
    messages: Annotated[list, graphkit_add_messages]


def _message_ids_streamed(lib: Lib) -> list[tuple[str, list[bool]]]:
    """Which messages of each ``updates`` chunk carry an id: nodes return messages
    without one, and ``add_messages`` gives them ids when the step's writes apply."""

    def says(text: str):
        return lambda state: {"messages": [AIMessage(content=text)]}

    chat = ChatLangGraph if lib.name == "langgraph" else ChatGraphkit
    graph = lib.StateGraph(chat).add_node("a", says("a")).add_node("b", says("b"))
    graph.add_node("c", says("c")).add_edge(lib.START, "a").add_edge("a", "b").add_edge("a", "c")
    chunks = graph.compile().stream({"messages": []}, stream_mode="updates")
    return [
        (node, [message.id is not None for message in update["messages"]])
        for chunk in chunks
        for node, update in chunk.items()
    ]


def test_a_lone_tasks_streamed_messages_carry_their_ids():
    # a step's only task is streamed after its Update, once add_messages gave the
    # messages ids; the tasks of a step of several are streamed as they finish, before
    expected = _message_ids_streamed(load_langgraph())
    assert expected == [("a", [True]), ("b", [False]), ("c", [False])]
    assert _message_ids_streamed(load_graphkit()) == expected
