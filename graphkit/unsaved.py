"""A task of a thread read from LangGraph that has no write saved: ``NotSaved``.

LangGraph saves a task's writes when it finishes (a marker at least, for a task that
wrote nothing), in the background while the run goes on. A process that ended (killed,
out of memory) before that save left a task with no write saved: one still running, or
one that had finished but whose writes were still to be saved. Such a task's ``output``
is a ``NotSaved`` (``open_langgraph_thread`` sets it) and every view says so, not "wrote
nothing", nor that it dropped the keys of the input it was given. So is the output of
the ``__input__`` task a thread whose beginning was not saved starts with (a run with
``durability="exit"`` saves only its last checkpoint): it stands in for the steps that
made that checkpoint, whose writes LangGraph did not save (``start``).

The record sits outside the layers that read it: the bridge makes it, and both
``graphkit.inspect`` (text, cards, tables, ``why``) and ``graphkit.render`` (the
debugger's drawing) read it, and ``render`` may not import ``inspect``.
"""

from __future__ import annotations

from typing import Any

from graphkit.frozen import frozen_record

__all__ = ["NotSaved", "not_saved"]


@frozen_record()
class NotSaved:
    """The output of a task whose writes LangGraph did not save; ``finished``: its step's
    Update was saved (so the task had finished), else the thread stopped in its step.

    >>> NotSaved(True).text()
    'its writes were not saved: the process ended before LangGraph saved them (in the background)'
    """

    finished: bool
    failed: tuple[str, ...] = ()
    """The nodes whose tasks raised in its step, when one did: the process need not have
    ended (a run with ``durability="exit"`` saves, when it fails, only the writes of the
    tasks that had finished by then; and when ``invoke(None, config)`` then finished the
    step with ``durability="exit"``, none of that run's writes)."""
    start: int | None = None
    """Set on the ``__input__`` task of a thread whose first saved checkpoint is a later
    step's: that step's number. The task stands in for the steps up to it, whose
    writes were not saved (it ran nothing itself)."""
    ran: tuple[str, ...] = ()
    """With ``start``: the nodes that ran in those steps, as the checkpoint they made
    says (each had seen its triggers); in which step, and what each wrote, is not
    known. The debugger draws them ``not-saved``, not as nodes that never ran."""
    after: int | None = None
    """With ``start``: the last saved step before the steps not saved, when the thread's
    beginning was saved (a thread run with ``durability="sync"``, then ``"exit"``); None:
    they are the thread's first steps."""

    resumed: bool = False
    """The task had paused in ``interrupt()`` and a run with ``durability="exit"``
    resumed it and finished its step, saving only its last checkpoint: neither the
    answer it was given nor its writes were saved."""

    def text(self) -> str:
        """What a task line says in place of its writes.

        >>> print(NotSaved(False, ("b",)).text())
        nothing saved: b raised while it ran, and LangGraph saved none of its writes (a run with durability='exit' keeps only those of the tasks that had finished); going on (invoke(None, config)) runs it again
        >>> print(NotSaved(True, start=2).text())
        the steps up to step 2 were not saved by LangGraph (a run with durability='exit' saves only its last checkpoint): which tasks ran, what each wrote, and any error a task raised or an error handler took over are not known
        """  # noqa: E501
        if self.start is not None:
            steps = (
                f"the steps up to step {self.start}"
                if self.after is None
                else f"steps {self.after + 1} to {self.start}"
            )
            return (
                f"{steps} were not saved by LangGraph (a run with "
                "durability='exit' saves only its last checkpoint): which tasks ran, what "
                "each wrote, and any error a task raised or an error handler took over are "
                "not known"
            )
        if self.resumed:
            return (
                "resumed after its interrupt(), and its writes were not saved: the run that "
                "resumed it (durability='exit') saved only its last checkpoint, not the "
                "answer it was given nor what it wrote"
            )
        if self.failed and self.finished:  # a resumed run finished the step
            return (
                f"its writes were not saved: the run that finished this step after "
                f"{', '.join(self.failed)} raised saved only its last checkpoint "
                "(durability='exit')"
            )
        if self.failed:
            return (
                f"nothing saved: {', '.join(self.failed)} raised while it ran, and LangGraph "
                "saved none of its writes (a run with durability='exit' keeps only those of "
                "the tasks that had finished); going on (invoke(None, config)) runs it again"
            )
        if self.finished:
            return (
                "its writes were not saved: the process ended before LangGraph saved them "
                "(in the background)"
            )
        return (
            "nothing saved: the process ended before it finished or before its writes "
            "were saved; going on (invoke(None, config)) runs it again"
        )


def not_saved(result: Any) -> NotSaved | None:
    """The ``NotSaved`` of a task result whose writes were not saved, else None.

    >>> from types import SimpleNamespace
    >>> not_saved(SimpleNamespace(output=NotSaved(False)))
    NotSaved(finished=False, failed=(), start=None, ran=(), after=None, resumed=False)
    >>> print(not_saved(SimpleNamespace(output={"n": 1})))
    None
    """
    output = getattr(result, "output", None)
    return output if isinstance(output, NotSaved) else None
