"""Which messages ``run.messages`` of a v3 run holds, compared with LangGraph's: a
message a node returns whole (of any kind but a tool's answer), and not the chunk a
chat model's ``stream()`` leaves on the old path."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

import pytest
from langchain_core import messages as lc
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.runnables import RunnableConfig

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


# -- a graph streamed inside a node of a v3 run -------------------------------------------

Asked = TypedDict("Asked", {"parts": list, "kinds": list}, total=False)  # noqa: UP013


def streamed_inside(lib: Any, how: str, **stream: Any) -> Any:
    """A node of an outer graph streams an inner one (whose node calls a chat model) with
    ``stream`` options, keeping what each part holds."""
    model = GenericFakeChatModel(messages=iter(["x y"]))
    inner = one_node(lib, lambda state: {"messages": [model.invoke(state["messages"])]})

    def kind(part: Any) -> Any:
        data = part["data"] if isinstance(part, dict) and "data" in part else part
        payload = data[0] if isinstance(data, tuple) else data
        if isinstance(payload, dict):
            return payload.get("event", sorted(payload))
        return type(payload).__name__, getattr(payload, "content", None)

    def sync(state: Any, config: RunnableConfig) -> dict:
        return {"kinds": [kind(p) for p in inner.stream({"messages": "hi"}, config, **stream)]}

    async def asynchronous(state: Any, config: RunnableConfig) -> dict:
        parts = inner.astream({"messages": "hi"}, config, **stream)
        return {"kinds": [kind(p) async for p in parts]}

    node = sync if how == "sync" else asynchronous
    return lib.StateGraph(Asked).add_node("outer", node).add_edge(lib.START, "outer").compile()


@pytest.mark.parametrize("how", ["sync", "async"])
@pytest.mark.parametrize(
    "stream",
    [
        {"stream_mode": "messages"},
        {"stream_mode": ["messages", "values"]},
        {"stream_mode": "values"},
        {"stream_mode": "messages", "version": "v2"},
    ],
    ids=str,
)
def test_a_graph_streamed_inside_a_node(stream, how):
    """A ``stream(stream_mode="messages")`` (v1) inside a v3 run gets tokens, and the v3
    run none of its messages; other streams there share the v3 run's content events."""

    def program(lib):
        def sync(run: Any) -> Any:
            return lines(list(run)), run.output

        async def asynchronous(run: Any) -> Any:
            return lines([event async for event in run]), await run.output()

        app = streamed_inside(lib, how, **stream)
        return run_v3(app, {}, how, sync if how == "sync" else asynchronous, config=None)

    assert_same(program)
