"""LangGraph's own objects in a graphkit program (a LangGraph import left as it was): each
works as LangGraph would where it is plain data, converted where it enters, or is refused
at once, naming the object, where it was used and graphkit's import. LangGraph 1.2 is the
oracle where it runs the same program."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest
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


def _managed(library: Any, left: Any, last: Any) -> Any:
    # (the functional form: the field types are arguments, and this module defers annotations)
    State = TypedDict("State", {"seen": list, "left": left, "last": last}, total=False)  # noqa: UP013
    builder = library.StateGraph(State)
    builder.add_node("look", lambda state: {"seen": [state["left"], state["last"]]})
    builder.add_edge(library.START, "look")
    return builder.compile().invoke({"seen": []}, {"recursion_limit": 2})


def test_langgraphs_managed_values_in_a_schema_are_computed_as_on_langgraph() -> None:
    import langgraph.graph
    from langgraph.managed import IsLastStep, RemainingSteps

    ours = _managed(graphkit, RemainingSteps, IsLastStep)
    assert ours == _managed(langgraph.graph, RemainingSteps, IsLastStep) == {"seen": [1, True]}
    assert ours == _managed(graphkit, graphkit.managed.RemainingSteps, graphkit.managed.IsLastStep)


def _langgraph_channels() -> list[Any]:
    from langgraph import channels

    return [
        channels.Topic(str, accumulate=True),
        channels.EphemeralValue(int),
        channels.BinaryOperatorAggregate(int, operator.add),
        channels.LastValue,  # (a class, as a schema may name one)
    ]


@pytest.mark.parametrize(
    "channel", _langgraph_channels(), ids=lambda c: getattr(c, "__name__", type(c).__name__)
)
def test_langgraphs_channel_in_a_schema_is_refused_by_name(channel: Any) -> None:
    # read as a plain field, each silently kept one value: a Topic its last, an
    # EphemeralValue its value past the step, a sum its last addend
    name = getattr(channel, "__name__", type(channel).__name__)
    state = TypedDict("State", {"x": int, "log": Annotated[Any, channel]})  # noqa: UP013
    with pytest.raises(TypeError) as raised:
        StateGraph(state)
    assert str(raised.value) == (
        f"State key 'log' is annotated with LangGraph's {name} (from langgraph.channels); "
        "graphkit runs its own channels. Import it from graphkit: "
        f"from graphkit.channels import {name}."
    )


def test_langgraphs_channel_in_a_low_level_pregel_is_refused_by_name() -> None:
    from langgraph.channels import LastValue as LangGraphLastValue

    from graphkit.channels import LastValue
    from graphkit.pregel import NodeBuilder, Pregel

    node = NodeBuilder().subscribe_only("a").do(lambda n: n + 1).write_to("b")
    with pytest.raises(TypeError, match=r"^Pregel\(channels=...\)'s 'a' is LangGraph's LastV"):
        Pregel(
            nodes={"one": node},
            channels={"a": LangGraphLastValue(int), "b": LastValue(int)},
            input_channels="a",
            output_channels="b",
        )


def test_langgraphs_entrypoint_final_returns_one_value_and_saves_the_other() -> None:
    import langgraph.func

    from graphkit.func import entrypoint

    @entrypoint(checkpointer=InMemorySaver())
    def count(step: int, previous: int | None = None) -> Any:
        total = (previous or 0) + step
        return langgraph.func.entrypoint.final(value=f"total {total}", save=total)

    assert count.invoke(1, THREAD) == "total 1"
    assert count.invoke(10, THREAD) == "total 11"  # (previous: the 1 saved, not "total 1")


async def _timed_out(library: Any, policy: Any) -> str:
    async def slow(state: dict[str, Any]) -> dict[str, Any]:
        await asyncio.sleep(2)
        return {"x": 2}

    builder = library.StateGraph(TypedDict("State", {"x": int}))
    builder.add_node("slow", slow, timeout=policy)
    builder.add_edge(library.START, "slow")
    try:
        await builder.compile().ainvoke({"x": 1})
    except Exception as raised:
        return type(raised).__name__
    return "finished"


def test_langgraphs_timeout_policy_in_add_node_times_out_as_on_langgraph() -> None:
    import langgraph.graph
    from langgraph.types import TimeoutPolicy as LangGraphTimeoutPolicy

    policy = LangGraphTimeoutPolicy(run_timeout=0.05)
    ours = asyncio.run(_timed_out(graphkit, policy))
    assert ours == asyncio.run(_timed_out(langgraph.graph, policy)) == "NodeTimeoutError"
    declared = StateGraph(TypedDict("State", {"x": int})).add_node(
        "slow", lambda state: state, timeout=LangGraphTimeoutPolicy(idle_timeout=1)
    )
    assert declared.nodes["slow"].timeout == graphkit.types.TimeoutPolicy(idle_timeout=1.0)


def test_langgraphs_tool_node_as_a_node_is_refused_by_name() -> None:
    # it ran, and failed in the run with "Missing required config key 'N/A' for 'tools'"
    from langchain_core.tools import tool
    from langgraph.prebuilt import ToolNode as LangGraphToolNode

    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    expected = (
        "Node 'tools' is LangGraph's ToolNode (from langgraph.prebuilt), which runs only on "
        "LangGraph's runtime. Import graphkit's: from graphkit.prebuilt import ToolNode."
    )
    for name, action in [("tools", LangGraphToolNode([add])), (LangGraphToolNode([add]), None)]:
        builder = StateGraph(graphkit.MessagesState)
        with pytest.raises(TypeError) as raised:
            builder.add_node(name, action)
        assert str(raised.value) == expected


def _run_node(library: Any, node: Any, **compile_options: Any) -> Any:
    builder = library.StateGraph(TypedDict("State", {"x": Any}))
    builder.add_node("n", node)
    builder.add_edge(library.START, "n")
    app = builder.compile(**compile_options)
    chunks = list(app.stream({"x": 1}, stream_mode=["custom", "values"]))
    return chunks


def test_langgraphs_get_store_get_stream_writer_and_get_runtime_work_in_a_graphkit_node() -> None:
    # each failed with KeyError '__pregel_runtime', and get_runtime() returned None
    import langgraph.graph
    from langgraph.config import get_store, get_stream_writer
    from langgraph.runtime import get_runtime

    def node(state: dict[str, Any]) -> dict[str, Any]:
        get_stream_writer()("hello")
        store = get_store()
        store.put(("notes",), "k", {"v": 1})
        return {"x": [store.get(("notes",), "k").value, type(get_runtime().store).__name__]}

    from langgraph.store.memory import InMemoryStore as LangGraphStore

    from graphkit.store.memory import InMemoryStore

    ours = _run_node(graphkit, node, store=InMemoryStore())
    assert ours == _run_node(langgraph.graph, node, store=LangGraphStore())
    assert ours[1:] == [("custom", "hello"), ("values", {"x": [{"v": 1}, "InMemoryStore"]})]


@pytest.mark.parametrize("where", ["node", "entrypoint"])
def test_langgraphs_interrupt_and_task_in_graphkit_code_are_refused_by_name(where: str) -> None:
    # they failed with KeyError '__pregel_scratchpad' and '__pregel_call'
    import langgraph.func
    from langgraph.types import interrupt

    from graphkit.func import entrypoint

    @langgraph.func.task
    def double(n: int) -> int:
        return n * 2

    expected = {
        "interrupt": "interrupt() from langgraph.types, called in {where}, needs LangGraph's "
        "runtime. Import graphkit's: from graphkit import interrupt.",
        "task": "A LangGraph @task (langgraph.func), called in {where}, needs LangGraph's "
        "runtime. Import graphkit's: from graphkit.func import task.",
    }
    for name, call in [("interrupt", lambda: interrupt("ok?")), ("task", lambda: double(2))]:
        if where == "node":
            app = StateGraph(TypedDict("State", {"x": Any}))
            app = app.add_node("ask", lambda state, call=call: {"x": call()})
            app = app.add_edge(START, "ask")
            app, shown = app.compile(checkpointer=InMemorySaver()), "node 'ask'"
        else:
            app = entrypoint(checkpointer=InMemorySaver())(lambda n, call=call: call())
            shown = "node '<lambda>'"
        with pytest.raises(TypeError) as raised:
            app.invoke({"x": 1}, THREAD)
        assert str(raised.value) == expected[name].format(where=shown)


def test_langgraphs_interrupt_is_refused_by_name_in_the_first_run_of_a_process() -> None:
    # langgraph.types imports langgraph.config only when interrupt() is first called, so
    # a fresh kernel that imported nothing else of LangGraph's failed its first run with
    # KeyError '__pregel_scratchpad' (a learner's first try at lesson 08's exercise)
    import subprocess
    import sys
    from pathlib import Path

    program = (
        "import sys\n"
        "from typing import Any, TypedDict\n"
        "from langgraph.types import interrupt\n"
        "from graphkit import START, InMemorySaver, StateGraph\n"
        "assert 'langgraph.config' not in sys.modules\n"
        "app = StateGraph(TypedDict('State', {'x': Any}))\n"
        "app = app.add_node('ask', lambda state: {'x': interrupt('ok?')})\n"
        "app = app.add_edge(START, 'ask').compile(checkpointer=InMemorySaver())\n"
        "try:\n"
        "    app.invoke({'x': 1}, {'configurable': {'thread_id': 't'}})\n"
        "except Exception as error:\n"
        "    print(type(error).__name__, error)\n"
    )
    root = Path(__file__).resolve().parents[2]  # (-c puts the folder it runs in first)
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, cwd=root
    )
    assert done.stdout.strip() == (
        "TypeError interrupt() from langgraph.types, called in node 'ask', needs "
        "LangGraph's runtime. Import graphkit's: from graphkit import interrupt."
    ), done.stdout + done.stderr


def _raise(error: BaseException) -> Any:
    raise error


def test_langgraphs_interrupt_errors_raised_in_a_node_are_refused_by_name() -> None:
    # LangGraph pauses on them (ParentCommand: goes to the parent); graphkit's run ended
    # with them as a node's ordinary error
    from langgraph import errors
    from langgraph.types import Command as LangGraphCommand
    from langgraph.types import Interrupt as LangGraphInterrupt

    raised = [
        errors.GraphInterrupt((LangGraphInterrupt("ok?"),)),
        errors.ParentCommand(LangGraphCommand(graph=LangGraphCommand.PARENT, goto="a")),
    ]
    for error in raised:
        name = type(error).__name__
        builder = StateGraph(TypedDict("State", {"x": Any}))
        builder.add_node("ask", lambda state, error=error: _raise(error))
        app = builder.add_edge(START, "ask").compile(checkpointer=InMemorySaver())
        with pytest.raises(TypeError) as refused:
            app.invoke({"x": 1}, THREAD)
        assert str(refused.value) == (
            f"Node 'ask' raised LangGraph's {name} (langgraph.errors), which only LangGraph's "
            f"runtime handles. Import graphkit's: from graphkit.errors import {name}."
        )
        assert refused.value.__cause__ is error
