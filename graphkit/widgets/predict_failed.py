"""Predicting a channel's value in a step that failed: its Execute (a task raised and
no handler took over) or its Update (two writes to a plain key, a reducer that raised).
Either way the step applies none of its writes; the reveal says why, from the records,
and counts naming the error's class as right. A step that paused in its Execute
(``interrupt()``) applies none yet, and is told so."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphkit.channels import EMPTY
from graphkit.errors import InvalidUpdateError
from graphkit.inspect.values import join_names, show, show_error
from graphkit.widgets.predict import _WIDTH, Prediction, _same

if TYPE_CHECKING:
    from graphkit.widgets.session import DebugSession

__all__ = ["failed_execute", "failed_tasks", "failed_update", "paused_execute", "paused_tasks"]


def failed_tasks(session: DebugSession) -> list[Any]:
    """The tasks of the last step that raised and were not handled, if its Execute
    failed (and so it ran no Update)."""
    superstep = session.supersteps[-1] if session.supersteps else None
    if superstep is None or superstep.execution is None or superstep.update is not None:
        return []
    return [r for r in superstep.execution.results if r.error is not None and not r.handled]


def failed_execute(session: DebugSession, channel: str, guess: Any, step: int) -> Prediction:
    """A task raised in the step's Execute: the step runs no Update, so ``channel`` keeps
    the value it had, whatever the tasks that finished wrote (lesson 12's "what does
    ``total`` hold after the failed step?"). Naming the error's class is right too, as
    for an Update that failed."""
    failed = failed_tasks(session)
    error = failed[0].error
    expected = session.values.get(channel, EMPTY)
    named = {kind.__name__ for kind in type(error).__mro__} - {"Exception", "BaseException"}
    correct = (
        isinstance(guess, type) and guess.__name__ in named and isinstance(error, guess)
    ) or (isinstance(guess, str) and guess.strip() in named)
    correct = correct or (expected is not EMPTY and _same(guess, expected))
    held = (
        f"still holds {show(expected, _WIDTH)}" if expected is not EMPTY else "still has no value"
    )
    raised = join_names(f"{r.task.node} raised {show_error(r.error)}" for r in failed)
    results = session.supersteps[-1].execution.results
    wrote = [
        f"{r.task.node} ({show(v, 60)})"
        for r in results
        if r.error is None
        for name, v in r.writes
        if name == channel
    ]
    lost = (
        f": the writes to {channel} of the tasks that finished, {join_names(wrote)}, were never "
        "applied"
        if wrote
        else ""
    )
    text = (
        f"{'Right' if correct else 'Not quite'}: step {step} failed in its Execute "
        f"({raised}), so it ran no Update and {channel} {held} (you predicted "
        f"{guess.__name__ if isinstance(guess, type) else show(guess, _WIDTH)}). A step "
        f"that fails applies none of its writes{lost}. With a checkpointer, "
        f"{'they' if wrote else 'the writes of the tasks that finished'} are saved as the "
        "thread's pending writes, and a resume applies them."
    )
    return Prediction("channel", step, guess, expected, correct, text, channel)


def paused_tasks(session: DebugSession) -> list[Any]:
    """The tasks of the last step that called ``interrupt()``, if it paused in its
    Execute (and so ran no Update yet)."""
    superstep = session.supersteps[-1] if session.supersteps else None
    if superstep is None or superstep.execution is None or superstep.update is not None:
        return []
    return [r for r in superstep.execution.results if r.paused and r.interrupts]


def paused_execute(session: DebugSession, channel: str, guess: Any, step: int) -> Prediction:
    """A task paused in the step's Execute (``interrupt()``): the step runs no Update
    until the run is resumed, so ``channel`` keeps its value for now. (It was told as an
    Update that failed.)"""
    paused = join_names(r.task.node for r in paused_tasks(session))
    expected = session.values.get(channel, EMPTY)
    correct = expected is not EMPTY and _same(guess, expected)
    held = f"still holds {show(expected, _WIDTH)}" if expected is not EMPTY else "has no value"
    text = (
        f"{'Right' if correct else 'Not quite'}: step {step} paused in its Execute ({paused} "
        f"called interrupt()), so it ran no Update yet and {channel} {held} (you predicted "
        f"{show(guess, _WIDTH)}). The step's writes are applied in its Update when the run "
        "is resumed with Command(resume=...); the task that paused runs again from its "
        "start then."
    )
    return Prediction("channel", step, guess, expected, correct, text, channel)


def failed_update(session: DebugSession, channel: str, guess: Any, step: int) -> Prediction:
    error = session.stepper.error
    # (the widget's box can only send text: the class's name, typed, is the class;
    # a base every error has says nothing about this one, so it is no answer)
    named = {kind.__name__ for kind in type(error).__mro__} if error is not None else set()
    named -= {"Exception", "BaseException", "object"}
    correct = (
        isinstance(guess, type) and isinstance(error, guess) and guess.__name__ in named
    ) or (isinstance(guess, str) and guess.strip() in named)
    verdict = "Right" if correct else "Not quite"
    guessed = guess.__name__ if isinstance(guess, type) else show(guess, _WIDTH)
    text = (
        f"{verdict}: step {step}'s Update failed, so {channel} holds no new value (you "
        f"predicted {guessed}). {_conflict(session, step) or session.message}"
    )
    return Prediction("channel", step, guess, error, correct, text, channel)


def _conflict(session: DebugSession, step: int) -> str | None:
    """Why an Update failed on a plain key (or a low-level ``Pregel``'s LastValue
    channel) written twice, told from the records. The
    error's own text ends with its fix (give the key a reducer): a reveal explains the
    rule, and leaves the fix to the learner (lesson 03's exercise 3.1 asks for it)."""
    from graphkit.channels import LastValue
    from graphkit.graph import StateGraph

    superstep = session.supersteps[-1] if session.supersteps else None
    error = session.stepper.error
    if superstep is None or superstep.update is not None or superstep.execution is None:
        return None
    if not isinstance(error, InvalidUpdateError):  # (a reducer that raised, say)
        return None
    writers: dict[str, list[str]] = {}
    for result in superstep.execution.results:
        for name, _ in result.writes:
            writers.setdefault(name, []).append(result.task.node)
    channels = session.app.spec.channels
    # (a low-level Pregel has channels, but no state keys)
    keyed = isinstance(getattr(session.app, "builder", None), StateGraph)
    kind = "a plain key (a LastValue channel)" if keyed else "a LastValue channel"
    for name, who in writers.items():
        # (the channel the error names: two plain keys may both be written twice)
        if len(who) > 1 and type(channels.get(name)) is LastValue and repr(name) in str(error):
            return (
                f"In step {step}'s Execute, {_tasks_of(who)} each wrote {name}, {kind}: "
                f"it keeps one value per step, and of writes made at "
                f"the same time none is the last. So the Update raised "
                f"{type(error).__name__} and applied none of the step's "
                "writes."
            )
    return None


def _tasks_of(nodes: list[str]) -> str:
    """``a and b``; a node that ran several tasks (one per Send packet) once, counted."""
    counts = {node: nodes.count(node) for node in nodes}
    return join_names(
        node if n == 1 else f"the {n} tasks of {node} (one per Send packet)"
        for node, n in counts.items()
    )
