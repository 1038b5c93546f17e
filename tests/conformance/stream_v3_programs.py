"""The programs ``test_parity_stream_v3`` runs on both libraries, and how their v3 events
and projections are made comparable: task ids become "task-1", "task-2"... in order of
first appearance (in namespaces, lifecycle payloads), timestamps are checked for their
type only, ``seq`` must count 1, 2, 3..., interrupts are known by their value and chat
messages by kind and content."""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import operator
from collections.abc import Mapping
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage, AnyMessage

from .harness import canonical

SIDES = ("langgraph", "graphkit")
HOW = ("sync", "async")
THREAD = {"configurable": {"thread_id": "t"}}


@dataclasses.dataclass(frozen=True)
class Lib:
    name: str
    StateGraph: Any
    START: str
    Send: Any
    Command: Any
    interrupt: Any
    get_stream_writer: Any
    InMemorySaver: Any
    add_messages: Any
    stream: Any  # the library's ``stream`` package (graphkit.stream / langgraph.stream)
    Pregel: Any
    NodeBuilder: Any
    entrypoint: Any


def lib(name: str) -> Lib:
    top = "langgraph" if name == "langgraph" else "graphkit"
    types = importlib.import_module(f"{top}.types")
    config = importlib.import_module(f"{top}.config")
    message = importlib.import_module(f"{top}.graph.message")
    pregel = importlib.import_module(f"{top}.pregel")
    return Lib(
        name,
        importlib.import_module(f"{top}.graph").StateGraph,
        importlib.import_module(f"{top}.graph").START,
        types.Send,
        types.Command,
        types.interrupt,
        config.get_stream_writer,
        importlib.import_module(f"{top}.checkpoint.memory").InMemorySaver,
        message.add_messages,
        importlib.import_module(f"{top}.stream"),
        pregel.Pregel,
        pregel.NodeBuilder,
        importlib.import_module(f"{top}.func").entrypoint,
    )


# -- the programs -------------------------------------------------------------------------


class State(TypedDict):
    items: Annotated[list, operator.add]
    x: int


INPUT = {"items": [], "x": 0}


def chain(lib: Lib, *, ask: bool = False, fail: bool = False) -> Any:
    """a (writes a custom chunk) -> b; ``ask``: b asks a human; ``fail``: b raises."""

    def a(state: State) -> dict:
        lib.get_stream_writer()({"progress": "a"})
        return {"items": ["a"], "x": 1}

    def b(state: State) -> dict:
        if fail:
            raise ValueError("b broke")
        return {"items": [lib.interrupt("q?") if ask else "b"]}

    builder = lib.StateGraph(State).add_node("a", a).add_node("b", b)
    builder.add_edge(lib.START, "a").add_edge("a", "b")
    return builder.compile(checkpointer=lib.InMemorySaver())


def fan_out(lib: Lib) -> Any:
    """START sends three tasks to "work"; then "done"."""
    builder = lib.StateGraph(State)
    builder.add_node("work", lambda state: {"items": [state["x"] * 10]})
    builder.add_node("done", lambda state: {"x": len(state["items"])})
    sends = lambda state: [lib.Send("work", {"items": [], "x": n}) for n in (1, 2, 3)]  # noqa: E731
    builder.add_conditional_edges(lib.START, sends, ["work"])
    builder.add_edge("work", "done")
    return builder.compile()


def nested(lib: Lib, *, ask: bool = False, fail: bool = False) -> Any:
    """ "sub" (a subgraph, itself holding subgraph "deep") then "after"."""

    def inner(state: State) -> dict:
        lib.get_stream_writer()("from-inner")
        if fail:
            raise ValueError("inner broke")
        return {"items": [lib.interrupt("inner?") if ask else "inner"]}

    deep = lib.StateGraph(State).add_node("inner", inner).add_edge(lib.START, "inner").compile()
    sub = lib.StateGraph(State).add_node("deep", deep).add_node("mid", lambda s: {"x": 2})
    sub = sub.add_edge(lib.START, "mid").add_edge("mid", "deep").compile()
    builder = lib.StateGraph(State).add_node("sub", sub).add_node("after", lambda s: {"x": 3})
    builder.add_edge(lib.START, "sub").add_edge("sub", "after")
    return builder.compile(checkpointer=lib.InMemorySaver())


def chatty(lib: Lib) -> Any:
    """A node returning a chat message (projected on run.messages)."""
    Chat = TypedDict("Chat", {"messages": Annotated[list[AnyMessage], lib.add_messages]})  # noqa: UP013
    builder = lib.StateGraph(Chat)
    builder.add_node("say", lambda state: {"messages": [AIMessage("hello", id="m1")]})
    builder.add_node("more", lambda state: {"messages": [AIMessage("again", id="m2")]})
    builder.add_edge(lib.START, "say").add_edge("say", "more")
    return builder.compile()


def low_level(lib: Lib) -> Any:
    """A ``Pregel`` graph: one node adding 1 to channel "a", writing "b"."""
    channels = importlib.import_module(
        f"{'langgraph' if lib.name == 'langgraph' else 'graphkit'}.channels"
    )
    node = lib.NodeBuilder().subscribe_only("a").do(lambda x: x + 1).write_to("b")
    return lib.Pregel(
        nodes={"one": node},
        channels={"a": channels.EphemeralValue(int), "b": channels.LastValue(int)},
        input_channels="a",
        output_channels="b",
    )


def functional(lib: Lib) -> Any:
    """An ``@entrypoint`` that writes a custom chunk and doubles its input."""

    @lib.entrypoint(checkpointer=lib.InMemorySaver())
    def double(n: int) -> int:
        lib.get_stream_writer()("doubling")
        return n * 2

    return double


# -- running and normalising --------------------------------------------------------------


class Ids:
    """Task ids as "task-1", "task-2"... in order of first appearance."""

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    def id(self, value: str) -> str:
        return self.seen.setdefault(value, f"task-{len(self.seen) + 1}")

    def segment(self, segment: str) -> str:
        name, colon, task = segment.partition(":")
        return f"{name}:{self.id(task)}" if colon else segment

    def namespace(self, namespace: Any) -> list[str]:
        return [self.segment(part) for part in namespace]


def plain(value: Any, ids: Ids) -> Any:
    """``value`` with what differs from run to run (and library to library) normalised."""
    if type(value).__name__ == "Interrupt":
        return ("Interrupt", plain(value.value, ids))
    if hasattr(value, "content") and hasattr(value, "type"):  # a chat message
        return (type(value).__name__, value.content)
    if isinstance(value, Mapping):
        out = {k: plain(v, ids) for k, v in value.items()}
        if "namespace" in value and "event" in value:  # a lifecycle payload
            out["namespace"] = ids.namespace(value["namespace"])
            if "trigger_call_id" in value:
                out["trigger_call_id"] = ids.id(value["trigger_call_id"])
        return out
    if isinstance(value, list | tuple):
        return type(value)(plain(v, ids) for v in value)
    return value


def event_line(event: Mapping[str, Any], ids: Ids) -> str:
    """One protocol event, its shape checked, as a line."""
    assert event["type"] == "event", event
    params = event["params"]
    assert isinstance(params["timestamp"], int), event
    assert set(params) <= {"namespace", "timestamp", "data", "interrupts"}, event
    data = params["data"]
    if event["method"] == "messages":
        payload, metadata = data
        if isinstance(payload, Mapping):  # a protocol event: its ids are generated
            payload = {k: v for k, v in payload.items() if k not in ("id", "message_id")}
        data = (plain(payload, ids), metadata["langgraph_node"], metadata["langgraph_step"])
    fields = {"data": plain(data, ids)}
    if "interrupts" in params:
        fields["interrupts"] = plain(params["interrupts"], ids)
    namespace = ids.namespace(params["namespace"])
    return f"{event['method']} {namespace} {canonical(fields)}"


def lines(events: list[Mapping[str, Any]], ids: Ids | None = None) -> list[str]:
    """The events as lines; their ``seq`` must count 1, 2, 3... (from the first's)."""
    ids = ids or Ids()
    seqs = [event.get("seq") for event in events]
    if seqs and seqs[0] is not None:
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), seqs
    return [event_line(event, ids) for event in events]


def outcome(error: BaseException | None) -> str | None:
    return None if error is None else f"{type(error).__name__}: {error}"


def run_v3(app: Any, input: Any, how: str, read: Any, config: Any = THREAD, **kwargs: Any) -> Any:
    """``read(run)`` (sync) or ``await read(run)`` (async) on a v3 run of ``app``."""
    if how == "sync":
        return read(app.stream_events(input, config, version="v3", **kwargs))

    async def main() -> Any:
        return await read(await app.astream_events(input, config, version="v3", **kwargs))

    return asyncio.run(main())


def drain(how: str) -> Any:
    """A reader: the run's event lines, then its output / interrupted / interrupts (or the
    error that ended it)."""

    def sync(run: Any) -> Any:
        seen: list[Any] = []
        try:
            for event in run:
                seen.append(event)
            return lines(seen), run.output, run.interrupted, plain(run.interrupts, Ids())
        except Exception as error:
            return lines(seen), outcome(error)

    async def asynchronous(run: Any) -> Any:
        seen: list[Any] = []
        try:
            async for event in run:
                seen.append(event)
            interrupts = plain(await run.interrupts(), Ids())
            return lines(seen), await run.output(), await run.interrupted(), interrupts
        except Exception as error:
            return lines(seen), outcome(error)

    return sync if how == "sync" else asynchronous


def with_model(lib: Lib, call: str = "invoke", *, inside: bool = False) -> Any:
    """ "say" returns a message and a tool message; "call" calls a fake chat model (``call``:
    invoke, ainvoke or stream); ``inside``: "call" is inside a subgraph "sub"."""
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import ToolMessage

    model = GenericFakeChatModel(messages=iter([AIMessage("hello world", id="m2")]))
    Chat = TypedDict("Chat", {"messages": Annotated[list[AnyMessage], lib.add_messages]})  # noqa: UP013

    def say(state: Any) -> dict:
        return {"messages": [AIMessage("hi", id="m1"), ToolMessage("t", tool_call_id="c", id="t1")]}

    async def acall(state: Any) -> dict:
        return {"messages": [await model.ainvoke(state["messages"])]}

    def scall(state: Any) -> dict:
        if call == "stream":
            chunks = list(model.stream(state["messages"]))
            return {"messages": [AIMessage(chunks[0].content, id="m3")]}
        return {"messages": [model.invoke(state["messages"])]}

    node = acall if call == "ainvoke" else scall
    if inside:
        node = lib.StateGraph(Chat).add_node("call", node).add_edge(lib.START, "call").compile()
    builder = lib.StateGraph(Chat).add_node("say", say).add_node("sub" if inside else "call", node)
    builder.add_edge(lib.START, "say").add_edge("say", "sub" if inside else "call")
    return builder.compile()


def chat_stream(stream: Any, ids: Ids) -> Any:
    """A ChatModelStream known by its node, its text and its final message's content (its
    id only when the program chose it)."""
    message_id = stream.message_id if stream.message_id in ("m1", "m2", "m3") else "generated"
    return (type(stream).__name__, stream.node, message_id, plain(stream.output, ids))
