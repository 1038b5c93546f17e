"""Injected tool arguments: hidden from the model, filled in by the graph, never echoed."""

from typing import Annotated, Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import InjectedToolCallId, tool

from graphkit import START, StateGraph
from graphkit.prebuilt import (
    InjectedState,
    InjectedStore,
    MessagesState,
    ToolNode,
    ToolRuntime,
)
from graphkit.prebuilt.tool_args import injected_args

SECRET = "s3cr3t-state"


@tool
def everything(
    query: str,
    state: Annotated[dict, InjectedState],
    user: Annotated[str, InjectedState("user")],
    store: Annotated[Any, InjectedStore()],
    call_id: Annotated[str, InjectedToolCallId],
    runtime: ToolRuntime,
) -> str:
    """Use every injected argument."""
    return f"{query}|{user}|{store['motto']}|{call_id}|{runtime.context}|{sorted(state)}"


class State(MessagesState):
    user: str


def asking(*calls: dict[str, Any], **state: Any) -> dict[str, Any]:
    return {"messages": [HumanMessage("hi"), AIMessage("", tool_calls=list(calls))], **state}


def test_injected_arguments_are_hidden_from_the_model() -> None:
    schema = everything.tool_call_schema.model_json_schema()
    assert list(schema["properties"]) == ["query"]
    found = injected_args(everything)
    assert found.state == {"state": None, "user": "user"}
    assert (found.store, found.runtime) == ("store", "runtime")
    assert found.hidden == {"state", "user", "store", "call_id", "runtime"}


def test_langgraph_annotations_are_recognised() -> None:
    from langgraph.prebuilt import InjectedState as LangGraphState
    from langgraph.prebuilt import InjectedStore as LangGraphStore

    @tool
    def legacy(
        x: int,
        messages: Annotated[list, LangGraphState("messages")],
        store: Annotated[Any, LangGraphStore()],
    ) -> int:
        """Written for LangGraph."""
        return x

    found = injected_args(legacy)
    assert (found.state, found.store) == ({"messages": "messages"}, "store")


def test_a_graph_fills_them_in() -> None:
    builder = StateGraph(State)
    builder.add_node("tools", ToolNode([everything]))
    builder.add_edge(START, "tools")
    app = builder.compile(store={"motto": "be kind"})
    model_args = {"query": "q", "user": "forged by the model", "state": {}}
    request = asking({"name": "everything", "args": model_args, "id": "c1"}, user="ada")
    result = app.invoke(request, context="ctx")
    assert result["messages"][-1].content == "q|ada|be kind|c1|ctx|['messages', 'user']"


def test_no_store_is_a_clear_error() -> None:
    node = ToolNode([everything])
    with pytest.raises(ValueError, match="compile it with a store"):
        node.invoke(asking({"name": "everything", "args": {"query": "q"}, "id": "c1"}, user="a"))


def test_a_missing_state_key_is_an_error_unless_optional() -> None:
    @tool
    def reads(x: int, note: Annotated[str | None, InjectedState("note")] = None) -> str:
        """Read an optional key."""
        return f"{x} {note}"

    @tool
    def needs(x: int, note: Annotated[str, InjectedState("note")]) -> str:
        """Read a key."""
        return note

    assert (
        ToolNode([reads])
        .invoke(asking({"name": "reads", "args": {"x": 1}, "id": "c"}))["messages"][0]
        .content
        == "1 None"
    )
    with pytest.raises(KeyError, match="note"):
        ToolNode([needs]).invoke(asking({"name": "needs", "args": {"x": 1}, "id": "c"}))


def test_state_keys_from_a_list_of_messages_need_a_dict() -> None:
    @tool
    def reads_user(x: int, user: Annotated[str, InjectedState("user")]) -> str:
        """Needs the user key."""
        return user

    messages = asking({"name": "reads_user", "args": {"x": 1}, "id": "c"})["messages"]
    with pytest.raises(ValueError, match=r"reads state keys \['user'\]"):
        ToolNode([reads_user]).invoke(messages)


def test_error_messages_never_echo_injected_values() -> None:
    @tool
    def lookup(count: int, state: Annotated[dict, InjectedState]) -> str:
        """Needs an int."""
        return "unreachable"

    model_args = {"count": "many", "state": {"leak": SECRET}}
    request = asking({"name": "lookup", "args": model_args, "id": "c1"}, user=SECRET)
    (message,) = ToolNode([lookup]).invoke(request)["messages"]
    assert message.status == "error"
    assert "count" in message.content and "'many'" in message.content
    assert SECRET not in message.content and "state" not in message.content
