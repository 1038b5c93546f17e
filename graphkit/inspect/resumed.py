"""A task that a resume let past its ``interrupt()`` ran its node again from its start.

LangGraph resumes a paused task by running its node again, from its first line: each
``interrupt()`` it reaches returns the answer given for it, in order. So whatever the
node did before its ``interrupt()`` (an audit line written, an e-mail drafted, a model
called) was done once when it asked and again when it was answered. The records keep
the answers (``TaskResult.answers``); a view that said only ``resumed with 'yes'`` left
the user to know the rule, as a retry's note once did (see ``retried``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphkit.inspect.values import show

if TYPE_CHECKING:
    from graphkit.pregel.records import TaskResult

__all__ = ["AGAIN", "resumed_reason_text"]

AGAIN = "it ran again from its start: what it did before interrupt() was done again"
"""What ``print(run)`` and a step card add to a resumed task's answers."""


def resumed_reason_text(result: TaskResult) -> str | None:
    """What ``why`` says of a task a resume let past its ``interrupt()`` calls, or None
    for a task that was not resumed.

    >>> from graphkit.pregel.records import Task, TaskResult
    >>> task = Task("t1", 2, "refund", "pull", ("refund",), ("branch:to:refund",), {})
    >>> said = resumed_reason_text(TaskResult(task, (), answers=("yes",)))
    >>> said[:80]
    "refund was resumed with 'yes' in step 2: a resumed task runs its node again from"
    """
    if not result.answers:
        return None
    answers = ", ".join(show(answer, 60) for answer in result.answers)
    task = result.task
    # (the tasks of a Send fan-out, a ToolNode's calls, read alike but by their packet)
    who = f"{task.node} ({show(task.input, 60)})" if task.kind == "push" else task.node
    return (
        f"{who} was resumed with {answers} in step {task.step}: a resumed task runs its "
        "node again from its start, and each interrupt() it reaches returns its answer, in "
        "order. Whatever it did before its interrupt() (a row written, a message sent, a "
        "model called) was done when it asked and again when it was answered. Do such "
        "things after the interrupt(), or in a node that runs after it."
    )
