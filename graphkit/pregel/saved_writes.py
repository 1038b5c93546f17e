"""The writes a thread saves for its tasks besides their channel writes (an
interrupt, the answers it took, an error, "no writes"), and what a run that resumes
reuses of them: the tasks that finished (``reusable_results``) and the writes no task
made (``null_writes``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graphkit.constants import INTERRUPT
from graphkit.pregel.records import Plan, Task, TaskResult

__all__ = ["NULL_TASK", "SavedError", "kept_answers", "null_writes", "reusable_results"]

ANSWERS = "__resume__"
ERROR = "__error__"
NO_WRITES = "__no_writes__"
"""Saved for a task that finished without writing, so a resume knows it finished."""
ERROR_SOURCE = "__error_source_node__"  # the failed task's error went to its handler
SPECIAL = (INTERRUPT, ANSWERS, ERROR, ERROR_SOURCE)
NULL_TASK = "00000000-0000-0000-0000-000000000000"
"""The task id of saved writes no task made (a ``Command`` input's): LangGraph's null
writes, applied again when a run resumes from their checkpoint and by ``get_state``."""
NULL_STARTED = Task(NULL_TASK, -1, "", "call", (), (), None)
"""The placeholder task of a saved result of a task started while its step ran (a call,
an error handler), until ``StepWork.saved`` puts the task started again in its place."""


def null_writes(pending: Sequence[Any]) -> list[tuple[str, Any]]:
    """The saved channel writes of no task (``NULL_TASK``: a ``Command`` input's), in
    the order they were saved."""
    return [
        (channel, value)
        for task_id, channel, value in pending
        if task_id == NULL_TASK and channel != ANSWERS
    ]


def kept_answers(pending: Sequence[Any]) -> dict[str, Any]:
    """The answers a ``Command(resume=...)`` input saved before its run went on, by
    interrupt id (``{}`` once a task recorded the answers it took): a run resumed with
    no answer gives them to the interrupts still waiting, as LangGraph reuses its saved
    resume value, so an answer outlives a task that stopped before saving anything."""
    saved = [value for task, channel, value in pending if (task, channel) == (NULL_TASK, ANSWERS)]
    return dict(saved[-1]) if saved and isinstance(saved[-1], dict) else {}


def reusable_results(
    plan: Plan, pending: Sequence[Any]
) -> tuple[dict[str, TaskResult], dict[str, TaskResult]]:
    """What the run saved before it stopped: the plan's tasks that finished (their writes
    to reuse; a failure an error handler took over, to hand over again), and the results
    of tasks started while the step ran (by id; their task is filled in when asked)."""
    finished: dict[str, list[tuple[str, Any]]] = {}
    errors: dict[str, str] = {}
    handled: set[str] = set()
    for task_id, channel, value in pending:
        if channel == ERROR:
            errors[task_id] = value
        elif channel == ERROR_SOURCE:
            handled.add(task_id)
        elif channel not in SPECIAL:  # a task resumed past an interrupt keeps it saved
            writes = finished.setdefault(task_id, [])
            if channel != NO_WRITES:
                writes.append((channel, value))
    planned = {task.id: task for task in plan.tasks}
    reused = {
        task_id: TaskResult(task, tuple(finished[task_id]), reused=True)
        for task_id, task in planned.items()
        if task_id in finished
    }
    for task_id in handled & planned.keys():
        error = SavedError(str(errors.get(task_id, "")))
        reused[task_id] = TaskResult(planned[task_id], (), error=error, handled=True, reused=True)
    started = {
        task_id: TaskResult(NULL_STARTED, tuple(writes), reused=True)
        for task_id, writes in finished.items()
        if task_id not in planned
    }
    return reused, started


class SavedError(Exception):
    """A task's error as a saved thread keeps it: its text (``saved_text``), which is
    what LangGraph gives an error handler that resumes."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.saved_text = text
