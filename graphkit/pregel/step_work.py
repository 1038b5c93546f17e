"""Execute's machinery: the tasks of one step, run inline or on a thread pool, and the
tasks started while the step runs (the error handler of a task that failed, the tasks a
functional-API entrypoint calls). ``phases.execute`` hands a plan to a ``StepWork``;
``run_task`` runs one task: its node, its writers, its retries and timeout."""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, NoReturn

from graphkit.channels import Channel
from graphkit.constants import PUSH
from graphkit.diagnostics import run as diagnose
from graphkit.errors import (
    GraphBubbleUp,
    GraphDrained,
    GraphInterrupt,
    NodeCancelledError,
    ParentCommand,
    is_invalid_resume,
)
from graphkit.pregel.records import Task, TaskResult, task_id
from graphkit.pregel.runtime import RunContext, injected_values
from graphkit.pregel.spec import FreshRead, GraphSpec, NodeSpec
from graphkit.pregel.task_config import enter_task, leave_task, traced_task
from graphkit.pregel.task_scope import TaskScope
from graphkit.types import Command

if TYPE_CHECKING:
    from graphkit.pregel.phases import StepState

__all__ = ["StepWork", "fresh_reader", "handler_task", "run_task"]


def _unless_cancelled(results: Iterable[TaskResult | None]) -> Iterator[TaskResult | None]:
    """As in LangGraph, a task still running when its async run is cancelled fails with
    ``CancelledError``: a sync node's thread cannot be stopped, but its writes are dropped."""
    from graphkit.streaming.aio import current_async_run

    owner = current_async_run()
    for result in results:
        if owner is not None and owner.cancelled and result is not None and result.ok:
            result = dataclasses.replace(result, writes=(), error=asyncio.CancelledError())
        yield result


class StepWork:
    """The tasks of one Execute: the plan's, and those added while they run (the error
    handler of a task that failed, the tasks a functional-API entrypoint calls). Every
    result comes back through ``finished``, in the order the tasks finish; a running
    task reaches this object as ``current_scope().work``."""

    __slots__ = (
        "_deadline", "_limit", "_lock", "_saved", "_started", "_waiting", "coroutines",
        "dropped", "finished", "graph", "outstanding", "pool", "run", "running", "state", "stopped",
        "timeout", "wake",
    )  # fmt: skip

    def __init__(
        self,
        graph: GraphSpec,
        state: StepState,
        run: RunContext,
        saved: Mapping[str, TaskResult],
    ) -> None:
        options = run.options
        self.graph, self.state, self.run, self.pool = graph, state, run, options.executor or _POOL
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
            result = run_task(self, tasks[0])
            if result.error is not None:
                result = self.handled(result)
            if not self.outstanding:  # the common case: nothing else started
                return (result,) if run.loop is None else _unless_cancelled((result,))
            self._start()
            self.finished.put(_done(result))
            with self._lock:
                self.outstanding += 1
        else:
            self._waiting, self._started = deque(tasks), set()
            self._limit = run.config.get("max_concurrency") or None
            self._start_waiting()
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
        if isinstance(self.pool, ThreadPoolExecutor):  # tasks see the caller's context
            context = contextvars.copy_context()
            future = self.pool.submit(context.run, _run_on_pool, self, task, node, failure)
        else:  # an executor of the user's: it decides where tasks run
            future = self.pool.submit(_run_on_pool, self, task, node, failure)
        future.add_done_callback(self._on_done)
        return future

    def _start_waiting(self) -> None:
        """Start planned tasks while fewer than the config's ``max_concurrency`` run."""
        while self._waiting and (self._limit is None or len(self._started) < self._limit):
            task = self._waiting.popleft()
            self._started.add(task.id)
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

    def handled(self, result: TaskResult, again: bool = False) -> TaskResult:
        """``result``, or if it failed in a node with an error handler, the result marked
        ``handled`` (its error no longer fails the step; nothing it wrote applies) once the
        handler started, in the same step, on the failed task's input. ``again``: a
        failure saved as handled before a resume, whose handler starts again."""
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
        self.submit(handler, failure=NodeError(result.task.node, error))
        return dataclasses.replace(result, writes=(), handled=True)

    def results(self) -> Iterator[TaskResult | None]:
        """Each result as its task finishes, until no task is left; past the step's
        timeout, ``TimeoutError`` (see ``_time_out``)."""
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

    def _on_done(self, future: Future[TaskResult]) -> None:
        self.finished.put(future)
        if self.wake is not None:
            self.wake.set()

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


def _unset_key_read(work: StepWork, task: Task, error: KeyError) -> bool:
    """Whether ``error`` is a StateGraph node's read of a state key that has no value
    yet: raised reading the state it was given (``state[key]``, not a dict of the
    user's own, nor a subgraph's state), which lacks the key, and its channel empty."""
    key = error.args[0] if len(error.args) == 1 else None
    return (
        isinstance(key, str)
        and task.kind == "pull"
        and not work.graph.low_level
        and key in work.graph.state_keys
        and isinstance(task.input, Mapping)
        and key not in task.input
        and not work.state.channels[key].is_available()
        and diagnose.subscripted(error, task.input)
    )


def run_task(
    work: StepWork, task: Task, node: NodeSpec | None = None, failure: Any = None
) -> TaskResult:
    """Run one task of ``work``'s step: call its node (``node``, by default the graph's
    node of that name) and turn its return value into writes, retrying as its retry
    policy says; the last error is caught into the result. ``failure``: what an error
    handler handles."""
    run = work.run
    node = node or work.graph.nodes[task.node]
    injected, task_config = injected_values(node, task, run, failure, work.state.checkpoint.id)
    started = time.perf_counter()
    failed: list[Exception] = []
    subruns: list[Any] = []
    subgraph_calls = [0]
    answers = run.answers.get(task.id, ()) if run.answers else ()
    task_work = work if work.pool is not None else None  # None in another process
    while True:
        scope = TaskScope(
            run, task, len(failed), subruns, [*answers], 0, subgraph_calls, task_work, node=node
        )
        output, writes, error, paused = _attempt(work, node, task, scope, injected, task_config)
        if error is None or work.stopped:
            break
        if (ended := _wait_to_retry(work, node, task, error, len(failed) + 1)) is not None:
            error = ended
            break
        answers = tuple(scope.answers)  # a retry is given the answers this attempt took
        failed.append(error)  # type: ignore[arg-type]
    if error is not None:
        note = f"During task with name {task.node!r} and id {task.id!r} (step {task.step})"
        if note not in getattr(error, "__notes__", ()):  # one exception raised twice
            error.add_note(note)
            if isinstance(error, KeyError) and _unset_key_read(work, task, error):
                error.add_note(diagnose.unset_key_read(task.node, task.step, error.args[0]))
    return TaskResult(
        task,
        work.graph.with_message_ids(writes),
        output,
        error,
        len(failed) + 1,
        started,
        time.perf_counter() - started,
        _this_thread.name,
        tuple(failed),
        tuple(subruns),
        paused or (),
        tuple(scope.answers),
        store_ops=tuple(scope.store_ops or ()),
        paused=paused is not None,
        drained=scope.drained,
        routed_up=scope.routed_up is not None,
    )


def _wait_to_retry(
    work: StepWork, node: NodeSpec, task: Task, error: BaseException, attempt: int
) -> BaseException | None:
    """After ``task``'s ``attempt`` failed with ``error``, wait as its retry policy says;
    None: try again. Else the error the task ends with: ``error`` (no policy wants another
    attempt, or the step stopped meanwhile), the policy's own (its ``retry_on`` raising,
    kept with the node's, as in LangGraph), or the run's ``CancelledError``."""
    try:
        if (policy := _retry_policy_for(node, error, attempt)) is None:
            return error
        _back_off(work, task, policy.interval(attempt + 1))
    except (Exception, asyncio.CancelledError) as ended:
        ended.__context__ = error
        return ended
    return error if work.stopped else None  # (stopped as it waited: no attempt after that)


def _back_off(work: StepWork, task: Task, seconds: float) -> None:
    """Wait ``seconds`` before ``task``'s next attempt: in a sync run ``time.sleep``; in an
    async run ``asyncio.sleep`` on the run's loop, as LangGraph does, so that cancelling
    the run, or a task failing the step, ends the wait at once (``CancelledError``)."""
    if work.run.loop is None:
        time.sleep(seconds)
        return
    from graphkit.pregel.timeouts import cancellable
    from graphkit.streaming.aio import run_on_loop

    waiting = asyncio.sleep(seconds)
    if work.coroutines is not None:
        waiting = cancellable(waiting, work, task.id)
    run_on_loop(waiting, work.run.loop)


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


def _attempt(
    work: StepWork,
    node: NodeSpec,
    task: Task,
    scope: TaskScope,
    injected: dict[str, Any],
    task_config: Any,
) -> tuple[Any, list[tuple[str, Any]], BaseException | None, tuple[Any, ...] | None]:
    """One try of ``task``: its output, writes, error, and the interrupts it paused with
    (None: it did not pause; empty: a subgraph it ran stopped at a breakpoint)."""
    writes: list[tuple[str, Any]] = []
    scope.writes = writes  # (what the node pushes while it runs goes first)
    output, error, interrupts, raised_pause = None, None, None, None
    trace = work.run.options.trace
    if trace is not None and not node.runs_user_code:
        trace = None  # (LangGraph runs no START task then)
    if trace is not None:  # the attempt is a chain run; its node reports inside it
        injected, task_config = traced_task(trace, scope, injected, task_config)
    if (policy := task.timeout or node.timeout) is not None and work.run.loop is not None:
        from graphkit.pregel.timeouts import watched_by_callbacks

        injected, task_config = watched_by_callbacks(policy, scope, injected, task_config)
    token = enter_task(scope, task_config)
    try:
        output = _call(node, task.input, injected, work.run, scope)
        routed = node.has_routers  # (its routers read the state as it leaves it)
        fresh_read = fresh_reader(work.graph, work.state, writes) if routed else _no_reader
        for writer in node.writers:
            writes.extend(writer(output, fresh_read, task_config))
        if trace is not None:  # (a subgraph's ParentCommand: the node raised, to LangGraph)
            trace.end_task(scope.trace, output, scope.routed_up)
    except GraphInterrupt as paused:  # the step stops before Update; nothing is applied
        interrupts, writes = tuple(paused.args[0] if paused.args else ()), []
        raised_pause = paused  # (reported with its traceback, as LangGraph's tracer shows)
    except GraphDrained as drained:  # a graph it ran drained: paused, and the run drains
        interrupts, writes, scope.drained = (), [], drained.reason
    except (Exception, asyncio.CancelledError) as exc:  # (a cancelled async node too)
        # recorded; the stepper raises it after the step's tasks end; writes made
        # before the error stay visible, but are never applied
        own = _raised_by_the_node(exc) and not work.stopped and not _dropped(work, task)
        error = _node_cancelled(task.node, exc) if own else exc
    finally:
        leave_task(token)
    if trace is not None and (error is not None or interrupts is not None):
        trace.end_task(scope.trace, None, error or raised_pause or GraphInterrupt(interrupts))
    return output, writes, error, interrupts


def _call(
    node: NodeSpec, value: Any, injected: dict[str, Any], run: RunContext, scope: TaskScope
) -> Any:
    try:
        call, makes_coroutine = node.call, node.is_async
        timeout = scope.task.timeout or node.timeout  # (a Send's replaces its node's)
        # a Runnable node in an async run: its ainvoke, as LangGraph awaits it
        if node.async_call is not None and run.loop is not None:
            call, makes_coroutine = node.async_call, True
        elif not makes_coroutine and scope.task.timeout is None:
            return call(value, **injected)
        elif run.loop is None and timeout is not None:  # (LangGraph: a ValueError)
            raise diagnose.timed_node_in_sync_run(node.name, sent=scope.task.timeout is not None)
        elif run.loop is None:
            raise diagnose.async_node_in_sync_run(node.name)
        # The coroutine runs on the caller's event loop, concurrently with the other
        # async tasks of the step; this worker thread waits for it (the async run
        # cancels it when its caller is cancelled).
        from graphkit.streaming.aio import run_on_loop

        if makes_coroutine:
            coroutine = call(value, **injected)
        else:  # a sync node sent with a timeout
            coroutine = _in_thread(call, value, injected)
        if timeout is not None:
            from graphkit.pregel.timeouts import within_timeout

            coroutine = within_timeout(coroutine, node.name, timeout, scope)
        if scope.work is not None and scope.work.coroutines is not None:
            from graphkit.pregel.timeouts import cancellable

            coroutine = cancellable(coroutine, scope.work, scope.task.id)
        return run_on_loop(coroutine, run.loop)
    except ParentCommand as sent_up:  # a subgraph this node ran routes its parent: us
        command = sent_up.command
        if not isinstance(command, Command):
            raise
        if command.graph == Command.PARENT:  # the node raised it itself: for our parent
            sent_up.command = dataclasses.replace(command, graph="")
            sent_up.args = (sent_up.command,)
            raise
        scope.routed_up = sent_up
        return dataclasses.replace(sent_up.command, graph=None)


def _in_thread(call: Callable[..., Any], value: Any, injected: dict[str, Any]) -> Any:
    """A sync node's call as a coroutine that runs it in a thread, in this thread's
    context: a ``Send``'s timeout can then stop waiting for it, as LangGraph's does
    (the thread itself runs to its end: Python cannot stop it)."""
    context = contextvars.copy_context()
    return asyncio.to_thread(context.run, call, value, **injected)


def _raised_by_the_node(error: BaseException) -> bool:
    """A ``CancelledError`` the node raised itself (its run was not cancelled)."""
    if not isinstance(error, asyncio.CancelledError):
        return False
    from graphkit.streaming.aio import current_async_run

    owner = current_async_run()
    return owner is None or not owner.cancelled


def _dropped(work: StepWork, task: Task) -> bool:
    """A call its caller cancelled (``future.cancel()``): it ends with the
    ``CancelledError``, as in LangGraph, not as a node that raised one."""
    return work.dropped is not None and task.id in work.dropped


def _node_cancelled(node: str, error: BaseException) -> Exception:
    """As in LangGraph: a node's own ``CancelledError`` fails it as ``NodeCancelledError``,
    handed to its error handler like any error (but never retried)."""
    made = NodeCancelledError(node)
    made.__cause__ = error
    return made


def _retry_policy_for(node: NodeSpec, error: Exception, attempt: int) -> Any:
    """The first of the node's retry policies that wants another attempt, if any. As in
    LangGraph, a node that raised ``CancelledError`` itself is not tried again."""
    stops = (ParentCommand, GraphInterrupt, asyncio.CancelledError, NodeCancelledError)
    if not isinstance(error, stops):
        for policy in node.retry_policies:
            if policy.should_retry(error):
                return policy if attempt < policy.max_attempts else None
    return None


def _no_reader(keys: Sequence[str]) -> dict[str, Any]:
    raise AssertionError("only a router reads the fresh state, and this node has none")


class _ThisThread(threading.local):
    def __init__(self) -> None:  # once per thread: current_thread() costs more, per task
        self.name = threading.current_thread().name


_this_thread = _ThisThread()


def fresh_reader(graph: GraphSpec, state: StepState, writes: list[tuple[str, Any]]) -> FreshRead:
    """What a router reads: the step's channels plus the task's own writes so far (on copies)."""

    def read(keys: Sequence[str]) -> dict[str, Any]:
        channels: Mapping[str, Channel] = state.channels
        pending: dict[str, list[Any]] = {}
        for channel, value in writes:
            if channel in keys:
                pending.setdefault(channel, []).append(value)
        if pending:
            channels = dict(channels)
            for key, values in pending.items():
                channels[key] = channels[key].copy()
                channels[key].update(values)
        return state.read(keys, graph.managed, channels)

    return read


# One process-wide pool (its threads start as tasks need them): creating threads per run
# would cost more than most nodes. It is wide so that subgraphs run in tasks do not starve it.
_POOL = ThreadPoolExecutor(max_workers=64, thread_name_prefix="graphkit")
