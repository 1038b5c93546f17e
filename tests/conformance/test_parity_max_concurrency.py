"""``config["max_concurrency"]``: at most that many of a step's tasks run at once (nodes
woken together, or a fan-out of Sends), sync and async, as in LangGraph; what the step
returns does not change."""

from __future__ import annotations

import asyncio
import operator
import threading
import time
from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph


class State(TypedDict):
    out: Annotated[list, operator.add]


class Peak:
    """How many nodes run at once, at most. Each node waits, inside, until as many as
    the limit allows are running (so the peak reaches it however slowly threads start),
    then lingers a moment, so that a node the limit should have held back would be
    counted too."""

    def __init__(self, expected: int, tasks: int) -> None:
        self.expected, self.tasks, self.now, self.most, self.done = expected, tasks, 0, 0, 0
        self.changed = threading.Condition()

    def enter(self) -> None:
        with self.changed:
            self.now += 1
            self.most = max(self.most, self.now)
            self.changed.notify_all()

    def full(self) -> bool:
        """As many run as the limit allows, or every task not done yet does."""
        return self.now >= min(self.expected, self.tasks - self.done)

    def wait_until_full(self) -> None:
        with self.changed:
            self.changed.wait_for(self.full, timeout=LONG_ENOUGH)

    def leave(self) -> None:
        with self.changed:
            self.now -= 1
            self.done += 1


LONG_ENOUGH = 10.0  # (only a broken limit, which lets too few run, waits this long)
LINGER = 0.02
TASKS = 5


def observe(lib: Lib, limit: int | None, how: str) -> tuple[int, list]:
    peak = Peak(limit or TASKS, TASKS)

    def work(state: Any) -> dict:
        peak.enter()
        peak.wait_until_full()
        time.sleep(LINGER)
        peak.leave()
        return {"out": [1]}

    async def awork(state: Any) -> dict:
        peak.enter()
        deadline = time.monotonic() + LONG_ENOUGH
        while not peak.full() and time.monotonic() < deadline:
            await asyncio.sleep(0.001)
        await asyncio.sleep(LINGER)
        peak.leave()
        return {"out": [1]}

    builder = lib.StateGraph(State)
    if how == "sends":
        builder.add_node("w", work)
        builder.add_conditional_edges(lib.START, lambda s: [lib.Send("w", s) for _ in range(TASKS)])
    else:
        for index in range(TASKS):
            builder.add_node(f"n{index}", awork if how == "async" else work)
            builder.add_edge(lib.START, f"n{index}")
    app = builder.compile()
    config = {"max_concurrency": limit} if limit else {}
    if how == "async":
        result = asyncio.run(app.ainvoke({"out": []}, config))
    else:
        result = app.invoke({"out": []}, config)
    return peak.most, result["out"]


@pytest.mark.parametrize("how", ["sync", "async", "sends"])
@pytest.mark.parametrize("limit", [None, 1, 2])
def test_max_concurrency_bounds_the_tasks_running_at_once(limit, how):
    (our_peak, ours), (their_peak, theirs) = (
        observe(load_graphkit(), limit, how),
        observe(load_langgraph(), limit, how),
    )
    assert ours == theirs
    assert our_peak == their_peak == (limit or TASKS)


def started_before_a_failure(lib: Lib, how: str) -> list[str]:
    """The nodes that started in a step of five under ``max_concurrency=1``, the first
    of which fails."""
    started: list[str] = []

    def node(name: str):
        def work(state: Any) -> dict:
            started.append(name)
            if name == "n0":
                raise ValueError(name)
            return {"out": [name]}

        async def awork(state: Any) -> dict:
            return work(state)

        return awork if how == "async" else work

    builder = lib.StateGraph(State)
    for index in range(TASKS):
        builder.add_node(f"n{index}", node(f"n{index}"))
        builder.add_edge(lib.START, f"n{index}")
    app = builder.compile()
    with pytest.raises(ValueError):
        if how == "async":
            asyncio.run(app.ainvoke({"out": []}, {"max_concurrency": 1}))
        else:
            app.invoke({"out": []}, {"max_concurrency": 1})
    return started


# (LangGraph's async run drops the coroutines of the tasks it cancels before they start)
@pytest.mark.filterwarnings("ignore:coroutine 'arun_with_retry' was never awaited")
@pytest.mark.parametrize("how", ["sync", "async"])
def test_a_failed_task_keeps_the_waiting_ones_from_starting(how):
    """docs/control-flow.md: graphkit starts none of the tasks still waiting for a slot;
    LangGraph goes on starting them until it sees the failure (here: all four in a sync
    run, one in an async run), and cancels only those left."""
    assert started_before_a_failure(load_graphkit(), how) == ["n0"]
    assert len(started_before_a_failure(load_langgraph(), how)) > 1
