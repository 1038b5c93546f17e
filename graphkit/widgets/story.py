"""One story of step numbers for the learner, whatever LangGraph numbered the records.

Back after an Update forks the thread, and the fork checkpoint takes a step number: the
step run again is numbered one higher than the step it replaces (back from step 2, the
records say step 3). The records keep LangGraph's numbers (the checkpoints table shows
them and the fork); everything the debugger *tells* (labels, slider, tables, the why
text, the export) numbers the recorded supersteps in order from the first, and marks a
step that was run before and undone as "replayed".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from graphkit.pregel.records import Superstep
from graphkit.unsaved import not_saved

if TYPE_CHECKING:
    from graphkit.widgets.session import DebugSession

__all__ = [
    "dropped_numbers",
    "next_step_text",
    "renumbered",
    "story_label",
    "story_number",
    "story_steps",
]


def story_steps(session: DebugSession) -> tuple[Superstep, ...]:
    """The session's supersteps numbered in order from the first (-1 for the input).

    >>> from graphkit.inspect.examples import forecast_graph
    >>> from graphkit.widgets import DebugSession
    >>> session = DebugSession(forecast_graph(), {"topic": "today", "tokens": 0})
    >>> for _ in range(4): _ = session.step()
    >>> session.back(); _ = session.step()
    >>> [s.step for s in session.supersteps], [s.step for s in story_steps(session)]
    ([-1, 0, 1, 3], [-1, 0, 1, 2])
    """
    steps = session.supersteps
    return tuple(map(renumbered, steps, _numbers(steps)))


def story_number(session: DebugSession, recorded: int) -> int:
    """The number the learner is told for LangGraph's step ``recorded`` (a recorded
    superstep's, or the next one the stepper will plan)."""
    steps = session.supersteps
    if not steps:
        return recorded
    numbers = _numbers(steps)
    for superstep, number in zip(steps, numbers, strict=True):
        if superstep.step == recorded:
            return number
    return numbers[-1] + 1  # the step the stepper plans next


def _numbers(steps: Sequence[Superstep]) -> list[int]:
    """The story number of each of ``steps``: one more than the step before, except a
    step standing in for steps a LangGraph thread did not save (``NotSaved.after``),
    which keeps its distance (its cards and tables name those steps by number)."""
    numbers: list[int] = []
    for superstep in steps:
        before = numbers[-1] if numbers else superstep.step - 1
        numbers.append(before + 1 + _skipped(superstep))
    return numbers


def _skipped(superstep: Superstep) -> int:
    """How many steps before ``superstep`` LangGraph did not save (its stand-in says)."""
    for result in superstep.execution.results if superstep.execution is not None else ():
        if (unsaved := not_saved(result)) is not None and unsaved.after is not None:
            return max(unsaved.start - unsaved.after - 1, 0) if unsaved.start else 0
    return 0


def story_label(session: DebugSession, recorded: int | None) -> str:
    """``"step 2"``, ``"input step"``, ``"not started"``, or ``"step 2 (replayed)"``
    for a step run again after Back (LangGraph numbered it 3)."""
    if recorded is None:
        return "not started"
    number = story_number(session, recorded)
    if number == -1:
        return "input step"
    if number == recorded:
        return f"step {number}"
    again = "replayed" if number in session.undone else "after the fork"
    return f"step {number} ({again})"


def dropped_numbers(session: DebugSession, kept: Sequence[Superstep]) -> frozenset[int]:
    """The story numbers of the applied supersteps a Back drops (all but ``kept``):
    run again, they are "replayed"."""
    kept_ids = {id(superstep) for superstep in kept}
    return frozenset(
        story_number(session, s.step)
        for s in session.supersteps
        if s.update is not None and id(s) not in kept_ids
    )


def next_step_text(session: DebugSession) -> str:
    """``"step 3"`` for the step the stepper plans next, with LangGraph's number when a
    fork took one: ``"step 3 (LangGraph: step 4, after the fork)"``."""
    recorded = session.stepper.step_number
    number = story_number(session, recorded)
    if number == recorded:
        return f"step {number}"
    return f"step {number} (LangGraph: step {recorded}, after the fork)"


def renumbered(superstep: Superstep, number: int) -> Superstep:
    """``superstep`` with ``number`` in every record that carries a step number."""
    if superstep.step == number:
        return superstep
    replace = dataclasses.replace
    tasks = tuple(replace(task, step=number) for task in superstep.plan.tasks)
    by_id = {task.id: task for task in tasks}
    plan = replace(superstep.plan, step=number, tasks=tasks)
    execution = superstep.execution
    if execution is not None:
        results = tuple(
            replace(r, task=by_id.get(r.task.id, replace(r.task, step=number)))
            for r in execution.results
        )
        execution = replace(execution, step=number, results=results)
    update = superstep.update
    if update is not None:
        update = replace(update, step=number)
    return replace(superstep, step=number, plan=plan, execution=execution, update=update)
