"""An ``async def`` router (a conditional edge's path) is awaited, as in LangGraph: under
``ainvoke``/``astream`` its coroutine runs on the caller's event loop, and a synchronous run
refuses it with a TypeError (LangGraph: "No synchronous function provided") — issue 14.
"""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, TypedDict

import pytest

from .harness import Case, Lib, compare, load_graphkit, load_langgraph, observe


class State(TypedDict, total=False):
    a: str
    log: Annotated[list, operator.add]


async def after_n(state):
    await asyncio.sleep(0)
    return "b" if state["a"].endswith("n") else "__end__"


async def from_start(state, config):
    await asyncio.sleep(0)
    return "long" if len(state["a"]) > 2 else "short"


class FanOut:
    """A router object whose ``__call__`` is async: it picks several nodes at once."""

    async def __call__(self, state):
        await asyncio.sleep(0)
        return ["b", "c"]


def _node(name: str):
    return lambda state: {"a": state["a"] + name, "log": [name]}


def router_after_node(lib: Lib, checkpointer=None):
    graph = lib.StateGraph(State)
    graph.add_node("n", _node("n"))
    graph.add_node("b", _node("b"))
    graph.add_edge(lib.START, "n")
    graph.add_conditional_edges("n", after_n)
    return graph.compile(checkpointer=checkpointer)


def router_from_start_with_path_map(lib: Lib):
    graph = lib.StateGraph(State)
    graph.add_node("b", _node("b"))
    graph.add_node("c", _node("c"))
    graph.add_conditional_edges(lib.START, from_start, {"long": "b", "short": "c"})
    return graph.compile()


def router_object_fans_out(lib: Lib):
    graph = lib.StateGraph(State)
    for name in "nbc":
        graph.add_node(name, _node(name))
    graph.add_edge(lib.START, "n")
    graph.add_conditional_edges("n", FanOut(), ["b", "c"])
    return graph.compile()


BUILDS = {
    "after-node": router_after_node,
    "from-start-path-map": router_from_start_with_path_map,
    "object-fans-out": router_object_fans_out,
}
INPUTS = ({"a": ""}, {"a": "xyz"})


@pytest.mark.parametrize("run_async", [True, False], ids=["async", "sync"])
@pytest.mark.parametrize("name", BUILDS)
def test_async_router_conforms(name: str, run_async: bool) -> None:
    case = Case(name, BUILDS[name], inputs=INPUTS, run_async=run_async)
    expected = observe(case, load_langgraph())
    assert expected.runs, "LangGraph ran nothing"
    assert compare(case, expected, observe(case, load_graphkit())) == []


def test_async_run_routes_by_the_routers_answer() -> None:
    """Not by the coroutine object: the router's choice runs (both libraries)."""
    for lib in (load_langgraph(), load_graphkit()):
        result = asyncio.run(router_after_node(lib).ainvoke({"a": ""}))
        assert result == {"a": "nb", "log": ["n", "b"]}, lib.name


def test_sync_run_refuses_an_async_router_by_name() -> None:
    with pytest.raises(TypeError, match="No synchronous function"):
        router_after_node(load_langgraph()).invoke({"a": ""})
    for build, where in (
        (router_after_node, "node 'n'"),
        (router_from_start_with_path_map, "the input"),
    ):
        with pytest.raises(TypeError) as raised:
            build(load_graphkit()).invoke({"a": ""})
        message = str(raised.value)
        assert where in message and "ainvoke" in message
        assert ("after_n" in message) or ("from_start" in message)


def test_async_router_runs_on_the_callers_event_loop() -> None:
    seen = []

    async def route(state):
        seen.append(asyncio.get_running_loop())
        return "__end__"

    lib = load_graphkit()
    graph = lib.StateGraph(State)
    graph.add_node("n", _node("n"))
    graph.add_edge(lib.START, "n")
    graph.add_conditional_edges("n", route)
    app = graph.compile()

    async def main():
        chunks = [chunk async for chunk in app.astream({"a": ""})]
        return asyncio.get_running_loop(), chunks

    loop, chunks = asyncio.run(main())
    assert seen == [loop] and chunks == [{"n": {"a": "n", "log": ["n"]}}]


def _memory_saver(lib: Lib):
    if lib.name == "langgraph":
        from langgraph.checkpoint.memory import InMemorySaver
    else:
        from graphkit.checkpoint.memory import InMemorySaver
    return InMemorySaver()


def test_sync_update_state_refuses_an_async_router() -> None:
    """update_state runs the node's writers, router included: sync, both raise TypeError."""
    for lib in (load_langgraph(), load_graphkit()):
        app = router_after_node(lib, _memory_saver(lib))
        with pytest.raises(TypeError):
            app.update_state({"configurable": {"thread_id": "t"}}, {"a": "n"}, as_node="n")


def test_aupdate_state_awaits_an_async_router() -> None:
    async def next_after_update(lib: Lib):
        app = router_after_node(lib, _memory_saver(lib))
        config = {"configurable": {"thread_id": "t"}}
        await app.aupdate_state(config, {"a": "n"}, as_node="n")
        return (await app.aget_state(config)).next

    assert asyncio.run(next_after_update(load_langgraph())) == ("b",)
    assert asyncio.run(next_after_update(load_graphkit())) == ("b",)
