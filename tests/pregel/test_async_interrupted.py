"""An interrupted wait for async nodes: a ``KeyboardInterrupt`` (a notebook's stop
button) raised in the thread that waits for a step's async nodes, under ``trace``, a
``Stepper`` or the debugger, cancels those nodes on graphkit's loop before it
propagates, as cancelling ``atrace`` cancels them on the caller's loop."""

from __future__ import annotations

import asyncio
import operator
import signal
import threading
import time
from collections.abc import Iterator
from typing import Annotated, Any, TypedDict

import pytest

from graphkit import START, StateGraph
from graphkit.checkpoint import InMemorySaver


class State(TypedDict):
    log: Annotated[list, operator.add]


class Watched:
    """A node that, once running, interrupts the main thread (as the stop button's
    SIGINT does) and then awaits an event nobody sets: it would log ``finished`` after
    it, so only cancelling it stops it. What happened to it is kept in thread events."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.cancelled = threading.Event()
        self.finished = threading.Event()
        self.release: asyncio.Event | None = None
        self.loop: asyncio.AbstractEventLoop | None = None

    async def __call__(self, state: State) -> dict[str, Any]:
        self.loop = asyncio.get_running_loop()
        self.release = asyncio.Event()
        self.started.set()
        try:
            while not INTERRUPTED.is_set():  # (a signal that lands just before the caller
                signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)  # blocks
                await asyncio.sleep(0.001)  # is seen only when the next one wakes it)
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled.set()
            raise
        self.finished.set()
        return {"log": ["slow"]}

    def let_go(self) -> None:
        """Set the event it awaits, then wait until its loop has run what that woke."""
        assert self.loop is not None and self.release is not None
        self.loop.call_soon_threadsafe(self.release.set)
        for _ in range(3):  # (a woken task runs within the loop's next iterations)
            asyncio.run_coroutine_threadsafe(asyncio.sleep(0), self.loop).result()


INTERRUPTED = threading.Event()


def _interrupt(signum: int, frame: Any) -> None:
    if not INTERRUPTED.is_set():  # (once: the node may have sent another meanwhile)
        INTERRUPTED.set()
        raise KeyboardInterrupt


@pytest.fixture
def sigint_raises() -> Iterator[None]:
    """SIGINT raises ``KeyboardInterrupt`` in the main thread, as in a notebook kernel
    (once per test)."""
    assert threading.current_thread() is threading.main_thread()
    INTERRUPTED.clear()
    previous = signal.signal(signal.SIGINT, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def graph(watched: Watched, beside: bool = False, **compile_options: Any) -> Any:
    """``fast`` in step 1, then ``slow`` (the watched node), with ``other`` beside it if
    ``beside`` (two tasks: the step runs them on the pool, and the caller waits for
    their results instead of for the one coroutine)."""

    async def fast(state: State) -> dict[str, Any]:
        return {"log": ["fast"]}

    async def other(state: State) -> dict[str, Any]:
        await asyncio.Event().wait()  # (cancelled with the step, or never done)
        return {"log": ["other"]}

    builder = StateGraph(State).add_node("fast", fast).add_node("slow", watched)
    builder.add_edge(START, "fast").add_edge("fast", "slow")
    if beside:
        builder.add_node("other", other).add_edge("fast", "other")
    return builder.compile(**compile_options)


def _check_stopped(watched: Watched) -> None:
    assert watched.started.is_set()
    assert watched.cancelled.is_set()  # cancelled before the interrupt reached the caller
    watched.let_go()  # (had it not been cancelled, this would let it finish)
    assert not watched.finished.is_set()


@pytest.mark.parametrize("beside", [False, True], ids=["alone", "beside_another"])
def test_an_interrupted_trace_cancels_its_async_nodes_and_keeps_the_run_so_far(
    sigint_raises: None, beside: bool
) -> None:
    watched = Watched()
    app = graph(watched, beside)
    with pytest.raises(KeyboardInterrupt) as raised:
        app.trace({"log": []})
    _check_stopped(watched)
    run = raised.value.run
    assert run.values == {"log": ["fast"]}
    assert "slow" in [task.node for task in run.steps[-1].plan.tasks]


def test_an_interrupted_stepper_step_cancels_its_async_nodes(sigint_raises: None) -> None:
    watched = Watched()
    stepper = graph(watched).stepper({"log": []})
    while [task.node for task in stepper.step().plan.tasks] != ["fast"]:
        pass  # (the input step, __start__, then fast)
    with pytest.raises(KeyboardInterrupt):
        stepper.step()
    _check_stopped(watched)


def test_an_interrupted_debugger_step_cancels_its_async_nodes(sigint_raises: None) -> None:
    from graphkit.widgets.session import DebugSession

    watched = Watched()
    session = DebugSession(graph(watched, checkpointer=InMemorySaver()), {"log": []})
    with pytest.raises(KeyboardInterrupt):
        session.run()
    _check_stopped(watched)


def test_a_cancelled_atrace_has_cancelled_its_async_nodes_when_it_raises() -> None:
    watched = Watched()

    async def slow(state: State) -> dict[str, Any]:  # (no SIGINT: the caller cancels)
        watched.release = asyncio.Event()
        watched.started.set()
        try:
            await watched.release.wait()
        except asyncio.CancelledError:
            watched.cancelled.set()
            raise
        watched.finished.set()
        return {"log": ["slow"]}

    app = StateGraph(State).add_node("slow", slow).add_edge(START, "slow").compile()

    async def main() -> BaseException:
        tracing = asyncio.create_task(app.atrace({"log": []}))
        while not watched.started.is_set():
            await asyncio.sleep(0)
        tracing.cancel()
        with pytest.raises(asyncio.CancelledError) as raised:
            await tracing
        assert watched.cancelled.is_set()  # before atrace raised, not at the loop's end
        assert watched.release is not None
        watched.release.set()
        await asyncio.sleep(0)
        assert not watched.finished.is_set()
        return raised.value

    cancelled = asyncio.run(main())
    assert cancelled.run.status != "done"


def test_a_node_blocking_the_loop_past_the_wait_still_gets_the_others_cancelled(
    sigint_raises: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A node that blocks graphkit's loop (a sync call in an ``async def``: a blocking
    client, a nested ``trace``) for longer than the caller waits: the caller gives up
    waiting, but the cancelling still runs once the loop is free, so a node beside it
    does not go on unseen (the cancelling was dropped with the wait)."""
    from graphkit.pregel import timeouts

    monkeypatch.setattr(timeouts.abandon_step, "__defaults__", (0.05,))
    beside_started, cancelled, finished, released = (threading.Event() for _ in range(4))

    async def blocking(state: State) -> dict[str, Any]:
        while not beside_started.is_set():
            await asyncio.sleep(0.001)
        while not INTERRUPTED.is_set():  # (blocks the loop from here: no await)
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
            time.sleep(0.001)
        released.wait(10)  # (until the caller has given up waiting and raised)
        return {"log": ["blocking"]}

    async def beside(state: State) -> dict[str, Any]:
        beside_started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        finished.set()
        return {"log": ["beside"]}

    builder = StateGraph(State).add_node("blocking", blocking).add_node("beside", beside)
    app = builder.add_edge(START, "blocking").add_edge(START, "beside").compile()
    with pytest.raises(KeyboardInterrupt):
        app.trace({"log": []})
    released.set()
    for _ in range(300):  # (until the loop is free and has run what was left for it)
        if cancelled.is_set() or finished.is_set():
            break
        time.sleep(0.01)
    assert cancelled.is_set() and not finished.is_set()
