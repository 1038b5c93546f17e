"""Execute's machinery: the tasks of one step, run inline or on a thread pool, and the
tasks started while the step runs (the error handler of a task that failed, the tasks a
functional-API entrypoint calls). ``phases.execute`` hands a plan to a ``StepWork``;
``run_task`` (``graphkit.pregel.task_run``) runs one task: its node, its writers, its
retries and timeout."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import dataclasses
import heapq
import queue
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from typing import TYPE_CHECKING, Any, NoReturn

from graphkit.constants import PUSH
from graphkit.diagnostics import run as diagnose
from graphkit.errors import GraphBubbleUp, is_invalid_resume
from graphkit.pregel.pool import POOL, Pool
from graphkit.pregel.records import Task, TaskResult, task_id
from graphkit.pregel.runtime import RunContext
from graphkit.pregel.spec import GraphSpec, NodeSpec
from graphkit.pregel.start_turns import StartTurns
from graphkit.pregel.task_run import run_task

if TYPE_CHECKING:
    from graphkit.pregel.phases import StepState

__all__ = ["StepAbandoned", "StepWork", "handler_task", "run_task", "settle"]


class StepAbandoned(Exception):
    """Thrown into a step's results when its caller stops reading them (``settle``);
    it comes back carrying the results of the tasks that finished meanwhile."""

    settled: tuple[TaskResult, ...] = ()


def settle(results: Iterable[TaskResult | None]) -> tuple[TaskResult, ...]:
    """Stop the step ``results`` come from, which its caller stopped reading (a stream
    closed mid-step): the results of its tasks that finished but were not taken yet, to
    be saved as LangGraph saves a task's writes as it finishes. Its async nodes still
    running are cancelled, as when the step is closed."""
    throw = getattr(results, "throw", None)
    if throw is None:  # (results known before the step ran, all taken)
        return ()
    stop = StepAbandoned()
    with contextlib.suppress(StepAbandoned, StopIteration):
        throw(stop)
    return stop.settled


def _unless_cancelled(results: Iterable[TaskResult | None]) -> Iterator[TaskResult | None]:
    """As in LangGraph, a task still running when its async run is cancelled fails with
    ``CancelledError``: a sync node's thread cannot be stopped, but its writes are dropped."""
    from graphkit.streaming.aio import current_async_run

    owner = current_async_run()
    try:
        for result in results:
            if owner is not None and owner.cancelled and result is not None and result.ok:
                result = dataclasses.replace(result, writes=(), error=asyncio.CancelledError())
            yield result
    except StepAbandoned as stop:  # (``settle``: the results of ``results`` come back)
        if (throw := getattr(results, "throw", None)) is not None:
            throw(stop)
        raise
    finally:  # (closed early: so is ``results``, which then cancels the step's nodes)
        if (close := getattr(results, "close", None)) is not None:
            close()


class StepWork:
    """The tasks of one Execute: the plan's, and those added while they run (the error
    handler of a task that failed, the tasks a functional-API entrypoint calls). Every
    result comes back through ``finished``, in the order the tasks finish; a running
    task reaches this object as ``current_scope().work``."""

    __slots__ = (
        "_deadline", "_ended", "_held", "_limit", "_lock", "_saved", "_stamps", "_started",
        "_waiting", "coroutines", "dropped", "finished", "graph", "outstanding", "pool", "run",
        "running", "state", "stopped", "timeout", "turns", "wake",
    )  # fmt: skip

    def __init__(
        self,
        graph: GraphSpec,
        state: StepState,
        run: RunContext,
        saved: Mapping[str, TaskResult],
    ) -> None:
        options = run.options
        self.graph, self.state, self.run, self.pool = graph, state, run, options.executor or POOL
        self.wake = options.listener.wake if options.listener is not None else None
        self.outstanding = 0  # submitted and not yet taken from ``finished``
        # (set for a step with several tasks: most steps run one task inline) the
        # config's max_concurrency: how many planned tasks run at once (None: all)
        self._limit: int | None = None
        self._waiting: deque[Task] = None  # type: ignore[assignment]  # not started yet
        self._started: set[str] = _NO_IDS  # type: ignore[assignment]  # started, not taken
        self._saved = saved
        self.timeout = timeout = options.step_timeout
        self._deadline = None if timeout is None else time.monotonic() + timeout
        # the step stopped early (timed out, or in an async run a task failed): running
        # async nodes are cancelled, and no task starts another attempt
        self.stopped = False
        # the asyncio tasks of the step's async nodes, by task id (touched on the loop's
        # thread only), so that a timeout or a failure can cancel them
        stoppable = timeout is not None or run.loop is not None
        self.coroutines: dict[str, asyncio.Task[Any]] | None = {} if stoppable else None
        self.dropped: set[str] | None = None  # calls whose caller cancelled their future
        # In an async run, the results of async nodes are taken in the order their
        # coroutines ended on the loop (LangGraph's order), not in the order their pool
        # threads woke: each ended coroutine's number, by task id, until its result comes
        # (``stamp``); results held until the results numbered before them came.
        self._stamps: dict[str, int] | None = {} if run.loop is not None else None
        self._held: list[tuple[int, Future[TaskResult]]] = []
        self.turns: StartTurns | None = None  # (an async step of several tasks: see there)
        self._ended = 0
        # Made by the first task submitted (before any worker runs, so by one thread):
        # most steps run one task inline and need none of them.
        self.finished: queue.SimpleQueue[Future[TaskResult]] = None  # type: ignore[assignment]
        self._lock: threading.Lock = None  # type: ignore[assignment]
        self.running: dict[str, Task] = None  # type: ignore[assignment]  # by id, until done

    def __reduce__(self) -> tuple[Any, ...]:
        # An executor that runs a task in another process ships it the step's inputs,
        # not this machinery (a lock, a queue, the executor, the run's cache): there, as
        # outside Execute, the task can start no other task.
        return (_detached, (self.graph, self.state, _shippable(self.run)))

    def _start(self) -> None:
        if self._lock is None:
            self.finished, self._lock, self.running = queue.SimpleQueue(), threading.Lock(), {}

    def execute(
        self, tasks: Sequence[Task], known: Sequence[TaskResult] = ()
    ) -> Iterable[TaskResult | None]:
        """Run ``tasks`` (one inline when nothing else can start, several on the pool)
        and the tasks started while they run; yield each result as its task finishes
        (``known`` results first: not run, e.g. reused on resume). When the listener wants
        live chunks, tasks run on the pool and ``None`` means a chunk came."""
        run = self.run
        for result in known:  # (a failure saved as handled is handed over again)
            self.reuse(self.handled(result, again=True))
        alone = len(tasks) == 1 and not known and self.wake is None and self.timeout is None
        if alone:  # run inline: no thread to start, no result to wait for
            try:
                result = run_task(self, tasks[0])
            except BaseException:  # (a KeyboardInterrupt as it waited for its coroutine)
                self.abandon()
                raise
            if result.error is not None:
                result = self.handled(result, queue_first=True)
            if not self.outstanding:  # the common case: nothing else started
                return (result,) if run.loop is None else _unless_cancelled((result,))
            if not result.handled:  # (a handled one is queued before its handler started)
                self._queue(result)
        else:
            # (started by the first ``next``: inside ``results``, which cancels them if
            # the caller stops waiting, from the first coroutine on)
            self._waiting = deque(tasks)
            self._limit = run.config.get("max_concurrency") or None
            if self._limit is not None:  # (counted only to be held under the limit)
                self._started = set()
            # (a pool of the user's may not take tasks first in, first out: see start_turns)
            fifo = self.pool is POOL or type(self.pool) is ThreadPoolExecutor
            if run.loop is not None and fifo:
                planned = () if self._limit else [t.id for t in tasks]
                self.turns = StartTurns(run.loop, planned, run.options.trace is not None)
        results = self.results()
        return results if run.loop is None else _unless_cancelled(results)

    def submit(
        self, task: Task, node: NodeSpec | None = None, failure: Any = None
    ) -> Future[TaskResult]:
        """Run ``task`` (with ``node``, by default its graph node) on the step's pool as a
        planned task runs; its result joins the step's. ``failure``: the ``NodeError`` an
        error handler is given."""
        self._start()
        with self._lock:
            self.outstanding += 1
            self.running[task.id] = task
        if isinstance(self.pool, Pool | ThreadPoolExecutor):  # tasks see the caller's context
            context = contextvars.copy_context()
            future = self.pool.submit(context.run, _run_on_pool, self, task, node, failure)
        else:  # an executor of the user's: it decides where tasks run
            future = self.pool.submit(_run_on_pool, self, task, node, failure)
        # (only an async run's results wait their turn: a sync one's need no task id)
        done = self._on_done if self._stamps is None else partial(self._on_done, task_id=task.id)
        future.add_done_callback(done)
        return future

    def _submit_planned(self, task: Task, turns: StartTurns) -> None:
        """Submit a planned task of an async step: its coroutine starts in its turn, and a
        retry may run it on a thread of its own if the pool has not taken it yet."""
        self._start()
        with self._lock:
            self.outstanding += 1
            self.running[task.id] = task
        future: Future[TaskResult] = Future()
        context = contextvars.copy_context()

        def run() -> None:
            future.set_result(context.run(_run_on_pool, self, task))

        self.pool.submit(turns.expect(task.id, run))
        future.add_done_callback(partial(self._on_done, task_id=task.id))

    def _start_waiting(self) -> None:
        """Start planned tasks while fewer than the config's ``max_concurrency`` run."""
        limit = self._limit
        while self._waiting and (limit is None or len(self._started) < limit):
            task = self._waiting.popleft()
            if limit is not None:
                self._started.add(task.id)
            if self.turns is not None:
                self._submit_planned(task, self.turns)
            else:
                self.submit(task)

    def saved(self, task: Task) -> TaskResult | None:
        """The result ``task`` (added while running) saved before the run stopped on this
        checkpoint, marked ``reused``; None if it has to run."""
        found = self._saved.get(task.id)
        return None if found is None else dataclasses.replace(found, task=task)

    def reuse(self, result: TaskResult) -> Future[TaskResult]:
        """Count a result ``saved()`` returned in the step's results, as a done future."""
        self._start()
        with self._lock:
            self.outstanding += 1
        future = _done(result)
        self._on_done(future)
        return future

    def handled(
        self, result: TaskResult, again: bool = False, queue_first: bool = False
    ) -> TaskResult:
        """``result``, or if it failed in a node with an error handler, the result marked
        ``handled`` (its error no longer fails the step; nothing it wrote applies) once the
        handler started, in the same step, on the failed task's input. ``again``: a
        failure saved as handled before a resume, whose handler starts again;
        ``queue_first``: the marked result (of a task run inline) is queued among the
        step's results before the handler starts, so a handler that fails at once cannot
        come first (a stream hears nothing of a step after a failure)."""
        if result.error is None or result.interrupts or (result.handled and not again):
            return result
        node = self.graph.nodes.get(result.task.node)
        handler_name = node.error_handler if node is not None else None
        if handler_name is None or isinstance(result.error, asyncio.CancelledError):
            return result
        from graphkit.errors import NodeError

        # (on resume the handler runs again, even if it finished before: LangGraph's rule)
        handler = handler_task(result.task, handler_name)
        listener = self.run.options.listener
        started = getattr(listener, "call_started", None)
        if result.reused and started is not None:
            started(handler)  # on resume it is planned: its start is streamed
        # on resume, the saved error's text, as LangGraph hands its handler
        error = getattr(result.error, "saved_text", result.error)
        marked = dataclasses.replace(result, writes=(), handled=True)
        if queue_first:
            self._queue(marked)
        self.submit(handler, failure=NodeError(result.task.node, error))
        return marked

    def _queue(self, result: TaskResult) -> None:
        """Count ``result``, of a task run inline, among the step's finished results."""
        self._start()
        self.finished.put(_done(result))
        with self._lock:
            self.outstanding += 1

    def results(self) -> Iterator[TaskResult | None]:
        """Each result as its task finishes, until no task is left; past the step's
        timeout, ``TimeoutError`` (see ``_time_out``). Stopped otherwise (a
        ``KeyboardInterrupt`` as it waits, or its consumer's, or closed), it first cancels
        the step's async nodes (``abandon``)."""
        try:
            self._start_waiting()
            yield from self._results()
        except TimeoutError:  # (the step's timeout: its async nodes are cancelled)
            raise
        except StepAbandoned as stop:  # (``settle``)
            stop.settled = self._finished_meanwhile()
            self.abandon()
            raise
        except BaseException:
            self.abandon()
            raise

    def abandon(self) -> None:
        """The caller stopped waiting for the step: cancel its async nodes (and wait a
        little for them to end; see ``timeouts.abandon_step``), start no further attempt."""
        self.stopped = True
        if self._waiting:
            self._waiting.clear()
        if self.coroutines is not None:
            from graphkit.pregel.timeouts import abandon_step

            abandon_step(self)

    def _finished_meanwhile(self) -> tuple[TaskResult, ...]:
        """The results of tasks that finished and were not taken yet (as they came)."""
        self._stop_ordering()
        results: list[TaskResult] = []
        while self.finished is not None and not self.finished.empty():
            results.append(self.finished.get().result())
        if results:
            with self._lock:
                for result in results:
                    self.running.pop(result.task.id, None)
                    self.outstanding -= 1
        return tuple(results)

    def _results(self) -> Iterator[TaskResult | None]:
        finished, wake = self.finished, self.wake
        while self.outstanding:
            while wake is not None and finished.empty():
                wake.wait(self._left())
                wake.clear()
                if finished.empty():
                    if self._past_deadline():
                        self._time_out()
                    yield None  # a chunk is waiting
            try:
                future = finished.get(timeout=self._left())
            except queue.Empty:
                if self._past_deadline():
                    self._time_out()
                continue
            result = self.handled(future.result())
            with self._lock:
                self.outstanding -= 1
                self.running.pop(result.task.id, None)
            if stops_the_step(result):
                if self._waiting:
                    self._waiting.clear()  # as LangGraph cancels tasks not started yet
                if self.run.loop is not None and not self.stopped:
                    self._stop_after_failure()
            elif result.task.id in self._started:
                self._started.discard(result.task.id)
                self._start_waiting()
            yield result

    def _stop_after_failure(self) -> None:
        """As LangGraph's async runner does, when a task fails the step: cancel the async
        nodes still running (each ends with a ``CancelledError``, saved as its error) and
        start no further attempt. A sync node's thread cannot be stopped: it finishes."""
        self.stopped = True
        if self.coroutines:
            from graphkit.pregel.timeouts import cancel_step

            cancel_step(self)

    def stamp(self, task_id: str) -> None:
        """Number the end of ``task_id``'s coroutine (called on the event loop's thread as
        it ends, so in the loop's order): its result is then taken after those of the
        coroutines that ended before it, which are only finishing on their pool threads
        (their writers...). A task run inline, with no future, is not numbered."""
        if self._stamps is None or self.running is None:
            return
        with self._lock:
            if self._stamps is not None and task_id in self.running:
                self._ended += 1
                self._stamps[task_id] = self._ended

    def unstamp(self, task_id: str) -> None:
        """``task_id``'s attempt failed and it tries again: the end that counts is its
        last attempt's, and meanwhile it holds up no other result."""
        if self._stamps:  # (its own number, set before this thread woke, is seen)
            with self._lock:
                if self._stamps is not None and self._stamps.pop(task_id, None) is not None:
                    self._release()

    def _on_done(self, future: Future[TaskResult], task_id: str | None = None) -> None:
        if self.turns is not None and task_id is not None:  # (ended before its turn?)
            self.turns.skip(task_id)
        if self._stamps:  # an async run, and coroutines have ended
            with self._lock:
                stamps = self._stamps
                stamp = None if stamps is None else stamps.pop(task_id, None)  # type: ignore[arg-type]
                if stamp is not None:
                    heapq.heappush(self._held, (stamp, future))
                    self._release()
                    return
        self.finished.put(future)
        if self.wake is not None:
            self.wake.set()

    def _release(self) -> None:
        """(Holding the lock) hand over the held results no coroutine that ended before
        theirs still holds up. Every number goes when its result comes, or its task tries
        again, so nothing is held for ever: those results are only finishing."""
        assert self._stamps is not None
        first = min(self._stamps.values(), default=None)
        held, released = self._held, False
        while held and (first is None or held[0][0] < first):
            self.finished.put(heapq.heappop(held)[1])
            released = True
        if released and self.wake is not None:
            self.wake.set()

    def _stop_ordering(self) -> None:
        """Hand over the held results and hold none from now on: past the step's
        timeout, results are settled (saved, not streamed), all that finished."""
        if self._stamps is not None:
            with self._lock:
                self._stamps = None
                for _, future in sorted(self._held, key=lambda held: held[0]):
                    self.finished.put(future)
                self._held.clear()

    def _left(self) -> float | None:
        return None if self._deadline is None else max(0.0, self._deadline - time.monotonic())

    def _past_deadline(self) -> bool:
        return self._deadline is not None and time.monotonic() >= self._deadline

    def _time_out(self) -> NoReturn:
        """Past the step's timeout, raise ``TimeoutError``, with the step's last results
        on it as ``settled`` (to be saved, not streamed): those of tasks that finished as
        it passed and, in an async run, as in LangGraph, a ``CancelledError`` for each
        task still running: an async node is cancelled and awaited until it stops; a sync
        node's thread cannot be stopped, so it is left to finish unseen."""
        self.stopped = True  # (a task waiting to retry tries no more)
        self._stop_ordering()
        results: list[TaskResult] = []
        while not self.finished.empty():  # finished in time, not yet taken
            results.append(self.finished.get().result())
        with self._lock:
            for result in results:
                self.running.pop(result.task.id, None)
            running = dict(self.running)
        nodes = [task.node for task in running.values()]
        cancelled = self.run.loop is not None
        error = diagnose.step_timed_out(self.state.step, self.timeout, nodes, cancelled)
        if cancelled and running:
            from graphkit.pregel.timeouts import cancel_step

            awaited = cancel_step(self)
            for task_id, task in running.items():
                if task_id not in awaited:
                    results.append(TaskResult(task, (), error=asyncio.CancelledError()))
            while awaited:
                result = self.finished.get().result()
                if result.task.id in awaited:
                    awaited.discard(result.task.id)
                    results.append(result)
        error.settled = tuple(results)  # type: ignore[attr-defined]
        raise error


_NO_IDS: frozenset[str] = frozenset()


def stops_the_step(result: TaskResult) -> bool:
    """A planned task's failure no error handler took over (a called task's goes to the
    task that called it, which may catch it). As in LangGraph, an answer that did not fit
    its interrupt's schema is raised only once the others finish: a task answered well in
    the same resume is not cut off, to be run again with its saved answer; nor does a
    ``GraphBubbleUp`` (a ``Command(graph=Command.PARENT)``) stop the others: like an
    interrupt, it is no failure."""
    error = result.error
    if error is None or result.handled or result.task.kind == "call":
        return False
    return not (is_invalid_resume(error) or isinstance(error, GraphBubbleUp))


def _shippable(run: RunContext) -> RunContext:
    # (the cache may hold a lock or an open file: a task in another process runs its
    # calls uncached)
    shipped = dataclasses.replace(run.options, executor=None, cache=None)
    return dataclasses.replace(run, options=shipped)


def _detached(graph: GraphSpec, state: StepState, run: RunContext) -> StepWork:
    work = StepWork(graph, state, run, {})
    work.pool = None  # type: ignore[assignment]
    return work


def _done(result: TaskResult) -> Future[TaskResult]:
    future: Future[TaskResult] = Future()
    future.set_result(result)
    return future


def handler_task(failed: Task, handler: str) -> Task:
    """The task of ``failed``'s error handler: it runs in the same step on the failed
    task's input, and its writes apply right after where the failed task's would have."""
    path = (*failed.shown_path[:3], "node_error_handler", False)  # (a Send's False too)
    return Task(
        task_id(failed.id, failed.step, (handler, "node_error_handler")),
        failed.step,
        handler,
        "error_handler",
        path,
        (PUSH,),
        failed.input,
        parent=failed.id,
    )


def _run_on_pool(
    work: StepWork, task: Task, node: NodeSpec | None = None, failure: Any = None
) -> TaskResult:
    """``run_task`` beside other tasks: what escapes it (a ``KeyboardInterrupt``, a
    ``SystemExit``) is the task's error, as in LangGraph, so the step saves the tasks
    that finish beside it before it raises. (A task run alone lets it through, as
    LangGraph's does.)"""
    try:
        return run_task(work, task, node, failure)
    except BaseException as error:
        return TaskResult(task, (), error=error)
