"""An async node ``trace`` could not find before the run: in a graph a sync node builds
and runs as it runs. LangGraph refuses a sync ``.invoke`` of that graph in any run (a
``TypeError``), so graphkit does not run it on its loop behind the caller's back: it
raises the same type, saying what happened and the fixes that work for the call made
(``atrace``, or the inner graph built outside the node, for ``trace`` and the stepper;
an async node awaiting ``ainvoke`` for LangGraph's interface)."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest

import graphkit
from graphkit.checkpoint import InMemorySaver


class State(TypedDict):
    log: Annotated[list, operator.add]


async def leaf(state: State) -> dict[str, Any]:
    await asyncio.sleep(0)
    return {"log": ["leaf"]}


def one_node(library: Any, name: str, node: Any, **compile_options: Any) -> Any:
    builder = library.StateGraph(State).add_node(name, node).add_edge(library.START, name)
    return builder.compile(**compile_options)


def building_inside(library: Any, **compile_options: Any) -> Any:
    """``outer`` builds its graph as it runs, and runs it synchronously."""

    def outer(state: State) -> dict[str, Any]:
        inner = one_node(library, "leaf", leaf)
        return {"log": [*inner.invoke({"log": []})["log"], "outer"]}

    return one_node(library, "outer", outer, **compile_options)


def test_langgraph_refuses_the_inner_graph_in_any_run_with_a_type_error() -> None:
    langgraph = pytest.importorskip("langgraph.graph")
    theirs = building_inside(langgraph)
    with pytest.raises(TypeError):
        theirs.invoke({"log": []})
    with pytest.raises(TypeError):
        asyncio.run(theirs.ainvoke({"log": []}))
    with pytest.raises(TypeError):
        building_inside(graphkit).invoke({"log": []})


def test_trace_says_it_could_not_find_the_inner_graph_and_what_works() -> None:
    app = building_inside(graphkit)
    with pytest.raises(TypeError) as raised:
        app.trace({"log": []})
    message = str(raised.value)
    assert "Node 'leaf' is an async function" in message
    assert "node 'outer' runs synchronously" in message
    assert "trace could not find" in message
    assert "await app.atrace(...)" in message
    assert "build the inner graph outside the node" in message
    assert "make 'outer' an async def that awaits" in message.lower()
    assert raised.value.run.steps[-1].plan.tasks[0].node == "outer"  # type: ignore[attr-defined]


def test_the_stepper_and_the_debugger_say_so_too() -> None:
    from graphkit.widgets.session import DebugSession

    stepper = building_inside(graphkit).stepper({"log": []})
    with pytest.raises(TypeError, match=r"await app\.atrace"):
        stepper.run()
    session = DebugSession(building_inside(graphkit, checkpointer=InMemorySaver()), {"log": []})
    session.run()  # (the debugger shows a failed step; it does not raise)
    assert session.status == "error"
    assert "await app.atrace" in str(session.stepper.error)


def test_invoke_names_langgraphs_fix_not_graphkits_trace() -> None:
    with pytest.raises(TypeError) as raised:
        building_inside(graphkit).invoke({"log": []})
    message = str(raised.value)
    assert "node 'outer' runs synchronously" in message
    assert "await app.ainvoke(...)" in message
    assert "atrace" not in message and "could not find" not in message


def test_the_fixes_the_message_names_work() -> None:
    app = building_inside(graphkit)
    assert asyncio.run(app.atrace({"log": []})).values == {"log": ["leaf", "outer"]}

    inner = one_node(graphkit, "leaf", leaf)  # built outside the node: trace finds it

    def outer(state: State) -> dict[str, Any]:
        return {"log": [*inner.invoke({"log": []})["log"], "outer"]}

    assert one_node(graphkit, "outer", outer).trace({"log": []}).values == {
        "log": ["leaf", "outer"]
    }


def test_an_async_outer_node_awaiting_the_inner_graph_traces_as_langgraph_runs_it() -> None:
    langgraph = pytest.importorskip("langgraph.graph")

    def awaiting(library: Any) -> Any:
        async def outer(state: State) -> dict[str, Any]:
            inner = one_node(library, "leaf", leaf)
            return {"log": [*(await inner.ainvoke({"log": []}))["log"], "outer"]}

        return one_node(library, "outer", outer)

    expected = asyncio.run(awaiting(langgraph).ainvoke({"log": []}))
    assert awaiting(graphkit).trace({"log": []}).values == expected == {"log": ["leaf", "outer"]}
