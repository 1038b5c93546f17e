"""Stream and output edges on both libraries: ``invoke(..., subgraphs=True)`` returns the
state (not a ``(namespace, state)`` pair), with a paused subgraph's interrupt from each
level; with ``interrupt_after``, the paused step's values come before its checkpoint;
``Interrupt``'s constructor takes LangGraph's deprecated ``ns=``, it has ``from_ns``,
and it is compared by value and not hashable, as LangGraph's."""

import asyncio
import operator
import time
from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import _interrupt, _memory_saver

LIBS = [load_langgraph, load_graphkit]


class Log(TypedDict):
    x: int
    res: Annotated[list, operator.add]


def _with_subgraph(lib: Lib, asks: bool) -> Any:
    child = lib.StateGraph(Log)
    child.add_node("c1", lambda state: {"res": ["c1"]})

    def c2(state: Log) -> dict[str, Any]:
        return {"res": ["c2:" + _interrupt(lib.name)("q")]} if asks else {"res": ["c2"]}

    child.add_node("c2", c2)
    child.add_edge(lib.START, "c1").add_edge("c1", "c2")
    graph = lib.StateGraph(Log).add_node("sub", child.compile()).add_edge(lib.START, "sub")
    with _memory_saver(lib.name) as saver:
        return graph.compile(checkpointer=saver)


def _shown(output: Any) -> Any:
    if not isinstance(output, dict):
        return output
    asked = [item.value for item in output.get("__interrupt__", ())]
    return {**{k: v for k, v in output.items() if k != "__interrupt__"}, "asks": asked}


@pytest.mark.parametrize("asks", [False, True], ids=["done", "paused"])
@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
def test_invoke_with_subgraphs_returns_the_state(asks, use_async):
    seen = []
    for loader in LIBS:
        lib = loader()
        app = _with_subgraph(lib, asks)
        config = {"configurable": {"thread_id": "t"}}
        inputs = [{"x": 1, "res": []}, *([lib.Command(resume="R")] if asks else [])]
        outputs = []
        for given in inputs:
            if use_async:
                output = asyncio.run(app.ainvoke(given, config, subgraphs=True))
            else:
                output = app.invoke(given, config, subgraphs=True)
            outputs.append(_shown(output))
        seen.append(outputs)
    assert seen[1] == seen[0]
    assert seen[1][-1] == {"x": 1, "res": ["c1", "c2:R" if asks else "c2"], "asks": []}


def _chain(lib: Lib) -> Any:
    graph = lib.StateGraph(Log)
    graph.add_node("a", lambda state: {"res": ["a"]})
    graph.add_node("b", lambda state: {"res": ["b"]})
    graph.add_edge(lib.START, "a").add_edge("a", "b")
    with _memory_saver(lib.name) as saver:
        return graph.compile(checkpointer=saver, interrupt_after=["a"])


@pytest.mark.parametrize("modes", [["values", "checkpoints"], ["values", "debug"]])
def test_a_breakpoint_after_a_step_streams_its_values_before_its_checkpoint(modes):
    seen = []
    for loader in LIBS:
        app = _chain(loader())
        config = {"configurable": {"thread_id": "t"}}
        runs = [list(app.stream(given, config, stream_mode=modes)) for given in ({"res": []}, None)]
        seen.append([[mode for mode, _ in chunks] for chunks in runs])
    assert seen[1] == seen[0]
    assert seen[1][0][-2:] == ["values", modes[1]]


def _interrupt_class(lib: Lib) -> Any:
    if lib.name == "langgraph":
        from langgraph.types import Interrupt
    else:
        from graphkit.types import Interrupt
    return Interrupt


def test_interrupt_takes_the_deprecated_ns_and_has_from_ns():
    made = []
    for loader in LIBS:
        interrupt_class = _interrupt_class(loader())
        by_ns = interrupt_class(value=1, ns=["a:1", "b:2"])
        same_ns = interrupt_class(value=2, ns=["a:1", "b:2"])
        other_ns = interrupt_class(value=1, ns=["a:1"])
        from_ns = interrupt_class.from_ns(1, "a:1")
        with pytest.raises(TypeError):
            hash(by_ns)
        made.append(
            (
                by_ns.id == same_ns.id != other_ns.id,
                by_ns.id != "placeholder-id",
                from_ns.value,
                from_ns.id == interrupt_class.from_ns(5, "a:1").id != by_ns.id,
                from_ns.id == interrupt_class(value=1, ns=["a:1"]).id,
                interrupt_class(1, "x") == interrupt_class(1, "x"),
                interrupt_class(1, "x", ns=["a"]).id,  # (an id given wins)
            )
        )
    assert made[1] == made[0]
    assert made[1] == (True, True, 1, True, True, True, "x")


def _failing_beside_a_slow_sibling(lib: Lib, sibling_is_subgraph: bool) -> Any:
    def fail(state: Log) -> dict[str, Any]:
        raise ValueError("boom")

    def slow(state: Log) -> dict[str, Any]:
        time.sleep(0.2)  # (ends after "a" failed: not a timing assertion)
        return {"res": ["b"]}

    graph = lib.StateGraph(Log).add_node("a", fail)
    if sibling_is_subgraph:
        inner = lib.StateGraph(Log).add_node("slow", slow).add_edge(lib.START, "slow")
        graph.add_node("b", inner.compile())
    else:
        graph.add_node("b", slow)
    graph.add_edge(lib.START, "a").add_edge(lib.START, "b")
    with _memory_saver(lib.name) as saver:
        return graph.compile(checkpointer=saver)


# (a subgraph sibling only with "updates": what it says as it starts races the failure)
@pytest.mark.parametrize(
    "modes, sibling_is_subgraph",
    [("updates", False), ("tasks", False), (["updates", "values"], False), ("updates", True)],
    ids=["updates", "tasks", "updates-values", "updates-subgraph"],
)
def test_nothing_is_streamed_once_a_task_failed_the_step(modes, sibling_is_subgraph):
    seen = []
    for loader in LIBS:
        app = _failing_beside_a_slow_sibling(loader(), sibling_is_subgraph)
        config = {"configurable": {"thread_id": "t"}}
        chunks = []
        with pytest.raises(ValueError):
            for chunk in app.stream({"res": []}, config, stream_mode=modes, subgraphs=True):
                chunks.append(repr(chunk[1:]) if modes != "tasks" else repr(chunk[1].get("name")))
        seen.append(chunks)
    assert seen[1] == seen[0]
    assert not any("'b'" in chunk or "slow" in chunk for chunk in seen[1][-1:])


def _sending(lib: Lib) -> Any:
    def fan(state: Log) -> list[Any]:
        return [lib.Send("w", {"x": 0, "res": [index]}) for index in range(2)]

    def ask(state: Log) -> dict[str, Any]:
        return {"res": [_interrupt(lib.name)("q")]}

    graph = lib.StateGraph(Log).add_node("w", ask).add_conditional_edges(lib.START, fan)
    with _memory_saver(lib.name) as saver:
        return graph.compile(checkpointer=saver)


def test_a_send_tasks_path_ends_with_false_in_snapshots_and_checkpoints():
    seen = []
    for loader in LIBS:
        app = _sending(loader())
        config = {"configurable": {"thread_id": "t"}}
        chunks = list(app.stream({"x": 0, "res": []}, config, stream_mode="checkpoints"))
        streamed = [task.get("path") for chunk in chunks for task in chunk["tasks"]]
        seen.append((streamed, [task.path for task in app.get_state(config).tasks]))
    assert seen[1] == seen[0]
    assert seen[1][1] == [("__pregel_push", 0, False), ("__pregel_push", 1, False)]


def _handing_off(lib: Lib, how: str) -> Any:
    """A subgraph's node hands off to the parent's ``z`` with a message, as a
    multi-agent handoff does (``how``: the subgraph is a node, or invoked in one)."""
    from langchain_core.messages import AIMessage

    if lib.name == "langgraph":
        from langgraph.graph import add_messages
    else:
        from graphkit import add_messages

    class Chat(TypedDict):
        messages: Annotated[list, add_messages]

    def hand_off(state: Chat) -> Any:
        update = {"messages": [AIMessage("from child", id="fc")]}
        return lib.Command(graph=lib.Command.PARENT, goto="z", update=update)

    inner = lib.StateGraph(Chat).add_node("c", hand_off).add_edge(lib.START, "c").compile()
    graph = lib.StateGraph(Chat)
    if how == "node":
        graph.add_node("sub", inner, destinations=("z",))
    else:
        graph.add_node("sub", lambda state: inner.invoke(state), destinations=("z",))
    graph.add_node("z", lambda state: {"messages": [AIMessage("z", id="z")]})
    return graph.add_edge(lib.START, "sub").compile()


@pytest.mark.parametrize("how", ["node", "in_node"])
def test_messages_a_subgraph_hands_to_its_parent_are_not_streamed_as_messages(how):
    from langchain_core.messages import HumanMessage

    seen = []
    for loader in LIBS:
        app = _handing_off(loader(), how)
        given = {"messages": [HumanMessage("hi", id="h0")]}
        chunks = app.stream(given, stream_mode=["messages", "updates"])
        seen.append(
            [(mode, chunk[0].id if mode == "messages" else list(chunk)) for mode, chunk in chunks]
        )
    assert seen[1] == seen[0]
    assert ("messages", "fc") not in seen[1] and ("messages", "z") in seen[1]


@pytest.mark.parametrize("modes", [["updates", "values"], ["tasks"], ["debug"]], ids=str)
@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
def test_a_lone_tasks_chunks_are_dropped_when_the_next_step_cannot_start(modes, use_async):
    """The next node's input does not fit its pydantic schema: as in LangGraph, what the
    step before it (one task, run inline) said is never streamed."""
    from pydantic import BaseModel

    class Strict(BaseModel):
        x: int
        res: list[int]

    seen = []
    for loader in LIBS:
        lib = loader()
        graph = lib.StateGraph(Log).add_node("n0", lambda state: {"res": ["text"]})
        graph.add_node("n1", lambda state: {}, input_schema=Strict)
        app = graph.add_edge(lib.START, "n0").add_edge("n0", "n1").compile()
        chunks: list[Any] = []

        async def collect(app: Any = app, chunks: list[Any] = chunks) -> None:
            async for chunk in app.astream({"x": 1, "res": []}, stream_mode=modes):
                chunks.append(chunk)

        with pytest.raises(Exception, match="validation error"):
            if use_async:
                asyncio.run(collect())
            else:
                chunks.extend(app.stream({"x": 1, "res": []}, stream_mode=modes))
        seen.append([(mode, _named(chunk)) for mode, chunk in chunks])
    assert seen[1] == seen[0]
    assert not any("n0" in str(chunk) for _, chunk in seen[1][1:])


def _named(chunk: Any) -> Any:
    """A chunk without its ids and timestamps: the name of a task it shows, else itself."""
    if isinstance(chunk, dict) and "payload" in chunk:
        chunk = chunk["payload"]
    if isinstance(chunk, dict) and "name" in chunk:
        return chunk["name"]
    return chunk


def _emptying_a_topic(lib: Lib, keys: str) -> Any:
    class Board(TypedDict):
        t: Annotated[list, lib.channels.Topic(int)]
        k: int

    graph = lib.StateGraph(Board, output_schema=None if keys == "all" else _only_t(lib))
    graph.add_node("n0", lambda state: {"t": [1]}).add_node("n1", lambda state: {"t": []})
    graph.add_edge(lib.START, "n0").add_edge("n0", "n1")
    with _memory_saver(lib.name) as saver:
        return graph.compile(checkpointer=saver)


def _only_t(lib: Lib) -> Any:
    class OnlyT(TypedDict):
        t: Annotated[list, lib.channels.Topic(int)]

    return OnlyT


@pytest.mark.parametrize("keys", ["all", "only-t"])
def test_a_step_that_leaves_its_channels_empty_makes_no_values_chunk(keys):
    seen = []
    for loader in LIBS:
        app = _emptying_a_topic(loader(), keys)
        config = {"configurable": {"thread_id": "t"}}
        streamed = list(app.stream({"k": 0}, config, stream_mode="values"))
        returned = app.invoke({"k": 0}, {"configurable": {"thread_id": "u"}})
        seen.append((streamed, returned, app.get_state(config).values))
    assert seen[1] == seen[0]
    assert seen[1][1] == ({"t": [1], "k": 0} if keys == "all" else {"t": [1]})


@pytest.mark.parametrize("inner_modes", ["custom", ["custom", "updates"], "updates"], ids=str)
def test_a_graph_a_node_streams_itself_keeps_the_custom_chunks_it_asked_for(inner_modes):
    """As in LangGraph: custom chunks go to the stream that asked for "custom" nearest
    the writer, so an inner stream asking for them takes them from an outer one."""
    seen = []
    for loader in LIBS:
        lib = loader()

        def c1(state: Log, lib: Lib = lib) -> dict[str, Any]:
            lib.get_stream_writer()("hello from child")
            return {"res": ["c1"]}

        child = lib.StateGraph(Log).add_node("c1", c1).add_edge(lib.START, "c1").compile()

        def outer(state: Log, child: Any = child) -> dict[str, Any]:
            got = list(child.stream(state, stream_mode=inner_modes))
            return {"res": [f"inner got {len(got)}"]}

        app = lib.StateGraph(Log).add_node("n", outer).add_edge(lib.START, "n").compile()
        chunks = app.stream({"x": 0, "res": []}, stream_mode=["custom", "updates"], subgraphs=True)
        seen.append([(mode, chunk) for _, mode, chunk in chunks])
    assert seen[1] == seen[0]


@pytest.mark.parametrize("write", [[], [1]], ids=["emptied", "written"])
def test_a_paused_steps_values_follow_the_same_rule(write):
    seen = []
    for loader in LIBS:
        lib = loader()

        class Board(TypedDict):
            t: Annotated[list, lib.channels.Topic(int)]
            k: int

        def ask(state: Board, lib: Lib = lib) -> dict[str, Any]:
            _interrupt(lib.name)("q")
            return {}

        graph = lib.StateGraph(Board).add_node("w", lambda state: {"t": write})
        graph.add_node("ask", ask).add_edge(lib.START, "w").add_edge(lib.START, "ask")
        with _memory_saver(lib.name) as saver:
            app = graph.compile(checkpointer=saver)
        config = {"configurable": {"thread_id": "t"}}
        chunks = app.stream({"k": 0}, config, stream_mode="values")
        seen.append([{k: v for k, v in chunk.items() if k != "__interrupt__"} for chunk in chunks])
    assert seen[1] == seen[0]
