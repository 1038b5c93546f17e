"""How a debugger's run stands, in words: the step's label, one line on the run's
status (running, done, paused or failed: where and why), and which channel's Update
ended the run when its Update raised. ``graphkit.widgets.view`` puts them in a ``View``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphkit.inspect.mutated import lost_in_loop
from graphkit.inspect.values import is_internal, show_error, which_packet
from graphkit.pregel.records import Superstep
from graphkit.widgets.answers import waiting_questions
from graphkit.widgets.panels import FailedUpdate
from graphkit.widgets.story import story_number

if TYPE_CHECKING:
    from graphkit.widgets.session import DebugSession

__all__ = ["failed_update", "status_text", "step_label"]


def failed_update(session: DebugSession, superstep: Superstep) -> FailedUpdate | None:
    """``superstep``'s Update, if it is the one that ended the run by raising (every task
    finished): the channel the error names and who wrote it. Lesson 03's conflict (two
    nodes write a plain key in one step) drew the writers as "wrote, pending", and
    nothing said which channel's Update failed."""
    error = session.error
    execution = superstep.execution
    if session.status != "error" or error is None or superstep.update is not None:
        return None
    if execution is None or any(r.error is not None for r in execution.results):
        return None  # (a task raised: the view marks it, and its status says so)
    writers: dict[str, list[str]] = {}
    for result in execution.results:
        for channel, _ in result.writes:
            writers.setdefault(channel, []).append(result.task.node)
    channel, by_reducer = _failed_channel(error, [c for c in writers if not is_internal(c)])
    if not channel:  # (the error's words name no channel: a plain key written twice)
        kinds = session.app.spec.channels
        named = [c for c, who in writers.items() if len(who) > 1 and _plain(kinds.get(c))]
        channel = max(named, key=lambda c: len(writers[c]), default="")
    who = tuple(dict.fromkeys(writers.get(channel, ())))
    count = len(writers.get(channel, ()))
    from graphkit.errors import InvalidUpdateError

    if by_reducer:
        reducer = getattr(session.app.spec, "reducer_names", {}).get(channel)
        reason = f"its reducer{f' {reducer}' if reducer else ''} raised {type(error).__name__}"
    elif isinstance(error, InvalidUpdateError) and count > 1:
        reason = f"{count} writes in one step, and a plain key keeps one value per step"
    else:
        reason = f"the Update raised {type(error).__name__} on these writes"
    return FailedUpdate(type(error).__name__, channel, who, reason)


def _failed_channel(error: BaseException, written: list[str]) -> tuple[str, bool]:
    """The channel whose Update raised, in the runtime's own words (and whether its
    reducer raised): a reducer's error says nothing of the channel, its note does
    ("applied its writes to channel 'results'"); a conflict says "wrote 'results'". A
    name quoted elsewhere (a reducer's own message quoting another key) is a last resort.

    >>> error = TypeError("unsupported operand type(s) for +: 'int' and 'list'")
    >>> error.add_note("While step 1 applied its writes to channel 'results': its ...")
    >>> _failed_channel(error, ["topic", "results"])
    ('results', True)
    """
    for note in getattr(error, "__notes__", ()):
        for channel in written:
            if f"applied its writes to channel {channel!r}:" in str(note):
                return channel, True
    text = str(error)
    for channel in written:
        if f"wrote {channel!r}" in text:
            return channel, False
    return next((channel for channel in written if repr(channel) in text), ""), False


def _plain(channel: Any) -> bool:
    from graphkit.channels import LastValue

    return type(channel) is LastValue


def step_label(step: int | None) -> str:
    """``"step 3"``, ``"input step"`` for -1, ``"not started"`` for None."""
    if step is None:
        return "not started"
    return "input step" if step == -1 else f"step {step}"


def status_text(session: DebugSession) -> str:
    """One line on how the run stands: running, done, paused or failed (where, why)."""
    stepper = session.stepper
    status, number = session.status, story_number(session, stepper.step_number)
    if status == "running":
        # (as the step label says: before the input step's Plan, the run has not started)
        state = "running" if session.supersteps else "not started"
        first = " (the input step)" if number == -1 else ""
        return f"{state}: step {number}{first} waits for its {session.next_phase}"
    if status == "done":
        return "done: no node was triggered by the last Update"
    last = session.supersteps[-1] if session.supersteps else None
    results = last.execution.results if last is not None and last.execution is not None else ()
    if status == "interrupted":
        asked = session.questions
        if not asked:
            return f"paused by a compiled breakpoint at step {number}: Resume goes on"
        # (the question in full, or nearly: it is what the human has to answer; with its
        # id when several wait, as Resume takes an answer for each by its id)
        questions = waiting_questions(asked, results)
        where = story_number(session, last.step) if last else number
        return f"interrupted at step {where}: {questions}"
    if status == "drained":
        reason = stepper.context.runtime.control.drain_reason
        return f"drained before step {number} ({reason}): a drain was requested"
    failed = next((r for r in results if r.error is not None), None)
    if failed is not None:
        where = story_number(session, failed.task.step)
        node = f"{failed.task.node!r}{which_packet(failed, results)}"
        text = f"error in node {node} at step {where}: {show_error(failed.error)}"
        return text + _no_context(session, failed.error)
    if status == "error" and last is not None and last.execution and last.update is None:
        where = story_number(session, last.step)  # (every task finished: the Update raised)
        return f"error in step {where}'s Update: {show_error(session.error)}"
    # (a loop that never ended because its exit flag was set and lost: said first, as the
    # error's own advice, "check that a conditional edge eventually routes to END", is
    # what the learner already did)
    lost = lost_in_loop(session.supersteps) if status == "out_of_steps" else ""
    return f"{status} at step {number}: {lost + '. ' if lost else ''}{show_error(session.error)}"


def _no_context(session: DebugSession, error: BaseException | None) -> str:
    """A hint for a node that failed on a None (as reading ``runtime.context.tone`` does)
    in a session given no ``context=`` for a graph with a ``context_schema``: its
    ``runtime.context`` was None (a run record does not keep it). Another error gets none."""
    schema = getattr(session.app, "context_schema", None)
    if schema is None or session.context is not None or not _read_none(error, schema):
        return ""
    name = getattr(schema, "__name__", "the context")
    return (
        f" (the graph has a context_schema, {name}, and this debugger was given no "
        f"context: pass context={name}(...) to Debugger or DebugSession, or their from_run)"
    )


def _read_none(error: BaseException | None, schema: Any) -> bool:
    """True for an error reading a None as the context is read: an attribute the schema
    names (``.tone``; a state value's ``None.upper()`` is not the context's), ``.get``
    or a subscript."""
    if not isinstance(error, AttributeError | TypeError) or "NoneType" not in str(error):
        return False
    name = getattr(error, "name", None)  # (the attribute an AttributeError read on None)
    fields = {
        n
        for klass in getattr(schema, "__mro__", ())
        for n in vars(klass).get("__annotations__", {})
    }
    return not isinstance(name, str) or name == "get" or name in fields
