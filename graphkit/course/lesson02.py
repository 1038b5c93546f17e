"""Checks for lesson 02, "Supersteps: Plan / Execute / Update"
(``notebooks/02-supersteps.ipynb``).

Each check compares the learner's answer with a real run and, when it differs, says
what the runtime did in the words of ``run.why``; it never raises.

- ``check_predict_steps(guess)``: which nodes each step of ``uneven_graph()`` runs.
- ``check_old_value(builder)``: a node that sees the value written in the step before
  its own, not the one its sibling writes in the same step.
- ``check_total_after(guess)``: what the reducer channel ``total`` of ``tally_graph()``
  holds after steps 2 and 3.

>>> check_total_after({2: 22, 3: 44}).passed
True
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping
from typing import Annotated, Any, TypedDict

from graphkit import END, START, StateGraph
from graphkit.course import Wrong, compiled, exercise, trace
from graphkit.course.answers import no_nodes
from graphkit.diagnostics.names import constant_meant, names_in_text
from graphkit.inspect.values import show

__all__ = [
    "TALLY_INPUT",
    "check_old_value",
    "check_predict_steps",
    "check_total_after",
    "tally_graph",
    "uneven_graph",
]


# -- 2.1 · Predict the steps ------------------------------------------------------------


class Log(TypedDict):
    log: Annotated[list, operator.add]


def _logger(name: str) -> Any:
    def write(state: Log) -> dict:
        return {"log": [name]}

    write.__name__ = name
    return write


def uneven_graph() -> Any:
    """Two branches of different lengths into one node, with plain edges:
    START → (left ∥ right), left → merge, right → slow → merge."""
    builder = StateGraph(Log)
    for name in ("left", "right", "slow", "merge"):
        builder.add_node(name, _logger(name))
    builder.add_edge(START, "left")
    builder.add_edge(START, "right")
    builder.add_edge("left", "merge")
    builder.add_edge("right", "slow")
    builder.add_edge("slow", "merge")
    builder.add_edge("merge", END)
    return builder.compile()


def _int_keys(guess: Mapping[Any, Any]) -> dict[Any, Any]:
    """``guess`` with step numbers written as strings ("2") turned into ints."""
    return {
        int(k) if isinstance(k, str) and k.strip().lstrip("-").isdecimal() else k: v
        for k, v in guess.items()
    }


def _as_nodes(value: Any) -> set[str]:
    if value is None:
        return set()
    if isinstance(value, str) or not isinstance(value, Iterable):
        value = [value]  # (one name, or a slip such as 3: "There is no node '3'")
    return {str(node) for node in value if str(node).strip()}  # ("" is no node)


def _not_nodes(
    unknown: list[str], nodes: set[str], step: int, ran: set[str]
) -> tuple[list[str], set[str]]:
    """What a name guessed for ``step`` (which runs ``ran``) that is no node is, and the
    nodes it holds: several names in one text, or END; the rest are no node at all.

    >>> _not_nodes(["left, right", "END", "lfet"], {"left", "right"}, 4, set())[0]  # doctest: +NORMALIZE_WHITESPACE
    ["'left, right' is one text, not 2 names: write a list, ['left', 'right'].",
     "'END' is where the run stops, not a node that runs: leave out a step that runs no node.",
     "There is no node 'lfet'."]
    >>> _not_nodes(["__end__"], {"merge"}, 3, {"merge"})[0]
    ["'__end__' is where the run stops, not a node that runs: leave it out of step 3's list."]
    """  # noqa: E501
    notes, named, missing = [], set(), []
    # (a step that runs a node is no step to leave out: "leave out a step that runs no
    # node" was said of step 3, which runs merge, to a guess of [merge, END])
    drop = f"leave it out of step {step}'s list" if ran else "leave out a step that runs no node"
    for name in unknown:
        if parts := names_in_text(name, nodes):
            notes.append(f"{name!r} is one text, not {len(parts)} names: write a list, {parts}.")
            named |= set(parts)
        elif constant_meant(name) == "END" or name == END:
            notes.append(f"{name!r} is where the run stops, not a node that runs: {drop}.")
        else:
            missing.append(name)
    if missing:
        notes.append(f"There is no node {', '.join(map(repr, missing))}.")
    return notes, named


def _say_if_keys_are_no_steps(guess: Mapping[Any, Any]) -> None:
    """A key that is no step number would be passed over, and the verdict would speak of
    steps the learner's dict seems to lack: say what the keys are instead (node names, a
    dict written the other way round, or a label such as "step 1")."""
    keys = [key for key in guess if not isinstance(key, int | float)]  # (1.0 == 1)
    if not keys:
        return
    nodes = [key for key in keys if key in uneven_graph().spec.nodes]
    if nodes:
        raise Wrong(
            f"Your dict's keys are node names ({', '.join(map(repr, nodes))}): it should "
            "map a step number to the nodes that step runs.",
            hint="Turn it round: {1: [...], 2: [...], ...}, each step's nodes in a list.",
        )
    raise Wrong(
        f"{keys[0]!r} is not a step number: the dict's keys are the step numbers, 1, 2, ...",
        hint="Write the step number alone as the key: {1: [...], 2: [...], ...}.",
    )


@exercise("2.1 · Predict the steps")
def check_predict_steps(guess: Mapping[int, Any]) -> str:
    """``guess`` maps step numbers (1, 2, ...) to the nodes that step runs, for the run
    of ``uneven_graph()`` on ``{"log": []}``; every step that runs a node is needed."""
    if not isinstance(guess, Mapping):
        raise Wrong(
            f"Expected a dict of step number → list of nodes, got {type(guess).__name__}.",
            hint='For example {1: ["left"], 2: [...]}.',
        )
    guess = _int_keys(guess)
    _say_if_keys_are_no_steps(guess)
    own = {-1: "__input__", 0: "__start__"}  # the run's own steps and their one task
    # (the run's own tasks at their own steps are no answer yet: steps 1 on are)
    if not any(_as_nodes(nodes) - {own.get(step)} for step, nodes in guess.items()):
        raise Wrong(
            "Your guess names no node yet: no step from 1 on has one. Fill in the nodes "
            "each step runs, from step 1 until the run ends.",
            hint="Read the drawing: the nodes after START run in step 1, and a node runs "
            'in step N+1 when an edge into it was written in step N ("Plan: who runs, '
            'and why").',
        )
    early = {n: _as_nodes(guess[n]) - {own[n]} for n in own if n in guess}
    for step, nodes in early.items():
        if nodes:
            runs = "only __input__, the input step's task" if step == -1 else "only __start__"
            raise Wrong(
                f"You put {', '.join(sorted(nodes))} in step {step}, but step {step} runs "
                f"{runs}. The run's first two steps are its own: step -1 takes the input, "
                "step 0 copies it into the state and writes START's edges, so the nodes "
                "after START run in step 1.",
                hint="Number the steps as a run does: step 1 runs the nodes after START.",
            )
    app = uneven_graph()
    run = app.trace({"log": []})
    truth = {s.step: set(s.plan.nodes) for s in run.steps if s.step >= 1 and s.plan.nodes}
    for step in sorted(set(truth) | {n for n in guess if isinstance(n, int) and n >= 1}):
        guessed, ran = _as_nodes(guess.get(step)), truth.get(step, set())
        if guessed == ran:
            continue
        if step not in guess:
            raise Wrong(
                f"Your steps stop before step {step}, which runs {', '.join(sorted(ran))}.",
                hint="A step runs every node whose trigger the step before wrote; keep "
                "going until a step wakes no node.",
            )
        nodes = set(app.spec.nodes)
        # (a name that is no node is quoted: "you said left, right" read as two nodes)
        said = ", ".join(n if n in nodes else repr(n) for n in sorted(guessed)) or "no node"
        really = ", ".join(sorted(ran)) or "no node (the run is over)"
        unknown = sorted(guessed - nodes)
        notes, named = _not_nodes(unknown, nodes, step, ran)
        reasons = [
            run.why(node, step, graph=app).summary
            for node in sorted(guessed ^ ran)
            if node in nodes and node not in named
        ]
        reasons += notes
        raise Wrong(
            f"Step {step} runs {really}; you said {said}.\n" + "\n".join(reasons),
            hint='Write each step\'s nodes as a list of names: {1: ["left", "right"], ...}.'
            if named
            else "A node runs in step N+1 when an edge into it was written in step N "
            "(START's edges in step 0). A plain edge wakes its node on its own: any one "
            "edge is enough, even while another branch is still on its way.",
        )
    merge_steps = [step for step, nodes in truth.items() if "merge" in nodes]
    return (
        f"Right: merge ran twice, in steps {merge_steps[0]} and {merge_steps[1]}: two plain "
        "edges wake it once per branch. A waiting edge, add_edge(['left', 'slow'], "
        "'merge') (lessons 03 and 04), would wait for both."
    )


# -- 2.2 · See the old value ---------------------------------------------------------------

# 3 first, as the exercise's own example ("From count = 3: seen must end at 4"): a verdict
# on another count told a learner checking 3 by hand of numbers they had not seen
_COUNTS = (3, 0, 10)


def _say_if_peek_wrote_count(error: BaseException | None) -> None:
    """When the run failed because peek wrote `count` beside double (a node returning the
    whole state), say that, rather than the runtime's advice to add a reducer."""
    run = getattr(error, "run", None)
    last = run.steps[-1] if run is not None and run.steps else None
    results = last.execution.results if last is not None and last.execution else ()
    if any(r.task.node == "peek" and "count" in dict(r.writes) for r in results):
        raise Wrong(
            f"peek wrote `count` as well as `seen`, in step {last.step}, where double writes "
            "`count` too: a plain field takes one write per step, so the Update failed.",
            hint="A node returns only the keys it changes: peek changes `seen`, nothing else.",
        ) from error


@exercise("2.2 · See the old value")
def check_old_value(builder: Any) -> str:
    """bump (count + 1), then double (count × 2) and peek (seen = count) in one step:
    peek must see bump's value from the step before, not double's from its own step."""
    app = compiled(builder)
    missing = [n for n in ("bump", "double", "peek") if n not in app.spec.nodes]
    if missing:
        raise Wrong(
            f"Your graph has {no_nodes(missing)}.",
            hint="Add peek as a node, with an edge that wakes it in the same step as double.",
        )
    for count in _COUNTS:
        try:
            run = trace(app, {"count": count})
        except Wrong as wrong:
            _say_if_peek_wrote_count(wrong.__cause__)
            raise
        when: dict[str, list[int]] = {}
        for superstep in run.steps:
            for node in superstep.plan.nodes:
                when.setdefault(node, []).append(superstep.step)
        never = [n for n in ("bump", "double", "peek") if n not in when]
        if never:
            raise Wrong(
                f"{', '.join(never)} never ran (on count={count}).",
                hint="Every node needs an edge into it.",
            )
        twice = [n for n in ("bump", "double", "peek") if len(when[n]) > 1]
        if twice:
            raise Wrong(
                f"{twice[0]} ran in steps {when[twice[0]]}; each node should run once.",
                hint="One edge into each node is enough here.",
            )
        bump, double, peek = when["bump"][0], when["double"][0], when["peek"][0]
        seen = run.values.get("seen")
        if peek > double:
            raise Wrong(
                f"peek ran in step {peek}, after double's step {double}, so it saw double's "
                f"write: from count={count}, seen ended at {show(seen)}.",
                hint="To miss double's write, peek must run in the same step as double.",
            )
        if peek <= bump:
            raise Wrong(
                f"peek ran in step {peek} and bump in step {bump}, so peek never saw bump's "
                f"write: from count={count}, seen ended at {show(seen)}.",
                hint="peek must run one step after bump: give it an edge from bump.",
            )
        if peek != double:
            raise Wrong(
                f"peek ran in step {peek} and double in step {double}; they must share a step.",
                hint="Give both an edge from bump.",
            )
        if seen is None:
            raise Wrong(
                f"peek ran in step {peek} beside double, right, but wrote nothing to seen: "
                f"from count={count}, seen ended at {show(seen)}.",
                hint="A node changes the state only through the dict it returns: peek's "
                "dict sets seen to the count peek reads.",
            )
        if seen != count + 1 or run.values.get("count") != 2 * (count + 1):
            raise Wrong(
                f"On count={count}: seen = {show(seen)}, count = "
                f"{show(run.values.get('count'))}; expected seen = {count + 1} (bump's "
                f"value) and count = {2 * (count + 1)}.",
                hint="peek copies the count it reads, unchanged, into seen; keep bump and "
                "double as given.",
            )
    first = _COUNTS[0]
    return (
        f"peek ran in step {peek} beside double and, from count={first}, saw {first + 1}, "
        f"bump's write from step {bump}; double's {2 * (first + 1)} was still pending in "
        f"step {double}'s buffer (and so on the other counts)."
    )


# -- 2.3 · What does the reducer hold? -------------------------------------------------------


class Tally(TypedDict):
    total: Annotated[int, operator.add]


def _seed(state: Tally) -> dict:
    return {"total": 1}


def _left(state: Tally) -> dict:
    return {"total": state["total"]}  # adds what it reads


def _right(state: Tally) -> dict:
    return {"total": 10}


def _finish(state: Tally) -> dict:
    return {"total": state["total"]}  # adds what it reads


TALLY_INPUT = {"total": 5}
"""The input the exercise asks about: ``tally_graph().trace(TALLY_INPUT)``."""


def tally_graph() -> Any:
    """seed (+1) → (left: + what it reads ∥ right: +10) → finish (+ what it reads);
    ``total`` has the reducer ``operator.add``."""
    builder = StateGraph(Tally)
    for name, action in (("seed", _seed), ("left", _left), ("right", _right), ("finish", _finish)):
        builder.add_node(name, action)
    builder.add_edge(START, "seed")
    builder.add_edge("seed", "left")
    builder.add_edge("seed", "right")
    builder.add_edge("left", "finish")
    builder.add_edge("right", "finish")
    builder.add_edge("finish", END)
    return builder.compile()


@exercise("2.3 · What does the reducer hold?")
def check_total_after(guess: Mapping[int, Any]) -> str:
    """``guess`` maps 2 and 3 to the value ``total`` holds after that step's Update, in
    the run of ``tally_graph()`` on ``TALLY_INPUT``."""
    if not isinstance(guess, Mapping):
        raise Wrong(
            f"Expected a dict {{2: ..., 3: ...}}, got {type(guess).__name__}.",
            hint="For example {2: 0, 3: 0}, with your numbers.",
        )
    guess = _int_keys(guess)
    run = tally_graph().trace(dict(TALLY_INPUT))
    for step in (2, 3):
        change = run.step(step).update.change("total")
        answer = guess.get(step)
        if answer == change.after:
            continue
        nodes = " and ".join(run.step(step).plan.nodes)
        story = f"Step {step} began with total = {change.before} and ran {nodes}."
        if answer is None:  # (the stub: the story would hand over the step's start)
            if step == 3:
                said = f" (step 2's {guess[2]} is right)."
            elif guess.get(3) is None:
                said = ": total_after needs a number for step 2 and one for step 3."
            else:
                said = "."  # (step 3's number is judged once step 2's is right)
            raise Wrong(
                f"You have no answer for step {step} yet{said}",
                hint="Follow the run from {'total': 5} one step at a time: which nodes the "
                "step runs, what each reads (the state as the step began) and writes, and "
                "what operator.add makes of the step's writes in its Update.",
            )
        if isinstance(answer, str) and answer.strip() == str(change.after):
            raise Wrong(
                f"After step {step}, total holds the number {change.after}; you wrote the "
                f"string {answer!r}.",
                hint="total is an int channel: write the number without quotes.",
            )
        hint = (
            "Every task of a step reads the state as it was when the step began; the "
            "Update then adds up all the step's writes (the reducer is operator.add)."
        )
        if step == 2 and answer == 2 * change.before + 2 * 10:
            hint = (
                "left read total while right's +10 was still pending: a sibling's write "
                "is visible only in the next step."
            )
        elif step == 2 and answer in (change.before + 10, change.before + change.before):
            hint = "With a reducer every write of the step counts: add combines them."
        elif step == 3 and answer == 3 * change.before:
            hint = (
                "finish runs once: left and right both wrote its edge in step 2, and "
                "one step wakes a node once."
            )
        raise Wrong(f"After step {step}, total does not hold {show(answer)}. {story}", hint=hint)
    return (
        "22 after step 2 (left added the 6 it read, right 10: neither saw the other), "
        "44 after step 3 (finish read 22 and added it)."
    )
