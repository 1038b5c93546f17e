"""Checks for lesson 26 · Workflows and agents, superstep by superstep.

Each check runs the learner's graph on inputs of its own, with stand-ins for the model
calls, and compares the nodes of every superstep with the pattern's; a verdict names the
first step where the two part.

- ``check_fan_out(add_edges)``: three calls that start together, one of them two links
  long, and an aggregator that runs once, after all three.
- ``check_report(build_report)``: an orchestrator whose workers are tasks of one step, and
  a synthesizer whose report keeps the plan's section order, whatever order the workers
  finish in.
- ``check_loop(add_loop)``: an evaluator-optimizer loop that stops when the draft is
  accepted, or after ``max_rounds`` rounds, before any recursion limit.

>>> from graphkit.course.solutions import lesson26 as solutions
>>> bool(check_fan_out(solutions.add_edges)), bool(check_report(solutions.build_report))
(True, True)
>>> bool(check_loop(solutions.add_loop))
True
"""

from __future__ import annotations

import operator
import threading
import warnings
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

from graphkit.course.checking import Wrong, exercise, trace, what_was_given

__all__ = [
    "Draft",
    "Piece",
    "check_fan_out",
    "check_loop",
    "check_report",
    "drafting",
    "newsdesk",
]

STEPS = 50
"""The steps a check lets a run of the learner's graph take (the patterns take at most
8): a loop that never stops is told so at once, not after 10,007 steps."""


def _steps(run: Any) -> list[list[str]]:
    """The nodes of each superstep that ran a node (from step 1 on), a node once per task."""
    return [sorted(step.plan.nodes) for step in run.steps if step.step > 0 and step.plan.nodes]


def _said(steps: list[list[str]], first: int = 1) -> str:
    """Steps in words, numbered from ``first``: ``1: facts, headline · 2: draft``."""
    said = (f"{i}: {', '.join(nodes)}" for i, nodes in enumerate(steps, first))
    return " · ".join(said) or "none"


def _first_difference(got: list[list[str]], want: list[list[str]]) -> int:
    """The first step (from 1) whose nodes differ."""
    longest = max(len(got), len(want))
    pairs = zip(got + [[]] * (longest - len(got)), want + [[]] * (longest - len(want)), strict=True)
    return next(i for i, (mine, theirs) in enumerate(pairs, 1) if mine != theirs)


def _compile(builder: Any) -> Any:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (a node nothing leads to: the verdict says so)
            return builder.compile()
    except ValueError as error:
        if "entrypoint" not in str(error):
            raise
        raise Wrong(
            "Your graph has no edge from START yet: nothing would run.",
            "Which nodes does the pattern start with?",
        ) from None


def _traced(app: Any, state: dict) -> tuple[Any, bool]:
    """A run of the learner's graph, stopped after ``STEPS`` steps, and whether the
    recursion limit stopped it (its records so far are kept)."""
    from graphkit.errors import GraphRecursionError

    try:
        return trace(app, state, {"recursion_limit": STEPS}), False
    except Wrong as wrong:
        cause = wrong.__cause__
        if isinstance(cause, GraphRecursionError) and getattr(cause, "run", None) is not None:
            return cause.run, True
        raise


# -- 26.1 · one aggregator, after all three calls --------------------------------------------------


class Piece(TypedDict, total=False):
    """26.1's state: a topic, the three calls' results, and the aggregator's report."""

    topic: str
    facts: str
    outline: str
    draft: str
    headline: str
    report: str


def _call(key: str, source: str | None = None) -> Callable[[Piece], dict]:
    def call(state: Piece) -> dict:  # (a model call's stand-in: its answer names its input)
        return {key: f"{key} on {state[source] if source else state['topic']}"}

    return call


def _aggregate(state: Piece) -> dict:
    parts = [state.get(name, f"(no {name} yet)") for name in ("headline", "facts", "draft")]
    return {"report": " | ".join(parts)}


def newsdesk(builder: Any) -> Any:
    """26.1's nodes on ``builder``, with no edge: ``find_facts``, ``write_headline`` and
    ``make_outline`` each call a model on the topic, ``write_draft`` writes from the
    outline, and ``aggregate`` joins headline, facts and draft into the report."""
    builder.add_node("find_facts", _call("facts"))
    builder.add_node("write_headline", _call("headline"))
    builder.add_node("make_outline", _call("outline"))
    builder.add_node("write_draft", _call("draft", "outline"))
    builder.add_node("aggregate", _aggregate)
    return builder


FAN_OUT = [["find_facts", "make_outline", "write_headline"], ["write_draft"], ["aggregate"]]
"""26.1's steps: the three calls together, the draft, then the aggregator once."""


@exercise("26.1 · One aggregator, after all three")
def check_fan_out(add_edges: Callable[[Any], Any]) -> str:
    """``add_edges(builder)``: the edges of ``newsdesk(builder)`` that start the three
    calls together, run write_draft after make_outline, and aggregate once, after all
    three."""
    from graphkit import StateGraph

    builder = newsdesk(StateGraph(Piece))
    add_edges(builder)
    app = _compile(builder)
    for topic in ("tides", "comets"):
        run, stopped = _traced(app, {"topic": topic})
        got = _steps(run)
        if stopped:
            raise Wrong(
                f"Your graph was still running after {STEPS} steps: {_said(got[:4])} ...",
                "Each node here runs once: which edge leads back?",
            )
        report = run.values.get("report")
        want_report = f"headline on {topic} | facts on {topic} | draft on outline on {topic}"
        if got == FAN_OUT and report == want_report:
            continue
        aggregated = [i for i, nodes in enumerate(got, 1) if "aggregate" in nodes]
        first = _first_difference(got, FAN_OUT)
        ran = f"Your graph ran {_said(got)}"
        if len(aggregated) > 1:
            early = run.steps[aggregated[0] + 1].update  # (steps -1 and 0 come first)
            seen = next(c.after for c in early.changes if c.channel == "report")
            raise Wrong(
                f"{ran}: aggregate ran {len(aggregated)} times, in steps "
                f"{', '.join(map(str, aggregated[:-1]))} and {aggregated[-1]}. "
                f"In step {aggregated[0]} it wrote "
                f"{seen!r}, before all three calls had arrived.",
                "An edge into aggregate wakes it in the step after its source finishes, "
                "each time; the draft arrives a step after the others. Make aggregate "
                "wait for all three (lesson 04).",
            )
        calls = ("find_facts", "write_headline", "make_outline", "write_draft")
        missing = [n for n in calls if not any(n in nodes for nodes in got)]
        if missing:
            raise Wrong(
                f"{ran}: {', '.join(missing)} never ran, so the report was {report!r}.",
                "Every call must be reached: which node starts each of them?",
            )
        if not aggregated:
            raise Wrong(f"{ran}: aggregate never ran.", "What leads to aggregate?")
        if got[: len(FAN_OUT)] == FAN_OUT:
            raise Wrong(
                f"Your graph ran the pattern's {len(FAN_OUT)} steps, then went on: "
                f"{_said(got[len(FAN_OUT) :], len(FAN_OUT) + 1)}.",
                "The run ends after aggregate: which edge leads on from it?",
            )
        wrote = (
            f" In step {aggregated[0]}, aggregate wrote {report!r}."
            if report != want_report
            else ""
        )
        raise Wrong(
            f"{ran}. Step {first} differs from the pattern's: {_said(FAN_OUT)}.{wrote}",
            "The three calls are independent: they start together, in step 1, and "
            "aggregate runs once, when the last of them (the draft) has arrived.",
        )
    calls = ("find_facts", "write_headline")
    unheard = _leading_nowhere_near(app, "aggregate", calls)
    unwaited = [] if builder.branches else [c for c in calls if _woken_without(builder, c)]
    if unwaited and not unheard:
        one = len(unwaited) == 1
        them, results = ("it", "its result") if one else ("them", "their results")
        node, other = _woken_without(builder, unwaited[0])
        way = (
            f"{'its' if one else 'their'} edges lead to it through {node}, which an edge "
            f"from {other} wakes without {them}"
            if node != "aggregate"
            else f"an edge from {other} wakes it without {them}"
        )
        raise Wrong(
            f"Your graph ran the pattern's steps, but aggregate does not wait for "
            f"{' or '.join(unwaited)}: {way}. {results.capitalize()} arrived in time only "
            f"because of how long the paths are: were the path through {unwaited[0]} longer, "
            "aggregate would run before its result arrived.",
            "Make aggregate wait for all three: one edge from the three of them (lesson 04).",
        )
    if unheard:
        # the steps are right only because the draft's path is the longest: the
        # coincidence the lesson warns of for plain edges, and the exercise is there to undo
        one = len(unheard) == 1
        them, results = ("it", "its result") if one else ("them", "their results")
        raise Wrong(
            f"Your graph ran the pattern's steps, but no edge leads from {' or '.join(unheard)} "
            f"to aggregate: aggregate does not wait for {them}. {results.capitalize()} "
            f"arrived in time only because the draft's path is longer: were the path through "
            f"{unheard[0]} longer than the draft's, aggregate would run before its result arrived.",
            "Make aggregate wait for all three: one edge from the three of them (lesson 04).",
        )
    return (
        "find_facts, write_headline and make_outline ran together in step 1, write_draft "
        "in step 2, and aggregate once, in step 3, with all three: 3 steps."
    )


def _woken_without(builder: Any, source: str) -> tuple[str, str] | None:
    """Where aggregate can be woken before ``source`` has finished: a node on the way from
    ``source`` to it and the node whose plain edge wakes that one without ``source``; None
    when aggregate waits for ``source``. Read from plain and waiting edges (a conditional
    edge's targets are known only once it runs)."""
    # sorted: the edges are sets, and the verdict must name the same node on every run
    plain = [((start,), end) for start, end in builder.edges]
    groups = sorted(plain + [(tuple(starts), end) for starts, end in builder.waiting_edges])

    def waits(node: str, seen: frozenset[str]) -> bool:  # every edge into node, after source
        into = [starts for starts, end in groups if end == node]
        return bool(into) and all(
            any(
                start == source or (start not in seen and waits(start, seen | {node}))
                for start in starts
            )
            for starts in into
        )

    if waits("aggregate", frozenset()):
        return None
    after = {source}  # the nodes an edge from source leads to, at any distance
    while grown := {end for starts, end in groups if set(starts) & after} - after:
        after |= grown
    for node in sorted(after - {source}):
        for starts, end in groups:
            if end == node and not set(starts) & after:
                return node, " and ".join(starts)
    return "aggregate", "another node"  # (a loop: the steps would not have come out right)


def _leading_nowhere_near(app: Any, target: str, sources: tuple[str, ...]) -> list[str]:
    """The ``sources`` from which no path of edges in ``app``'s graph reaches ``target``."""
    edges = [(edge.source, edge.target) for edge in app.get_graph().edges]

    def reaches(node: str, seen: set[str]) -> bool:
        seen.add(node)
        nexts = [end for start, end in edges if start == node and end not in seen]
        return node == target or any(reaches(end, seen) for end in nexts)

    return [source for source in sources if not reaches(source, set())]


# -- 26.2 · a report in the plan's order ----------------------------------------------------------

PLANS = {
    "tides": ["Moon", "Sun", "Coasts", "Tables"],
    "comets": ["Orbit", "Tail", "Dust"],
}
"""The plan ``check_report``'s orchestrator makes for each topic."""


class _Writer:
    """``write_section``'s stand-in: each section finishes only after the next one has
    (as far as the runtime runs them at once), so the workers finish in reverse order."""

    def __init__(self, plan: list[str]):
        self.plan = plan
        self.done = {section: threading.Event() for section in plan}
        self.finished: list[str] = []
        self.lock = threading.Lock()

    def __call__(self, section: str) -> str:
        if section in self.plan:
            later = self.plan[self.plan.index(section) + 1 :]
            if later:
                self.done[later[0]].wait(1.0)
            with self.lock:
                self.finished.append(section)
            self.done[section].set()
        return f"{section}: written."


def _separator(report: Any, texts: list[str]) -> str | None:
    """What joins ``texts``, in their order, into ``report``, if something does."""
    if not isinstance(report, str) or not report.startswith(texts[0]) or len(texts) < 2:
        return None
    separator = report[len(texts[0]) : report.find(texts[1], len(texts[0]))]
    return separator if separator.join(texts) == report else None


@exercise("26.2 · A report in the plan's order")
def check_report(build_report: Callable[..., Any]) -> str:
    """``build_report(plan, write_section)``: a compiled graph that, given
    ``{"topic": ...}``, runs three steps: an orchestrator node plans the sections with
    ``plan(topic)``, each is written in a worker task of its own with
    ``write_section(section)``, and a synthesizer node leaves ``"report"``: the texts, in
    the plan's order, joined by a blank line."""
    for topic, sections in PLANS.items():
        writer = _Writer(sections)
        app = build_report(lambda topic: list(PLANS.get(topic, [])), writer)
        if not hasattr(app, "trace") and hasattr(app, "compile"):
            raise Wrong(
                f"build_report returned a {type(app).__name__}, the builder, not a compiled graph.",
                "Return builder.compile(): the check runs the graph it is given.",
            )
        if not hasattr(app, "trace") and type(app).__module__.startswith("langgraph"):
            raise Wrong(
                f"build_report returned LangGraph's {type(app).__name__}: the check reads "
                "graphkit's records of each step, which a LangGraph app does not keep.",
                "Build it with graphkit's classes: from graphkit import END, START, Send, "
                "StateGraph (the lesson's first cell), the rest as it is.",
            )
        if not hasattr(app, "trace"):
            raise Wrong(
                f"build_report returned {what_was_given(app)}, not a compiled graph.",
                "Build the graph on a StateGraph, and return builder.compile().",
            )
        run, stopped = _traced(app, {"topic": topic})
        got = _steps(run)
        if stopped:
            raise Wrong(
                f"Your graph was still running after {STEPS} steps: {_said(got[:4])} ...",
                "The pattern runs three steps: which edge leads back?",
            )
        n = len(sections)
        many = [i for i, nodes in enumerate(got, 1) if len(nodes) == n and len(set(nodes)) == 1]
        if not many:
            raise Wrong(
                f"For {topic!r}, planned {sections}, your graph ran {_said(got)}: no step ran "
                f"{n} tasks of one node, one per section.",
                "Each section plan(topic) returns is a task of its own, and all of them "
                "are planned in the same step, by the orchestrator (lesson 05).",
            )
        if len(got) != 3 or many != [2]:
            raise Wrong(
                f"Your graph ran {_said(got)}: the workers ran in step {many[0]}, "
                f"in {len(got)} steps in all, where the pattern takes 3: the orchestrator, "
                "the workers, the report.",
                "The orchestrator plans the workers in step 1, they all run in step 2, "
                "and one node writes the report in step 3.",
            )
        report = run.values.get("report")
        want = "\n\n".join(f"{section}: written." for section in sections)
        separator = _separator(report, [f"{section}: written." for section in sections])
        if report != want and separator is not None:
            raise Wrong(
                f"For {topic!r}, the report had the sections in the plan's order, joined by "
                f"{separator!r}.",
                'The report joins the texts by a blank line ("\\n\\n").',
            )
        if report != want and isinstance(report, str) and report.strip() == want:
            ends = [
                f"{where} with {extra!r}"
                for where, extra in (
                    ("starts", report[: report.find(want)]),
                    ("ends", report[report.find(want) + len(want) :]),
                )
                if extra
            ]
            raise Wrong(
                f"For {topic!r}, the report has the sections in the plan's order, joined by "
                f"a blank line, and {' and '.join(ends)}.",
                'The blank line goes between the sections only: "\\n\\n".join(...) of the texts.',
            )
        texts = [f"{section}: written." for section in sections]
        if isinstance(report, list):
            raise Wrong(
                f"For {topic!r}, the report was a list, {report!r}.",
                "The report is one str: the sections' texts joined by a blank line.",
            )
        held = [key for key, value in run.values.items() if key != "report" and value == texts]
        if report != want and held:  # (reordered after the reducer had it right)
            raise Wrong(
                f"For {topic!r}, planned {sections}, the report was {report!r}, yet your "
                f"state's {held[0]!r} held them in the plan's order: your synthesizer "
                "changed it.",
                "The reducer applies the workers' writes in task order, the order of the "
                "plan, whichever finished first: join that list as it is.",
            )
        if report != want:
            order = [s for s in writer.finished if s in sections]
            said = (
                f" That is the order the workers finished in ({', '.join(order)})."
                if report
                and order != sections
                and report.split("\n\n")[:1] == [f"{order[0]}: written."]
                else ""
            )
            raise Wrong(
                f"For {topic!r}, planned {sections}, the report was {report!r}.{said}",
                "The workers finish in any order; their writes are applied in task order, "
                "the order of the plan. Collect them through the state, and join them as "
                "they arrive there.",
            )
    finished = ", ".join(writer.finished)
    return (
        f"Each plan's workers ran as tasks of one step, step 2; for {topic!r} they finished "
        f"in the order {finished}, and the report kept the plan's: 3 steps, whatever the "
        "number of sections."
    )


# -- 26.3 · a loop that stops ---------------------------------------------------------------------


class Draft(TypedDict, total=False):
    """26.3's state: a topic, the latest draft, its grade and the rounds run."""

    topic: str
    draft: str
    grade: str
    rounds: Annotated[int, operator.add]


def drafting(builder: Any, accept_at: int | None = 2) -> Any:
    """26.3's nodes on ``builder``, with no edge: ``generate`` writes a draft and adds 1
    to ``rounds``; ``evaluate`` grades it ``"accepted"`` in round ``accept_at`` (never,
    for None) and ``"rejected"`` before."""

    def generate(state: Draft) -> dict:
        return {"draft": f"draft {state.get('rounds', 0) + 1}", "rounds": 1}

    def evaluate(state: Draft) -> dict:
        accepted = accept_at is not None and state["rounds"] >= accept_at
        return {"grade": "accepted" if accepted else "rejected"}

    builder.add_node("generate", generate)
    builder.add_node("evaluate", evaluate)
    return builder


LOOPS = [(3, 2), (3, None), (1, None), (4, 4)]
"""``(max_rounds, accept_at)`` of each run ``check_loop`` makes."""


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def _routes_to_no_node(run: Any, builder: Any) -> str | None:
    """The name a router of ``run``'s last step routed to that is no node of
    ``builder`` (the route was dropped), if any."""
    results = run.steps[-1].execution.results if run.steps and run.steps[-1].execution else ()
    for result in results:
        for channel, _ in result.writes:
            name = channel.removeprefix("branch:to:")
            if channel.startswith("branch:to:") and name not in builder.nodes:
                return name
    return None


@exercise("26.3 · A loop that stops")
def check_loop(add_loop: Callable[[Any, int], Any]) -> str:
    """``add_loop(builder, max_rounds)``: the edges of ``drafting(builder)`` that run
    generate, then evaluate, again and again, until the draft is accepted or
    ``max_rounds`` rounds have run."""
    from graphkit import StateGraph

    for max_rounds, accept_at in LOOPS:
        builder = drafting(StateGraph(Draft), accept_at)
        add_loop(builder, max_rounds)
        app = _compile(builder)
        rounds = max_rounds if accept_at is None else min(accept_at, max_rounds)
        want = [["generate"], ["evaluate"]] * rounds
        case = f"With max_rounds={max_rounds} and a draft " + (
            "never accepted" if accept_at is None else f"accepted in round {accept_at}"
        )
        run, stopped = _traced(app, {"topic": "tides"})
        got = _steps(run)
        if got == want and (unknown := _routes_to_no_node(run, builder)):
            raise Wrong(
                f"{case}, your graph ran {_said(got)}, as it should, but it ended because "
                f"your router returned {unknown!r}, which no node is named: a route to no "
                "node is dropped (graphkit warned), so the run had nothing left to do.",
                "End on purpose: return END, the constant (from graphkit import END), "
                "whose value is '__end__', not the text 'END'.",
            )
        if got == want:
            again = _steps(_traced(app, {"topic": "tides"})[0])
            if again == want:
                continue
            raise Wrong(
                f"{case}, your graph ran {_said(got)}, as it should; run again, the same "
                f"graph ran {_said(again)}.",
                "A count kept outside the state carries over from one run to the next. "
                "Read the rounds run in the state, which each run starts afresh.",
            )
        step = _first_difference(got, want)
        if step > len(got):
            grade = run.values.get("grade")
            hint = "A rejected draft goes back to generate while rounds are left."
            if unknown := _routes_to_no_node(run, builder):
                hint = (
                    f"Your router returned {unknown!r}, which no node is named: a route to "
                    "no node is dropped, and the run ends there. The nodes are generate "
                    "and evaluate."
                )
            raise Wrong(
                f"{case}, your graph ran {_said(got)} and stopped after step {len(got)}, "
                f"with the draft {grade or 'not graded'}, after "
                f"{run.values.get('rounds', 0)} of {rounds} rounds.",
                hint,
            )
        ran = got[step - 1]
        if ran == ["generate"] and step % 2 == 1:
            accepted = accept_at is not None and step > 2 * accept_at - 1
            reason = (
                "the draft was accepted in the step before"
                if accepted
                else f"max_rounds={max_rounds} allows {max_rounds} rounds"
            )
            hint = (
                "After evaluate, the router reads the grade and the rounds run, and ends "
                "the run when either says so."
            )
            if ("evaluate", "generate") in builder.edges:
                hint = (  # a router may be right: the plain edge back is taken anyway
                    "evaluate → generate is a plain edge: it is always taken, whatever a "
                    "router says, so generate runs again after every evaluate. Leave the "
                    "way back to the router alone."
                )
            elif not stopped and accepted and len(got) == 2 * max_rounds:
                hint = (  # it stopped at max_rounds, as it should, but not on acceptance
                    "Your router ends the loop after max_rounds; it must also end it "
                    "when state['grade'] is 'accepted'."
                )
            elif not stopped and not accepted and len(got) == 2 * (rounds + 1):
                hint = (
                    "Your router ends the loop, one round late: state['rounds'] counts the "
                    "rounds already run, so end once it has reached max_rounds (>=, not >)."
                )
            raise Wrong(
                f"{case}, generate ran a {_ordinal(step // 2 + 1)} round in step {step} "
                f"(your graph ran {_said(got[:step])}"
                + (f", and was still looping after {STEPS} steps" if stopped else "")
                + f"); {reason}.",
                hint,
            )
        raise Wrong(
            f"{case}, your graph ran {_said(got)}; step {step} should run "
            f"{', '.join(want[step - 1]) if step <= len(want) else 'nothing'}.",
            "Each round is two steps: generate, then evaluate; the router after evaluate "
            "decides whether another round runs.",
        )
    return (
        "Each round took two steps, generate then evaluate, and the loop ended after "
        "evaluate: on acceptance, or after max_rounds rounds (2 × max_rounds steps)."
    )
