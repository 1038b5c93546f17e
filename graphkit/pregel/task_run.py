"""Running one task (``run_task``): each attempt calls its node with the values it
declared, in the task's scope, and turns its return value into writes through the
node's writers (a router reads the state as the task leaves it: ``fresh_reader``);
a failed attempt is retried as the node's retry policy says."""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import threading
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from graphkit.channels import Channel
from graphkit.diagnostics import run as diagnose
from graphkit.diagnostics.returns import langgraph_signal
from graphkit.errors import GraphDrained, GraphInterrupt, NodeCancelledError, ParentCommand
from graphkit.pregel.node_builder import STEP_CALLS
from graphkit.pregel.records import Task, TaskResult
from graphkit.pregel.runtime import RunContext, injected_values
from graphkit.pregel.spec import FreshRead, GraphSpec, NodeSpec
from graphkit.pregel.task_config import enter_task, leave_task, traced_task
from graphkit.pregel.task_scope import TaskScope, calling_node
from graphkit.types import Command

if TYPE_CHECKING:
    from graphkit.pregel.phases import StepState
    from graphkit.pregel.step_work import StepWork

__all__ = ["fresh_reader", "run_task"]


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


def _packet_key_read(task: Task, error: KeyError) -> bool:
    """Whether ``error`` is a Send task's read of a key its packet lacks: the packet is
    its whole input, which a reader of the graph's state does not expect."""
    key = error.args[0] if len(error.args) == 1 else None
    return (
        isinstance(key, str)
        and task.kind == "push"
        and isinstance(task.input, Mapping)
        and key not in task.input
        and diagnose.subscripted(error, task.input)
    )


def _add_notes(work: StepWork, task: Task, error: BaseException, failure: Any) -> None:
    """Say on ``error`` which task raised it and, where the runtime can tell, why: a state
    key read before anything gave it, a Send's packet read for a key it lacks, an error
    handler's own error."""
    note = f"During task with name {task.node!r} and id {task.id!r} (step {task.step})"
    if note in getattr(error, "__notes__", ()):  # one exception raised twice
        return
    error.add_note(note)
    if isinstance(error, KeyError) and _unset_key_read(work, task, error):
        key = error.args[0]
        # (a version: a write reached it, and its channel has let it go since)
        cleared = type(work.state.channels[key]).__name__
        cleared = cleared if key in work.state.versions else None
        note = diagnose.unset_key_read(
            task.node, task.step, key, cleared, subgraph=bool(work.run.namespace)
        )
        error.add_note(note)
    elif isinstance(error, KeyError) and _packet_key_read(task, error):
        key = error.args[0]
        channel = work.state.channels.get(key) if key in work.graph.state_keys else None
        in_state = channel is not None and channel.is_available()
        error.add_note(diagnose.packet_key_read(task.node, task.step, key, task.input, in_state))
    if task.kind == "error_handler" and failure is not None:
        diagnose.unannotated_error(error, _NODE_CALLS, failure.node)


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
    store_ops: list[Any] = []  # (a failed attempt's: what it put in the store stays)
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
        store_ops.extend(scope.store_ops or ())
    if error is not None:
        _add_notes(work, task, error, failure)
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
        store_ops=(*store_ops, *(scope.store_ops or ())),
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
        work.unstamp(task.id)  # (the attempt that counts, for its result's turn, is next)
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
    if seconds > 0 and work.turns is not None:
        work.turns.backs_off(task.id)
    from graphkit.pregel.timeouts import cancellable
    from graphkit.streaming.aio import run_on_loop

    waiting = partial(asyncio.sleep, seconds)
    if work.coroutines is not None:
        waiting = partial(cancellable, waiting, work, task.id, node=False)
    run_on_loop(waiting, work.run.loop)


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
        if work.turns is not None and scope.attempt == 0:  # (the step's nodes wait for it)
            work.turns.reported(task.id)
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
        error = _node_cancelled(task.node, exc) if own else langgraph_signal(task.node, exc)
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
        # a Runnable node in an async run: its ainvoke, as LangGraph awaits it
        if node.async_call is not None and run.loop is not None:
            call, makes_coroutine = node.async_call, True
        elif not makes_coroutine and scope.task.timeout is None:
            if scope.work is not None and scope.work.turns is not None:
                scope.work.turns.skip(scope.task.id)  # (its async siblings need not wait)
            return call(value, **injected)
        timeout = scope.task.timeout or node.timeout  # (a Send's replaces its node's)
        if run.loop is None and timeout is not None:  # (LangGraph: a ValueError)
            raise diagnose.timed_node_in_sync_run(node.name, sent=scope.task.timeout is not None)
        elif run.loop is None:
            from graphkit.pregel.stepper_execute import in_stepped_run

            inside = calling_node(run.namespace)
            raise diagnose.async_node_in_sync_run(node.name, inside, in_stepped_run())
        # The coroutine runs on the caller's event loop, concurrently with the other
        # async tasks of the step; this worker thread waits for it (the async run
        # cancels it when its caller is cancelled).
        from graphkit.streaming.aio import run_on_loop

        start = partial(
            _coroutine, call, makes_coroutine, value, injected, (node.name, timeout), scope
        )
        if scope.work is not None and scope.work.coroutines is not None:
            from graphkit.pregel.timeouts import cancellable

            # (made only once its turn comes, on the loop: cancelled before, or never
            # started, it leaves no coroutine never awaited behind, which Python warns of)
            return run_on_loop(partial(cancellable, start, scope.work, scope.task.id), run.loop)
        return run_on_loop(start(), run.loop)
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


def _coroutine(
    call: Callable[..., Any],
    makes_coroutine: bool,
    value: Any,
    injected: dict[str, Any],
    timed: tuple[str, Any],
    scope: TaskScope,
) -> Coroutine[Any, Any, Any]:
    """The coroutine of an async node's attempt (a sync node sent with a timeout: its
    call in a thread); ``timed``: the node's name and its timeout, if any, which the
    attempt is then watched for."""
    name, timeout = timed
    coroutine = call(value, **injected) if makes_coroutine else _in_thread(call, value, injected)
    if timeout is not None:
        from graphkit.pregel.timeouts import within_timeout

        coroutine = within_timeout(coroutine, name, timeout, scope)
    return coroutine


# where a node's function is called: an argument it lacks fails in one of these frames
_NODE_CALLS = frozenset({_call.__code__, _coroutine.__code__, *STEP_CALLS})


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
