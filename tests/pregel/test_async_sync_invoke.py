"""A sync node's ``.invoke``/``.stream`` of a graph is a sync run, whatever call ran the
outer graph: LangGraph's refuses the inner graph's async nodes under ``ainvoke`` as under
``invoke`` (a ``TypeError``), so graphkit's ``ainvoke``, ``atrace`` and ``trace`` refuse
them too, rather than running them on the outer run's loop. What LangGraph runs still
runs: an async node awaiting ``ainvoke``, a compiled graph added as a node, a sync graph
a sync node invokes (its Runnable nodes by their ``invoke``), tasks, a ``ToolNode``."""

from __future__ import annotations

import asyncio
import operator
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import tool

import graphkit
from graphkit import func as our_func
from graphkit import prebuilt as our_prebuilt

langgraph = pytest.importorskip("langgraph.graph")
their_func = pytest.importorskip("langgraph.func")
their_prebuilt = pytest.importorskip("langgraph.prebuilt")


class State(TypedDict):
    log: Annotated[list, operator.add]


async def leaf(state: State) -> dict[str, Any]:
    await asyncio.sleep(0)
    return {"log": ["leaf"]}


def one_node(library: Any, name: str, node: Any) -> Any:
    return library.StateGraph(State).add_node(name, node).add_edge(library.START, name).compile()


def invoking(library: Any, built_inside: bool = False, streamed: bool = False) -> Any:
    """``outer``, a sync node, runs a graph with an async node synchronously."""
    built = one_node(library, "leaf", leaf)

    def outer(state: State) -> dict[str, Any]:
        inner = one_node(library, "leaf", leaf) if built_inside else built
        if streamed:
            return {"log": [len(list(inner.stream({"log": []})))]}
        return {"log": inner.invoke({"log": []})["log"]}

    return one_node(library, "outer", outer)


CALLS: dict[str, Callable[[Any], Any]] = {
    "invoke": lambda app: app.invoke({"log": []}),
    "ainvoke": lambda app: asyncio.run(app.ainvoke({"log": []})),
    "trace": lambda app: app.trace({"log": []}).values,
    "atrace": lambda app: asyncio.run(app.atrace({"log": []})).values,
}


@pytest.mark.parametrize("streamed", [False, True], ids=["invoke", "stream"])
@pytest.mark.parametrize("built_inside", [False, True], ids=["built-outside", "built-inside"])
def test_a_sync_nodes_inner_run_refuses_async_nodes_under_every_call(
    built_inside: bool, streamed: bool
) -> None:
    theirs = invoking(langgraph, built_inside, streamed)
    for call in ("invoke", "ainvoke"):
        with pytest.raises(TypeError):
            CALLS[call](theirs)
    for call, run in CALLS.items():
        with pytest.raises(TypeError) as raised:
            run(invoking(graphkit, built_inside, streamed))
        message = str(raised.value)
        assert "Node 'leaf' is an async function" in message, call
        assert "node 'outer' runs synchronously" in message, call
        assert "Make 'outer' an async def that awaits the inner graph's `ainvoke(...)`" in message
        # the outer run is ainvoke's, atrace's or trace's already: no need to say so
        assert ("await app.ainvoke(...)" in message) == (call == "invoke"), call


def test_the_message_names_the_node_that_ran_its_second_graph() -> None:
    """(The second graph a task runs is numbered in its namespace: "outer:<id>", "1".)"""
    first = one_node(graphkit, "plain", lambda state: {"log": ["plain"]})
    second = one_node(graphkit, "leaf", leaf)

    def outer(state: State) -> dict[str, Any]:
        return {"log": first.invoke({"log": []})["log"] + second.invoke({"log": []})["log"]}

    with pytest.raises(TypeError, match="node 'outer' runs synchronously"):
        asyncio.run(one_node(graphkit, "outer", outer).ainvoke({"log": []}))


def test_an_async_node_awaiting_the_inner_graph_runs_under_every_async_call() -> None:
    def awaiting(library: Any) -> Any:
        inner = one_node(library, "leaf", leaf)

        async def outer(state: State) -> dict[str, Any]:
            return {"log": [*(await inner.ainvoke({"log": []}))["log"], "outer"]}

        return one_node(library, "outer", outer)

    expected = CALLS["ainvoke"](awaiting(langgraph))
    assert expected == {"log": ["leaf", "outer"]}
    for call in ("ainvoke", "trace", "atrace"):
        assert CALLS[call](awaiting(graphkit)) == expected, call


def test_a_compiled_graph_added_as_a_node_runs_its_async_nodes() -> None:
    def nested(library: Any) -> Any:
        return one_node(library, "inner", one_node(library, "leaf", leaf))

    expected = CALLS["ainvoke"](nested(langgraph))
    assert expected == {"log": ["leaf"]}
    for call in ("ainvoke", "trace", "atrace"):
        assert CALLS[call](nested(graphkit)) == expected, call


def test_a_sync_graph_a_sync_node_invokes_runs_its_runnables_sync_side() -> None:
    """Inside ``ainvoke``, the inner run is sync: a lambda with both sides runs its sync
    function, as in LangGraph (it was awaited on the outer run's loop)."""

    def sync_side(state: State) -> dict[str, Any]:
        return {"log": ["sync side"]}

    async def async_side(state: State) -> dict[str, Any]:
        return {"log": ["async side"]}

    def invoking_sync(library: Any) -> Any:
        inner = one_node(library, "leaf", RunnableLambda(sync_side, afunc=async_side))

        def outer(state: State) -> dict[str, Any]:
            return {"log": inner.invoke({"log": []})["log"]}

        return one_node(library, "outer", outer)

    expected = CALLS["ainvoke"](invoking_sync(langgraph))
    assert expected == {"log": ["sync side"]}
    for call in ("ainvoke", "invoke", "atrace"):
        assert CALLS[call](invoking_sync(graphkit)) == expected, call


def test_tasks_run_as_in_langgraph() -> None:
    def flow(func: Any) -> Any:
        @func.task
        async def add_one(x: int) -> int:
            await asyncio.sleep(0)
            return x + 1

        @func.task
        def add_two(x: int) -> int:
            return x + 2

        @func.entrypoint()
        async def add_both(x: int) -> int:
            return await add_one(x) + await add_two(x)

        return add_both

    expected = asyncio.run(flow(their_func).ainvoke(1))
    assert asyncio.run(flow(our_func).ainvoke(1)) == expected == 5
    assert flow(our_func).trace(1).values == {"__end__": expected}


def test_a_tool_node_runs_its_async_and_sync_tools() -> None:
    @tool
    async def shout(text: str) -> str:
        """Shout."""
        return text.upper()

    @tool
    def whisper(text: str) -> str:
        """Whisper."""
        return text.lower()

    calls = [
        {"name": "shout", "args": {"text": "Hi"}, "id": "1"},
        {"name": "whisper", "args": {"text": "Hi"}, "id": "2"},
    ]

    def agent(library: Any, prebuilt: Any) -> Any:
        builder = library.StateGraph(library.MessagesState)
        builder.add_node("tools", prebuilt.ToolNode([shout, whisper]))
        return builder.add_edge(library.START, "tools").compile()

    given = {"messages": [AIMessage("", tool_calls=calls)]}

    def contents(values: dict[str, Any]) -> list[Any]:
        return [message.content for message in values["messages"][1:]]

    expected = contents(asyncio.run(agent(langgraph, their_prebuilt).ainvoke(given)))
    assert expected == ["HI", "hi"]
    ours = agent(graphkit, our_prebuilt)
    assert contents(asyncio.run(ours.ainvoke(given))) == expected
    assert contents(ours.trace(given).values) == expected
