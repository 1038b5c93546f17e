"""The threads async runs step in (``graphkit.streaming.aio``): one per run at once,
reused while busy runs keep coming, and ended once idle, so a burst of concurrent runs
does not leave its threads for the life of the process."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import TypedDict

import pytest

from graphkit import START, StateGraph
from graphkit.streaming import aio


class State(TypedDict):
    n: int


_SEEN: set[threading.Thread] = set()
"""The run threads alive while a node ran: read after the burst, an idle thread may
already have ended (0.05 s idle, on a loaded machine)."""


async def _slow(state: State) -> State:
    await asyncio.sleep(0.05)  # (so that the runs overlap and each needs a thread)
    _SEEN.update(_run_threads())
    return {"n": state["n"] + 1}


def _run_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name.startswith("graphkit-async-run")}


def test_a_burst_of_concurrent_runs_leaves_no_thread_once_idle(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(aio, "IDLE_SECONDS", 0.05)
    app = StateGraph(State).add_node("slow", _slow).add_edge(START, "slow").compile()
    before = _run_threads()

    async def burst() -> list[State]:
        return await asyncio.gather(*(app.ainvoke({"n": i}) for i in range(20)))

    _SEEN.clear()
    assert [out["n"] for out in asyncio.run(burst())] == list(range(1, 21))
    started = _SEEN - before
    assert len(started) >= 2  # (the runs overlapped: each stepped in a thread of its own)
    deadline = time.monotonic() + 10  # (each ends 0.05 s after its last run: a bound)
    for thread in started:
        thread.join(timeout=max(0.0, deadline - time.monotonic()))
    assert not any(t.is_alive() for t in started)
    # and a later run still finds a thread
    assert asyncio.run(app.ainvoke({"n": 0})) == {"n": 1}
