"""A run as a plain-text timeline for a terminal: per step, its Plan, Execute and Update.

``run_text(run)`` is what ``print(run)`` and ``run.timeline()`` show. It is built from
the records only, so it is exactly what the run did; durations are left out unless
asked for, so the text of a run is the same every time it runs. Names, values and
error messages come from user code, so every control character in them is shown as its
escape (``terminal_text``): printing a run cannot clear a terminal or fake a row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphkit.channels import EMPTY
from graphkit.diagnostics.reading import check_width
from graphkit.inspect.dropped import dropped_keys
from graphkit.inspect.folding import fold
from graphkit.inspect.history import brings_unsaved_state
from graphkit.inspect.mutated import lost_in_loop, mutated_keys
from graphkit.inspect.resumed import again
from graphkit.inspect.retried import retried_text
from graphkit.inspect.store_rows import store_ops_text
from graphkit.inspect.timeline import duration_text
from graphkit.inspect.unsaved import NotSaved, not_saved, writers_text
from graphkit.inspect.values import (
    ended_text,
    handoff,
    handoff_text,
    join_names,
    show,
    show_error,
    step_failure,
    was_cancelled,
    which_packet,
)
from graphkit.inspect.why_not import NO_STEP
from graphkit.render.text import terminal_text
from graphkit.types import overwritten_value

if TYPE_CHECKING:
    from collections.abc import Iterable

    from graphkit.pregel.records import ChannelChange, Run, Superstep, TaskResult

__all__ = ["run_text", "superstep_lines", "terminal_run_text"]

_VALUE_WIDTH = 30
_RUNTIME = "(runtime)"
_UNSAVED = "(not saved)"
"""Who made a change of the state a thread whose beginning was not saved starts from."""
WIDTH = 100
"""The longest line ``print(run)`` prints: a longer one goes on under its text column,
broken at a space. JupyterLab breaks an output line anywhere, inside a name ("(from
summ" / "arize)"), where it passes the cell; beside Lab's file browser a 1280-pixel
screen's cell holds 107 characters."""


def run_text(run: Run, *, durations: bool = False, width: int | None = WIDTH) -> str:
    """Every step of ``run`` as lines of text, then how the run ended. A line longer
    than ``width`` goes on on the next, indented by three spaces or more, broken at a
    space (``width=None``: one line per task, write set and change, for ``grep``); a
    word longer than a line is broken with ``↩`` (``graphkit.inspect.folding``).

    >>> from graphkit.inspect.examples import counter_run
    >>> print(run_text(counter_run()))
    3 supersteps, done
    step -1 (input)
      PLAN     __input__
      EXECUTE  __input__  wrote __start__
      UPDATE   __start__  <empty> -> {'n': 1}  (from __input__)
    step 0
      PLAN     __start__      triggered by __start__
      EXECUTE  __start__      wrote n, branch:to:inc
      UPDATE   n              <empty> -> 1  (from __start__)
      UPDATE   branch:to:inc  <empty> -> None  (from __start__)
      UPDATE   (runtime)      cleared __start__
    step 1
      PLAN     inc            triggered by branch:to:inc
      EXECUTE  inc            wrote n
      UPDATE   n              1 -> 2  (from inc)
      UPDATE   (runtime)      cleared branch:to:inc
    the run is done: step 2's Plan triggers no task
    """
    if width is not None:
        check_width(width, "run.timeline(width=...)")
    return _run_text(run, durations, width, break_words=True)


def terminal_run_text(run: Run, width: int | None) -> str:
    """``run_text`` for a terminal (``graphkit trace``): folded at spaces only, a word
    longer than a line kept whole on a line of its own, for the terminal to wrap, so
    that a URL or a hash copied or clicked there is whole.

    >>> from graphkit.inspect.examples import counter_run
    >>> terminal_run_text(counter_run(), 60) == run_text(counter_run(), width=60)
    True
    """
    return _run_text(run, False, width, break_words=False)


def _run_text(run: Run, durations: bool, width: int | None, break_words: bool) -> str:
    sent = handoff(run)  # (a subgraph's handoff to its parent: no failure)
    count = f"{len(run.steps)} superstep{'' if len(run.steps) == 1 else 's'}"
    lines = [f"{count}, {run.status if sent is None else 'handed off'}"]
    for superstep in run.steps:
        lines.extend(
            superstep_lines(
                superstep,
                durations=durations,
                handed_off=sent,
                width=width,
                break_words=break_words,
            )
        )
    ending = (terminal_text(line) for line in _ending(run))
    lines.extend(folded for line in ending for folded in _fold(line, 4, width, break_words))
    return "\n".join(lines)


def superstep_lines(
    superstep: Superstep,
    *,
    durations: bool = False,
    handed_off: Any = None,
    width: int | None = WIDTH,
    break_words: bool = True,
) -> list[str]:
    """The lines of one step: a title, then one line per task, write set and change
    (``handed_off``: the ``Command`` a subgraph's run handed its parent, see ``handoff``),
    each folded at ``width`` as ``run_text`` folds them.

    >>> from graphkit.inspect.examples import counter_run
    >>> superstep_lines(counter_run().step(1))[:3]
    ['step 1', '  PLAN     inc            triggered by branch:to:inc', '  EXECUTE  inc            wrote n']
    """  # noqa: E501
    plan, execution, update = superstep.plan, superstep.execution, superstep.update
    names = [terminal_text(task.node) for task in plan.tasks]
    names += [terminal_text(r.task.node) for r in execution.results] if execution else []
    if update is not None:
        names += [terminal_text(change.channel) for change in update.changes]
        if any(not change.writers for change in update.changes):
            names.append(_RUNTIME)
    unsaved_start = brings_unsaved_state(superstep)
    column = max(len(name) for name in names) if names else 0
    title = "(input)" if superstep.step == -1 else ""
    lines = [f"step {superstep.step} {title}".rstrip()]
    for task in plan.tasks:
        triggered = f"triggered by {', '.join(task.triggers)}" if task.triggers else ""
        lines.append(_line("PLAN", task.node, column, triggered))
    # several questions at once are answered by id (Command(resume={id: answer})): each
    # line gives its question's id, as the timeline's last line gives the map to fill
    # (a called task's question is its caller's too: one id, one question)
    waiting = len(_question_ids(execution.results)) if execution else 0
    read = superstep.checkpoint_before.channel_values
    failure = step_failure(execution.results) if execution is not None else None
    for result in execution.results if execution is not None else ():
        took = f"({_took(result.duration)}) " if durations else ""
        if was_cancelled(result.error):
            did = f"cancelled ({_one_line(show_error(result.error))}): the run was cancelled"
            if failure is not None and not was_cancelled(failure.error):
                # (an async run cancels the tasks still running when one fails)
                did = (
                    f"cancelled ({_one_line(show_error(result.error))}): "
                    f"{failure.task.node} raised, which cancelled it"
                )
        elif handed_off is not None and getattr(result.error, "command", None) is handed_off:
            did = f"handed off to the parent graph: {_one_line(handoff_text(handed_off))}"
        elif result.error is not None:
            did = f"raised {_one_line(show_error(result.error))}"
        elif result.writes:  # (and a route it ended the run with: no write shows that)
            wrote = ", ".join(dict.fromkeys(channel for channel, _ in result.writes))
            did = ended_text(result.output, f"wrote {wrote}")
        elif result.interrupts:  # what it asked: the answer to compare with what it did next
            asked = (getattr(i, "value", i) for i in result.interrupts)
            did = "paused in " + ", ".join(f"interrupt({show(a, 2 * _VALUE_WIDTH)})" for a in asked)
            if waiting > 1:
                did += f" (id {', '.join(str(getattr(i, 'id', '?')) for i in result.interrupts)})"
        elif (unsaved := not_saved(result)) is not None:
            did = unsaved.text()
        elif unsaved_start:  # (it brings in a state no saved write explains)
            did = NotSaved(True, start=superstep.step).text()
        else:  # (a supervisor's last turn, goto=END, writes no route on purpose)
            did = ended_text(result.output, "wrote nothing")
        if (store := store_ops_text(result)) is not None:  # (no channel shows them)
            did = f"{did}; {store}"
        keys = update.state_keys if update is not None else ()
        if (dropped := dropped_keys(result, keys)) is not None:  # (no write shows them missing)
            did = f"{did}; {dropped.text()}"
        if (mutated := mutated_keys(result, read)) is not None:  # (no write shows it lost)
            did = f"{did}; {mutated.text()}"
        if (retried := retried_text(result)) is not None:  # (its side effects, repeated)
            did = f"{did}; {retried}"
        if result.cached or result.reused:  # it did not run: its writes were kept
            kept = "from the cache" if result.cached else "saved before the run stopped"
            did = f"{kept}, not run again; {did}"
        if result.answers:  # what each interrupt() of the task was answered, in order
            answers = ", ".join(show(a, _VALUE_WIDTH) for a in result.answers)
            did = f"resumed with {answers} ({again(result, execution.results)}); {did}"
        lines.append(_line("EXECUTE", result.task.node, column, took + did))
    if update is not None:
        lines.extend(_update_lines(superstep, column))
    elif failure is not None and was_cancelled(failure.error):
        lines.append("  UPDATE   skipped: the run was cancelled, so no channel changed")
    elif handed_off is not None:
        lines.append("  UPDATE   skipped: the subgraph handed off, so no channel changed")
    elif execution is not None and execution.error is not None:
        lines.append("  UPDATE   skipped: a task failed, so no channel changed")
    # (a long line goes on under the text column: where its phase's words begin)
    return [
        folded
        for line in lines
        for folded in _fold(terminal_text(line), column + 13, width, break_words)
    ]


def _fold(line: str, indent: int, width: int | None, break_words: bool = True) -> list[str]:
    """``line`` as lines of ``width`` characters at most, broken at spaces, each after
    the first indented by ``indent`` (at most half the width, so a long name leaves its
    text room); a word longer than a line (a URL, a hash) is broken too, each piece but
    the last ending with ``↩`` (``graphkit.inspect.folding``).

    >>> lines = _fold("  UPDATE   n  " + "word " * 30, 15, 100)
    >>> [len(line) for line in lines], lines[1][:20]
    ([98, 79], '               word ')
    >>> _fold("  UPDATE   n  'sha256:" + "0123456789abcdef" * 4 + "'", 15, 40)
    ['  UPDATE   n', "               'sha256:0123456789abcdef↩", '               0123456789abcdef01234567↩', "               89abcdef0123456789abcdef'"]
    """  # noqa: E501
    return fold(line, width, indent, break_words=break_words)


def _update_lines(superstep: Superstep, column: int) -> list[str]:
    """The step's changes; one no write explains was made by the runtime, or, in the
    state a thread whose beginning was not saved starts from, by no one known."""
    assert superstep.update is not None
    lines, cleared = [], []
    for change in superstep.update.changes:
        if not change.writers and change.after is EMPTY:
            cleared.append(change.channel)
            continue
        # The value after is what the step did, and twice as wide: a conversation's
        # newest message and its tool call's args were cut at 30 characters. The value
        # before is the line above's after (or a first value), so it stays short.
        before, after = show(change.before, _VALUE_WIDTH), show(change.after, 2 * _VALUE_WIDTH)
        writers = writers_text(change)
        unknown = _UNSAVED if change.unsaved else _RUNTIME
        source = f"  (from {writers}{_overwriters(change)})" if writers else f"  {unknown}"
        lines.append(_line("UPDATE", change.channel, column, f"{before} -> {after}{source}"))
    if cleared:
        # sorted: the runtime clears channels in no order worth showing
        lines.append(_line("UPDATE", _RUNTIME, column, f"cleared {', '.join(sorted(cleared))}"))
    return lines


def _overwriters(change: ChannelChange) -> str:
    """``; Overwrite by b`` when a writer replaced a reducer field's value with an
    ``Overwrite`` (a plain field stores the Overwrite itself: nothing to point out)."""
    if overwritten_value(change.after)[0]:
        return ""
    pairs = zip(change.writers, change.values, strict=False)  # one write per writer
    names = [writer for writer, value in pairs if overwritten_value(value)[0]]
    return f"; Overwrite by {', '.join(names)}" if names else ""


_UNRECORDED_ENDINGS = {
    "done": "is done",
    "error": "failed",
    "out_of_steps": "reached the recursion limit",
    "interrupted": "is paused",
    "running": "is running",
    "drained": "stopped at a step boundary",
}
"""How a run stepped with ``record=False`` ended, in the words of its last line."""


def _ending(run: Run) -> list[str]:
    following = run.steps[-1].step + 1 if run.steps else -1
    # One line, not a "step N" block: the title counts the supersteps that ran, and a
    # block for the step that did not would make one header more than that count.
    if not run.recorded and not run.steps:
        ended = _UNRECORDED_ENDINGS.get(run.status, run.status)
        return [
            f"the run {ended}; its supersteps were not recorded (record=False): trace it, or "
            "step it with record=True, to see them"
        ]
    if run.status == "done" and not run.steps:  # (it knows no step number to name)
        return [f"the run is done without a step: {NO_STEP}"]
    if run.status == "done":
        return [f"the run is done: step {following}'s Plan triggers no task"]
    if run.status == "out_of_steps":
        return [
            f"the run stopped before step {following}: the recursion limit was reached "
            f"(GraphRecursionError){'; ' if (lost := lost_in_loop(run.steps)) else ''}{lost}"
        ]
    if (sent := handoff(run)) is not None:
        results = run.steps[-1].execution.results if run.steps and run.steps[-1].execution else ()
        node = next((r.task.node for r in results if r.error is run.error), "a node")
        return [
            f"the run handed off to its parent graph at step {following - 1}: {node} returned "
            f"Command(graph=Command.PARENT), {_one_line(handoff_text(sent))}"
        ]
    if run.status == "error":
        error = _one_line(show_error(run.error))
        execution = run.steps[-1].execution if run.steps else None
        results = execution.results if execution is not None else ()
        bad = step_failure(results)
        if bad is not None and was_cancelled(bad.error):
            stopped = ", ".join(r.task.node for r in results if was_cancelled(r.error))
            return [f"the run was cancelled at step {following - 1}: {stopped} cancelled ({error})"]
        if bad is not None:
            who = bad.task.node + which_packet(bad, results)
            return [f"the run failed at step {following - 1}: {who} raised {error}"]
        return [f"the run failed in step {following - 1}'s Update: {error}"]
    if run.status == "interrupted":
        return [_paused(run, following)]
    if run.status == "drained":
        return [
            f"the run stopped before step {following}: a drain was requested (GraphDrained); "
            "a resume runs it"
        ]
    last = run.steps[-1] if run.steps else None
    if last is not None and last.execution is None:
        return [f"still running: step {last.step}'s Execute is next"]
    if last is not None and last.update is None:
        results = last.execution.results
        if unsaved := [r.task.node for r in results if not_saved(r) is not None]:
            return [
                f"still running: step {last.step} stopped with nothing saved of "
                f"{join_names(unsaved)}; going on runs {'it' if len(unsaved) == 1 else 'them'} "
                f"again, then step {last.step}'s Update"
            ]
        return [f"still running: step {last.step}'s Update is next"]
    return [f"still running: step {following} is next"]


def _paused(run: Run, following: int) -> str:
    """Where an interrupted run stopped, and how a caller goes on from there."""
    last = run.steps[-1] if run.steps else None
    results = last.execution.results if last is not None and last.execution else ()
    asking = [result.task.node for result in results if result.interrupts]
    stopped = [r.task.node for r in results if r.paused and not r.interrupts]
    ids = _question_ids(results)
    if last is not None and last.update is None and len(ids) > 1:
        # (LangGraph refuses one answer for several questions)
        answers = ", ".join(f"{i!r}: ..." for i in ids)
        return (
            f"paused in step {last.step}: {', '.join(asking)} called interrupt(); "
            f"{len(ids)} questions wait, so resume on the same thread with an answer for "
            f"each by its id: Command(resume={{{answers}}})"
        )
    if last is not None and last.update is None and asking:
        return (
            f"paused in step {last.step}: {', '.join(asking)} called "
            "interrupt(); resume with Command(resume=...) on the same thread"
        )
    if last is not None and last.update is None and stopped:
        return (
            f"paused in step {last.step}: the subgraph {', '.join(stopped)} ran stopped at "
            "one of its breakpoints; go on with invoke(None, config) on the same thread"
        )
    return (
        f"paused at a breakpoint: step {following} is next; go on with invoke(None, config) "
        "on the same thread"
    )


def _question_ids(results: Iterable[TaskResult]) -> list[str]:
    """The ids of the questions ``results`` wait on, each once, in order."""
    ids = (str(getattr(asked, "id", "?")) for r in results for asked in r.interrupts)
    return list(dict.fromkeys(ids))


def _line(phase: str, name: str, column: int, text: str) -> str:
    return f"  {phase:<8} {terminal_text(name):<{column}}  {text}".rstrip()


def _one_line(text: str, width: int = 100) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def _took(duration: float | None) -> str:
    """A task's duration, or "time unknown" (a thread read from LangGraph's saver)."""
    return "time unknown" if duration is None else duration_text(duration)
