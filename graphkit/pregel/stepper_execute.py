"""The stepper's Execute phase (mixed into ``Stepper``): which planned tasks run and
which results it has already (the input step's writes, results saved before a resume,
cache hits), each result saved and cached as its task finishes, the results put back in
plan order, and the run stopped when a task failed or paused.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from graphkit.cache.base import FullKey, hash_key
from graphkit.diagnostics import cache as diagnose_cache
from graphkit.errors import warn
from graphkit.pregel import phases
from graphkit.pregel.records import Execution, Plan, Task, TaskResult
from graphkit.pregel.saved_writes import reusable_results
from graphkit.pregel.spec import GraphSpec
from graphkit.pregel.step_work import settle

if TYPE_CHECKING:
    from graphkit.pregel.config import RunOptions
    from graphkit.pregel.runtime import RunContext
    from graphkit.pregel.thread_saves import ThreadLink

__all__ = ["ExecutePhase", "execution_order", "in_stepped_run", "task_cache_keys"]

_stepped: contextvars.ContextVar[bool] = contextvars.ContextVar("graphkit_stepped", default=False)


def in_stepped_run() -> bool:
    """Whether the code running here runs for a run stepped by hand (``trace``, a
    ``Stepper``, the debugger), at any depth of the graphs its nodes run, rather than
    for ``invoke`` or ``stream``: the fixes an error names differ."""
    return _stepped.get()


class ExecutePhase:
    """Mixed into ``Stepper``: its Execute phase. What these methods need is the
    stepper's state between phases, and its ``_fail``, ``_finish`` and ``_out_of_turn``."""

    __slots__ = ()

    graph: GraphSpec
    options: RunOptions
    context: RunContext
    thread: ThreadLink | None
    done: bool
    interrupts: tuple[Any, ...]
    drain_reason: str | None
    _state: phases.StepState
    _plan: Plan | None
    _results: list[TaskResult] | None
    _finish_order: list[str]
    _execution: Execution | None
    _cache_keys: dict[str, tuple[FullKey, float | None]]
    _needs_input_step: bool
    _command_writes: tuple[tuple[str, Any], ...]
    _pending: list[Any]
    _fail: Callable[[str, BaseException], NoReturn]
    _finish: Callable[..., None]
    _out_of_turn: Callable[[str], RuntimeError]

    def iter_execute(self) -> Iterator[TaskResult | None]:
        """Execute the planned tasks, yielding each result as its task finishes (and
        ``None`` when, streaming live, a running task sent a chunk). If a task failed (and
        no error handler took over), the step stops here, before Update, and the first
        error in plan order is raised."""
        if self._plan is None or self._results is not None or self.done:
            raise self._out_of_turn("execute")
        plan = to_run = self._plan
        assert plan is not None
        known: list[TaskResult] = []  # results not run now: the input's, reused, cached
        saved: dict[str, TaskResult] = {}  # saved results of tasks started while running
        if self._needs_input_step:  # its one task writes its input; nothing runs
            task = plan.tasks[0]
            given = self.graph.with_message_ids(self.graph.input_writes(task.input))
            known.append(TaskResult(task, (*self._command_writes, *given)))
            to_run = Plan(plan.step, ())
        elif self._pending:  # resuming: tasks that finished before are not run again
            reused, saved = reusable_results(plan, self._pending)
            known.extend(reused.values())
            to_run = Plan(plan.step, tuple(t for t in plan.tasks if t.id not in reused))
        if self.options.cache is not None:  # tasks whose writes are cached are not run
            hits = self._cached_results(to_run)
            known.extend(hits.values())
            to_run = Plan(plan.step, tuple(t for t in to_run.tasks if t.id not in hits))
        results: list[TaskResult] = []
        finish_order: list[str] = []  # the task ids as they came in
        run = phases.execute(self.graph, to_run, self._state, self.context, saved, known)
        try:
            for result in run:
                if result is None:  # live streaming: chunks from running tasks wait
                    yield None
                    continue
                # (the input step's writes are not a task's: the input checkpoint
                # holds them, and LangGraph saves none on the checkpoint before it)
                if self.thread is not None and not self._needs_input_step:
                    self.thread.save_task(result)
                if self._cache_keys and not (result.reused or result.cached):
                    self._cache_result(result)
                results.append(result)
                finish_order.append(result.task.id)
                yield result
        except GeneratorExit:  # the caller stopped reading (it closed the stream)
            self._keep_finished(run)
            raise
        except TimeoutError as error:  # the step's timeout: what finished is saved
            for result in getattr(error, "settled", ()):  # (finished as it passed, cancelled)
                if self.thread is not None:
                    self.thread.save_task(result)
                results.append(result)
            self._results, self._finish_order = results, []
            self._fail("error", error)
        finally:  # (stopped as it waited, or here: the step's async nodes are cancelled)
            if (close := getattr(run, "close", None)) is not None:
                close()
        if len(results) > 1:  # back to plan order; tasks started while running after theirs
            results.sort(key=execution_order(plan, results))
        self._results, self._finish_order = results, finish_order
        self._stop_if_failed_or_paused(results)

    def _keep_finished(self, running: Iterable[TaskResult | None]) -> None:
        """The caller stopped reading mid-step (it closed the stream): save the results
        of the tasks that finished meanwhile, unread, as LangGraph saves a task's writes
        as it finishes, so that a resume does not run them again."""
        if self.thread is None or self._needs_input_step or self.done:
            return
        for result in settle(running):
            self.thread.save_task(result)

    def _stop_if_failed_or_paused(self, results: list[TaskResult]) -> None:
        """After Execute: raise the first error in plan order, or pause (or drain) the run
        if a task paused it."""
        paused = False  # (a subgraph at its breakpoint pauses its task with no interrupt)
        for result in results:
            if result.task.kind == "call":  # its caller got its error or pause, and decides
                continue
            if result.error is not None and not result.handled:
                self._fail("error", _step_error(results, result.error))
            if result.paused or result.interrupts:
                paused = True
                self.interrupts += result.interrupts
        if not paused:
            return
        drained = next((r.drained for r in results if r.drained is not None), None)
        if drained is not None:  # a graph a task ran drained: this run too, over any
            self.drain_reason = drained  # interrupt, as LangGraph raises GraphDrained
            self._finish("drained", keep_step=True)
        else:
            self._finish("interrupted", keep_step=True)

    def execute(self) -> Execution:
        """Execute the planned tasks and return their results."""
        running = self.iter_execute()
        # (a stream steps with a listener; trace, a Stepper and the debugger without one)
        token = _stepped.set(True) if self.options.listener is None else None
        try:
            for _ in running:
                pass
        finally:  # (interrupted between two results: the step's async nodes are cancelled)
            running.close()
            if token is not None:
                _stepped.reset(token)
        assert self.execution is not None
        return self.execution

    @property
    def execution(self) -> Execution | None:
        """The current step's ``Execution``, from its Execute until its Update (made when
        first read: a run nobody reads only applies the results)."""
        if self._execution is None and self._results is not None and self._plan is not None:
            order = tuple(self._finish_order)
            self._execution = Execution(self._plan.step, tuple(self._results), order)
        return self._execution

    def _cached_results(self, plan: Plan) -> dict[str, TaskResult]:
        """Look up the cache keys of the plan's tasks that have a cache policy; the hits,
        as results marked ``cached`` (saved like any finished task's)."""
        try:
            self._cache_keys = keys = task_cache_keys(self.graph, plan.tasks)
            found = self.options.cache.get(list({key for key, _ in keys.values()})) if keys else {}
        except Exception as error:  # a key function raised: the step fails before running
            self._fail("error", error)
        hits = {}
        for task in plan.tasks:
            if (entry := keys.get(task.id)) is not None and entry[0] in found:
                writes = tuple((channel, value) for channel, value in found[entry[0]])
                hits[task.id] = result = TaskResult(task, writes, attempts=0, cached=True)
                if self.thread is not None:
                    self.thread.save_task(result)
        return hits

    def _cache_result(self, result: TaskResult) -> None:
        """Cache a finished task's writes, as LangGraph does: not an error or a pause
        (no writes at all are cached too: the next call is served, writing nothing)."""
        entry = self._cache_keys.get(result.task.id)
        if entry is None or not result.ok:
            return
        key, ttl = entry
        try:
            self.options.cache.set({key: (list(result.writes), ttl)})
        except Exception as error:  # e.g. a value the serializer cannot write
            warn(diagnose_cache.not_cacheable(result.task.node, result.task.step, error))


def task_cache_keys(
    graph: GraphSpec, tasks: Sequence[Task]
) -> dict[str, tuple[FullKey, float | None]]:
    """For each task whose node has a cache policy: its cache key and time to live. The
    key hashes what the policy's ``key_func`` makes of the task's input, under the
    node's namespace (LangGraph's scheme; see graphkit.cache.base)."""
    keys = {}
    for task in tasks:
        node = graph.nodes.get(task.node)
        if node is not None and (policy := node.cache_policy) is not None:
            try:
                made = policy.key_func(task.input)
            except Exception as error:
                note = f"While making the cache key of node {task.node!r} (step {task.step})"
                error.add_note(note)
                raise
            keys[task.id] = (
                (node.cache_namespace, hash_key(made, task.node, task.input)),
                policy.ttl,
            )
    return keys


def _step_error(results: Sequence[TaskResult], first: BaseException) -> BaseException:
    """The error a failed step raises: the first in plan order, unless it is a
    ``CancelledError`` of a task the failure of another cancelled (then that failure, as
    in LangGraph)."""
    if not isinstance(first, asyncio.CancelledError):
        return first
    for result in results:
        error = result.error
        failed = error is not None and not result.handled and result.task.kind != "call"
        if failed and not isinstance(error, asyncio.CancelledError):
            return error  # type: ignore[return-value]
    return first


def execution_order(plan: Plan, results: Sequence[TaskResult]) -> Any:
    """The sort key of an Execution's results: plan order; a task started while the step
    ran (an error handler, a called task) right after the task it serves, by its path
    (a caller's calls in the order it made them)."""
    index = {task.id: position for position, task in enumerate(plan.tasks)}
    parents = {result.task.id: result.task.parent for result in results}

    def key(result: TaskResult) -> tuple[Any, ...]:
        root = result.task.id
        if root in index:  # a planned task: its place in the plan is its own
            return index[root], False, ()
        while root not in index and parents.get(root) is not None:
            root = parents[root]
        started = result.task.parent is not None
        return index.get(root, len(index)), started, _path_key(result.task.path)

    return key


def _path_key(path: Any) -> tuple[Any, ...]:
    """A task path made comparable whatever its parts: numbers in order, then text."""
    parts: list[tuple[str, Any]] = []
    for part in path:
        if isinstance(part, tuple):
            parts.append(("t", _path_key(part)))
        elif isinstance(part, int) and not isinstance(part, bool):
            parts.append(("i", f"{part:010d}"))
        else:
            parts.append(("s", str(part)))
    return tuple(parts)
