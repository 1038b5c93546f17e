"""The order in which a step's async tasks finish is the event loop's, as in LangGraph.

Each async node's coroutine runs on the caller's event loop while a pool thread waits for
it and then finishes the task (its writers...). Two coroutines that end a few loop turns
apart must still come out in the order they ended: ``updates`` chunks, and
``Execution.finish_order``, follow the loop, not which pool thread woke first. These runs
are repeated: the order used to vary from run to run. Failures, cancellation, timeouts
and retries beside a held result must still end: each run is bounded by
``asyncio.wait_for``."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import langgraph.graph as langgraph_graph
import pytest
from langgraph.types import RetryPolicy as LangGraphRetryPolicy

import graphkit
from graphkit import RetryPolicy

REPEATS = 20
BOUND = 30.0  # seconds a run may take before the test calls it a hang


class State(TypedDict):
    log: Annotated[list, operator.add]


def _builder(side: str) -> Any:
    return (graphkit if side == "graphkit" else langgraph_graph).StateGraph(State)


def race_graph(side: str, turns: int, **zeta_options: Any) -> Any:
    """``alpha`` sets an event and returns; ``zeta`` waits for it, then lets the loop
    turn ``turns`` times: ``alpha``'s coroutine always ends first."""
    events: dict[int, asyncio.Event] = {}

    def event() -> asyncio.Event:
        return events.setdefault(id(asyncio.get_running_loop()), asyncio.Event())

    async def alpha(state):
        event().set()
        return {"log": ["alpha"]}

    async def zeta(state):
        await event().wait()
        for _ in range(turns):
            await asyncio.sleep(0)
        return {"log": ["zeta"]}

    builder = _builder(side)
    builder.add_node("alpha", alpha)
    builder.add_node("zeta", zeta, **zeta_options)
    builder.add_edge("__start__", "alpha")
    builder.add_edge("__start__", "zeta")
    return builder.compile()


async def _updates(app: Any) -> list[str]:
    async def run() -> list[str]:
        return [
            node
            async for chunk in app.astream({"log": []}, stream_mode="updates")
            for node in chunk
        ]

    return await asyncio.wait_for(run(), BOUND)


@pytest.mark.parametrize("turns", range(6))
def test_updates_come_in_the_loops_order_as_in_langgraph(turns):
    async def orders(side: str) -> set[tuple[str, ...]]:
        app = race_graph(side, turns)
        return {tuple(await _updates(app)) for _ in range(REPEATS)}

    theirs = asyncio.run(orders("langgraph"))
    assert theirs == {("alpha", "zeta")}
    assert asyncio.run(orders("graphkit")) == theirs


@pytest.mark.parametrize("turns", range(6))
def test_finish_order_is_the_loops_on_the_callers_loop_and_on_graphkits(turns):
    app = race_graph("graphkit", turns)

    def finished(run: Any) -> list[str]:
        step = run.step(1)
        nodes = {task.id: task.node for task in step.plan.tasks}
        return [nodes[task_id] for task_id in step.execution.finish_order]

    async def traced() -> list[str]:
        return finished(await asyncio.wait_for(app.atrace({"log": []}), BOUND))

    for _ in range(REPEATS):
        assert asyncio.run(traced()) == ["alpha", "zeta"]
    for _ in range(5):  # sync trace: the nodes run on graphkit's background loop
        assert finished(app.trace({"log": []})) == ["alpha", "zeta"]


class Flaky(Exception):
    """Retried by both libraries' default ``retry_on`` (a ``ValueError`` is not)."""


def test_a_retried_task_is_ordered_by_its_last_attempt():
    """``zeta`` fails once, before ``alpha`` ends, and succeeds on its retry: its first
    attempt's end holds nothing up, and it comes after ``alpha``, as in LangGraph."""

    def graph(side: str) -> Any:
        tries: list[int] = []
        policy = (RetryPolicy if side == "graphkit" else LangGraphRetryPolicy)(
            initial_interval=0.01, jitter=False, max_attempts=2
        )

        async def alpha(state):
            await asyncio.sleep(0.05)
            return {"log": ["alpha"]}

        async def zeta(state):
            tries.append(1)
            if len(tries) % 2:
                raise Flaky("first try fails")
            await asyncio.sleep(0.2)
            return {"log": ["zeta"]}

        builder = _builder(side)
        builder.add_node("alpha", alpha).add_node("zeta", zeta, retry_policy=policy)
        builder.add_edge("__start__", "alpha").add_edge("__start__", "zeta")
        return builder.compile()

    for side in ("langgraph", "graphkit"):
        app = graph(side)
        for _ in range(3):
            assert asyncio.run(_updates(app)) == ["alpha", "zeta"], side


def retries_graph(side: str, nodes: str, after: dict[str, str]) -> Any:
    """Each of ``nodes`` (one letter a node) fails its first attempt, once the node
    ``after`` names failed (it sets an event as it does), and is retried at once (no
    back-off); every retry succeeds."""
    policy = (RetryPolicy if side == "graphkit" else LangGraphRetryPolicy)(
        initial_interval=0.0, jitter=False, max_attempts=2
    )
    events: dict[tuple[str, int], asyncio.Event] = {}

    def event(name: str, run: int) -> asyncio.Event:
        return events.setdefault((name, run), asyncio.Event())

    builder = _builder(side)
    for name in nodes:
        tries: list[int] = []

        async def node(state, name=name, tries=tries):
            tries.append(1)
            if len(tries) % 2:
                if name in after:  # (the n-th run: each node's attempt 2n - 1)
                    await event(after[name], len(tries)).wait()
                event(name, len(tries)).set()
                raise Flaky(f"{name}'s first try fails")
            return {"log": [name]}

        builder.add_node(name, node, retry_policy=policy)
        builder.add_edge("__start__", name)
    return builder.compile()


@pytest.mark.parametrize(
    ("nodes", "after"),
    [("ab", {}), ("abcd", {}), ("abc", {"a": "c"})],
    ids=["two", "four", "failing out of plan order"],
)
def test_retries_without_back_off_end_in_the_order_their_attempts_failed(nodes, after):
    """Several tasks of one step fail and are retried at once: their retries start, so
    end, in the order their failed attempts ended on the loop, as in LangGraph (in
    graphkit each retry comes back through its task's pool thread: which thread woke
    first used to decide, and the order varied from run to run)."""

    async def orders(side: str) -> set[tuple[str, ...]]:
        app = retries_graph(side, nodes, after)
        return {tuple(await _updates(app)) for _ in range(3 * REPEATS)}

    theirs = asyncio.run(orders("langgraph"))
    assert len(theirs) == 1, theirs
    assert asyncio.run(orders("graphkit")) == theirs


def _failing_graph(side: str, failure: str) -> Any:
    """``alpha`` ends first; ``zeta`` ends right after it by failing (or timing out), while
    ``slow`` still runs: the step stops, and the run must end."""

    async def alpha(state):
        return {"log": ["alpha"]}

    async def zeta(state):
        for _ in range(3):
            await asyncio.sleep(0)
        if failure == "fails":
            raise ValueError("zeta failed")
        await asyncio.sleep(10)  # (timed out)
        return {"log": ["zeta"]}

    async def slow(state):
        await asyncio.sleep(10)
        return {"log": ["slow"]}

    builder = _builder(side)
    builder.add_node("alpha", alpha).add_node("zeta", zeta).add_node("slow", slow)
    for node in ("alpha", "zeta", "slow"):
        builder.add_edge("__start__", node)
    app = builder.compile()
    if failure == "step timeout":
        app.step_timeout = 0.3
    return app


@pytest.mark.parametrize("failure", ["fails", "step timeout"])
def test_a_failing_step_still_ends(failure):
    for side in ("langgraph", "graphkit"):
        app = _failing_graph(side, failure)
        for _ in range(3):
            error: Any = None
            try:
                asyncio.run(_updates(app))
            except (ValueError, TimeoutError) as raised:
                error = raised
            assert type(error).__name__ in {"ValueError", "TimeoutError"}, side
            assert not isinstance(error, asyncio.TimeoutError) or failure == "step timeout"


def test_cancelling_the_caller_mid_step_still_ends():
    app = _failing_graph("graphkit", "step timeout")

    async def cancel_soon() -> None:
        running = asyncio.ensure_future(_updates(app))
        await asyncio.sleep(0.05)
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(running, BOUND)

    for _ in range(5):
        asyncio.run(cancel_soon())


def test_a_step_cancelled_by_a_failure_raises_that_failure_on_every_path():
    """``slow`` (first in plan order) is cancelled when ``fails`` fails the step: LangGraph
    raises the ``ValueError``; so do graphkit's ``trace`` and ``stepper``, whose nodes run
    on graphkit's loop, not a ``CancelledError`` of the thread that waited for ``slow``."""

    def graph(side: str) -> Any:
        async def slow(state):
            await asyncio.sleep(5)
            return {"log": ["slow"]}

        async def fails(state):
            raise ValueError("fails failed")

        builder = _builder(side)
        builder.add_node("a_slow", slow).add_node("b_fails", fails)
        builder.add_edge("__start__", "a_slow").add_edge("__start__", "b_fails")
        return builder.compile()

    with pytest.raises(ValueError, match="fails failed"):
        asyncio.run(graph("langgraph").ainvoke({"log": []}))
    app = graph("graphkit")
    with pytest.raises(ValueError, match="fails failed"):
        app.trace({"log": []})
    stepper = app.stepper({"log": []})
    with pytest.raises(ValueError, match="fails failed"):
        while not stepper.done:
            getattr(stepper, stepper.next_phase)()
