"""Checks for lesson 09 · Debugging recipes.

Each exercise hands the learner a buggy graph to fix. A check runs the fixed graph on
the real runtime, on more than the lesson's input, and when it is still wrong says what
the runtime saw: which node never ran and why (in the words of ``run.why``), which step
wrote a key twice, where a loop hit the recursion limit.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from graphkit.course import Wrong, compiled, exercise, trace
from graphkit.errors import GraphkitWarning, GraphRecursionError

__all__ = [
    "check_agent_stops",
    "check_no_overwrite",
    "check_report_runs",
]

QUESTIONS = ("why is the sky blue?", "what is BSP?")
LOOP_LIMIT = 25
_END_AS_TEXT = "whose value is '__end__', not the string "  # (names.constant_or_slip's words)
_END_HINT = (
    "A router returns the name of where to go next, and END is such a name: the "
    "constant imported at the top of the lesson, written without quotes. Look at each "
    "`return` of should_continue and at the list given to add_conditional_edges."
)


@contextmanager
def _heard() -> Iterator[list[str]]:
    """Keep the GraphkitWarnings raised inside the block from the learner's screen and
    collect them, as text, in the list it yields: filled when the block ends, even when
    it ends by raising (a run stopped by its recursion limit warned on the way)."""
    said: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", GraphkitWarning)
        try:
            yield said
        finally:
            said.extend(str(w.message) for w in caught if issubclass(w.category, GraphkitWarning))


def _quietly(app: Any, state: dict[str, Any], **options: Any) -> tuple[Any, list[str]]:
    """Trace ``app`` and collect the GraphkitWarnings it raised, as text."""
    with _heard() as said:
        run = trace(app, state, **options)
    return run, said


def _warned(said: list[str]) -> str:
    # dict.fromkeys: a loop warns the same words every round; say them once
    return "".join(f"\ngraphkit warned: {text}" for text in dict.fromkeys(said))


def _own_nodes(app: Any) -> list[str]:
    """The nodes the learner added (not ``__start__``, which every graph has)."""
    return sorted(name for name in app.spec.nodes if not name.startswith("__"))


def _ran(run: Any, node: str) -> list[int]:
    return [step.step for step in run.steps if node in step.plan.nodes]


@exercise("9.1 · Wake up `report`")
def check_report_runs(build_research: Any) -> str:
    """The research graph runs plan → (search ∥ cite) → report, and `report` sees the
    notes of all three, on every question."""
    with _heard() as built:
        app = compiled(build_research, "build_research()")
    for node in ("plan", "search", "cite", "report"):
        if node not in app.spec.nodes:
            raise Wrong(
                f"Your graph has no node `{node}` (its nodes: {_own_nodes(app)}).",
                "Keep the four nodes of the lesson's graph; fix how they are wired.",
            )
    for question in QUESTIONS:
        run, said = _quietly(app, {"question": question, "notes": []})
        said = built + said
        if not _ran(run, "report"):
            why = run.why("report", graph=app)
            raise Wrong(
                f"For the question {question!r}, {why.text(width=None)}{_warned(said)}",
                "Read run.why('report', graph=app), and any warning: which names does the "
                "router return, and which node does the waiting edge still wait for?",
            )
        for node in ("search", "cite"):
            if not _ran(run, node):
                raise Wrong(
                    f"`report` ran (step {_ran(run, 'report')[0]}), but `{node}` never did, "
                    f"so its note is missing: notes = {run.values.get('notes')!r}."
                    f"{_warned(said)}",
                    "The planner's router must send the run to both search and cite.",
                )
        if len(_ran(run, "report")) != 1:
            raise Wrong(
                f"`report` ran {len(_ran(run, 'report'))} times (steps "
                f"{_ran(run, 'report')}); it should run once, after both search and cite.",
                "A waiting edge add_edge([a, b], c) runs c once, when both have written.",
            )
        answer = run.values.get("answer", "")
        expected = ["plan: " + question, "found 3 sources", "cited 2 papers"]
        if any(note not in answer for note in expected):
            raise Wrong(
                f"`report` ran at step {_ran(run, 'report')[0]} but wrote answer = "
                f"{answer!r}; it should join the notes {expected}.",
                "report reads state['notes'] once search and cite have both written.",
            )
        if said:
            raise Wrong(
                f"It runs, but graphkit still warns:{_warned(said)}",
                "A warning names a real problem: fix what it points at.",
            )
    waits = any(e.target == "report" and e.kind == "waiting" for e in app.get_graph().edges)
    return f"`report` runs once, at step {_ran(run, 'report')[0]}, after search and cite " + (
        "met at the waiting edge — on every question, with no warning."
        if waits
        else "— on every question, with no warning. Without the waiting edge it runs "
        "once only because search and cite finish in the same step; "
        "add_edge(['search', 'cite'], 'report') makes that a rule."
    )


@exercise("9.2 · Stop the double write")
def check_no_overwrite(build_tally: Any) -> str:
    """`count` writes only `total`, so `items` keeps the input items plus the two
    collected ones, once each."""
    app = compiled(build_tally, "build_tally()")
    keys = list(app.spec.state_keys)
    # (a graph of another state met Update.change('items') in the check's own code)
    if missing := [key for key in ("items", "total") if key not in keys]:
        named = " and ".join(repr(key) for key in missing)
        raise Wrong(
            f"build_tally()'s graph has no state key{'s' if len(missing) > 1 else ''} "
            f"{named}: its keys are {keys}. The exercise's graph keeps items and total "
            "(the lesson's Tally).",
            "Build it on StateGraph(Tally), as the lesson's cell does.",
        )
    for given in (["fig"], ["kiwi", "plum", "lime"]):
        run, said = _quietly(app, {"items": list(given), "total": 0})
        items = run.values.get("items")
        expected = [*given, "apple", "pear"]
        if items != expected:
            changes = [
                (step.step, step.update.change("items"))
                for step in run.steps
                if step.step >= 0 and step.update and step.update.change("items")
            ]
            story = "; ".join(
                f"step {number}: {', '.join(change.writers)} wrote {list(change.values)!r} "
                f"→ {change.after!r}"
                for number, change in changes
            )
            raise Wrong(
                f"Starting from items = {given!r}, the run ended with items = {items!r} "
                f"instead of {expected!r}. The changes table says: {story}.{_warned(said)}",
                "Look at which nodes appear as writers of `items`. A node should return "
                "only the keys it changes; keep the reducer, it is what appends.",
            )
        total = run.values.get("total")
        wrote_total = [
            value
            for step in run.steps
            if step.step > 0 and step.execution is not None
            for node, channel, value in step.execution.writes
            if node == "count" and channel == "total"
        ]
        if total != len(expected) and not wrote_total:
            raise Wrong(
                f"items is right ({items!r}), but total is still {total!r}, the input's: "
                "count wrote no `total` (the writes table has no row for it); it should be "
                f"{len(expected)}, the number of items.",
                "Setting state['total'] in place is not a write: a node changes the state "
                "only through the dict it returns.",
            )
        if total != len(expected):
            raise Wrong(
                f"items is right ({items!r}), but count wrote total = {total!r}; it should "
                f"be {len(expected)}, the number of items.",
                "count runs after collect: the items it sees are the input's and "
                "collect's, all of them.",
            )
        writers = {
            node
            for step in run.steps
            if step.step > 0 and step.execution is not None
            for node, channel, _ in step.execution.writes
            if channel == "items"
        }
        if writers != {"collect"}:
            raise Wrong(
                f"The result is right, but `items` was written by {sorted(writers)}; "
                "only `collect` should write it.",
                "A node returns only the keys it changes.",
            )
    if getattr(app.spec.channels.get("items"), "operator", None) is None:
        return (  # (collect adds the list up itself: right, but no reducer to praise)
            "`count` now writes only `total`: the changes table shows one writer per key, "
            "and collect appends to the list itself. (The lesson's fix keeps the add "
            "reducer, which does the appending for every node that writes `items`.)"
        )
    return (
        "`count` now writes only `total`: the changes table shows one writer per key, "
        "and the add reducer appends each item once."
    )


@exercise("9.3 · Make the agent stop")
def check_agent_stops(build_agent: Any) -> str:
    """The agent loop calls its tool twice, answers, and routes to END — within a
    recursion limit of 25, for any number of tool calls already made."""
    try:
        app = compiled(build_agent, "build_agent()")
    except ValueError as error:  # a path map listing "END"
        if _END_AS_TEXT not in str(error):
            raise
        raise Wrong(f"Compiling your graph raised ValueError: {error}", _END_HINT) from error
    for start in (0, 1, 3):  # (3: past the two calls, agent answers at once)
        said: list[str] = []
        try:
            with _heard() as said:
                run = trace(
                    app,
                    {"question": "q", "tool_calls": start},
                    config={"recursion_limit": LOOP_LIMIT},
                )
        except Wrong as wrong:
            error = wrong.__cause__
            if _END_AS_TEXT in wrong.message and not wrong.hint:  # a router returning "END"
                raise Wrong(wrong.message, _END_HINT) from error
            if not isinstance(error, GraphRecursionError):
                raise
            partial = error.run  # type: ignore[attr-defined]
            tail = [node for step in partial.steps[-6:] for node in step.plan.nodes]
            answer = partial.values.get("answer")
            raise Wrong(
                f"Starting with tool_calls={start}, your agent still loops: the recursion "
                f"limit ({LOOP_LIMIT}) stopped it after step {partial.steps[-1].step}. The last "
                f"steps ran {' → '.join(tail)}, though `answer` was {answer!r} and "
                f"tool_calls {partial.values.get('tool_calls')!r}: the router never chose END."
                f"{_warned(said)}",
                "Which key does the router read, and which key does agent write when it "
                "is done, with what value? To see every step of the loop, run:\n"
                "`agent_app = build_agent().compile()`\n"
                "`try:`\n"
                '    `agent_app.trace({"question": "q", "tool_calls": 0}, '
                '{"recursion_limit": 12})`\n'
                "`except GraphRecursionError as error:`\n"
                "    `print(error.run.timeline())`",
            ) from error
        calls = run.values.get("tool_calls")
        if run.values.get("answer") != "42" or calls != max(start, 2):
            raise Wrong(
                f"Starting with tool_calls={start}, the run stopped at step "
                f"{run.steps[-1].step} with answer={run.values.get('answer')!r} and "
                f"tool_calls={calls!r}; it should answer '42' after {max(start, 2)} tool "
                f"calls. `tools` ran at steps {_ran(run, 'tools')}.{_warned(said)}",
                "Stop when the agent has answered, not before: the loop itself was right."
                if not isinstance(calls, int) or calls <= max(start, 2)
                else "Stop as soon as the agent has answered, not a round later: end on "
                "what agent writes when it is done rather than on a count.",
            )
    return (
        "The router now chooses END once the agent is done: the loop ends after two tool "
        "calls, well inside the recursion limit."
    )
