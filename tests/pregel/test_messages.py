"""stream_mode="messages": a chat model's tokens while the node still runs, then the
messages nodes return that no model streamed (langchain-core's fake models, offline)."""

from __future__ import annotations

import threading
from typing import Annotated, TypedDict

from langchain_core.language_models.fake_chat_models import (
    FakeChatModel,
    GenericFakeChatModel,
)
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage

from graphkit import START, StateGraph


def add(left: list, right: list) -> list:
    return [*left, *right]


class State(TypedDict):
    messages: Annotated[list[AnyMessage], add]


def chat_graph(model, **node_options):
    def agent(state):
        return {"messages": [model.invoke(state["messages"])]}

    builder = StateGraph(State).add_node("agent", agent, **node_options)
    return builder.add_edge(START, "agent").compile()


def streaming_model(text: str) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([AIMessage(content=text, id="ai-1")]))


def test_tokens_arrive_as_chunks_with_the_task_metadata():
    app = chat_graph(streaming_model("hello big world"))
    chunks = list(app.stream({"messages": [HumanMessage("hi", id="h1")]}, stream_mode="messages"))
    text = "".join(message.content for message, _ in chunks)
    assert text == "hello big world" and len(chunks) > 1
    metadata = chunks[0][1]
    assert (metadata["langgraph_node"], metadata["langgraph_step"]) == ("agent", 1)
    assert all(type(message).__name__ == "AIMessageChunk" for message, _ in chunks)


def test_a_model_that_does_not_stream_gives_its_whole_message_once():
    app = chat_graph(FakeChatModel())  # has no token stream
    chunks = list(app.stream({"messages": [HumanMessage("hi", id="h1")]}, stream_mode="messages"))
    assert [(type(m).__name__, m.content) for m, _ in chunks] == [("AIMessage", "fake response")]
    assert chunks[0][1]["checkpoint_ns"] == chunks[0][1]["langgraph_checkpoint_ns"]


def test_messages_a_node_returns_without_a_model_are_streamed_when_it_ends():
    def tool(state):
        return {"messages": [ToolMessage("42", tool_call_id="c1", id="t1")]}

    builder = StateGraph(State).add_node("tool", tool).add_edge(START, "tool")
    chunks = list(
        builder.compile().stream(
            {"messages": [HumanMessage("hi", id="h1")]}, stream_mode="messages"
        )
    )
    assert [(m.content, meta["langgraph_node"]) for m, meta in chunks] == [("42", "tool")]
    assert chunks[0][1]["ls_integration"] == "langgraph"


def test_tokens_are_delivered_while_the_task_is_still_running():
    release = threading.Event()
    model = streaming_model("one two")

    def agent(state):
        message = model.invoke(state["messages"])
        assert release.wait(timeout=10), "the first token was not delivered while running"
        return {"messages": [message]}

    builder = StateGraph(State).add_node("agent", agent).add_edge(START, "agent")
    stream = builder.compile().stream(
        {"messages": [HumanMessage("hi", id="h1")]}, stream_mode="messages"
    )
    first_message, _ = next(stream)  # the node is still blocked on `release`
    assert first_message.content
    release.set()
    assert "".join(m.content for m, _ in [(first_message, None), *stream]) == "one two"


def test_updates_and_messages_together():
    app = chat_graph(streaming_model("ok"))
    modes = [mode for mode, _ in app.stream({"messages": []}, stream_mode=["messages", "updates"])]
    assert modes[-1] == "updates" and set(modes[:-1]) == {"messages"}


def test_a_bound_model_given_the_task_config_streams_each_token_once():
    # bind_tools returns a RunnableBinding, which merges the config it is given with
    # langchain's current one; the handler must still be there only once.
    from graphkit.prebuilt.fake import ScriptedChatModel

    bound = ScriptedChatModel(responses=["a b"]).bind_tools([])

    def node(state, config):
        return {"messages": [bound.invoke(state["messages"], config)]}

    app = StateGraph(State).add_node("node", node).add_edge(START, "node").compile()
    chunks = app.stream({"messages": [HumanMessage("hi", id="h1")]}, stream_mode="messages")
    assert [message.content for message, _ in chunks] == ["a", " ", "b"]
