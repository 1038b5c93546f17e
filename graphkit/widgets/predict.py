"""Predict, then reveal: the learner commits to a guess, the phase runs, the truth is
shown and explained in the words of ``why``.

Before Plan a learner predicts *which nodes run this step*; before Update, *the value a
channel will hold* after it. ``DebugSession.predict`` runs the phase and returns a
``Prediction``: right or wrong, what was expected, and why (which channel woke which
node, which writes met in which reducer). The session keeps a ``Score``.
"""

from __future__ import annotations

import ast
import itertools
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from graphkit import channels as channel_kinds
from graphkit.channels import EMPTY
from graphkit.constants import END, START
from graphkit.diagnostics import some_names
from graphkit.diagnostics.names import names_in_text, near_miss
from graphkit.inspect.values import join_names, show
from graphkit.pregel.records import Plan, Run
from graphkit.pregel.stepper import INPUT_TASK
from graphkit.widgets.predict_names import (
    called_task,
    inner_node,
    subgraph_nodes_run_by,
    tasks_called_by,
    tools_run_by,
)
from graphkit.widgets.reveal import OTHERWISE as _OTHERWISE
from graphkit.widgets.reveal import prediction_html
from graphkit.widgets.story import story_number, story_steps

if TYPE_CHECKING:
    from graphkit.widgets.session import DebugSession

__all__ = ["Prediction", "Score", "reveal_channel", "reveal_nodes"]

_WIDTH = 400  # a reveal shows values long enough to be read in full, on one line


@dataclass(frozen=True)
class Prediction:
    """One prediction and its reveal.

    ``kind`` is ``"nodes"`` (which nodes run at ``step``) or ``"channel"`` (the value
    ``channel`` holds after ``step``'s Update); ``step`` is numbered as the debugger tells
    it (after a Back that forked the thread, LangGraph's record is one higher).
    ``expected`` is the truth: the sorted node names, or the value (for an Update that
    failed, the error it raised).
    """

    kind: str
    step: int
    guess: Any
    expected: Any
    correct: bool
    explanation: str
    channel: str | None = None

    def __bool__(self) -> bool:
        return self.correct

    def __repr__(self) -> str:
        what = f"channel={self.channel!r}" if self.kind == "channel" else "nodes"
        return f"Prediction(step={self.step}, {what}, correct={self.correct})"

    def __str__(self) -> str:
        # printed in a notebook, which breaks a long line mid-word: wrapped at words (the
        # widget's reveal wraps ``explanation`` itself)
        return "\n".join(_wrap(line) for line in self.explanation.splitlines())

    def _repr_html_(self) -> str:
        return prediction_html(self)


def _wrap(line: str, width: int = 88) -> str:
    """``line`` wrapped at words to ``width`` columns, its continuation lines indented
    under the text of a bullet (``- ``, ``    · ``); a long value stays whole.

    >>> print(_wrap("- " + "word " * 20, width=30))
    - word word word word word
      word word word word word
      word word word word word
      word word word word word
    """
    bullet = len(line) - len(line.lstrip(" -·"))
    whole = _OTHERWISE.replace(" ", "\xa0")  # (the mark is not broken: it moves whole)
    return textwrap.fill(
        line.rstrip().replace(_OTHERWISE, whole),
        width,
        subsequent_indent=" " * bullet,
        break_long_words=False,
        break_on_hyphens=False,
    ).replace(whole, _OTHERWISE)


@dataclass(frozen=True)
class Score:
    """How many predictions of a session were right, of how many made."""

    right: int = 0
    asked: int = 0

    def add(self, correct: bool) -> Score:
        """The score after one more prediction."""
        return Score(self.right + int(correct), self.asked + 1)

    def __str__(self) -> str:
        return f"{self.right} of {self.asked} predictions right"


def guessed_nodes(session: DebugSession, nodes: Any) -> list[str]:
    """``predict(nodes=...)`` as a list of names (one name alone is a list of one), or a
    ``TypeError`` saying what the guess should be: ``5`` said "'int' object is not
    iterable" and ``[5]`` a regular expression's error, from inside the reveal."""
    if isinstance(nodes, str):
        return [nodes]
    said = f"predict(nodes=...) takes a list of node names, got {nodes!r}"
    mine = [name for name in sorted(session.app.spec.nodes) if not name.startswith("__")]
    example = f"nodes={mine[:1]!r}" if mine else "nodes=['my_node']"
    if not isinstance(nodes, Iterable):
        raise TypeError(f"{said}: write {example}.")
    guess = list(nodes)
    odd = [name for name in guess if not isinstance(name, str)]
    if odd:
        raise TypeError(f"{said}: {odd[0]!r} is no node's name; write e.g. {example}.")
    return guess


def reveal_nodes(
    session: DebugSession, guess: Iterable[str], again: Plan | None = None
) -> tuple[Prediction, Plan]:
    """Run the next Plan of ``session`` and compare its nodes with ``guess`` (``again``:
    the Plan a prediction just revealed, judged again); the prediction and the Plan."""
    guess = [guess] if isinstance(guess, str) else list(guess)
    guessed = set(guess)
    known = set(session.app.spec.nodes)
    if session.stepper.at_input_step:
        known.add(INPUT_TASK)  # not a node of the graph, but the input step's one task
    calls = tasks_called_by(session)  # (a @task: a wrong guess to explain, not a slip)
    unknown = sorted(guessed - known - calls.keys())
    if unknown:
        notes = [f"{INPUT_TASK} runs only in the input step"] if INPUT_TASK in unknown else []
        if {END, "END"} & set(unknown):
            notes.append(
                "END is where a run stops, not a node that runs: for a step that runs no "
                "node, predict []"
            )
        tools = tools_run_by(session.app)  # (one note per unknown name: none hides another)
        notes += [f"{t} is a tool, run by the node {tools[t]}" for t in unknown if t in tools]
        inner = subgraph_nodes_run_by(session.app)
        notes += [inner_node(n, inner[n]) for n in unknown if n in inner and n not in tools]
        # several names in one text ("weather, news"): a list of them was meant
        texts = {n: parts for n in unknown if (parts := names_in_text(n, known))}
        notes += [f"{n!r} is one text: predict a list, {parts}" for n, parts in texts.items()]
        # a slip of case or spelling ('Weather'), as building a graph suggests one
        told = tools.keys() | inner.keys() | texts.keys() | {END, "END", INPUT_TASK}
        slips = {n: near_miss(n, known | calls.keys()) for n in unknown if n not in told}
        notes += [
            f"did you mean {slip!r}?" if len(unknown) == 1 else f"for {n!r}, did you mean {slip!r}?"
            for n, slip in slips.items()
            if slip
        ]
        where = f" ({'; '.join(notes)})" if notes else ""
        raise ValueError(
            f"No node named {unknown}{where}; the graph's nodes are {some_names(known)}."
        )
    if again is None and session.next_phase != "plan":
        raise ValueError("Predict which nodes run before Plan; " + _where(session, "Step"))
    plan = again or session.plan()
    if plan is None:
        raise RuntimeError(f"The Plan did not run: {session.message}")
    expected = sorted(set(plan.nodes))
    # A node listed more often than it runs is a claim about how many times (listing a
    # node sent several packets once is not: the set is compared; nor is a node that
    # does not run at all, which is wrong however often it is listed).
    over = {n: guess.count(n) for n in guessed if 0 < plan.nodes.count(n) < guess.count(n)}
    correct = guessed == set(expected) and not over
    step = story_number(session, plan.step)  # as the debugger tells it, after a fork too
    run = Run(story_steps(session), session.values, session.status)
    lines = [_nodes_headline(step, sorted(guess if over else guessed), expected, correct)]
    lines += [_over_counted(node, n, plan.nodes.count(node), step) for node, n in over.items()]
    if not correct:
        lines += _first_steps(session, step, expected)
    if not guessed and not expected:  # (a right "no node": nobody's why would say it)
        lines.append(
            f"- Step {step} planned no task: step {step - 1}'s Update changed no trigger "
            "channel, so the run finished."
        )
    # (a wrong guess at the input step: its line above says all each node's why would,
    # which is the same thing again: "it is the input step")
    said = not correct and expected == [INPUT_TASK]
    for node in [] if said else sorted(guessed | set(expected)):
        if node in calls and node not in known:
            caller_runs = calls[node] in expected
            lines.append(f"{called_task(node, calls[node], step, caller_runs)}  {_OTHERWISE}")
            continue
        explanation = run.why(node, step, graph=session.app)
        # (a node listed too often does run, as predicted: its "you listed" line says
        # how often)
        wrong = (node in guessed) != (node in expected)
        mark = f"  {_OTHERWISE}" if wrong else ""
        lines.append(f"- {explanation.summary}{mark}")
        if mark:
            lines.extend(
                f"    · {reason.text}" for a in explanation.answers for reason in a.reasons
            )
    prediction = Prediction("nodes", step, sorted(guessed), expected, correct, "\n".join(lines))
    return prediction, plan


def reveal_channel(
    session: DebugSession, channel: str, guess: Any, again: tuple[int, Any] | None = None
) -> tuple[Prediction, tuple[int, Any]]:
    """Run what is left of the step up to and including its Update and compare
    ``channel``'s value after it with ``guess`` (``again``: the step number and Update a
    prediction just revealed, judged again); the prediction and that pair."""
    # (imported here: that module builds this one's Prediction)
    from graphkit.widgets.predict_failed import (
        failed_execute,
        failed_tasks,
        failed_update,
        paused_execute,
        paused_tasks,
    )

    keys = session.app.spec.state_keys
    if channel not in keys:
        slip = near_miss(channel, keys)
        also = f" Did you mean {slip!r}?" if slip else ""
        raise ValueError(
            f"No state channel {channel!r}; the state's channels are {list(keys)}.{also}"
        )
    if again is None:
        if session.next_phase not in ("execute", "update"):
            where = _where(session, "Plan")
            raise ValueError("Predict a channel's value after Plan and before Update; " + where)
        if session.next_phase == "execute" and session.execute() is None:
            if not failed_tasks(session):  # (an interrupt, a drain: the step goes on later)
                raise RuntimeError(f"The Execute did not finish: {session.message}")
            again = (story_number(session, session.stepper.step_number), None)
        else:
            number = story_number(session, session.stepper.step_number)  # (before Update)
            again = (number, session.update() if session.next_phase == "update" else None)
    step, update = again
    if update is None and failed_tasks(session):
        return failed_execute(session, channel, guess, step), again
    if update is None and paused_tasks(session):
        return paused_execute(session, channel, guess, step), again
    if update is None:
        return failed_update(session, channel, guess, step), again
    change = update.change(channel)
    expected = session.values.get(channel)
    correct = _same(guess, expected)
    verdict = "Right" if correct else "Not quite"
    held = f"holds {show(expected, _WIDTH)}" if channel in session.values else "has no value"
    text = f"{verdict}: {channel} {held} after step {step}'s Update "
    text += f"(you predicted {show(guess, _WIDTH)})"
    kept = "kept its value" if channel in session.values else "still has no value"
    # (the input is not in the state yet; on a thread with history the input step is
    # numbered after the last step, not -1)
    inputs = any(s.update is update and s.plan.nodes == [INPUT_TASK] for s in session.supersteps)
    if change is None and inputs:
        text += (
            f". No task wrote {channel} in the input step: its one task, {INPUT_TASK}, "
            f"writes your input only to the channel {START}, so {channel} {kept}. Step "
            f"{step + 1} runs {START}, which copies the input into the state."
        )
    elif change is None:
        text += f". No task wrote {channel} in step {step}, so it {kept}."
    else:
        text += ".\n" + _change_story(change, step)
    if not correct and change is not None and _reordered(guess, expected, change):
        record = next((s for s in session.supersteps if s.update is update), None)
        pushed = [t.node for t in record.plan.tasks if t.kind == "push"] if record else []
        text += (
            "\nYou have the right items in another order: an Update applies a step's writes "
            f"in the order of its tasks (here {_task_order(change.writers, pushed)}), "
            "whatever order they finished in."
        )
    if not correct and channel in session.values and _as_text(guess, expected):
        kind = "" if expected is None else f"the {type(expected).__name__} "
        text += (
            f"\nYou predicted the text {guess!r}; {channel} holds {kind}{expected!r}. "
            f"Write the value as Python would, without the quotes: {expected!r}."
        )
    return Prediction("channel", step, guess, expected, correct, text, channel), again


def _as_text(guess: Any, expected: Any) -> bool:
    """Whether ``guess`` is the text of ``expected``, a value that is no text ("220" for
    220): the reveal's "holds 220 (you predicted '220')" differs only by its quotes."""
    if not isinstance(guess, str) or isinstance(expected, str):
        return False
    try:
        if guess.strip() == repr(expected):
            return True
    except Exception:  # (a value whose repr fails is no number a learner typed)
        return False
    try:  # the text written otherwise: "[1,2]", '{"a": 1}' (but "1" is no text of True)
        value = ast.literal_eval(guess.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return type(value) is type(expected) and _same(value, expected)


def _task_order(writers: tuple[str, ...], pushed: list[str]) -> str:
    """The writers of a change in the order the Update applied them; a node's push tasks
    (one per ``Send``) are counted once, as "generate_joke, then generate_joke" told
    a learner nothing about which of them came first.

    >>> _task_order(("flights", "hotel"), [])
    'flights, then hotel'
    >>> _task_order(("collect", "joke", "joke", "joke"), ["joke"] * 3)
    'collect, then the 3 joke tasks in the order their Send packets were sent'

    A node whose edge woke it beside its Send packets keeps each write named (its one
    name had read as one task: "(here joke)" for three):

    >>> _task_order(("joke", "joke", "joke"), ["joke"] * 2)
    'joke, then joke, then joke'
    """
    parts = []
    for node, group in itertools.groupby(writers):
        count = len(list(group))
        if count > 1 and pushed.count(node) >= count:
            parts.append(f"the {count} {node} tasks in the order their Send packets were sent")
        else:
            parts += [node] * count
    return ", then ".join(parts)


def _reordered(guess: Any, expected: Any, change: Any) -> bool:
    """Two lists (or tuples) with the same items, in another order, where the order is
    the tasks': several writes met in this Update, and the items the channel held
    before it are in place (one writer's list, or an old value, has an order of its own)."""
    sequences = (list, tuple)
    if not isinstance(guess, sequences) or not isinstance(expected, sequences):
        return False
    if len(change.writers) < 2 or len(guess) != len(expected):
        return False
    before = change.before if isinstance(change.before, sequences) else ()
    kept = len(before) if list(expected[: len(before)]) == list(before) else 0
    if list(guess[:kept]) != list(expected[:kept]):
        return False
    return sorted(map(repr, guess)) == sorted(map(repr, expected))


def _where(session: DebugSession, fix: str) -> str:
    """Where the run stands, and what to press to get to the phase a prediction needs."""
    if paused := session._paused_by():  # (paused, not over: Resume goes on)
        why, call = paused
        return (
            f"the run is paused {why}: resume it (Resume, or {call}) and predict the "
            "step it runs next."
        )
    if session.next_phase is None:
        return f"the run is over ({session.status}). Use Back or Reset to step it again."
    number = story_number(session, session.stepper.step_number)  # (as the labels tell it)
    call = f"session.{fix.lower()}()"
    return f"step {number} is before {session.next_phase}: press {fix} ({call}) first."


def _over_counted(node: str, listed: int, runs: int, step: int) -> str:
    """The line for a node listed more times than the step runs it."""
    why = (
        "one step wakes a node once, however many edges into it were written"
        if runs <= 1
        else "once per Send packet to it"
    )
    times = {1: "once", 2: "twice"}.get(runs, f"{runs} times")
    return f"- you listed {node} {listed} times; it runs {times} in step {step}: {why}."


def _first_steps(session: DebugSession, step: int, expected: list[str]) -> list[str]:
    """For a wrong guess at a run's own first steps (the input step, then ``__start__``):
    what they do, and the step the graph's first nodes run in."""
    if expected == [INPUT_TASK] and START not in session.app.spec.nodes:  # (an entrypoint)
        first = sorted(n for n, node in session.app.spec.nodes.items() if START in node.triggers)
        return [
            f"- Step {step} is the input step: its one task, {INPUT_TASK}, writes your input "
            f"to the channel {START}, and no node runs beside it. Step {step + 1} runs "
            f"{join_names(first) or 'the nodes subscribed to it'}, on that input."
        ]
    if expected == [INPUT_TASK]:
        return [
            f"- Step {step} is the input step: its one task, {INPUT_TASK}, writes your input "
            f"to the channel {START}, and no node runs beside it. Step {step + 1} runs "
            f"{START}, which copies the input into the state; your nodes run from step "
            f"{step + 2}."
        ]
    if START not in expected:
        return []
    builder = getattr(session.app, "builder", None)
    targets = sorted(end for start, end in getattr(builder, "edges", ()) or () if start == START)
    routed = START in (getattr(builder, "branches", {}) or {})
    if targets and not routed:
        edges = join_names(f"the edge START → {end}" for end in targets)
        first = f"follows {edges} by writing " + join_names(f"branch:to:{t}" for t in targets)
        runs = f"so {join_names(targets)} {'runs' if len(targets) == 1 else 'run'}"
    else:
        first, runs = "follows the edges from START", "so the nodes after START run"
    return [
        f"- Step {step} runs only {START}, the run's own first task, before any node of "
        f"yours: it copies the input into the state and {first}; a write becomes visible "
        f"only in the next step, {runs} in step {step + 1}."
    ]


def _nodes_headline(step: int, guessed: list[str], expected: list[str], correct: bool) -> str:
    runs = ", ".join(expected) or "no node"
    if correct:
        return f"Right: step {step} runs {runs}."
    return f"Not quite: step {step} runs {runs}; you predicted {', '.join(guessed) or 'none'}."


def _change_story(change: Any, step: int) -> str:
    writes = ", ".join(
        f"{show(value, _WIDTH)} from {writer}"
        for writer, value in zip(change.writers, change.values, strict=False)
    )
    count = len(change.values)
    if not change.writers:
        return f"The runtime itself changed {change.channel} ({change.reducer}) in this Update."
    if count > 1:
        applied = f"the Update combined the {count} writes with {change.reducer}"
    elif change.reducer == "LastValue":
        # (no channel kind named: lesson 02 asks this of a plain key, and lesson 03 is
        # where "LastValue" is taught)
        replaced = "" if change.before is EMPTY else " in place of the old value"
        applied = f"the Update stored it{replaced}"
    elif change.reducer in channel_kinds.__all__:  # (Topic, EphemeralValue...)
        applied = f"the Update applied it ({change.reducer})"
    else:  # a reducer, as lesson 02 has it: add folds the write into the value
        applied = f"the Update folded it in with {change.reducer}"
    return (
        f"Step {step}'s Execute wrote {writes}; {applied}: "
        f"{show(change.before, _WIDTH)} → {show(change.after, _WIDTH)}."
    )


def as_second_try(prediction: Prediction, counted: Sequence[Prediction], score: Any) -> Prediction:
    """A prediction made after its answer was shown, which the score does not count. A
    changed guess says so (else "Right", and a score under it that did not move); the
    same guess again is a cell run again, and reads as it did the first time."""
    first = next(
        (p for p in reversed(counted) if (p.kind, p.step, p.channel) == _about(prediction)),
        None,
    )
    if first is not None and _same(first.guess, prediction.guess):
        return prediction
    phase = "Plan" if prediction.kind == "nodes" else "Update"
    said = (
        f"A second try at step {prediction.step}'s {phase}, made after its answer was "
        f"shown: it does not change the score ({score})."
    )
    return replace(prediction, explanation=f"{prediction.explanation}\n{said}")


def _about(prediction: Prediction) -> tuple[str, int, str | None]:
    return prediction.kind, prediction.step, prediction.channel


def _same(guess: Any, expected: Any) -> bool:
    try:
        return bool(guess == expected)
    except Exception:  # values whose == is not a bool (arrays, frames) compare by repr
        return repr(guess) == repr(expected)
