"""A task that a resume let past its ``interrupt()`` ran its node again from its start.

LangGraph resumes a paused task by running its node again, from its first line: each
``interrupt()`` it reaches returns the answer given for it, in order. So whatever the
node did before its ``interrupt()`` (an audit line written, an e-mail drafted, a model
called) was done once when it asked and again when it was answered. The records keep
the answers (``TaskResult.answers``); a view that said only ``resumed with 'yes'`` left
the user to know the rule, as a retry's note once did (see ``retried``). The tasks it
called (``@task``) that had finished are the exception: a resume returns their saved
results and does not run them again, so a side effect inside one happened once.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from graphkit.constants import START
from graphkit.inspect.explanation import Reason
from graphkit.inspect.values import show

if TYPE_CHECKING:
    from graphkit.pregel.records import Task, TaskResult

__all__ = ["again", "resumed_reason_text", "reused_call_reason", "reused_reason"]


def again(result: TaskResult, results: Iterable[TaskResult] = ()) -> str:
    """What ``print(run)`` and a step card add to a resumed task's answers; ``results``:
    its step's, where the tasks it called and did not run again are.

    >>> from graphkit.pregel.records import Task, TaskResult
    >>> task = Task("t1", 2, "refund", "pull", ("refund",), ("branch:to:refund",), {})
    >>> again(TaskResult(task, (), answers=("yes",)))
    'it ran again from its start: what it did before interrupt() was done again'
    """
    return "it ran again from its start: what it did before interrupt() was done again" + (
        _but_calls(result, results)
    )


def _but_calls(result: TaskResult, results: Iterable[TaskResult]) -> str:
    """``, but for the tasks it called that had finished (draft): ...``, or nothing."""
    kept = [r.task.node for r in results if r.task.parent == result.task.id and r.reused]
    if not kept:
        return ""
    return (
        f", but for the tasks it called that had finished ({', '.join(dict.fromkeys(kept))}): "
        "they returned their saved results, not run again"
    )


def resumed_reason_text(result: TaskResult, results: Iterable[TaskResult] = ()) -> str | None:
    """What ``why`` says of a task a resume let past its ``interrupt()`` calls, or None
    for a task that was not resumed (``results``: its step's, as for ``again``).

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
        f"model called) was done when it asked and again when it was answered"
        f"{_but_calls(result, results)}. {_instead(task)}"
    )


def _instead(task: Task) -> str:
    """Where to move what must happen once: a StateGraph's node has nodes after it; an
    entrypoint (its task wakes on ``__start__``) or a called task has only its own body
    and the tasks it calls (the advice "in a node that runs after it" fit none)."""
    functional = task.kind == "call" or (
        task.kind == "pull" and START in task.triggers and task.node != START
    )
    if not functional:
        return (
            "Do such things after the interrupt(), in a node that runs after it, or in a "
            "task it calls (@task), whose finished result a resume reuses."
        )
    body = "the task's body" if task.kind == "call" else "the entrypoint's body"
    return (
        f"Do such things after the interrupt() in {body}, or in a task it calls (@task), "
        "whose finished result a resume reuses."
    )


def reused_reason(node: str, n: int, reused: int = 1, tasks: int = 1) -> Reason:
    """What ``why`` says of a resumed step's task that had finished before the run
    stopped (a sibling raised or paused): its writes were saved, and the resume applied
    them without running it. Said as "ran", a learner counted its side effects twice.
    ``reused`` of the node's ``tasks`` in the step (a Send's packets) were.

    >>> reused_reason("work", 1, reused=1, tasks=2).text[:60]
    "1 of work's 2 tasks had finished in step 1 before the run st"
    >>> "that one did not run again, and what it did" in reused_reason("work", 1, 1, 2).text
    True
    """
    if reused == 1 < tasks:  # (the others ran: a packet that failed, or had not finished)
        who, whose = f"1 of {node}'s {tasks} tasks", "its"
        done = "that one did not run again, and what it did"
    elif reused < tasks:
        who, whose = f"{reused} of {node}'s {tasks} tasks", "their"
        done = f"those {reused} did not run again, and what they did"
    else:
        who, whose, done = node, "its", f"{node} did not run again, and what it did"
    text = (
        f"{who} had finished in step {n} before the run stopped there (another task "
        f"raised or paused), so {whose} writes were saved as the thread's pending writes. "
        f"Resuming planned step {n} again and applied those writes: {done} (a call, a "
        "message sent) was done once."
    )
    return Reason("reused", text, n, None, (node,))


def reused_call_reason(node: str, n: int, reused: int) -> Reason:
    """Calls a resumed run did not run: they had finished before the run stopped."""
    calls = f"{reused} calls of {node}" if reused > 1 else f"this call of {node}"
    text = (
        f"The run was resumed in step {n}: {calls} had finished before it stopped, so the "
        f"resume returned {'their saved results' if reused > 1 else 'its saved result'} to "
        "the caller and did not run the code again "
        "(what it did, a request sent, a row written, happened once)."
    )
    return Reason("reused", text, n, None, (node,))
