"""A task of a thread read from LangGraph that has no write saved.

LangGraph saves a task's writes when it finishes (a marker at least, for a task that
wrote nothing), in the background while the run goes on. A process that ended (killed,
out of memory) before that save left a task with no write saved: one still running, or
one that had finished but whose writes were still to be saved. Such a task's ``output``
is a ``NotSaved`` (``open_langgraph_thread`` sets it) and the views say so, not "wrote
nothing", nor that it dropped the keys of the input it was given.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from graphkit.frozen import frozen_record
from graphkit.inspect.explanation import Reason

if TYPE_CHECKING:
    from graphkit.pregel.records import TaskResult

__all__ = ["NotSaved", "not_saved", "not_saved_reason"]


@frozen_record()
class NotSaved:
    """The output of a task whose writes LangGraph did not save; ``finished``: its step's
    Update was saved (so the task had finished), else the thread stopped in its step.

    >>> NotSaved(True).text()
    'its writes were not saved: the process ended before LangGraph saved them (in the background)'
    """

    finished: bool

    def text(self) -> str:
        """What a task line says in place of its writes."""
        if self.finished:
            return (
                "its writes were not saved: the process ended before LangGraph saved them "
                "(in the background)"
            )
        return (
            "nothing saved: the process ended before it finished or before its writes "
            "were saved; going on (invoke(None, config)) runs it again"
        )


def not_saved(result: TaskResult) -> NotSaved | None:
    """The ``NotSaved`` of a task whose writes were not saved, else None."""
    output = result.output
    return output if isinstance(output, NotSaved) else None


def not_saved_reason(node: str, n: int, unsaved: Sequence[TaskResult]) -> Reason:
    """``node``'s tasks of step ``n`` whose writes were not saved: what is known of them."""
    finished = all(r.output.finished for r in unsaved)
    tasks = f"{len(unsaved)} of its tasks" if len(unsaved) > 1 else "its task"
    if finished:
        text = (
            f"Step {n}'s Update was saved, so {node} had finished, but LangGraph did not save "
            f"the writes of {tasks}: it saves a task's writes in the background, apart from "
            "the step's checkpoint, and the process ended before they were saved. The "
            "step's changes are known; what each of its tasks wrote is not."
        )
    else:
        text = (
            f"LangGraph saved nothing of {tasks} at step {n}: the process ended before "
            f"{node} finished, or before its writes were saved (LangGraph saves them in the "
            "background). LangGraph counts it as not "
            f"run: going on (invoke(None, config)) runs {node} again, then step {n}'s Update."
        )
    return Reason("not_saved", text, n, None, (node,))
