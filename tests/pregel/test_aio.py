"""ainvoke / astream: the same loop, async nodes running concurrently on the caller's loop."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, TypedDict

import pytest

from graphkit import START, StateGraph


class State(TypedDict):
    log: Annotated[list, operator.add]


def fan_out_of_async_nodes(width: int, all_started: asyncio.Event, started: list[str]):
    def make(name: str):
        async def node(state):
            started.append(name)
            if len(started) == width:
                all_started.set()
            # finishes only once every sibling has started: proves they run concurrently
            await asyncio.wait_for(all_started.wait(), timeout=10)
            return {"log": [name]}

        return node

    builder = StateGraph(State)
    for index in range(width):
        builder.add_node(f"n{index}", make(f"n{index}")).add_edge(START, f"n{index}")
    builder.add_node("after", lambda state: {"log": ["after"]}).add_edge("n0", "after")
    return builder.compile()


def test_ainvoke_runs_a_steps_async_tasks_concurrently_on_the_callers_loop():
    async def main():
        app = fan_out_of_async_nodes(3, asyncio.Event(), [])
        return await app.ainvoke({"log": []})

    assert asyncio.run(main()) == {"log": ["n0", "n1", "n2", "after"]}


def test_astream_yields_the_same_chunks_as_stream():
    async def main():
        app = fan_out_of_async_nodes(2, asyncio.Event(), [])
        return [chunk async for chunk in app.astream({"log": []}, stream_mode="values")]

    assert asyncio.run(main()) == [
        {"log": []},
        {"log": ["n0", "n1"]},
        {"log": ["n0", "n1", "after"]},
    ]


def test_errors_from_async_nodes_reach_the_caller():
    async def boom(state):
        raise KeyError("async boom")

    async def main():
        builder = StateGraph(State).add_node("boom", boom).add_edge(START, "boom")
        await builder.compile().ainvoke({"log": []})

    with pytest.raises(KeyError, match="async boom"):
        asyncio.run(main())


def test_closing_astream_early_stops_the_run():
    ran = []

    def step(name):
        def node(state):
            ran.append(name)
            return {"log": [name]}

        return node

    builder = StateGraph(State)
    for name in "abcd":
        builder.add_node(name, step(name))
    builder.add_edge(START, "a").add_edge("a", "b").add_edge("b", "c").add_edge("c", "d")

    async def main():
        stream = builder.compile().astream({"log": []}, stream_mode="updates")
        first = await anext(stream)
        await stream.aclose()
        return first

    assert asyncio.run(main()) == {"a": {"log": ["a"]}}
    assert ran == ["a"]  # the run computes a chunk only when asked for one
