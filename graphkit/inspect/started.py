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

__all__ = ["input_before_records", "input_reason", "started_by"]


def input_reason(node: str, n: int, m: int) -> Reason:
    """Why ``node`` ran at step ``n`` on the run's input, written to ``__start__`` by the
    input step ``m``: a ``StateGraph``'s START node writes it into the state; any other
    node subscribed to ``__start__`` (an entrypoint's function) runs on it. The input
    step's own task (``n == m``) writes it. Steps are numbered as the thread counts them:
    a second invoke's input step is not -1."""
    if node == INPUT_TASK:
        text = f"Step {n} is the input step: its one task writes the run's input to __start__."
        return Reason("input", text, n, START, (INPUT_TASK,))
    wrote = (
        f"Step {m} (the input step) wrote the run's input to __start__; its Update applied "
        f"it, so step {n}'s Plan woke {node}"
    )
    if node == START:
        text = f"{wrote}, which writes the input into the state."
    else:  # (an entrypoint: no state to write it into; its function is given the input)
        text = (
            f"{wrote}, which is subscribed to __start__ and runs on the input (an "
            "entrypoint's function gets it as its first argument)."
        )
    return Reason("input", text, m, START, (INPUT_TASK,))


def input_before_records(node: str, n: int, start: str) -> Finding:
    """Why ``node`` ran at step ``n`` on an input written before the records begin (a
    resume: the input step was an earlier invoke's, ``start`` the checkpoint they begin
    from), which ``node`` had not finished with."""
    text = (
        f"__start__ still held the input an earlier invoke wrote, in {start}: {node} had "
        f"not finished running on it (the run stopped before the step's Update), so step "
        f"{n}'s Plan woke {node} again, on the same input."
    )
    reason = Reason("input", text, None, START, (INPUT_TASK,))
    return Finding("__start__ still held the input of an earlier invoke", reason)


def started_by(superstep: Superstep, task: Any) -> Finding:
    """A task started while its step ran: the failure its error handler took over, or the
    task that called it (functional API)."""
    n, results = superstep.step, superstep.execution.results if superstep.execution else ()
    parent = next((r for r in results if r.task.id == task.parent), None)
    by = parent.task.node if parent is not None else "another task"
    if task.kind == "error_handler":
        error = show_error(parent.error) if parent is not None and parent.error else "an error"
        attempts = parent.attempts if parent is not None else 1
        # (an imported thread's attempts are unknown: LangGraph does not save them)
        tries = f" after {attempts} attempts" if attempts is not None and attempts > 1 else ""
        text = (
            f"{by} raised {error}{tries} in step {n}; it has an error handler, so instead "
            f"of failing the step, {task.node} ran in the same step on {by}'s input and its "
            f"writes were applied in step {n}'s Update in place of {by}'s (whose edges "
            "were not taken)."
        )
        reason = Reason("error_handler", text, n, None, (by,))
        return Finding(f"{by} failed and it handles {by}'s errors", reason)
    mine = next((r for r in results if r.task.id == task.id), None)
    if mine is not None and mine.reused:  # (the "reused" reason says what the resume did)
        text = f"{by} called it in step {n} (a functional-API task)."
    else:
        text = (
            f"{by} called it in step {n} (a functional-API task): it ran in the same step, "
            f"beside {by}, and its return value went back to {by}."
        )
    return Finding(f"{by} called it", Reason("call", text, n, None, (by,)))
