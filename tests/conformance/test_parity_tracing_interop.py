"""LangSmith's own tracing inside a traced graph (LangGraph's ``test_tracing_interops.py``):
with a ``LangChainTracer`` in the config, a ``@traceable`` function a node calls is a
child of the node's run, and a graph it invokes a child of the function, so LangSmith
shows one tree; ``get_current_run_tree()`` in a node is the node's run. The tracer's
client is a LangSmith ``Client`` whose HTTP session is a mock: nothing leaves the
process, and what it would have posted is read back from the mock."""

from __future__ import annotations

import asyncio
import json
from typing import Any, TypedDict
from unittest.mock import MagicMock

import pytest

from .harness import Lib, load_graphkit, load_langgraph, run_fresh

ls = pytest.importorskip("langsmith")
LIBS = {"langgraph": load_langgraph, "graphkit": load_graphkit}


class State(TypedDict):
    value: str


def _graphs(lib: Lib, run_async: bool) -> Any:
    """A parent whose node calls a ``@traceable`` function that invokes a child graph."""

    async def child_node(state: State) -> State:
        return {"value": f"child_{state['value']}"}

    def child_node_sync(state: State) -> State:
        return {"value": f"child_{state['value']}"}

    child = lib.StateGraph(State).add_node(
        "child_node", child_node if run_async else child_node_sync
    )
    child_graph = (
        child.add_edge(lib.START, "child_node").compile().with_config(run_name="child_graph")
    )

    @ls.traceable
    async def some_traceable(content: State) -> Any:
        return await child_graph.ainvoke(content)

    @ls.traceable
    def some_traceable_sync(content: State) -> Any:
        return child_graph.invoke(content)

    async def parent_node(state: State) -> State:
        return {"value": f"parent_{(await some_traceable(state))['value']}"}

    def parent_node_sync(state: State) -> State:
        return {"value": f"parent_{some_traceable_sync(state)['value']}"}

    parent = lib.StateGraph(State)
    parent.add_node("parent_node", parent_node if run_async else parent_node_sync)
    return parent.add_edge(lib.START, "parent_node").compile()


def _posted_runs(client: Any) -> dict[str, dict[str, Any]]:
    runs = {}
    for call in client.session.request.mock_calls:
        if call.args and call.args[0] == "POST" and "data" in call.kwargs:
            posted = json.loads(call.kwargs["data"])  # (one run: no batching asked for)
            runs[posted["id"]] = posted
    return runs


def _traced_tree(lib: Lib, run_async: bool) -> tuple[Any, list[tuple[int, str, str | None]], bool]:
    from langchain_core.tracers import LangChainTracer

    client = ls.Client(session=MagicMock(), api_key="test", auto_batch_tracing=False)
    tracer = LangChainTracer(client=client)
    graph = _graphs(lib, run_async)
    config = {"callbacks": [tracer]}
    given = {"value": "input"}
    result = asyncio.run(graph.ainvoke(given, config)) if run_async else graph.invoke(given, config)
    tracer.wait_for_futures()
    runs = _posted_runs(client)
    names = {run_id: run["name"] for run_id, run in runs.items()}
    tree = sorted(
        (run["dotted_order"].count("."), run["name"], names.get(run.get("parent_run_id")))
        for run in runs.values()
    )
    nested = all(
        run["dotted_order"].startswith(runs[run["parent_run_id"]]["dotted_order"])
        and run["trace_id"] == runs[run["parent_run_id"]]["trace_id"]
        for run in runs.values()
        if run.get("parent_run_id") is not None
    )
    return result, tree, nested


@pytest.mark.parametrize("run_async", [False, True], ids=["invoke", "ainvoke"])
def test_a_traceable_a_node_calls_is_the_nodes_child_as_in_langgraph(run_async):
    expected = _traced_tree(load_langgraph(), run_async)
    assert expected[1][2][1].startswith("some_traceable") and expected[2]
    assert _traced_tree(load_graphkit(), run_async) == expected


def _run_tree_names(lib: Lib) -> list[Any]:
    from langchain_core.tracers import LangChainTracer

    def node(state: State) -> State:
        return {"value": ls.get_current_run_tree().name}

    async def anode(state: State) -> State:
        return {"value": ls.get_current_run_tree().name}

    seen = []
    for function in (node, anode):
        graph = lib.StateGraph(State).add_node("n", function).add_edge(lib.START, "n").compile()
        tracer = LangChainTracer(
            client=ls.Client(session=MagicMock(), api_key="test", auto_batch_tracing=False)
        )
        seen.append(asyncio.run(graph.ainvoke({"value": ""}, {"callbacks": [tracer]})))
        seen.append(ls.get_current_run_tree())  # (nothing left behind after the run)
    return seen


def test_get_current_run_tree_in_a_node_is_the_nodes_run():
    expected = _run_tree_names(load_langgraph())
    assert expected[0] == {"value": "n"}
    assert _run_tree_names(load_graphkit()) == expected


def _ambient_tree(lib: Lib, how: str) -> tuple[list[tuple[Any, ...]], list[Any]]:
    """Tracing turned on by LangSmith's ``tracing_context`` (as ``LANGSMITH_TRACING=true``
    does; trace-agent.mdx), no handler in the config: the runs posted, each as (depth,
    name, parent's name, traces in all), and ``get_current_run_tree()`` in the nodes."""
    seen = []

    def node(state: State) -> State:
        run = ls.get_current_run_tree()
        seen.append(run.name if run is not None else None)
        return {"value": state["value"] + "."}

    child = lib.StateGraph(State).add_node("inner", node).add_edge(lib.START, "inner")
    parent = lib.StateGraph(State).add_node("a", node).add_node("sub", child.compile())
    graph = parent.add_edge(lib.START, "a").add_edge("a", "sub").compile()

    @ls.traceable(name="outer")
    def outer() -> Any:
        return graph.invoke({"value": ""})

    client = ls.Client(session=MagicMock(), api_key="test", auto_batch_tracing=False)
    if how == "langchain's tracing_v2_enabled":  # (LangChain's switch, not LangSmith's)
        from langchain_core.tracers.context import tracing_v2_enabled

        switch: Any = tracing_v2_enabled(client=client)
    else:
        switch = ls.tracing_context(enabled=how != "disabled", client=client)
    with switch:
        if how == "ainvoke":
            asyncio.run(graph.ainvoke({"value": ""}))
        elif how == "inside a traceable":
            outer()
        else:
            graph.invoke({"value": ""})
    client.flush()
    runs = _posted_runs(client)
    names = {run_id: run["name"] for run_id, run in runs.items()}
    traces = len({run["trace_id"] for run in runs.values()})
    tree = sorted(
        (run["dotted_order"].count("."), run["name"], names.get(run.get("parent_run_id")), traces)
        for run in runs.values()
    )
    return tree, seen


@pytest.mark.parametrize(
    "how", ["invoke", "ainvoke", "inside a traceable", "langchain's tracing_v2_enabled", "disabled"]
)
def test_tracing_turned_on_without_a_handler_traces_the_whole_run(how):
    """As LangChain's runnables, a graph adds LangSmith's tracer itself when tracing is
    on: one trace of the graph, its tasks and its subgraph, not the node's calls alone."""
    expected = _ambient_tree(load_langgraph(), how)
    assert bool(expected[0]) is (how != "disabled")
    assert _ambient_tree(load_graphkit(), how) == expected


_CONFIGURED = """
import json, sys
from typing import TypedDict
from unittest.mock import MagicMock

import langsmith

if sys.argv[1] == "graphkit":
    from graphkit import START, StateGraph
else:
    from langgraph.graph import START, StateGraph


class State(TypedDict):
    value: str


graph = StateGraph(State).add_node("a", lambda state: {"value": "a"})
graph = graph.add_edge(START, "a").compile()
client = langsmith.Client(session=MagicMock(), api_key="test", auto_batch_tracing=False)
langsmith.configure(enabled=True, client=client)
graph.invoke({"value": ""})
posted = [
    json.loads(call.kwargs["data"])["name"]
    for call in client.session.request.mock_calls
    if call.args and call.args[0] == "POST" and "data" in call.kwargs
]
print(json.dumps(sorted(posted)))
"""


def _configured_runs(library: str) -> list[str]:
    """The runs posted when ``langsmith.configure(enabled=True)`` turned tracing on, in a
    fresh interpreter (so LangGraph has not imported LangSmith's helpers for graphkit)."""
    switches = ("LANGSMITH_TRACING", "LANGSMITH_TRACING_V2", "LANGCHAIN_TRACING_V2")
    return run_fresh(["-c", _CONFIGURED, library], env=dict.fromkeys(switches))


def test_tracing_turned_on_by_langsmith_configure_traces_the_run():
    """``langsmith.configure(enabled=True)`` is LangSmith's switch in code, as the
    environment variable: it turns on without importing ``langsmith.run_helpers``."""
    expected = _configured_runs("langgraph")
    assert expected == ["LangGraph", "a"]
    assert _configured_runs("graphkit") == expected
