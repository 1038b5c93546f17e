"""Where ``trace``, ``stepper`` and the debugger find the async nodes they need graphkit's
loop for (a subgraph kept without a saver, a second graph a node calls, an async task a
sync entrypoint calls), a trace inside an async node they run, and what a cancelled
``atrace`` leaves (its records)."""

from __future__ import annotations

import asyncio
import operator
import threading
from typing import Annotated, TypedDict

from graphkit import START, StateGraph


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
