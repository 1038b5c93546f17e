"""How a thread read from LangGraph ended: ``thread_status`` (done, error, interrupted or
running) and ``update_error``, the error the Update of the step it stopped in raised.

LangGraph saves a task's error, but none raised outside a task (two writes to a plain
field, a reducer that raised): a thread that stopped there reads as if still running.
``update_error`` applies the step's saved writes again, to copies of the graph's own
channels, and words the error as graphkit's own run would.
"""

from __future__ import annotations

from asyncio import CancelledError
from collections.abc import Callable, Sequence
from typing import Any

from graphkit.bridge.handlers import HANDLED, handler_id
from graphkit.bridge.saved import ERROR, GraphInfo, SavedCheckpoint, saved_error
from graphkit.pregel.records import Superstep, path_text

__all__ = ["task_error", "thread_status", "update_error"]

_NOT_AN_OUTCOME = (ERROR, HANDLED, "__interrupt__", "__resume__")


def task_error(writes: Sequence[tuple[str, Any]], planned: Any, step_done: bool) -> tuple[Any, Any]:
    """``(error, earlier)``: the error a task's last attempt raised, as LangGraph saved
    it (a ``__error__`` write, or the snapshot task's ``error``), or, when a later
    attempt finished, None and that saved error as ``earlier``. LangGraph keeps a failed
    run's ``__error__`` write after ``invoke(None, config)`` ran the task again, and
    saves no write of a failed attempt but its error, so the task finished on a later
    attempt when it saved an outcome beside the error (a write, or the marker of none),
    or when its step's Update was saved (``step_done``; ``durability="exit"`` saves no
    write of the resumed run) and no error handler took the error over.

    >>> task_error([("__error__", "E('x')"), ("log", [1])], None, False)
    (None, "E('x')")
    >>> task_error([("__error__", "E('x')")], None, False)
    ("E('x')", None)
    >>> task_error([("__error__", "E('x')")], None, True)
    (None, "E('x')")
    >>> task_error([("__error__", "E('x')"), (HANDLED, "c")], None, True)
    ("E('x')", None)
    """
    error = next((v for c, v in writes if c == ERROR), None)
    if error is None:
        error = getattr(planned, "error", None)
    if error is None:
        return None, None
    handled = any(c == HANDLED for c, _ in writes)
    finished = any(c not in _NOT_AN_OUTCOME for c, _ in writes)
    if not handled and (finished or step_done):
        return None, error
    return error, None


def thread_status(
    last: SavedCheckpoint, ran_last: set[str], info: GraphInfo, paused: Callable[[], bool]
) -> tuple[str, BaseException | None]:
    """``done``, ``error`` (a task failed), ``interrupted`` (a task paused, or a
    breakpoint) or ``running``: stopped before its next step for a reason LangGraph
    does not save (the recursion limit, or the process ended). ``paused`` tells whether
    a task of the next step paused; it is asked only when no task failed (it reads the
    tasks' subgraph runs)."""
    planned = tuple(last.snapshot.tasks)
    if not planned:
        return "done", None
    errors = []
    for task in planned:
        writes = [(c, v) for t, c, v in last.pending_writes if t == task.id]
        error, _ = task_error(writes, task, step_done=False)
        handler = info.handlers.get(task.name)
        if error is not None and handler is not None and any(c == HANDLED for c, _ in writes):
            # its handler took over: only the handler's own error fails the step
            id_ = handler_id(last, task.name, task.id, handler)
            error = next((v for t, c, v in last.pending_writes if t == id_ and c == ERROR), None)
        if error is not None:
            errors.append(saved_error(error))
    if errors:  # a task's error, not that of the async siblings it cancelled (as LangGraph)
        return "error", next((e for e in errors if not isinstance(e, CancelledError)), errors[0])
    if paused():
        return "interrupted", None
    names = {task.name for task in planned}
    if info.interrupt_before == "*" or names & set(info.interrupt_before or ()):
        return "interrupted", None
    if info.interrupt_after == "*" or ran_last & set(info.interrupt_after or ()):
        return "interrupted", None
    return "running", None


def update_error(
    last: SavedCheckpoint, stopped: Superstep, info: GraphInfo
) -> BaseException | None:
    """The error the Update of ``stopped`` raised, or None. LangGraph saves no error
    raised outside a task (two writes to a plain field, a reducer that raised), so the
    step's saved writes are applied again here, to copies of the graph's own channels."""
    from graphkit.diagnostics import run as diagnose_run
    from graphkit.errors import InvalidUpdateError

    written: dict[str, tuple[list[str], list[Any]]] = {}
    results = stopped.execution.results if stopped.execution is not None else ()
    for result in sorted(results, key=lambda r: path_text(r.task.path)):
        for channel, value in result.writes:
            writers, values = written.setdefault(channel, ([], []))
            writers.append(result.task.node)
            values.append(value)
    for name, (writers, values) in written.items():
        channel = info.channels.get(name)
        if channel is None:
            continue
        try:
            fresh = (
                channel.from_checkpoint(last.values[name])
                if name in last.values
                else channel.copy()
            )
        except Exception:  # a channel that cannot be rebuilt here: nothing to tell
            continue
        try:
            fresh.update(values)
        except Exception as error:
            if type(error).__name__ != "InvalidUpdateError":  # a reducer raised
                held_none = name in last.values and last.values[name] is None
                reducer = info.reducers[name]
                error.add_note(
                    diagnose_run.reducer_raised(stopped.step, name, reducer, writers, held_none)
                )
                return error
            said = _as_graphkit_says(channel, name, len(values)) or error
            tasks = [r.task for r in results if any(c == name for c, _ in r.writes)]
            return InvalidUpdateError(
                diagnose_run.invalid_update(stopped.step, writers, name, said, tasks)
            )
    return None


def _as_graphkit_says(channel: Any, name: str, count: int) -> BaseException | None:
    """graphkit's error for ``count`` writes to a one-value channel of LangGraph's kind
    (it says how to fix it), or None for a kind graphkit words no differently."""
    from graphkit import channels
    from graphkit.diagnostics import channels as diagnose

    kind = type(channel).__name__
    if kind == "LastValue":
        return diagnose.plain_field_written_twice(name, count, getattr(channel, "typ", Any))
    described = getattr(getattr(channels, kind, None), "_kind", "")
    return diagnose.one_value_per_step(name, count, described, kind) if described else None
