"""A Runnable node with only async code (``RunnableLambda(async_function)``, a chain with
such a step): LangGraph's ``invoke`` fails on it with LangChain's ``TypeError``, and
``ainvoke`` awaits it. graphkit's ``invoke`` fails the same way; ``trace``, the stepper
and the debugger run it on graphkit's loop, as they run ``async def`` nodes and as
``ainvoke`` does (they failed as ``invoke`` does)."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.runnables import RunnableLambda

import graphkit
import graphkit.channels
import graphkit.pregel
from graphkit.checkpoint import InMemorySaver

langgraph = pytest.importorskip("langgraph.graph")
their_pregel = pytest.importorskip("langgraph.pregel")
their_channels = pytest.importorskip("langgraph.channels")


class State(TypedDict):
    log: Annotated[list, operator.add]


async def leaf(state: State) -> dict[str, Any]:
    await asyncio.sleep(0)
    return {"log": ["leaf"]}


def tag(state: State) -> State:
    return {"log": [*state["log"], "tag"]}


NODES = {
    "lambda": lambda: RunnableLambda(leaf),
    "chain": lambda: RunnableLambda(tag) | RunnableLambda(leaf),
    "retried": lambda: RunnableLambda(leaf).with_retry(stop_after_attempt=2),
}


def one_node(library: Any, node: Any, **compile_options: Any) -> Any:
    builder = library.StateGraph(State).add_node("n", node).add_edge(library.START, "n")
    return builder.compile(**compile_options)


@pytest.mark.parametrize("kind", NODES)
def test_trace_awaits_it_as_ainvoke_does_and_invoke_refuses_it_as_langgraphs(kind: str) -> None:
    theirs = one_node(langgraph, NODES[kind]())
    with pytest.raises(TypeError, match="Cannot invoke a coroutine function synchronously"):
        theirs.invoke({"log": []})
    expected = asyncio.run(theirs.ainvoke({"log": []}))
    ours = one_node(graphkit, NODES[kind]())
    with pytest.raises(TypeError, match="Cannot invoke a coroutine function synchronously"):
        ours.invoke({"log": []})
    assert asyncio.run(ours.ainvoke({"log": []})) == expected
    assert ours.trace({"log": []}).values == expected
    assert asyncio.run(ours.atrace({"log": []})).values == expected


def test_in_a_subgraph_too() -> None:
    def nested(library: Any) -> Any:
        return one_node(library, one_node(library, RunnableLambda(leaf)))

    expected = asyncio.run(nested(langgraph).ainvoke({"log": []}))
    assert nested(graphkit).trace({"log": []}).values == expected == {"log": ["leaf"]}


def test_the_stepper_and_the_debugger_run_it() -> None:
    from graphkit.widgets.session import DebugSession

    assert one_node(graphkit, RunnableLambda(leaf)).stepper({"log": []}).run().values == {
        "log": ["leaf"]
    }
    app = one_node(graphkit, RunnableLambda(leaf), checkpointer=InMemorySaver())
    session = DebugSession(app, {"log": []})
    session.run()
    assert session.status == "done"
    assert session.stepper.run_so_far.values == {"log": ["leaf"]}


def test_a_low_level_pregel_step() -> None:
    async def double(x: int) -> int:
        return x * 2

    def pregel(module: Any, channels: Any) -> Any:
        node = module.NodeBuilder().subscribe_only("a").do(RunnableLambda(double)).write_to("b")
        return module.Pregel(
            nodes={"d": node},
            channels={"a": channels.EphemeralValue(int), "b": channels.LastValue(int)},
            input_channels="a",
            output_channels="b",
        )

    theirs = pregel(their_pregel, their_channels)
    with pytest.raises(TypeError, match="Cannot invoke a coroutine function synchronously"):
        theirs.invoke(3)
    expected = asyncio.run(theirs.ainvoke(3))
    ours = pregel(graphkit.pregel, graphkit.channels)
    with pytest.raises(TypeError, match="Cannot invoke a coroutine function synchronously"):
        ours.invoke(3)
    assert asyncio.run(ours.ainvoke(3)) == expected == 6
    assert ours.trace(3).values == {"b": expected}
