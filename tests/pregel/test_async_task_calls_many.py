"""More ``@task`` calls than the shared pool has threads, from more tasks than it has
threads (``graphkit.pregel.pool``): 80 ``Send``s whose node gathers 10 calls each hung,
every thread held by a node waiting for calls no thread was left to run. LangGraph runs
them on its loop; the runs here are compared with its results where it finishes. Each
run has a hard time limit, so a deadlock fails the test instead of hanging the suite."""

from __future__ import annotations

import asyncio
import gc
import operator
import threading
import time
import warnings
from typing import Annotated, Any, TypedDict

import pytest

import graphkit
from tests.pregel.deadlines import within_limit

LIMIT = 120.0  # seconds: generous; these runs take well under one
SENDS, CALLS = 80, 10


class State(TypedDict, total=False):
    xs: Annotated[list, operator.add]
    i: int


@pytest.fixture(autouse=True)
def _no_work_left_behind() -> Any:
    """A stopped step's tasks still queued on the shared pool run (and end at once)
    after the run raised: wait for them, so that the next test finds the pool idle."""
    yield
    from graphkit.pregel.pool import POOL

    assert POOL.idle(10.0), "the pool's jobs did not finish within 10 s of the test"


def _library(name: str) -> Any:
    """``StateGraph``, ``START``, ``END``, ``Send``, ``RetryPolicy`` and ``task`` of
    graphkit or LangGraph."""
    if name == "graphkit":
        from graphkit.func import task

        return (graphkit.StateGraph, graphkit.START, graphkit.END, graphkit.Send,
                graphkit.RetryPolicy, task)  # fmt: skip
    from langgraph.func import task as their_task
    from langgraph.graph import END, START, StateGraph
    from langgraph.types import RetryPolicy, Send

    return StateGraph, START, END, Send, RetryPolicy, their_task


def _app(lib: str, kind: str) -> Any:
    """80 ``Send``s to one node that calls a task 10 times; ``kind``: ``async`` (an async
    task, gathered), ``sync`` (a sync task, awaited), ``retry`` (as ``async``, each Send
    failing once first), ``nested`` (an async task that gathers calls of another)."""
    StateGraph, START, END, Send, RetryPolicy, task = _library(lib)

    @task
    async def square(x: int) -> int:
        await asyncio.sleep(0.001)
        return x * x

    @task
    def sync_square(x: int) -> int:
        time.sleep(0.001)
        return x * x

    @task
    async def twice_square(x: int) -> int:
        return sum(await asyncio.gather(square(x), square(x))) // 2

    failed: set[int] = set()
    called = {"async": square, "retry": square, "sync": sync_square, "nested": twice_square}

    async def work(state: State) -> State:
        if kind == "retry" and state["i"] not in failed:
            failed.add(state["i"])
            raise RuntimeError("fails once")
        futures = [called[kind](state["i"] * CALLS + j) for j in range(CALLS)]
        return {"xs": list(await asyncio.gather(*futures))}

    graph = StateGraph(State)
    retry = RetryPolicy(max_attempts=2, initial_interval=0.0, jitter=False, retry_on=RuntimeError)
    graph.add_node("work", work, retry_policy=retry if kind == "retry" else None)
    graph.add_conditional_edges(START, lambda s: [Send("work", {"i": i}) for i in range(SENDS)])
    graph.add_edge("work", END)
    return graph.compile()


def _run(app: Any, how: str) -> list[int]:
    """The run's ``xs``, by ``how``: ``ainvoke``, ``trace`` or ``atrace``."""
    if how == "ainvoke":
        return asyncio.run(app.ainvoke({"xs": []}))["xs"]
    if how == "trace":
        return app.trace({"xs": []}).values["xs"]
    return asyncio.run(app.atrace({"xs": []})).values["xs"]


def _pool_threads() -> int:
    return sum(1 for t in threading.enumerate() if t.name.startswith("graphkit_"))


@pytest.mark.parametrize("how", ["ainvoke", "trace", "atrace"])
@pytest.mark.parametrize("kind", ["async", "sync", "retry"])
def test_80_sends_each_calling_a_task_10_times_finish_as_in_langgraph(kind: str, how: str) -> None:
    expected = sorted(within_limit(lambda: _run(_app("langgraph", kind), "ainvoke"), LIMIT))
    assert expected == sorted(x * x for x in range(SENDS * CALLS))
    peak = [0]
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(0.002):
            peak[0] = max(peak[0], _pool_threads())

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        got = within_limit(lambda: _run(_app("graphkit", kind), how), LIMIT)
    finally:
        stop.set()
        watcher.join()
    assert sorted(got) == expected
    from graphkit.pregel.pool import WORKERS

    assert peak[0] <= WORKERS  # the waiting threads ran the calls: no thread was added


@pytest.mark.parametrize("how", ["ainvoke", "trace"])
def test_calls_that_gather_calls_from_80_sends_finish(how: str) -> None:
    """Each call waits for calls of its own: the thread running one runs those."""
    got = within_limit(lambda: _run(_app("graphkit", "nested"), how), LIMIT)
    assert sorted(got) == sorted(x * x for x in range(SENDS * CALLS))


def test_sync_nodes_waiting_for_80x10_sync_calls_finish() -> None:
    """A sync node's ``future.result()`` holds its thread as an async node's wait does.
    (LangGraph 1.2 never finishes this run: its tasks wait for calls no thread runs.)"""
    from graphkit.func import task

    @task
    def square(x: int) -> int:
        return x * x

    def work(state: State) -> State:
        futures = [square(state["i"] * CALLS + j) for j in range(CALLS)]
        return {"xs": [future.result() for future in futures]}

    graph = graphkit.StateGraph(State)
    graph.add_node("work", work)
    sends = [graphkit.Send("work", {"i": i}) for i in range(SENDS)]
    graph.add_conditional_edges(graphkit.START, lambda s: sends)
    app = graph.compile()
    got = within_limit(lambda: app.invoke({"xs": []})["xs"], LIMIT)
    assert sorted(got) == sorted(x * x for x in range(SENDS * CALLS))


def _fan_out(work: Any, sends: int = 300) -> Any:
    graph = graphkit.StateGraph(State)
    graph.add_node("work", work)
    fan = [graphkit.Send("work", {"i": i}) for i in range(sends)]
    graph.add_conditional_edges(graphkit.START, lambda s: fan)
    graph.add_edge("work", graphkit.END)
    return graph.compile()


async def _slow(state: State) -> State:
    # (the step times out first; tasks still queued then may yet run it after the run
    # raised, so it is short enough for them to end well within the fixture's wait)
    await asyncio.sleep(1)
    return {"xs": [state["i"]]}


def test_tasks_cancelled_before_their_start_turn_leave_no_coroutine_never_awaited() -> None:
    """300 async Sends: those whose turn had not come when the step timed out had made
    their node's coroutine already, and Python warned "coroutine 'work' was never
    awaited" for each."""
    app = _fan_out(_slow)
    app.step_timeout = 0.1
    stops = TimeoutError

    def run() -> bool:
        for _ in range(3):  # (whether a task still waits for its turn then is a race)
            with pytest.raises(stops):
                asyncio.run(app.ainvoke({"xs": []}))
        return True

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        within_limit(run, LIMIT)
        gc.collect()
    never_awaited = [str(w.message) for w in caught if "never awaited" in str(w.message)]
    assert never_awaited == []
