"""add_messages and MessagesState: the same merges as LangGraph's, on generated inputs."""

import copy
import operator
import uuid
from typing import Annotated, Any, TypedDict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langgraph.graph.message import add_messages as langgraph_add_messages

from graphkit import START, StateGraph
from graphkit.prebuilt import REMOVE_ALL_MESSAGES, MessagesState, RemoveMessage, add_messages

POOL = ["1", "2", "3"]
ids = st.one_of(st.none(), st.sampled_from(POOL))
texts = st.sampled_from(["hi", "hello", "", "ok"])
roles = st.sampled_from(["user", "human", "ai", "assistant", "system"])

kinds = st.sampled_from([HumanMessage, AIMessage, SystemMessage, AIMessageChunk])
messages = st.one_of(
    st.builds(lambda kind, text, i: kind(content=text, id=i), kinds, texts, ids),
    st.builds(lambda text, i: ToolMessage(text, id=i, tool_call_id="call-1"), texts, ids),
    st.builds(lambda i: RemoveMessage(id=i), st.sampled_from([*POOL, REMOVE_ALL_MESSAGES])),
    texts,
    st.tuples(roles, texts),
    st.builds(lambda role, text, i: {"role": role, "content": text, "id": i}, roles, texts, ids),
)
updates = st.one_of(messages, st.lists(messages, max_size=6))


def normalised(value: Any, generated: dict[str, str]) -> Any:
    """Messages as plain data; ids the reducer made up become "new-1", "new-2", ..."""
    if isinstance(value, list):
        return [normalised(item, generated) for item in value]
    if not hasattr(value, "model_dump"):
        return value
    fields = value.model_dump()
    if fields.get("id") not in (None, *POOL, REMOVE_ALL_MESSAGES):
        uuid.UUID(fields["id"], version=4)  # a uuid4 string, as LangGraph makes
        fields["id"] = generated.setdefault(fields["id"], f"new-{len(generated) + 1}")
    return (type(value).__name__, fields)


def outcome(reducer: Any, left: Any, right: Any, **options: Any) -> Any:
    """The merged list (or the error class) and the inputs afterwards: the reducer
    writes the ids it makes up into the given messages, so those must agree too."""
    generated: dict[str, str] = {}
    try:
        merged = reducer(left, right, **options)
    except Exception as error:
        return type(error).__name__
    return normalised(merged, generated), normalised([left, right], generated)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(left=updates, right=updates, openai=st.booleans())
def test_add_messages_matches_langgraph(left: Any, right: Any, openai: bool) -> None:
    options = {"format": "langchain-openai"} if openai else {}
    ours = outcome(add_messages, copy.deepcopy(left), copy.deepcopy(right), **options)
    theirs = outcome(langgraph_add_messages, copy.deepcopy(left), copy.deepcopy(right), **options)
    assert ours == theirs


def test_known_id_replaces_new_id_appends() -> None:
    history = [HumanMessage("a", id="1"), AIMessage("b", id="2")]
    merged = add_messages(history, [AIMessage("B", id="2"), HumanMessage("c", id="3")])
    assert [(m.content, m.id) for m in merged] == [("a", "1"), ("B", "2"), ("c", "3")]
    assert [m.content for m in history] == ["a", "b"]  # the old list is not changed


def test_ids_are_written_into_the_messages() -> None:
    message = HumanMessage("hi")
    (merged,) = add_messages([], message)
    assert merged is message and uuid.UUID(message.id).version == 4


def test_remove_message_and_remove_all() -> None:
    history = add_messages([], [("user", "a"), ("ai", "b")])
    assert [m.content for m in add_messages(history, RemoveMessage(id=history[0].id))] == ["b"]
    cleared = add_messages(history, [RemoveMessage(id=REMOVE_ALL_MESSAGES), ("user", "c")])
    assert [m.content for m in cleared] == ["c"]


def test_removing_an_unknown_id_says_which() -> None:
    with pytest.raises(ValueError, match="'nope'"):
        add_messages([HumanMessage("a", id="1")], [RemoveMessage(id="nope")])


def test_one_sided_call_is_an_error_and_format_makes_a_reducer() -> None:
    with pytest.raises(ValueError, match="Only received: 'left'"):
        add_messages([HumanMessage("a")], None)
    reducer = add_messages(format="langchain-openai")
    (merged,) = reducer([], [{"role": "user", "content": "hi"}])
    assert merged.type == "human"
    with pytest.raises(ValueError, match="format='langchain-openai'"):
        add_messages([], ["x"], format="yaml")


def test_messages_state_in_a_graph_with_a_subclass() -> None:
    class State(MessagesState):
        turns: Annotated[int, operator.add]

    builder = StateGraph(State)
    builder.add_node("bot", lambda state: {"messages": ("ai", "hello"), "turns": 1})
    builder.add_edge(START, "bot")
    result = builder.compile().invoke({"messages": "hi", "turns": 0})
    assert [(m.type, m.content) for m in result["messages"]] == [("human", "hi"), ("ai", "hello")]
    assert result["turns"] == 1


def test_as_a_plain_reducer_annotation() -> None:
    class State(TypedDict):
        history: Annotated[list, add_messages]

    builder = StateGraph(State)
    builder.add_node("a", lambda state: {"history": [AIMessage("x", id="m")]})
    builder.add_node("b", lambda state: {"history": [AIMessage("y", id="m")]})
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    assert [m.content for m in builder.compile().invoke({"history": []})["history"]] == ["y"]
