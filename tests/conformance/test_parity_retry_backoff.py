"""The wait between a task's attempts (its retry policy's backoff), on both libraries: in a
sync run ``time.sleep``; in an async run ``asyncio.sleep`` on the run's event loop, so that
cancelling the run, or a sibling failing the step, ends the wait: the waiting task is
saved with a ``CancelledError`` and is not tried again. Found by running LangGraph's
``test_retry.py`` behaviours on both."""

import asyncio
import operator
from typing import Annotated, Any, TypedDict
from unittest.mock import patch

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import _memory_saver

LIBS = [load_langgraph, load_graphkit]
LONG_WAIT = 30.0  # the backoff a cancelled run must not sit through


class Log(TypedDict):
    log: Annotated[list, operator.add]


def _config() -> dict[str, Any]:
    return {"configurable": {"thread_id": "t"}}


def _saved(app: Any) -> tuple[Any, ...]:
    snapshot = app.get_state(_config())
    return snapshot.values, snapshot.next, [(t.name, repr(t.error)) for t in snapshot.tasks]


def _graph(lib: Lib, flaky: Any, sibling: Any) -> Any:
    policy = lib.RetryPolicy(initial_interval=LONG_WAIT, jitter=False, max_attempts=2)
    builder = lib.StateGraph(Log)
    builder.add_node("flaky", flaky, retry_policy=policy).add_node("sibling", sibling)
    builder.add_edge(lib.START, "flaky").add_edge(lib.START, "sibling")
    with _memory_saver(lib.name) as saver:
        return builder.compile(checkpointer=saver)


def _backoff_intervals(lib: Lib, use_async: bool) -> Any:
    attempts: list[int] = []

    def flaky(state: Log) -> Log:
        attempts.append(len(attempts) + 1)
        if len(attempts) < 3:
            raise ValueError("not yet")
        return {"log": ["done"]}

    async def flaky_async(state: Log) -> Log:
        return flaky(state)

    policy = lib.RetryPolicy(
        max_attempts=3, initial_interval=0.01, jitter=False, retry_on=ValueError
    )
    builder = lib.StateGraph(Log).add_edge(lib.START, "flaky")
    builder.add_node("flaky", flaky_async if use_async else flaky, retry_policy=policy)
    app = builder.compile()
    if use_async:
        with patch("asyncio.sleep") as sleep:
            result = asyncio.run(app.ainvoke({"log": []}))
    else:
        with patch("time.sleep") as sleep:
            result = app.invoke({"log": []})
    return result, attempts, [call.args for call in sleep.call_args_list]


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
def test_the_backoff_sleeps_as_langgraphs_does(use_async):
    """A test that patches ``time.sleep`` (sync) or ``asyncio.sleep`` (async) to skip the
    waits sees the same intervals on both."""
    langgraph, graphkit = (_backoff_intervals(loader(), use_async) for loader in LIBS)
    assert graphkit == langgraph
    assert graphkit[2] == [(0.01,), (0.02,)]


def _cancelled_while_waiting(lib: Lib, sync_node: bool) -> Any:
    attempts: list[str] = []
    failed = asyncio.Event()

    def flaky(state: Log) -> Log:
        attempts.append("flaky")
        raise ConnectionError("down")

    async def flaky_async(state: Log) -> Log:
        attempts.append("flaky")
        failed.set()
        raise ConnectionError("down")

    async def sibling(state: Log) -> Log:
        return {"log": ["sibling"]}

    app = _graph(lib, flaky if sync_node else flaky_async, sibling)

    async def main() -> str:
        run = asyncio.create_task(app.ainvoke({"log": []}, _config()))
        if sync_node:  # (a sync node's attempt runs in a thread: wait until it ran)
            while not attempts:
                await asyncio.sleep(0.01)
        else:
            await failed.wait()
        await asyncio.sleep(0.2)  # the wait has begun
        run.cancel()
        try:
            await asyncio.wait_for(run, LONG_WAIT / 2)  # (not the backoff's end)
        except asyncio.CancelledError:
            return "CancelledError"
        return "finished"

    return asyncio.run(main()), attempts, _saved(app)


@pytest.mark.parametrize("sync_node", [False, True], ids=["async-node", "sync-node"])
def test_cancelling_a_run_ends_a_tasks_backoff(sync_node):
    """The task waiting to retry is saved with ``CancelledError`` and not tried again."""
    langgraph, graphkit = (_cancelled_while_waiting(loader(), sync_node) for loader in LIBS)
    assert graphkit == langgraph
    assert graphkit[2][2] == [("flaky", "'CancelledError()'"), ("sibling", "None")]


def _sibling_fails_while_waiting(lib: Lib, sync_node: bool) -> Any:
    attempts: list[str] = []

    def flaky(state: Log) -> Log:
        attempts.append("flaky")
        raise ConnectionError("down")

    async def flaky_async(state: Log) -> Log:
        return flaky(state)

    async def sibling(state: Log) -> Log:
        while not attempts:  # (fail once "flaky" is waiting to retry)
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)
        raise KeyError("sibling")

    app = _graph(lib, flaky if sync_node else flaky_async, sibling)
    with pytest.raises(KeyError):
        asyncio.run(app.ainvoke({"log": []}, _config()))
    return attempts, _saved(app)


@pytest.mark.parametrize("sync_node", [False, True], ids=["async-node", "sync-node"])
def test_a_sibling_failing_the_step_ends_a_tasks_backoff_in_an_async_run(sync_node):
    langgraph, graphkit = (_sibling_fails_while_waiting(loader(), sync_node) for loader in LIBS)
    assert graphkit == langgraph
    assert graphkit[1][2][0] == ("flaky", "'CancelledError()'")
