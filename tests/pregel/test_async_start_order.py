"""A step's async nodes start on the loop in plan order, as LangGraph creates its tasks:
a node that fails once and is retried (``asyncio.sleep(0)`` between attempts) ends after
all its siblings, every run. Its thread used to hand its retry to the loop before late
sibling threads handed over their first attempt, so the finish order varied."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, TypedDict

import pytest

from tests.conformance.harness import load_graphkit, load_langgraph

NAMES = "abcdef"


class Flaky(Exception):
    """Retried by the default `retry_on` (a ValueError is not)."""


class State(TypedDict, total=False):
    log: Annotated[list, operator.add]


def _graph(lib):
    graph = lib.StateGraph(State)
    failed = []

    def make(name):
        async def node(state):
            if name == "a" and not failed:
                failed.append(name)
                raise Flaky("fails once")
            return {"log": [name]}

        return node

    retry = lib.RetryPolicy(max_attempts=2, initial_interval=0.0, jitter=False)
    for name in NAMES:
        graph.add_node(name, make(name), retry_policy=retry if name == "a" else None)
        graph.add_edge(lib.START, name)
    return graph.compile()


async def _streamed(lib) -> list[str]:
    return [name async for chunk in _graph(lib).astream({}) for name in chunk]


def _finished(run) -> list[str]:
    execution = run.step(1).execution
    nodes = {result.task.id: result.task.node for result in execution.results}
    return [nodes[task] for task in execution.finish_order]


@pytest.mark.parametrize("how", ["trace", "atrace"])
def test_a_retried_async_node_ends_after_its_siblings_every_run(how: str) -> None:
    expected = asyncio.run(_streamed(load_langgraph()))
    assert expected == ["b", "c", "d", "e", "f", "a"]
    graphkit = load_graphkit()
    assert asyncio.run(_streamed(graphkit)) == expected
    for _ in range(40):
        app = _graph(graphkit)
        run = app.trace({}) if how == "trace" else asyncio.run(app.atrace({}))
        assert _finished(run) == expected
