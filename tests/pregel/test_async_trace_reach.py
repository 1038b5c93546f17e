"""Where ``trace``, ``stepper`` and the debugger find the async nodes they need graphkit's
loop for (a subgraph kept without a saver, an async task a sync entrypoint calls; not a
graph a sync node invokes, a sync run as in LangGraph), a trace inside an async node
they run, and what a cancelled ``atrace`` leaves (its records)."""

from __future__ import annotations

import asyncio
import operator
import threading
from typing import Annotated, TypedDict

import pytest

from graphkit import START, StateGraph
from graphkit.checkpoint import InMemorySaver


class State(TypedDict):
    log: Annotated[list, operator.add]


async def leaf(state):
    await asyncio.sleep(0)
    return {"log": ["leaf"]}


def plain(state):
    return {"log": ["plain"]}


def one_node(node, **compile_options):
    builder = StateGraph(State).add_node(node.__name__, node).add_edge(START, node.__name__)
    return builder.compile(**compile_options)


def test_a_subgraph_node_compiled_without_a_saver_has_its_async_nodes_traced():
    """``checkpointer=False`` keeps it out of ``get_subgraphs`` (as in LangGraph), yet
    its async nodes still run in the parent's run."""
    inner = one_node(leaf, checkpointer=False)
    app = StateGraph(State).add_node("inner", inner).add_edge(START, "inner").compile()
    assert list(app.get_subgraphs(recurse=True)) == []
    assert app.trace({"log": []}).values == asyncio.run(app.ainvoke({"log": []}))
    assert app.trace({"log": []}).values == {"log": ["leaf"]}


@pytest.mark.parametrize("wrap", ["with_retry", "with_config", "binding"])
def test_a_subgraph_node_in_a_langchain_binding_has_its_async_nodes_traced(wrap):
    """LangGraph's ``ainvoke`` awaits a binding round a graph (``sub.with_retry()``) as
    it awaits the graph: ``trace`` found no async node through it, so it ran the step
    without a loop and the subgraph refused its async node."""
    from langchain_core.runnables import RunnableBinding
    from langgraph.graph import START as THEIR_START
    from langgraph.graph import StateGraph as TheirGraph

    def wrapped(inner):
        if wrap == "binding":  # (what ``.bind()`` makes, round graphkit's graph itself)
            return RunnableBinding(bound=inner, kwargs={}, config={"tags": ["t"]})
        return getattr(inner, wrap)(**({"tags": ["t"]} if wrap == "with_config" else {}))

    def outer(library_graph, start):
        inner = library_graph(State).add_node("leaf", leaf).add_edge(start, "leaf").compile()
        node = wrapped(inner)
        return library_graph(State).add_node("sub", node).add_edge(start, "sub").compile()

    expected = asyncio.run(outer(TheirGraph, THEIR_START).ainvoke({"log": []}))
    assert expected == {"log": ["leaf"]}
    assert outer(StateGraph, START).trace({"log": []}).values == expected


def test_the_second_graph_a_sync_node_invokes_is_refused_as_under_ainvoke():
    """``get_subgraphs`` names the first graph a node's function reaches, as LangGraph's
    does; a sync node's ``.invoke`` of any of them is a sync run, which refuses async
    nodes under ``trace`` as LangGraph's ``ainvoke`` does."""
    from langgraph.graph import START as THEIR_START
    from langgraph.graph import StateGraph as TheirStateGraph

    def two_graphs(state_graph, start):
        def graph(node):
            return state_graph(State).add_node(node.__name__, node).add_edge(start, node.__name__)

        first, second = graph(plain).compile(), graph(leaf).compile()

        def both(state):
            return {"log": first.invoke({"log": []})["log"] + second.invoke({"log": []})["log"]}

        return state_graph(State).add_node("both", both).add_edge(start, "both").compile(), first

    theirs, _ = two_graphs(TheirStateGraph, THEIR_START)
    with pytest.raises(TypeError):
        asyncio.run(theirs.ainvoke({"log": []}))
    app, first = two_graphs(StateGraph, START)
    assert [graph for _, graph in app.get_subgraphs(recurse=True)] == [first]
    with pytest.raises(TypeError, match="node 'both' runs synchronously"):
        app.trace({"log": []})


def test_a_sync_entrypoint_calling_an_async_task_is_traced_as_ainvoke_runs_it():
    from langgraph import func as theirs

    from graphkit import func as ours

    def flow(lib):
        @lib.task
        async def add_one(x):
            await asyncio.sleep(0)
            return x + 1

        @lib.entrypoint(checkpointer=InMemorySaver() if lib is ours else None)
        def add_eleven(x):
            return add_one(x).result() + 10

        return add_eleven

    config = {"configurable": {"thread_id": "t"}}
    expected = asyncio.run(flow(theirs).ainvoke(1))
    assert asyncio.run(flow(ours).ainvoke(1, config)) == expected == 12
    app = flow(ours)
    run = app.trace(1, config)
    assert run.status == "done"
    assert app.get_state(config).values == expected


def test_a_trace_inside_an_async_node_that_trace_runs_runs_on_a_loop_of_its_own():
    """The node's thread runs graphkit's loop and waits for the inner graph: its nodes
    run on the next loop (one more per level), as under ``ainvoke`` they run on the
    first."""
    inner = one_node(leaf)

    async def outer(state):
        return {"log": [*inner.trace({"log": []}).values["log"], "outer"]}

    app = one_node(outer)
    expected = asyncio.run(app.ainvoke({"log": []}))
    assert app.trace({"log": []}).values == expected == {"log": ["leaf", "outer"]}

    async def deeper(state):
        return {"log": [*app.trace({"log": []}).values["log"], "deeper"]}

    assert one_node(deeper).trace({"log": []}).values == {"log": ["leaf", "outer", "deeper"]}
    assert {t.name for t in threading.enumerate()} >= {
        "graphkit-async-nodes",
        "graphkit-async-nodes_1",
        "graphkit-async-nodes_2",
    }


def test_a_cancelled_atrace_keeps_the_run_so_far_on_its_cancelled_error():
    started = asyncio.Event()  # (set on the caller's loop: atrace runs the nodes there)

    async def fast(state):
        return {"log": ["fast"]}

    async def slow(state):
        started.set()
        await asyncio.sleep(60)
        return {"log": ["slow"]}

    builder = StateGraph(State).add_node("fast", fast).add_node("slow", slow)
    app = builder.add_edge(START, "fast").add_edge("fast", "slow").compile()

    async def main():
        tracing = asyncio.create_task(app.atrace({"log": []}))
        await started.wait()
        tracing.cancel()
        with pytest.raises(asyncio.CancelledError) as raised:
            await tracing
        return raised.value

    cancelled = asyncio.run(main())
    assert cancelled.run.values == {"log": ["fast"]}
    assert [task.node for task in cancelled.run.steps[-1].plan.tasks] == ["slow"]
    assert "cancelled" in str(cancelled.run)
