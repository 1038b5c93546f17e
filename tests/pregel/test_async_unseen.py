"""An async node in a graph a sync node builds and runs as it runs. LangGraph refuses a
sync ``.invoke`` of that graph in any run (a ``TypeError``), and so does graphkit, in
``trace``, ``atrace``, the stepper and the debugger too (``test_async_sync_invoke``):
it raises the same type, saying what happened and the fix that works for the call made
(an async node awaiting ``ainvoke``; under ``invoke``, the outer graph's ``ainvoke``)."""

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


def test_trace_says_which_node_ran_the_graph_and_what_works() -> None:
    app = building_inside(graphkit)
    with pytest.raises(TypeError) as raised:
        app.trace({"log": []})
    message = str(raised.value)
    assert "Node 'leaf' is an async function" in message
    assert "node 'outer' runs synchronously" in message
    assert "`ainvoke`, `trace` and `atrace` too" in message
    assert "make 'outer' an async def that awaits" in message.lower()
    assert "atrace(...)" not in message and "outside the node" not in message
    assert raised.value.run.steps[-1].plan.tasks[0].node == "outer"  # type: ignore[attr-defined]


def test_the_stepper_and_the_debugger_say_so_too() -> None:
    from graphkit.widgets.session import DebugSession

    stepper = building_inside(graphkit).stepper({"log": []})
    with pytest.raises(TypeError, match="node 'outer' runs synchronously"):
        stepper.run()
    session = DebugSession(building_inside(graphkit, checkpointer=InMemorySaver()), {"log": []})
    session.run()  # (the debugger shows a failed step; it does not raise)
    assert session.status == "error"
    assert "node 'outer' runs synchronously" in str(session.stepper.error)


def test_invoke_names_langgraphs_fix_not_graphkits_trace() -> None:
    with pytest.raises(TypeError) as raised:
        building_inside(graphkit).invoke({"log": []})
    message = str(raised.value)
    assert "node 'outer' runs synchronously" in message
    assert "await app.ainvoke(...)" in message
    assert "the debugger then run it" not in message


def test_an_async_outer_node_awaiting_the_inner_graph_traces_as_langgraph_runs_it() -> None:
    langgraph = pytest.importorskip("langgraph.graph")

    def awaiting(library: Any) -> Any:
        async def outer(state: State) -> dict[str, Any]:
            inner = one_node(library, "leaf", leaf)
            return {"log": [*(await inner.ainvoke({"log": []}))["log"], "outer"]}

        return one_node(library, "outer", outer)

    expected = asyncio.run(awaiting(langgraph).ainvoke({"log": []}))
    assert awaiting(graphkit).trace({"log": []}).values == expected == {"log": ["leaf", "outer"]}
