"""Recording a graph with ``async def`` nodes: ``await app.atrace(...)`` runs them on the
caller's event loop, as ``ainvoke`` does; ``trace``, ``stepper`` and the debugger run
them on graphkit's own loop, since the code that steps them is synchronous (in a
notebook the kernel's loop is busy running that code). ``invoke`` still refuses them,
as LangGraph's does."""

from __future__ import annotations

import asyncio
import operator
import threading
from typing import Annotated, TypedDict

import pytest

from graphkit import END, START, StateGraph
from graphkit.checkpoint import InMemorySaver


class State(TypedDict):
    log: Annotated[list, operator.add]


def meeting_graph(**compile_options):
    """``a`` and ``b`` run in step 1 and must both reach a barrier of two: only possible
    when they really run at the same time on one event loop."""
    barrier: dict[str, asyncio.Barrier] = {}

    async def meet(name: str) -> dict:
        loop = asyncio.get_running_loop()
        here = barrier.setdefault(str(id(loop)), asyncio.Barrier(2))
        await asyncio.wait_for(here.wait(), timeout=30)
        return {"log": [name]}

    async def a(state):
        return await meet("a")

    async def b(state):
        return await meet("b")

    def end(state):  # a sync node beside them: it runs in a worker thread
        return {"log": [f"end after {len(state['log'])}"]}

    builder = StateGraph(State)
    builder.add_node("a", a).add_node("b", b).add_node("end", end)
    builder.add_edge(START, "a").add_edge(START, "b").add_edge(["a", "b"], "end")
    builder.add_edge("end", END)
    return builder.compile(**compile_options)


EXPECTED = {"log": ["a", "b", "end after 2"]}


def test_atrace_records_what_ainvoke_returns_with_the_tasks_side_by_side():
    app = meeting_graph()
    run = asyncio.run(app.atrace({"log": []}))
    assert run.values == asyncio.run(app.ainvoke({"log": []})) == EXPECTED
    assert run.status == "done"
    assert [task.node for task in run.step(1).plan.tasks] == ["a", "b"]
    assert [task.node for task in run.step(2).plan.tasks] == ["end"]


def test_atrace_runs_async_nodes_on_the_callers_loop():
    seen = []

    async def node(state):
        seen.append(asyncio.get_running_loop())
        return {"log": ["x"]}

    app = StateGraph(State).add_node("node", node).add_edge(START, "node").compile()

    async def main():
        await app.atrace({"log": []})
        return asyncio.get_running_loop()

    assert seen == [asyncio.run(main())]


def test_a_failing_atrace_raises_with_the_run_so_far():
    async def ok(state):
        return {"log": ["ok"]}

    async def broken(state):
        raise ValueError("no luck")

    builder = StateGraph(State).add_node("ok", ok).add_node("broken", broken)
    app = builder.add_edge(START, "ok").add_edge("ok", "broken").compile()
    with pytest.raises(ValueError, match="no luck") as raised:
        asyncio.run(app.atrace({"log": []}))
    run = raised.value.run
    assert run.status == "error"
    assert run.values == {"log": ["ok"]}


def test_trace_runs_async_nodes_where_invoke_refuses_them():
    app = meeting_graph()
    with pytest.raises(TypeError, match="is an async function, and this run is synchronous"):
        app.invoke({"log": []})
    run = app.trace({"log": []})
    assert run.values == EXPECTED
    assert [task.node for task in run.step(1).plan.tasks] == ["a", "b"]


def test_trace_works_where_an_event_loop_already_runs_as_in_a_notebook():
    """A notebook cell runs on the thread of the kernel's loop, which cannot run the
    nodes while it waits for them: they run on graphkit's loop instead."""
    app = meeting_graph()

    async def cell():
        return app.trace({"log": []})

    run = asyncio.run(cell())
    assert run.values == EXPECTED


def test_a_stepper_steps_an_async_graph_phase_by_phase():
    stepper = meeting_graph().stepper({"log": []})
    stepper.step(), stepper.step()  # the input step and __start__
    plan = stepper.plan()
    assert [task.node for task in plan.tasks] == ["a", "b"]
    execution = stepper.execute()
    assert sorted(result.task.node for result in execution.results) == ["a", "b"]
    stepper.update()
    assert stepper.run().values == EXPECTED


def test_an_async_subgraph_in_a_sync_parent_is_traced():
    inner = meeting_graph()

    def before(state):
        return {"log": ["before"]}

    outer = StateGraph(State).add_node("before", before).add_node("inner", inner)
    app = outer.add_edge(START, "before").add_edge("before", "inner").compile()
    run = app.trace({"log": []})
    assert run.values == {"log": ["before", "before", "a", "b", "end after 3"]}


def test_the_debugger_steps_an_async_graph_to_its_end():
    from graphkit.widgets.session import DebugSession

    session = DebugSession(meeting_graph(checkpointer=InMemorySaver()), {"log": []})
    session.step(), session.step()  # the input step and __start__
    assert [task.node for task in session.plan().tasks] == ["a", "b"]
    session.run()
    assert session.status == "done"
    assert session.values == EXPECTED


def test_a_sync_graph_is_stepped_without_graphkits_loop():
    """Only a graph with async nodes gets graphkit's loop: a sync graph's Runnable node
    keeps its ``invoke`` (an async run would call its ``ainvoke``)."""
    threads = []

    def node(state):
        threads.append(threading.current_thread().name)
        return {"log": ["x"]}

    app = StateGraph(State).add_node("node", node).add_edge(START, "node").compile()
    assert app.stepper({"log": []}).run().values == {"log": ["x"]}
    assert "graphkit-async-nodes" not in threads
    assert not app._has_async_nodes()


def test_a_langgraph_app_with_async_nodes_is_traced_as_ainvoke_runs_it():
    langgraph = pytest.importorskip("langgraph.graph")
    from graphkit.bridge import from_langgraph

    async def a(state):
        await asyncio.sleep(0)
        return {"log": ["a"]}

    async def b(state):
        return {"log": ["b"]}

    builder = langgraph.StateGraph(State)
    builder.add_node("a", a).add_node("b", b)
    builder.add_edge(langgraph.START, "a").add_edge("a", "b")
    theirs = builder.compile()
    expected = asyncio.run(theirs.ainvoke({"log": []}))
    app = from_langgraph(theirs)
    assert app.trace({"log": []}).values == expected == {"log": ["a", "b"]}
    assert asyncio.run(app.atrace({"log": []})).values == expected


def test_atrace_refuses_a_loop_and_says_why():
    app, other = meeting_graph(), asyncio.new_event_loop()
    try:
        with pytest.raises(TypeError, match=r"takes no loop=: await it on the loop you want"):
            asyncio.run(app.atrace({"log": []}, loop=other))
    finally:
        other.close()
