"""Which messages ``run.messages`` of a v3 run holds, compared with LangGraph's: a
message a node returns whole (of any kind but a tool's answer), and not the chunk a
chat model's ``stream()`` leaves on the old path."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

import pytest
from langchain_core import messages as lc
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

from .stream_v3_programs import Ids, chat_stream, lines, run_v3
from .test_parity_stream_v3 import assert_same

pytestmark = pytest.mark.filterwarnings("ignore:The v3 streaming protocol")


def one_node(lib: Any, node: Any) -> Any:
    Chat = TypedDict("Chat", {"messages": Annotated[list[lc.AnyMessage], lib.add_messages]})  # noqa: UP013
    builder = lib.StateGraph(Chat).add_node("node", node).add_edge(lib.START, "node")
    return builder.compile()


def streams(run: Any) -> list[Any]:
    return [chat_stream(stream, Ids()) for stream in run.messages]


RETURNED = {
    "ai": lambda: lc.AIMessage("answer", id="m1"),
    "human": lambda: lc.HumanMessage("question", id="m1"),
    "system": lambda: lc.SystemMessage("rules", id="m1"),
    "chat": lambda: lc.ChatMessage(content="note", role="critic", id="m1"),
    "a chunk": lambda: lc.AIMessageChunk(content="part", id="m1"),
    "tool": lambda: lc.ToolMessage("[]", tool_call_id="c1", id="m1"),
}


@pytest.mark.parametrize("kind", RETURNED)
def test_a_message_a_node_returns(kind):
    def program(lib):
        app = one_node(lib, lambda state: {"messages": [RETURNED[kind]()]})
        return run_v3(app, {"messages": []}, "sync", streams, config=None)

    seen = assert_same(program)
    assert len(seen) == (0 if kind in ("a chunk", "tool") else 1)


def test_a_chat_model_streamed_in_a_node():
    """``model.stream()`` in a node of a v3 run: its message is no ``run.messages`` item
    (the message the node then returns is)."""

    def program(lib):
        model = GenericFakeChatModel(messages=iter(["a b c"]))

        def node(state: Any) -> dict:
            text = "".join(chunk.content for chunk in model.stream(state["messages"]))
            return {"messages": [lc.AIMessage(text, id="m1")]}

        return run_v3(one_node(lib, node), {"messages": []}, "sync", streams, config=None)

    assert [stream[2] for stream in assert_same(program)] == ["m1"]


def test_the_events_of_a_returned_human_message():
    def program(lib):
        app = one_node(lib, lambda state: {"messages": [lc.HumanMessage("hm", id="m1")]})

        def read(run: Any) -> Any:
            (stream,) = list(run.messages)
            return list(stream), stream.output.text

        return run_v3(app, {"messages": []}, "sync", read, config=None), lines(
            list(app.stream_events({"messages": []}, version="v3"))
        )

    assert_same(program)
