"""Why a task no Plan made ran: the input step's task, and the tasks started while a
step ran (a failed node's error handler, a functional-API call), for ``why``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphkit.constants import START
from graphkit.inspect.explanation import Reason
from graphkit.inspect.findings import Finding
from graphkit.inspect.values import show_error
from graphkit.pregel.stepper import INPUT_TASK

if TYPE_CHECKING:
    from graphkit.pregel.records import Superstep

__all__ = ["input_reason", "started_by"]


def input_reason() -> Reason:
    text = (
        "Step -1 (the input step) wrote the run's input to __start__; its Update applied it, "
        "so step 0's Plan woke __start__, which writes the input into the state."
    )
    return Reason("input", text, -1, START, (INPUT_TASK,))


def started_by(superstep: Superstep, task: Any) -> Finding:
    """A task started while its step ran: the failure its error handler took over, or the
    task that called it (functional API)."""
    n, results = superstep.step, superstep.execution.results if superstep.execution else ()
    parent = next((r for r in results if r.task.id == task.parent), None)
    by = parent.task.node if parent is not None else "another task"
    if task.kind == "error_handler":
        error = show_error(parent.error) if parent is not None and parent.error else "an error"
        attempts = parent.attempts if parent is not None else 1
        tries = f" after {attempts} attempts" if attempts > 1 else ""
        text = (
            f"{by} raised {error}{tries} in step {n}; it has an error handler, so instead "
            f"of failing the step, {task.node} ran in the same step on {by}'s input and its "
            f"writes were applied in step {n}'s Update in place of {by}'s (whose edges "
            "were not taken)."
        )
        reason = Reason("error_handler", text, n, None, (by,))
        return Finding(f"{by} failed and it handles {by}'s errors", reason)
    mine = next((r for r in results if r.task.id == task.id), None)
    went = (
        "the result it saved before the run stopped went back to it, without running it again"
        if mine is not None and mine.reused
        else f"it ran in the same step, beside {by}, and its return value went back to {by}"
    )
    text = f"{by} called it in step {n} (a functional-API task): {went}."
    return Finding(f"{by} called it", Reason("call", text, n, None, (by,)))
