"""What ``why`` says of a task of a thread read from LangGraph that has no write saved
(its output a ``graphkit.unsaved.NotSaved``, which says why; re-exported here)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from graphkit.inspect.explanation import Reason
from graphkit.inspect.findings import Finding
from graphkit.inspect.values import join_names
from graphkit.unsaved import NotSaved, not_saved

if TYPE_CHECKING:
    from graphkit.pregel.records import ChannelChange, TaskResult

__all__ = ["NotSaved", "not_saved", "not_saved_reason", "writers_text", "written_unsaved"]


def writers_text(change: ChannelChange) -> str:
    """Who made ``change``, in words: its writers, or, for a change several tasks whose
    writes were not saved may have made (writers and no value:
    ``graphkit.bridge.unsaved``), which of them it may be.

    >>> from graphkit.pregel.records import ChannelChange
    >>> writers_text(ChannelChange("last", "a", "b", 1, 2, ("a", "b"), (), "LastValue"))
    'one of a, b (not saved)'
    >>> writers_text(ChannelChange("log", [], [1], 1, 2, ("a", "b"), (), "add"))
    'one or more of a, b (not saved)'
    >>> writers_text(ChannelChange("log", [], [1, 2], 1, 2, ("a", "b"), ([1], [2]), "add"))
    'a, b'
    """
    names = ", ".join(dict.fromkeys(change.writers))
    if len(set(change.writers)) > 1 and not change.values:
        # (two writes to a plain key fail the Update: only one of them can have made it)
        some = "one of" if change.reducer == "LastValue" else "one or more of"
        return f"{some} {names} (not saved)"
    return names


def not_saved_reason(node: str, n: int, unsaved: Sequence[TaskResult]) -> Reason:
    """``node``'s tasks of step ``n`` whose writes were not saved: what is known of them."""
    finished = all(r.output.finished for r in unsaved)
    tasks = f"{len(unsaved)} of its tasks" if len(unsaved) > 1 else "its task"
    failed = next((r.output.failed for r in unsaved if r.output.failed), ())
    if any(r.output.resumed for r in unsaved):
        text = (
            f"Step {n}'s Update was saved, so {node} had finished, but LangGraph did not save "
            f"the writes of {tasks}: it had paused in interrupt(), and the run that resumed "
            "it (Command(resume=...)), with durability='exit', saved only its last "
            "checkpoint, not the answer nor what it wrote. The step's changes are known; "
            "what each of its tasks wrote is not."
        )
    elif finished and failed:
        text = (
            f"Step {n}'s Update was saved, so {node} had finished, but LangGraph did not save "
            f"the writes of {tasks}: {join_names(failed)} raised in an earlier run of step "
            f"{n}, and the run that went on (invoke(None, config)) and finished it, with "
            "durability='exit', saved only its last checkpoint. The step's changes are "
            "known; what each of its tasks wrote is not."
        )
    elif finished:
        text = (
            f"Step {n}'s Update was saved, so {node} had finished, but LangGraph did not save "
            f"the writes of {tasks}: it saves a task's writes in the background, apart from "
            "the step's checkpoint, and the process ended before they were saved. The "
            "step's changes are known; what each of its tasks wrote is not."
        )
    elif failed:
        text = (
            f"LangGraph saved nothing of {tasks} at step {n}: {join_names(failed)} raised "
            f"while {node} ran, and a run with durability='exit' saves, when a task fails, "
            f"only the writes of the tasks that had finished (else the process ended "
            f"first). LangGraph counts it as not run: going on (invoke(None, config)) runs "
            f"{node} again."
        )
    else:
        text = (
            f"LangGraph saved nothing of {tasks} at step {n}: the process ended before "
            f"{node} finished, or before its writes were saved (LangGraph saves them in the "
            "background). LangGraph counts it as not "
            f"run: going on (invoke(None, config)) runs {node} again, then step {n}'s Update."
        )
    return Reason("not_saved", text, n, None, (node,))


def written_unsaved(node: str, channel: str, change: ChannelChange, n: int) -> Finding:
    """Why ``node`` ran at step ``n`` on ``channel``, whose version was written in steps
    LangGraph did not save (``change.unsaved``): the saved checkpoint holds it, and
    ``node`` had not run on it; who wrote it, and in which step, is not known."""
    gap = change.unsaved
    assert gap is not None and gap.start is not None
    first = gap.after + 1 if gap.after is not None else 0
    steps = f"steps {first} to {gap.start}"
    text = (
        f"{channel} was written in {steps}, which LangGraph did not save (a run with "
        f"durability='exit' saves only its last checkpoint): the checkpoint step "
        f"{gap.start} saved holds it (version {change.version_after}), which {node} had "
        f"not yet seen, so step {n}'s Plan woke {node}. Which node wrote it, in which "
        "step, was not saved."
    )
    reason = Reason("not_saved", text, gap.start, channel)
    return Finding(f"{channel} was written in {steps}, which were not saved", reason)
