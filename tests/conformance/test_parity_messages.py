"""stream_mode="messages" sends each message once, as LangGraph does (issue 14, item 4).

LangGraph's StreamMessagesHandler remembers the ids of the messages it sent and of the
messages each task was given (the fields of its input that are a message or hold
messages), so a node that echoes its input or returns the whole state sends nothing
again, in a second run on the same thread too; one handler serves a run and its
subgraphs; a message without an id is given one. The same graphs run on both libraries.
"""

import asyncio
import contextlib
import dataclasses
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage

import graphkit

KNOWN_IDS = {"h0", "h1", "ai1", "in1", "one", "model-1"}


def _lib(side: str) -> Any:
    if side == "langgraph":
        from langgraph.graph import START, StateGraph
        from langgraph.graph.message import add_messages

        return StateGraph, START, add_messages
    return graphkit.StateGraph, graphkit.START, graphkit.add_messages


@contextlib.contextmanager
def _saver(side: str, kind: str, path: Path) -> Iterator[Any]:
    if kind == "memory":
        if side == "langgraph":
            from langgraph.checkpoint.memory import InMemorySaver

            yield InMemorySaver()
        else:
            yield graphkit.InMemorySaver()
        return
    connection = sqlite3.connect(path, check_same_thread=False)
    if side == "langgraph":
        from langgraph.checkpoint.sqlite import SqliteSaver

        yield SqliteSaver(connection)
    else:
        yield graphkit.SqliteSaver(connection)
    connection.close()


def _seen(chunk: Any, subgraphs: bool) -> tuple[Any, ...]:
    """A chunk as compared: namespace (node names only), kind, id, content, node."""
    namespace, (message, metadata) = chunk if subgraphs else ((), chunk)
    names = tuple(part.split(":")[0] for part in namespace)
    known = message.id if message.id in KNOWN_IDS else ("given" if message.id else None)
    node = metadata["langgraph_node"]
    return names, type(message).__name__, known, message.content, node


def _stream(app: Any, input: Any, config: Any, how: str, subgraphs: bool = False) -> list:
    kwargs = {"stream_mode": "messages", "subgraphs": subgraphs}
    if how == "stream":
        return [_seen(chunk, subgraphs) for chunk in app.stream(input, config, **kwargs)]

    async def collect() -> list:
        return [_seen(chunk, subgraphs) async for chunk in app.astream(input, config, **kwargs)]

    return asyncio.run(collect())


# -- a node echoes its input, the next returns the whole state; two runs, one thread --------


def _echo_graph(side: str, checkpointer: Any) -> Any:
    StateGraph, START, add_messages = _lib(side)

    class State(TypedDict):
        messages: Annotated[list[AnyMessage], add_messages]

    def n1(state):
        return {"messages": [state["messages"][-1], AIMessage("new", id="ai1")]}

    def n2(state):
        return {"messages": list(state["messages"])}

    builder = StateGraph(State)
    builder.add_node("n1", n1)
    builder.add_node("n2", n2)
    builder.add_edge(START, "n1")
    builder.add_edge("n1", "n2")
    return builder.compile(checkpointer=checkpointer)


def _two_runs(side: str, kind: str, how: str, path: Path) -> list:
    with _saver(side, kind, path) as saver:
        app = _echo_graph(side, saver)
        config = {"configurable": {"thread_id": "t"}}
        return [
            _stream(app, {"messages": [HumanMessage("hi", id=f"h{run}")]}, config, how)
            for run in range(2)
        ]


@pytest.mark.parametrize("how", ["stream", "astream"])
@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_input_and_state_messages_are_not_sent_again(kind, how, tmp_path):
    # (LangGraph's sync SqliteSaver has no async methods: its in-memory saver, then)
    lg_kind = "memory" if how == "astream" else kind
    lg = _two_runs("langgraph", lg_kind, how, tmp_path / "lg.sqlite")
    gk = _two_runs("graphkit", kind, how, tmp_path / "gk.sqlite")
    assert gk == lg
    assert [len(run) for run in gk] == [1, 0]  # only "ai1", and only in the first run


# -- a subgraph's messages, a message without id, a single message ------------------------


def _subgraph_graph(side: str) -> Any:
    StateGraph, START, add_messages = _lib(side)

    class State(TypedDict):
        messages: Annotated[list[AnyMessage], add_messages]

    inner = StateGraph(State)
    inner.add_node("inner", lambda state: {"messages": [AIMessage("from inner", id="in1")]})
    inner.add_edge(START, "inner")
    builder = StateGraph(State)
    builder.add_node("sub", inner.compile())
    builder.add_node("no_id", lambda state: {"messages": [AIMessage("no id")]})
    builder.add_node("single", lambda state: {"messages": AIMessage("single", id="one")})
    builder.add_edge(START, "sub")
    builder.add_edge("sub", "no_id")
    builder.add_edge("no_id", "single")
    return builder.compile()


@pytest.mark.parametrize("how", ["stream", "astream"])
@pytest.mark.parametrize("subgraphs", [False, True])
def test_subgraph_messages_and_messages_without_id(subgraphs, how):
    input = {"messages": [HumanMessage("hi", id="h0")]}
    lg = _stream(_subgraph_graph("langgraph"), input, None, how, subgraphs)
    gk = _stream(_subgraph_graph("graphkit"), input, None, how, subgraphs)
    assert gk == lg
    assert [chunk[2] for chunk in gk] == ["in1", "given", "one"]


def test_a_message_given_an_id_keeps_it_in_the_state():
    def same_id(side: str) -> bool:
        sent, final = {}, {}
        modes = ["messages", "values"]
        for mode, chunk in _subgraph_graph(side).stream({"messages": []}, stream_mode=modes):
            if mode == "messages":
                sent[chunk[1]["langgraph_node"]] = chunk[0].id
            else:
                final = {message.content: message.id for message in chunk["messages"]}
        return sent["no_id"] is not None and sent["no_id"] == final["no id"]

    assert same_id("graphkit") == same_id("langgraph") == True  # noqa: E712


# -- a chat model streams; the node returns its message, the next node the state ----------


def _model_graph(side: str) -> Any:
    StateGraph, START, add_messages = _lib(side)

    class State(TypedDict):
        messages: Annotated[list[AnyMessage], add_messages]

    model = GenericFakeChatModel(messages=iter([AIMessage("hello there", id="model-1")]))

    def call(state):
        return {"messages": [model.invoke(state["messages"])]}

    builder = StateGraph(State)
    builder.add_node("call", call)
    builder.add_node("echo", lambda state: {"messages": state["messages"]})
    builder.add_edge(START, "call")
    builder.add_edge("call", "echo")
    return builder.compile()


def test_streamed_model_message_is_not_sent_again():
    input = {"messages": [HumanMessage("hi", id="h0")]}
    lg = _stream(_model_graph("langgraph"), input, None, "stream")
    gk = _stream(_model_graph("graphkit"), input, None, "stream")
    assert gk == lg
    assert {chunk[4] for chunk in gk} == {"call"}  # "echo" sends nothing
    assert {chunk[1] for chunk in gk} == {"AIMessageChunk"}  # the final message is not sent


# -- the input is a dataclass: its message fields count as seen ---------------------------


def _dataclass_graph(side: str) -> Any:
    StateGraph, START, add_messages = _lib(side)

    @dataclasses.dataclass
    class State:
        messages: Annotated[list[AnyMessage], add_messages]
        last: Any = None

    def reply(state):
        return {"messages": [*state.messages, AIMessage("ok", id="ai1")], "last": state.last}

    builder = StateGraph(State)
    builder.add_node("reply", reply)
    builder.add_edge(START, "reply")
    return builder.compile()


def test_a_dataclass_input_counts_as_seen():
    input = {"messages": [HumanMessage("hi", id="h0")], "last": HumanMessage("x", id="h1")}
    lg = _stream(_dataclass_graph("langgraph"), input, None, "stream")
    gk = _stream(_dataclass_graph("graphkit"), input, None, "stream")
    assert gk == lg
    assert [chunk[2] for chunk in gk] == ["ai1"]  # "h0" and "h1" were given to the node


class _TwoAnswers(GenericFakeChatModel):
    """A chat model whose result has two generations (as with n=2)."""

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        from langchain_core.outputs import ChatGeneration, ChatResult

        answers = [AIMessage(content=text, id=f"two-{text}") for text in ("first", "second")]
        return ChatResult(generations=[ChatGeneration(message=m) for m in answers])


def test_only_the_first_generation_is_sent():
    def observe(library):
        StateGraph, START, add_messages = _lib(library)

        class State(TypedDict):
            messages: Annotated[list[AnyMessage], add_messages]

        model = _TwoAnswers(messages=iter([]))

        def call(state):
            return {"messages": [model.invoke(state["messages"])]}

        app = StateGraph(State).add_node("call", call).add_edge(START, "call").compile()
        chunks = app.stream({"messages": [HumanMessage("hi", id="h0")]}, stream_mode="messages")
        return [(message.id, message.content) for message, _ in chunks]

    expected = observe("langgraph")
    assert expected == [("two-first", "first")]
    assert observe("graphkit") == expected


# -- a model called inside a subgraph; tags; "nostream" -----------------------------------


def _model_in_subgraph(side: str, invoked_by_node: bool) -> Any:
    StateGraph, START, add_messages = _lib(side)

    class State(TypedDict):
        messages: Annotated[list[AnyMessage], add_messages]

    model = GenericFakeChatModel(messages=iter([AIMessage("hello world", id="model-1")]))
    inner = StateGraph(State)
    inner.add_node("call", lambda state: {"messages": [model.invoke(state["messages"])]})
    inner.add_edge(START, "call")
    sub = inner.compile()
    builder = StateGraph(State)
    builder.add_node("sub", (lambda state: sub.invoke(state)) if invoked_by_node else sub)
    builder.add_edge(START, "sub")
    return builder.compile()


@pytest.mark.parametrize("invoked_by_node", [False, True], ids=["node", "invoked"])
@pytest.mark.parametrize("how", ["stream", "astream"])
@pytest.mark.parametrize("subgraphs", [False, True])
def test_a_model_in_a_subgraph_is_streamed_once_and_only_when_subgraphs_are_asked(
    subgraphs, how, invoked_by_node
):
    """LangGraph streams its tokens once, under the subgraph's namespace, with
    subgraphs=True; without, only the message the subgraph's node returns."""
    input = {"messages": [HumanMessage("hi", id="h0")]}
    lg = _stream(_model_in_subgraph("langgraph", invoked_by_node), input, None, how, subgraphs)
    gk = _stream(_model_in_subgraph("graphkit", invoked_by_node), input, None, how, subgraphs)
    assert gk == lg
    if subgraphs:
        assert [(chunk[0], chunk[3], chunk[4]) for chunk in gk] == [
            (("sub",), "hello", "call"),
            (("sub",), " ", "call"),
            (("sub",), "world", "call"),
        ]
    else:
        assert [(chunk[3], chunk[4]) for chunk in gk] == [("hello world", "sub")]


def _tagged_call(side: str, tags: list[str]) -> Any:
    StateGraph, START, add_messages = _lib(side)

    class State(TypedDict):
        messages: Annotated[list[AnyMessage], add_messages]

    model = GenericFakeChatModel(messages=iter([AIMessage("secret text", id="model-1")]))
    builder = StateGraph(State)
    builder.add_node("call", lambda s: {"messages": [model.invoke(s["messages"], {"tags": tags})]})
    builder.add_edge(START, "call")
    return builder.compile()


@pytest.mark.parametrize("run_tags", [None, ["run-tag"]])
@pytest.mark.parametrize("tags", [["t1"], ["nostream"], ["langsmith:nostream"]])
def test_a_model_call_s_tags_are_in_the_metadata_and_nostream_is_not_streamed(tags, run_tags):
    def seen(side: str) -> list:
        config = {"tags": run_tags} if run_tags else None
        chunks = _tagged_call(side, tags).stream(
            {"messages": [HumanMessage("hi", id="h0")]}, config, stream_mode="messages"
        )
        return [(message.content, metadata.get("tags")) for message, metadata in chunks]

    ours = seen("graphkit")
    assert ours == seen("langgraph")
    if tags == ["nostream"]:  # not token by token: the node's message, when it returns
        assert [content for content, _ in ours] == ["secret text"]
    else:
        assert ours[0] == ("secret", [*(run_tags or ()), *tags])


def _model_with_its_own_metadata(side: str, in_subgraph: bool) -> Any:
    """A node calls a model with ``{"metadata": ...}`` of its own (the node's metadata,
    which the model's config would otherwise carry, is no longer in that config)."""
    StateGraph, START, add_messages = _lib(side)

    class State(TypedDict):
        messages: Annotated[list[AnyMessage], add_messages]

    model = GenericFakeChatModel(messages=iter([AIMessage("two words", id="model-1")]))

    def call(state: State) -> dict:
        return {"messages": [model.invoke(state["messages"], {"metadata": {"k": "v"}})]}

    builder = StateGraph(State).add_node("call", call).add_edge(START, "call")
    if in_subgraph:
        builder = StateGraph(State).add_node("sub", builder.compile()).add_edge(START, "sub")
    return builder.compile()


@pytest.mark.parametrize("subgraphs", [False, True])
@pytest.mark.parametrize("in_subgraph", [False, True], ids=["root", "subgraph"])
def test_a_model_given_its_own_metadata_still_streams_as_the_tasks(in_subgraph, subgraphs):
    def seen(side: str) -> list:
        app = _model_with_its_own_metadata(side, in_subgraph)
        given = {"messages": [HumanMessage("hi", id="h0")]}
        out = []
        for chunk in app.stream(given, stream_mode="messages", subgraphs=subgraphs):
            namespace, (message, metadata) = chunk if subgraphs else ((), chunk)
            where = tuple(part.split(":")[0] for part in namespace)
            shown = (
                metadata.get("langgraph_node"),
                metadata.get("langgraph_step"),
                metadata.get("k"),
            )
            out.append((where, message.content, shown))
        return out

    assert seen("graphkit") == seen("langgraph")
