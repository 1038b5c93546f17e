"""The async interface: ``astream`` runs ``stream`` (the one loop) in a worker thread
and hands its chunks to the event loop, where async nodes are scheduled (so a
superstep's async tasks run concurrently there).

Cancelling the caller cancels the run, as in LangGraph: the async nodes running on the
loop are cancelled (each such task fails with ``CancelledError``, saved as its error),
no further step starts, and the caller's ``CancelledError`` is raised once the worker
thread has stopped."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import itertools
import os
import queue
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Generator
from typing import Any

from graphkit.pregel.pool import POOL

__all__ = ["AsyncRun", "astream_from", "background_loop", "current_async_run", "run_on_loop"]

_DONE = object()


IDLE_SECONDS = 30.0
"""How long a thread of ``_Runs`` waits for a run before it ends: a burst of concurrent
runs leaves as many threads, which need not stay for the life of the process."""


class _Runs(concurrent.futures.Executor):
    """Where each async run's stepper runs: a pool of its own, not the loop's default
    executor, whose few workers (cpu count + 4) an async run's stepper would wait on (an
    awaited subgraph's stepper, a sync callback handler) while holding one. An idle
    thread is reused and a new one starts only when none is idle, so waiting never
    deadlocks. Its threads are daemons, unlike ``ThreadPoolExecutor``'s, which Python
    joins at exit: a run abandoned with its loop (an ``astream`` never closed when the
    loop closed) waits for that loop for ever, and would keep the process alive."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._idle = threading.Semaphore(0)
        self._started = itertools.count()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._jobs.put((future, fn, args, kwargs))
        if not self._idle.acquire(blocking=False):
            name = f"graphkit-async-run_{next(self._started)}"
            threading.Thread(target=self._work, name=name, daemon=True).start()
        return future

    def _work(self) -> None:
        while True:
            try:
                future, fn, args, kwargs = self._jobs.get(timeout=IDLE_SECONDS)
            except queue.Empty:
                if self._idle.acquire(blocking=False):  # (counted idle by no submit: retire)
                    return
                continue  # a submit counted on this thread: its job is on its way
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args, **kwargs))
                except BaseException as error:  # (the run's own; handed to its caller)
                    future.set_exception(error)
            del future, fn, args, kwargs  # (an idle thread holds no run)
            self._idle.release()


_RUNS = _Runs()


class AsyncRun:
    """The coroutines one async run started on its event loop, so that cancelling the
    run cancels them; ``cancelled`` also tells the stepper to start no further step."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.cancelled = False
        self.running: set[asyncio.Task[Any]] = set()  # touched on the loop's thread only
        # sync runs that its async nodes started, holding up the loop (on its thread only)
        self.held_up = 0

    def __repr__(self) -> str:
        state = "cancelled" if self.cancelled else "live"
        return f"AsyncRun({state}, running={len(self.running)})"

    def run(
        self, coroutine: Coroutine[Any, Any, Any] | Callable[[], Coroutine[Any, Any, Any]]
    ) -> Any:
        """Run ``coroutine`` on the loop and wait, in this (worker) thread, for its result;
        raises ``asyncio.CancelledError`` if the run is or gets cancelled. Given what makes
        it, it is made on the loop as it starts: one the loop never starts (the run
        cancelled, the loop closed first) would be one Python warns was never awaited."""
        done: concurrent.futures.Future[Any] = concurrent.futures.Future()

        def start() -> None:
            if self.cancelled:  # never started, so never half done
                if not callable(coroutine):
                    coroutine.close()
                done.set_exception(asyncio.CancelledError())
                return
            task = self.loop.create_task(coroutine() if callable(coroutine) else coroutine)
            self.running.add(task)
            task.add_done_callback(finish)

        def finish(task: asyncio.Task[Any]) -> None:
            self.running.discard(task)
            if task.cancelled():
                done.set_exception(asyncio.CancelledError())
            elif (error := task.exception()) is not None:
                done.set_exception(error)
            else:
                done.set_result(task.result())

        if self.cancelled:  # (its loop may have ended: ``start`` would never run)
            if not callable(coroutine):
                coroutine.close()
            raise asyncio.CancelledError()
        self.loop.call_soon_threadsafe(start)  # ``start`` sees this thread's context
        return POOL.wait(done)  # (a pool thread runs queued tasks meanwhile: see there)

    def on_its_loop(self) -> bool:
        """Whether this thread runs the run's event loop (as an async node does)."""
        try:
            return asyncio.get_running_loop() is self.loop
        except RuntimeError:  # (no loop runs in this thread)
            return False

    def cancel(self) -> None:
        """Cancel the running coroutines and refuse new ones (call it on the loop)."""
        self.cancelled = True
        for task in self.running:
            task.cancel()


_current: contextvars.ContextVar[AsyncRun | None] = contextvars.ContextVar(
    "graphkit_async_run", default=None
)


def current_async_run() -> AsyncRun | None:
    """The async run this thread works for, if any."""
    return _current.get()


_background: list[asyncio.AbstractEventLoop] = []
_background_lock = threading.Lock()


def background_loop() -> asyncio.AbstractEventLoop:
    """graphkit's own event loop, running in a daemon thread, started on first use: where
    ``trace``, a ``Stepper`` and the debugger run a graph's async nodes. The code that
    steps them is synchronous, and in a notebook the kernel's own loop is busy running
    that very code, so it cannot run them. Called on the thread of one of these loops (an
    async node it runs traces a graph), it gives the next one, started as the first was:
    that thread waits for the graph's nodes, so its loop could not run them, and a loop
    further down such a chain may be waiting too (never one further up: no deadlock)."""
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:  # (no loop runs in this thread)
        running = None
    with _background_lock:
        depth = next((i + 1 for i, loop in enumerate(_background) if loop is running), 0)
        if depth == len(_background):
            loop = asyncio.new_event_loop()
            name = "graphkit-async-nodes" + (f"_{depth}" if depth else "")
            threading.Thread(target=loop.run_forever, name=name, daemon=True).start()
            _background.append(loop)
        return _background[depth]


def _forget_background_loop() -> None:  # a forked child has the loops but not their threads
    global _background, _background_lock
    _background, _background_lock = [], threading.Lock()


os.register_at_fork(after_in_child=_forget_background_loop)


def run_on_loop(
    coroutine: Coroutine[Any, Any, Any] | Callable[[], Coroutine[Any, Any, Any]],
    loop: asyncio.AbstractEventLoop,
) -> Any:
    """Run an async node's ``coroutine`` (or the one it makes) on ``loop`` and wait for
    it in this thread."""
    owner = _current.get()
    if owner is None or owner.loop is not loop:  # a run not started by ``astream_from``
        made = coroutine() if callable(coroutine) else coroutine
        try:
            return POOL.wait(asyncio.run_coroutine_threadsafe(made, loop))
        except concurrent.futures.CancelledError:  # (the thread's future of a cancelled
            raise asyncio.CancelledError() from None  # node: its error, as on the loop)
    return owner.run(coroutine)


async def astream_from(
    start: Callable[[asyncio.AbstractEventLoop], Generator[Any, None, None]],
) -> AsyncIterator[Any]:
    """Yield, on the running event loop, the chunks of ``start(loop)`` run in a thread.

    The thread computes a chunk only when the consumer asks for one (as a plain
    generator would), so closing the async iterator early stops the run right there.
    However the consumer stops (done, closed or cancelled), the run's coroutines are
    cancelled and the thread has finished before this returns."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[Any, BaseException | None]] = asyncio.Queue()
    demand = threading.Semaphore(0)
    stop = threading.Event()
    owner = AsyncRun(loop)

    def produce() -> None:
        _current.set(owner)
        chunks = start(loop)
        try:
            while True:
                demand.acquire()
                if stop.is_set():
                    return
                chunk = next(chunks, _DONE)
                loop.call_soon_threadsafe(queue.put_nowait, (chunk, None))
                if chunk is _DONE:
                    return
        except BaseException as error:  # handed to the consumer, raised there
            loop.call_soon_threadsafe(queue.put_nowait, (_DONE, error))
        finally:
            chunks.close()

    # The producer thread sees this coroutine's context variables, so a graph awaited
    # inside a running node knows it is that node's subgraph.
    producer = loop.run_in_executor(_RUNS, contextvars.copy_context().run, produce)
    try:
        while True:
            demand.release()
            chunk, error = await queue.get()
            if error is not None:
                raise error
            if chunk is _DONE:
                break
            yield chunk
    finally:
        stop.set()
        owner.cancel()
        demand.release()
        await producer
