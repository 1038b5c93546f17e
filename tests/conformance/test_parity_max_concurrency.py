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
    """How many nodes run at once, at most."""

    def __init__(self) -> None:
        self.lock, self.now, self.most = threading.Lock(), 0, 0

    def enter(self) -> None:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)

    def leave(self) -> None:
        with self.lock:
            self.now -= 1


def observe(lib: Lib, limit: int | None, how: str) -> tuple[int, list]:
    peak = Peak()

    def work(state: Any) -> dict:
        peak.enter()
        time.sleep(0.05)
        peak.leave()
        return {"out": [1]}

    async def awork(state: Any) -> dict:
        peak.enter()
        await asyncio.sleep(0.05)
        peak.leave()
        return {"out": [1]}

    builder = lib.StateGraph(State)
    if how == "sends":
        builder.add_node("w", work)
        builder.add_conditional_edges(lib.START, lambda s: [lib.Send("w", s) for _ in range(5)])
    else:
        for index in range(5):
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
    if limit is None:  # all at once, as far as the machine's threads start together
        assert our_peak > 2 and their_peak > 2
    else:
        assert our_peak == their_peak == limit
