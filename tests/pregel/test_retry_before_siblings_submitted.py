"""A retry that comes before its step's other tasks are submitted (``StartTurns``): on an
executor of the user's with one worker, the first ``Send``'s attempt failed and its retry
was held for its siblings' first attempts while the stepper was still submitting them;
seeing none to run yet, it started no thread to run them, and the only worker waited for
it for ever (1 run in 10 hung under load). The run here has a hard time limit, so a
deadlock fails the test instead of hanging the suite."""

from __future__ import annotations

import asyncio
import operator
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated, Any, TypedDict

import pytest

import graphkit
from graphkit.pregel.step_work import StepWork
from tests.pregel.deadlines import within_limit

LIMIT = 60.0  # seconds: generous; the run takes well under one
SENDS = 20


class State(TypedDict, total=False):
    xs: Annotated[list, operator.add]
    i: int


def _app(lib: Any) -> Any:
    """``SENDS`` async ``Send``s to a node that fails once per ``Send``, then is retried."""
    failed: set[int] = set()

    async def flaky(state: State) -> dict[str, Any]:
        if state["i"] not in failed:
            failed.add(state["i"])
            raise RuntimeError("first attempt")
        return {"xs": [state["i"]]}

    policy = lib.RetryPolicy(
        max_attempts=2, initial_interval=0.0, jitter=False, retry_on=RuntimeError
    )
    graph = lib.StateGraph(State)
    graph.add_node("work", flaky, retry_policy=policy)
    fan_out = [lib.Send("work", {"i": i}) for i in range(SENDS)]
    graph.add_conditional_edges(lib.START, lambda _: fan_out)
    graph.add_edge("work", lib.END)
    return graph.compile()


def _submitted_after_the_first_retry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the stepper submit the step's second and later tasks only once the first
    task's retry waits for its turn: the ordering that hung, made certain."""
    submit = StepWork._submit_planned

    def late(work: StepWork, task: Any, turns: Any) -> None:
        if turns._order and task.id != turns._order[0]:
            deadline = time.monotonic() + 10.0  # (a bound, not a timing: see the assert)
            while not turns._retries and time.monotonic() < deadline:
                time.sleep(0.001)
        submit(work, task, turns)

    monkeypatch.setattr(StepWork, "_submit_planned", late)


def test_retry_held_before_its_siblings_are_submitted(monkeypatch: pytest.MonkeyPatch) -> None:
    from langgraph import graph as their_graph
    from langgraph import types as their_types

    class Theirs:
        StateGraph, START, END = their_graph.StateGraph, their_graph.START, their_graph.END
        Send, RetryPolicy = their_types.Send, their_types.RetryPolicy

    expected = asyncio.run(_app(Theirs).ainvoke({"xs": []}))
    _submitted_after_the_first_retry(monkeypatch)

    def run() -> Any:
        with ThreadPoolExecutor(max_workers=1) as executor:
            return asyncio.run(_app(graphkit).ainvoke({"xs": []}, executor=executor))

    got = within_limit(run, LIMIT)
    assert sorted(got["xs"]) == sorted(expected["xs"]) == list(range(SENDS))
