"""A task that fails its step in an async run cancels the async nodes still running, as
in LangGraph: the run raises at once, each cancelled node is saved with a
``CancelledError``, and ``get_state`` lists both tasks as next. In a sync run (threads
cannot be cancelled) the others finish and their writes are kept, in both libraries."""

from __future__ import annotations

import asyncio
import operator
import threading
import time
from typing import Annotated, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS


class State(TypedDict):
    out: Annotated[list, operator.add]


def _graph(lib: Lib, run_async: bool, finished: list[str], saver: object, first: str):
    released = threading.Event()  # never set: "slow" ends only if it is not cancelled

    async def fails(state):
        await asyncio.sleep(0.05)
        raise ValueError("boom")

    async def slow(state):
        await asyncio.sleep(1.0)
        finished.append("slow")
        return {"out": ["slow"]}

    def fails_sync(state):
        time.sleep(0.05)
        raise ValueError("boom")

    def slow_sync(state):
        released.wait(0.3)
        finished.append("slow")
        return {"out": ["slow"]}

    # ``first``: which of the two the plan lists first (the step raises the failure, not
    # the cancelled task's CancelledError, whatever the order)
    failing, slow_name = ("a_fails", "b_slow") if first == "failing" else ("b_fails", "a_slow")
    graph = lib.StateGraph(State)
    graph.add_node(failing, fails if run_async else fails_sync)
    graph.add_node(slow_name, slow if run_async else slow_sync)
    graph.add_edge(lib.START, failing).add_edge(lib.START, slow_name)
    return graph.compile(checkpointer=saver)


def _observe(lib: Lib, run_async: bool, first: str) -> dict:
    finished: list[str] = []
    config = {"configurable": {"thread_id": "t"}}
    with SAVERS["memory"](lib.name) as saver:
        app = _graph(lib, run_async, finished, saver, first)
        try:
            if run_async:
                asyncio.run(app.ainvoke({"out": []}, config))
            else:
                app.invoke({"out": []}, config)
            raised = None
        except Exception as error:  # (the class is what is compared)
            raised = type(error).__name__
        state = app.get_state(config)
    tasks = sorted((task.name, str(task.error) if task.error else None) for task in state.tasks)
    return {"raised": raised, "finished": finished, "state": (state.values, state.next, tasks)}


@pytest.mark.parametrize("first", ["failing", "slow"])
@pytest.mark.parametrize("run_async", [True, False], ids=["async", "sync"])
def test_a_failing_task_stops_its_step_as_in_langgraph(run_async, first):
    expected = _observe(load_langgraph(), run_async, first)
    got = _observe(load_graphkit(), run_async, first)
    assert got == expected
    assert got["raised"] == "ValueError"
    assert got["finished"] == ([] if run_async else ["slow"])
    if run_async:
        errors = sorted(error for _, error in got["state"][2])
        assert errors == ["CancelledError()", "ValueError('boom')"]
