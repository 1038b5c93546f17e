"""Lesson 26's checks on their solutions, on typical wrong answers and on the notebook's
stubs; and the lesson's claims on LangGraph: every pattern of the lesson runs on LangGraph
1.2 too, and each cell prints the same (the steps and their nodes, the final values), the
recursion limit stopping the loop at the same step."""

from __future__ import annotations

import itertools
import json
import operator
import types
from pathlib import Path
from typing import Annotated, TypedDict

import pytest

from graphkit import END, START, Send, StateGraph
from graphkit.course import assert_fails, assert_passes, lesson26
from graphkit.course.solutions import lesson26 as solutions
from tests.course.cells import (
    cells_showing_an_id,
    lines_too_long,
    run_again_in_reverse,
    run_cells,
    stub_names,
)

LESSON = Path(__file__).parents[2] / "notebooks" / "26-workflows-and-agents.ipynb"
IMPORT = "from graphkit.course import lesson26"
pytestmark = pytest.mark.filterwarnings("ignore:Node '[a-z_]+'. nothing leads to it")


def stub_cells() -> dict:
    return stub_names(LESSON, lesson26, ("def add_edges(", "def build_report(", "def add_loop("))


def test_the_notebooks_stubs_fail_their_checks():
    stubs = stub_cells()
    assert_fails(lesson26.check_fan_out(stubs["add_edges"]), "no edge from START", hint="start")
    assert_fails(
        lesson26.check_report(stubs["build_report"]),
        "returned None, not a compiled graph",
        hint="builder.compile()",
    )
    assert_fails(lesson26.check_loop(stubs["add_loop"]), "no edge from START", hint="start")


def test_the_lessons_cells_show_the_same_when_run_again():
    shown = run_again_in_reverse(
        LESSON, IMPORT, lambda source: "steps(" in source and "def steps" not in source
    )
    said = "\n".join(out for out, _ in shown.values())
    assert "step 2: ['worker', 'worker', 'worker', 'worker']\nstep 3: ['synthesizer']" in said


def test_no_cell_shows_an_id():
    assert cells_showing_an_id(LESSON, IMPORT) == {}


def test_every_code_line_fits_the_cell():
    assert lines_too_long(LESSON) == []


# -- the lesson's claims on LangGraph

GRAPHKIT_IMPORTS = (
    "from graphkit import END, START, GraphRecursionError, MessagesState, Send, StateGraph, render",
    "from graphkit.prebuilt import ScriptedChatModel, ToolNode, tools_condition",
)

LANGGRAPH_HELPERS = '''
from langgraph.errors import GraphRecursionError
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import Send

from graphkit.prebuilt import ScriptedChatModel


def steps(app, state, config=None):
    """LangGraph's supersteps, read from its debug stream, printed as graphkit's are."""
    seen, values, stopped = {}, None, False
    try:
        for mode, chunk in app.stream(state, config, stream_mode=["debug", "values"]):
            if mode == "values":
                values = chunk
            elif chunk["type"] == "task":
                seen.setdefault(chunk["step"], []).append(chunk["payload"]["name"])
    except GraphRecursionError:
        stopped = True
    for step, nodes in sorted(seen.items()):
        print(f"step {step}: {sorted(nodes)}")
    if stopped:
        print("GraphRecursionError: the recursion limit stopped the run")
    return types.SimpleNamespace(values=values)
'''


def to_langgraph(cell: str, source: str) -> str | None:
    """The cell for LangGraph, or None for one that draws or reads graphkit's records."""
    if "render." in source or ".plan.tasks" in source:
        return None
    if GRAPHKIT_IMPORTS[0] in source:  # the helpers' cell: LangGraph's imports and runs
        for line in GRAPHKIT_IMPORTS:
            source = source.replace(line, "")
        source = source[: source.index("def steps(")]
        return source + "\n" + LANGGRAPH_HELPERS
    assert "from graphkit" not in source
    return source


def run_lesson(library: str) -> tuple[dict, dict]:
    names: dict = {"display": print, "types": types}
    source_of = to_langgraph if library == "langgraph" else (lambda cell, source: source)
    return run_cells(LESSON, until=IMPORT, names=names, source_of=source_of), names


def printed(shown: dict, cell: str) -> list[str]:
    """What a cell printed, less the workers' finishing order (a matter of timing)."""
    return [line for line in shown[cell][0].splitlines() if not line.startswith("finished:")]


def test_every_pattern_runs_on_langgraph_as_on_graphkit():
    """Each cell that runs on both prints the same: each superstep's nodes, the final
    values, the step at which the recursion limit stops the loop."""
    pytest.importorskip("langgraph")
    ours, _ = run_lesson("graphkit")
    theirs, _ = run_lesson("langgraph")
    assert len(theirs) >= 15
    for cell in theirs:
        assert printed(theirs, cell) == printed(ours, cell), cell
    said = "\n".join(out for out, _ in theirs.values())
    assert "step 10: ['evaluator']\nGraphRecursionError" in said
    assert "## Moon\n## Sun\n## Coasts\n## Tables" in said


def test_the_lessons_cells_print_what_the_lesson_says():
    shown, _ = run_lesson("graphkit")
    said = "\n".join(out for out, _ in shown.values())
    assert "step 1: ['generate_joke']\nstep 2: ['improve_joke']\nstep 3: ['polish_joke']" in said
    assert "step 1: ['write_joke', 'write_poem', 'write_story']\nstep 2: ['aggregator']" in said
    assert "step 1: ['router']\nstep 2: ['write_poem']" in said
    assert "finished: ['Tables', 'Coasts', 'Sun', 'Moon']" in said
    assert "worker {'section': 'Moon'}\nworker {'section': 'Sun'}" in said
    assert "draft 3 on tides · 3 rounds" in said
    assert "step 10: ['evaluator']\nGraphRecursionError" in said
    assert "step 11" not in said
    assert "step 1: ['llm_call']\nstep 2: ['tools']\nstep 3: ['llm_call']" in said


def _loop(library: str, limit: int) -> int:
    """Rounds a never-accepting evaluator-optimizer runs under ``recursion_limit=limit``."""
    graph = pytest.importorskip(f"{library}.graph")
    errors = pytest.importorskip(f"{library}.errors")
    rounds = []
    builder = graph.StateGraph(lesson26.Draft)
    builder.add_node("generate", lambda state: (rounds.append(1), {"rounds": 1})[1])
    builder.add_node("evaluate", lambda state: {"grade": "rejected"})
    builder.add_edge(graph.START, "generate")
    builder.add_edge("generate", "evaluate")
    builder.add_conditional_edges("evaluate", lambda state: "generate", ["generate"])
    with pytest.raises(errors.GraphRecursionError):
        builder.compile().invoke({"topic": "t"}, {"recursion_limit": limit})
    return len(rounds)


@pytest.mark.parametrize("library", ["graphkit", "langgraph"])
def test_a_recursion_limit_of_n_lets_half_n_rounds_run(library):
    assert [_loop(library, n) for n in (4, 5, 10, 11)] == [2, 3, 5, 6]


@pytest.mark.parametrize("library", ["graphkit", "langgraph"])
def test_a_run_ending_in_step_n_raises_under_a_limit_of_n(library):
    """The limit is checked after step N, before the runtime sees nothing is left: a
    loop accepted in round k (2k steps) needs a recursion_limit of 2k + 1."""
    graph = pytest.importorskip(f"{library}.graph")
    errors = pytest.importorskip(f"{library}.errors")

    def ends(accept_at, limit):
        builder = lesson26.drafting(graph.StateGraph(lesson26.Draft), accept_at)
        solutions.add_loop(builder, 100)
        try:
            builder.compile().invoke({"topic": "t"}, {"recursion_limit": limit})
        except errors.GraphRecursionError:
            return False
        return True

    assert [ends(4, 8), ends(4, 9), ends(5, 10), ends(5, 11)] == [False, True, False, True]


@pytest.mark.parametrize("library", ["graphkit", "langgraph"])
def test_sends_results_meet_in_task_order_beyond_ten(library):
    """Twelve workers: their writes are applied in the order of the Sends (task order),
    the eleventh after the tenth, not as text ('10' < '2')."""
    graph = pytest.importorskip(f"{library}.graph")
    types_ = pytest.importorskip(f"{library}.types")

    class State(TypedDict, total=False):
        sections: Annotated[list[int], operator.add]

    builder = graph.StateGraph(State)
    builder.add_node("plan", lambda state: {})
    builder.add_node("worker", lambda state: {"sections": [state["n"]]})
    builder.add_edge(graph.START, "plan")
    fan = lambda state: [types_.Send("worker", {"n": n}) for n in range(12)]  # noqa: E731
    builder.add_conditional_edges("plan", fan, ["worker"])
    assert builder.compile().invoke({})["sections"] == list(range(12))


def _agent(library: str, rounds: int, limit: int) -> bool:
    """Whether an agent that needs ``rounds`` tool rounds answers under ``limit``."""
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.tools import tool

    from graphkit.prebuilt import ScriptedChatModel

    graph = pytest.importorskip(f"{library}.graph")
    prebuilt = pytest.importorskip(f"{library}.prebuilt")
    errors = pytest.importorskip(f"{library}.errors")

    @tool
    def ping() -> str:
        """Answer pong."""
        return "pong"

    calls = [
        AIMessage("", tool_calls=[{"name": "ping", "args": {}, "id": f"call-{n}"}])
        for n in range(rounds)
    ]
    model = ScriptedChatModel(responses=[*calls, "done"]).bind_tools([ping])
    builder = graph.StateGraph(graph.MessagesState)
    builder.add_node("llm_call", lambda state: {"messages": [model.invoke(state["messages"])]})
    builder.add_node("tools", prebuilt.ToolNode([ping]))
    builder.add_edge(graph.START, "llm_call")
    builder.add_conditional_edges("llm_call", prebuilt.tools_condition, ["tools", graph.END])
    builder.add_edge("tools", "llm_call")
    try:
        builder.compile().invoke(
            {"messages": [HumanMessage("ping", id="q")]}, {"recursion_limit": limit}
        )
    except errors.GraphRecursionError:
        return False
    return True


@pytest.mark.parametrize("library", ["graphkit", "langgraph"])
def test_an_agent_needing_k_tool_rounds_needs_a_limit_of_2k_plus_2(library):
    assert [_agent(library, 3, limit) for limit in (7, 8)] == [False, True]
    assert [_agent(library, 0, limit) for limit in (1, 2)] == [False, True]


# -- the checks


def test_the_solutions_pass():
    assert_passes(lesson26.check_fan_out(solutions.add_edges))
    verdict = assert_passes(lesson26.check_report(solutions.build_report))
    assert "3 steps" in verdict.message
    assert_passes(lesson26.check_loop(solutions.add_loop))


def _starts(builder):
    for call in ("find_facts", "write_headline", "make_outline"):
        builder.add_edge(START, call)
    builder.add_edge("make_outline", "write_draft")


def _plain_edges(builder):
    _starts(builder)
    for call in ("find_facts", "write_headline", "write_draft"):
        builder.add_edge(call, "aggregate")


def _in_a_row(builder):
    names = ["find_facts", "write_headline", "make_outline", "write_draft", "aggregate"]
    builder.add_edge(START, names[0])
    for first, then in itertools.pairwise(names):
        builder.add_edge(first, then)


def _no_headline(builder):
    builder.add_edge(START, "find_facts")
    builder.add_edge(START, "make_outline")
    builder.add_edge("make_outline", "write_draft")
    builder.add_edge(["find_facts", "write_draft"], "aggregate")


@pytest.mark.parametrize(
    ("answer", "said", "hint"),
    [
        (_plain_edges, "aggregate ran 2 times, in steps 2 and 3", "wait for all three"),
        (_in_a_row, "Step 1 differs from the pattern's", "start together, in step 1"),
        (_no_headline, "write_headline never ran", "Every call must be reached"),
    ],
    ids=["three plain edges", "one after another", "no headline"],
)
def test_fan_out_wrong_answers(answer, said, hint):
    assert_fails(lesson26.check_fan_out(answer), said, hint=hint)


def test_fan_out_plain_edges_names_what_aggregate_wrote_too_early():
    verdict = assert_fails(lesson26.check_fan_out(_plain_edges))
    assert "'headline on tides | facts on tides | (no draft yet)'" in verdict.message


def test_fan_out_with_the_join_written_in_another_order_passes():
    def answer(builder):
        _starts(builder)
        builder.add_edge(["write_draft", "write_headline", "find_facts"], "aggregate")

    assert_passes(lesson26.check_fan_out(answer))


def test_fan_out_that_waits_for_the_draft_alone_is_refused():
    """An edge from write_draft alone ran the pattern's steps and was accepted: aggregate
    read the facts and the headline in step 3 only because the draft's path is the
    longest, the coincidence cell 10 warns of; the exercise asks it to wait for all three."""

    def from_the_draft(builder):
        _starts(builder)
        builder.add_edge("write_draft", "aggregate")

    def without_the_headline(builder):
        _starts(builder)
        builder.add_edge(["find_facts", "write_draft"], "aggregate")

    verdict = assert_fails(
        lesson26.check_fan_out(from_the_draft),
        "no edge leads from find_facts or write_headline to aggregate: aggregate does not "
        "wait for them. Their results arrived in time only because the draft's path is longer",
        hint="one edge from the three",
    )
    assert "the path through find_facts longer than the draft's" in verdict.message
    assert_fails(
        lesson26.check_fan_out(without_the_headline),
        "no edge leads from write_headline to aggregate: aggregate does not wait for it.",
    )


def test_fan_out_through_a_draft_woken_by_every_call_is_refused():
    """Plain edges from the three calls into write_draft, then one on to aggregate: every
    node is reached from the three, so the check took aggregate for waiting; write_draft
    runs after whichever call finishes first, the same coincidence as with no edge."""

    def through_the_draft(builder):
        _starts(builder)
        builder.add_edge("find_facts", "write_draft")
        builder.add_edge("write_headline", "write_draft")
        builder.add_edge("write_draft", "aggregate")

    verdict = assert_fails(
        lesson26.check_fan_out(through_the_draft),
        "aggregate does not wait for find_facts or write_headline: their edges lead to it "
        "through write_draft, which an edge from make_outline wakes without them",
        hint="one edge from the three",
    )
    assert "no edge leads" not in verdict.message

    def a_draft_edge_too(builder):  # (the join waits; the plain edge beside it does not)
        _starts(builder)
        builder.add_edge(["find_facts", "write_headline", "write_draft"], "aggregate")
        builder.add_edge("write_draft", "aggregate")

    assert_fails(
        lesson26.check_fan_out(a_draft_edge_too),
        "does not wait for find_facts or write_headline: an edge from write_draft wakes it "
        "without them. Their results arrived in time only because of how long the paths are",
    )


def test_fan_out_that_waits_through_a_join_into_the_draft_passes():
    def join_into_the_draft(builder):
        for call in ("find_facts", "write_headline", "make_outline"):
            builder.add_edge(START, call)
        builder.add_edge(["find_facts", "write_headline", "make_outline"], "write_draft")
        builder.add_edge("write_draft", "aggregate")

    def routed(builder):  # (conditional edges: their targets are not known before a run)
        builder.add_conditional_edges(
            START, lambda state: ["find_facts", "write_headline", "make_outline"]
        )
        builder.add_conditional_edges("make_outline", lambda state: "write_draft")
        builder.add_edge(["find_facts", "write_headline", "write_draft"], "aggregate")

    assert_passes(lesson26.check_fan_out(join_into_the_draft))
    assert_passes(lesson26.check_fan_out(routed))


def test_fan_out_that_goes_on_after_aggregate_is_told_the_run_should_end():
    def answer(builder):
        _starts(builder)
        builder.add_edge(["find_facts", "write_headline", "write_draft"], "aggregate")
        builder.add_edge("aggregate", "find_facts")

    verdict = assert_fails(
        lesson26.check_fan_out(answer),
        "ran the pattern's 3 steps, then went on: 4: find_facts",
        hint="after aggregate",
    )
    assert "start together" not in verdict.hint


def test_fan_out_joined_before_the_draft_names_what_aggregate_wrote():
    def answer(builder):
        _starts(builder)
        builder.add_edge(["find_facts", "write_headline", "make_outline"], "aggregate")

    assert_fails(
        lesson26.check_fan_out(answer),
        "aggregate wrote 'headline on tides | facts on tides | (no draft yet)'",
        hint="the draft",
    )


class _Report(TypedDict, total=False):
    topic: str
    plan: list[str]
    sections: Annotated[list[str], operator.add]
    report: str


class _Plain(TypedDict, total=False):
    topic: str
    plan: list[str]
    sections: list[str]
    report: str


def _report(kind):
    """An orchestrator-worker with one typical mistake: ``kind``."""

    def build_report(plan, write_section):
        mine = []  # (the "closure" mistake: the workers append here as they finish)

        def orchestrator(state):
            return {"plan": plan(state["topic"])}

        def worker(state):
            text = write_section(state["section"])
            if kind == "closure":
                mine.append(text)
                return {}
            return {"sections": [text]}

        def synthesizer(state):
            sections = mine if kind == "closure" else state["sections"]
            sections = sections[::-1] if kind == "reversed" else sections
            return {"report": "\n\n".join(sorted(sections) if kind == "sorted" else sections)}

        def in_one_node(state):
            return {"report": "\n\n".join(write_section(s) for s in state["plan"])}

        builder = StateGraph(_Plain if kind == "plain" else _Report)
        builder.add_node("orchestrator", orchestrator)
        builder.add_node("worker", worker)
        builder.add_node("synthesizer", in_one_node if kind == "one node" else synthesizer)
        builder.add_edge(START, "orchestrator")
        if kind == "one node":
            builder.add_edge("orchestrator", "synthesizer")
        else:
            sends = lambda state: [Send("worker", {"section": s}) for s in state["plan"]]  # noqa: E731
            builder.add_conditional_edges("orchestrator", sends, ["worker"])
            builder.add_edge("worker", "synthesizer")
        return builder.compile()

    return build_report


@pytest.mark.parametrize(
    ("kind", "said", "hint"),
    [
        ("closure", "That is the order the workers finished in (Tables, Coasts", "task order"),
        ("plain", "InvalidUpdateError in step 2", ""),
        ("sorted", "the report was 'Coasts: written.", "the order of the plan"),
        ("one node", "no step ran 4 tasks of one node", "a task of its own"),
    ],
)
def test_report_wrong_answers(kind, said, hint):
    assert_fails(lesson26.check_report(_report(kind)), said, hint=hint)


def test_report_sorted_is_not_told_it_is_in_finishing_order():
    verdict = assert_fails(lesson26.check_report(_report("sorted")))
    assert "finished in" not in verdict.message


def test_report_reversed_in_the_synthesizer_is_told_the_state_held_the_plans_order():
    """A learner told that the workers finish last first reverses the list: the report is
    in their finishing order only by chance, and the state held the plan's order."""
    verdict = assert_fails(
        lesson26.check_report(_report("reversed")),
        "your state's 'sections' held them in the plan's order",
        hint="join that list as it is",
    )
    assert "finished in" not in verdict.message


def test_report_sorted_is_told_the_state_held_the_plans_order():
    assert_fails(
        lesson26.check_report(_report("sorted")),
        "your state's 'sections' held them in the plan's order",
        hint="join that list as it is",
    )


def _report_joined_by(separator):
    def build_report(plan, write_section):
        builder = StateGraph(_Report)
        builder.add_node("orchestrator", lambda state: {"plan": plan(state["topic"])})
        builder.add_node("worker", lambda state: {"sections": [write_section(state["section"])]})
        builder.add_node("synthesizer", lambda state: {"report": separator.join(state["sections"])})
        builder.add_edge(START, "orchestrator")
        sends = lambda state: [Send("worker", {"section": s}) for s in state["plan"]]  # noqa: E731
        builder.add_conditional_edges("orchestrator", sends, ["worker"])
        builder.add_edge("worker", "synthesizer")
        return builder.compile()

    return build_report


def test_report_in_order_with_another_separator_is_told_the_separator_not_the_order():
    verdict = assert_fails(
        lesson26.check_report(_report_joined_by("\n")),
        "in the plan's order, joined by '\\n'",
        hint='a blank line ("\\n\\n")',
    )
    assert "finish in any order" not in verdict.hint


def test_report_with_a_separator_after_each_section_is_told_what_it_added():
    """Each worker adds the blank line after its text and the synthesizer joins them with
    "": right order, one "\n\n" too many at the end, and the hint was about the order."""

    def build_report(plan, write_section):
        builder = StateGraph(_Report)
        builder.add_node("orchestrator", lambda state: {"plan": plan(state["topic"])})
        builder.add_node(
            "worker", lambda state: {"sections": [write_section(state["section"]) + "\n\n"]}
        )
        builder.add_node("synthesizer", lambda state: {"report": "".join(state["sections"])})
        builder.add_edge(START, "orchestrator")
        sends = lambda state: [Send("worker", {"section": s}) for s in state["plan"]]  # noqa: E731
        builder.add_conditional_edges("orchestrator", sends, ["worker"])
        builder.add_edge("worker", "synthesizer")
        return builder.compile()

    verdict = assert_fails(
        lesson26.check_report(build_report),
        "in the plan's order, joined by a blank line, and ends with '\\n\\n'",
        hint="between the sections",
    )
    assert "finish in any order" not in verdict.hint


def test_report_returning_the_builder_is_told_to_compile_it():
    def build_report(plan, write_section):
        return StateGraph(_Report)

    verdict = assert_fails(
        lesson26.check_report(build_report), "returned a StateGraph, the builder", hint="compile"
    )
    assert " at 0x" not in verdict.message


def test_report_planned_once_for_every_topic_names_the_topic():
    def build_report(plan, write_section):
        tides = plan("tides")  # (planned when the graph is built, not from the topic)
        builder = StateGraph(_Report)
        builder.add_node("orchestrator", lambda state: {"plan": tides})
        builder.add_node("worker", lambda state: {"sections": [write_section(state["section"])]})
        builder.add_node("synthesizer", lambda state: {"report": "\n\n".join(state["sections"])})
        builder.add_edge(START, "orchestrator")
        sends = lambda state: [Send("worker", {"section": s}) for s in state["plan"]]  # noqa: E731
        builder.add_conditional_edges("orchestrator", sends, ["worker"])
        builder.add_edge("worker", "synthesizer")
        return builder.compile()

    assert_fails(lesson26.check_report(build_report), "For 'comets', planned ['Orbit'")


def test_report_passing_says_whose_workers_finished_in_plain_words():
    verdict = assert_passes(lesson26.check_report(solutions.build_report))
    assert "''s" not in verdict.message


def test_report_exercise_names_the_three_steps_the_check_wants():
    """The check wants an orchestrator node, the workers, a synthesizer node: the
    exercise says so, so a 2-step answer is not refused by a rule it was never told."""
    text = LESSON.read_text()
    start = text.index("### 26.2")
    exercise = text[start : text.index("### 26.3")]
    assert "synthesizer" in exercise and "step 3" in exercise


def _loop_answer(stop):
    def add_loop(builder, max_rounds):
        builder.add_edge(START, "generate")
        builder.add_edge("generate", "evaluate")

        def router(state):
            return END if stop(state, max_rounds) else "generate"

        builder.add_conditional_edges("evaluate", router, ["generate", END])

    return add_loop


@pytest.mark.parametrize(
    ("stop", "said", "hint"),
    [
        (
            lambda state, k: state["grade"] == "accepted",
            "generate ran a 4th round in step 7",
            "the grade and the rounds run",
        ),
        (
            lambda state, k: state["grade"] == "accepted" or state["rounds"] > k,
            "max_rounds=3 allows 3 rounds",
            "one round late",  # not the rounds-and-grade hint: this router reads both
        ),
        (
            lambda state, k: state["rounds"] >= k,
            "the draft was accepted in the step before",
            "when state['grade'] is 'accepted'",
        ),
        (lambda state, k: True, "stopped after step 2, with the draft rejected", "rounds are left"),
    ],
    ids=["never stops", "one round too many", "ignores acceptance", "never loops"],
)
def test_loop_wrong_answers(stop, said, hint):
    assert_fails(lesson26.check_loop(_loop_answer(stop)), said, hint=hint)


def test_loop_with_a_plain_edge_back_beside_a_right_router_is_told_the_edge_not_the_router():
    """The router reads the grade and the rounds as it should; the plain edge
    evaluate → generate, always taken, is what keeps the loop going."""
    right = _loop_answer(lambda state, k: state["grade"] == "accepted" or state["rounds"] >= k)

    def add_loop(builder, max_rounds):
        right(builder, max_rounds)
        builder.add_edge("evaluate", "generate")

    verdict = assert_fails(
        lesson26.check_loop(add_loop),
        "generate ran a 3rd round in step 5",
        hint="evaluate → generate is a plain edge",
    )
    assert "the router reads the grade" not in verdict.hint


def test_loop_that_never_stops_is_told_so_without_running_10007_steps():
    verdict = assert_fails(
        lesson26.check_loop(_loop_answer(lambda state, k: False)), "still looping after 50"
    )
    assert "10007" not in verdict.message


def test_loop_counting_rounds_outside_the_state_is_told_a_second_run_differs():
    """A router that counts its calls in a closure passes one run per graph; the same
    compiled graph run again starts from the count the first run left."""

    def add_loop(builder, max_rounds):
        calls = [0]

        def router(state):
            calls[0] += 1
            return END if state["grade"] == "accepted" or calls[0] >= max_rounds else "generate"

        builder.add_edge(START, "generate")
        builder.add_edge("generate", "evaluate")
        builder.add_conditional_edges("evaluate", router, ["generate", END])

    assert_fails(
        lesson26.check_loop(add_loop), "run again, the same graph ran", hint="in the state"
    )


def test_the_exercises_solutions_run_on_langgraph_as_on_graphkit(monkeypatch):
    """Each solution built on LangGraph: the same supersteps and final values."""
    pytest.importorskip("langgraph")
    from langgraph.graph import StateGraph as TheirStateGraph
    from langgraph.types import Send as TheirSend

    def supersteps(app, state, config=None):
        seen: dict = {}
        for chunk in app.stream(state, config, stream_mode="debug"):
            if chunk["type"] == "task":
                seen.setdefault(chunk["step"], []).append(chunk["payload"]["name"])
        return [sorted(nodes) for _, nodes in sorted(seen.items())], app.invoke(state, config)

    # 26.1
    apps = []
    for graph in (StateGraph, TheirStateGraph):
        builder = lesson26.newsdesk(graph(lesson26.Piece))
        solutions.add_edges(builder)
        apps.append(builder.compile())
    run = apps[0].trace({"topic": "tides"})
    assert (lesson26._steps(run), run.values) == supersteps(apps[1], {"topic": "tides"})
    # 26.3
    for max_rounds, accept_at in lesson26.LOOPS:
        apps = []
        for graph in (StateGraph, TheirStateGraph):
            builder = lesson26.drafting(graph(lesson26.Draft), accept_at)
            solutions.add_loop(builder, max_rounds)
            apps.append(builder.compile())
        run = apps[0].trace({"topic": "tides"})
        assert (lesson26._steps(run), run.values) == supersteps(apps[1], {"topic": "tides"})
    # 26.2
    plan = lambda topic: list(lesson26.PLANS[topic])  # noqa: E731
    write = lambda section: f"{section}: written."  # noqa: E731
    ours = solutions.build_report(plan, write)
    with monkeypatch.context() as patch:
        patch.setattr(solutions, "StateGraph", TheirStateGraph)
        patch.setattr(solutions, "Send", TheirSend)
        theirs = supersteps(solutions.build_report(plan, write), {"topic": "tides"})
    run = ours.trace({"topic": "tides"})
    assert (lesson26._steps(run), run.values) == theirs


@pytest.mark.parametrize("library", ["graphkit", "langgraph"])
def test_the_recursion_limit_counts_each_invokes_steps_anew_on_a_thread(library):
    """The summary said a run must end "by step N − 1" of recursion_limit=N: a second invoke
    on a thread numbers its steps on (here 11 to 18 for its generator and evaluator), yet
    ends cleanly as the first did, four rounds within a limit of 10, since the limit counts
    each run's own steps. The same on graphkit and LangGraph."""
    if library == "langgraph":
        pytest.importorskip("langgraph")
        from langgraph.checkpoint.memory import InMemorySaver
        from langgraph.graph import END as end
        from langgraph.graph import START as start
        from langgraph.graph import StateGraph as Graph
    else:
        from graphkit import InMemorySaver

        end, start, Graph = END, START, StateGraph

    builder = Graph(Rounds)
    builder.add_node("generator", lambda state: {"rounds": 1})
    builder.add_node("evaluator", lambda state: {})
    builder.add_edge(start, "generator")
    builder.add_edge("generator", "evaluator")
    builder.add_conditional_edges(
        "evaluator", lambda state: end if state["rounds"] % 4 == 0 else "generator"
    )
    app = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}, "recursion_limit": 10}
    assert app.invoke({"rounds": 0}, config)["rounds"] == 4
    assert app.invoke({"rounds": 0}, config)["rounds"] == 8
    assert max(snapshot.metadata["step"] for snapshot in app.get_state_history(config)) == 18


def test_the_summary_counts_the_limit_per_run():
    """The summary's table said a run must end "by step N − 1", and its last bullet that the
    limit raises "after step N", in step numbers a thread's later runs do not start from -1
    (the test above). Both now count a run's own steps."""
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    text = " ".join(" ".join("".join(cell["source"]).split()) for cell in cells)
    summary = text.split("## Summary")[1].split("## Exercises")[0]
    assert "by step N − 1" not in summary
    assert "within N − 1 steps" in summary and "steps anew, its input step as −1" in summary


class Rounds(TypedDict, total=False):
    rounds: Annotated[int, operator.add]


def test_report_built_on_langgraph_is_told_to_build_it_on_graphkit():
    """LangGraph's compiled graph has no records to read: the verdict showed its repr,
    with an address, and said to build it on a StateGraph, which it was."""
    from langgraph.graph import END as LG_END
    from langgraph.graph import START as LG_START
    from langgraph.graph import StateGraph as LangGraphStateGraph
    from langgraph.types import Send as LangGraphSend

    def build_report(plan, write_section):
        builder = LangGraphStateGraph(_Report)
        builder.add_node("orchestrator", lambda state: {"plan": plan(state["topic"])})
        builder.add_node("worker", lambda state: {"sections": [write_section(state["section"])]})
        builder.add_node("synthesizer", lambda state: {"report": "\n\n".join(state["sections"])})
        builder.add_edge(LG_START, "orchestrator")
        sends = lambda state: [LangGraphSend("worker", {"section": s}) for s in state["plan"]]  # noqa: E731
        builder.add_conditional_edges("orchestrator", sends, ["worker"])
        builder.add_edge("worker", "synthesizer")
        builder.add_edge("synthesizer", LG_END)
        return builder.compile()

    verdict = assert_fails(
        lesson26.check_report(build_report), "LangGraph's", hint="from graphkit import"
    )
    assert " at 0x" not in verdict.message


def test_report_left_as_the_list_of_texts_is_told_the_report_is_one_str():
    """The synthesizer wrote the sections' list itself: the verdict said it changed the
    order the state held, which it kept."""

    def as_a_list(plan, write_section):
        builder = StateGraph(_Report)
        builder.add_node("orchestrator", lambda state: {"plan": plan(state["topic"])})
        builder.add_node("worker", lambda state: {"sections": [write_section(state["section"])]})
        builder.add_node("synthesizer", lambda state: {"report": state["sections"]})
        builder.add_edge(START, "orchestrator")
        sends = lambda state: [Send("worker", {"section": s}) for s in state["plan"]]  # noqa: E731
        builder.add_conditional_edges("orchestrator", sends, ["worker"])
        builder.add_edge("worker", "synthesizer")
        return builder.compile()

    verdict = assert_fails(
        lesson26.check_report(as_a_list), "the report was a list", hint="one str"
    )
    assert "changed it" not in verdict.message


def test_loop_whose_router_returns_a_name_no_node_has_is_told_the_name():
    """Without a path map, a route to no node is dropped (graphkit warns, LangGraph
    logs it), and the run ends: the hint said to go back to generate, which the router
    tried to."""

    def add_loop(builder, max_rounds):
        builder.add_edge(START, "generate")
        builder.add_edge("generate", "evaluate")

        def router(state):
            done = state["grade"] == "accepted" or state["rounds"] >= max_rounds
            return END if done else "generator"

        builder.add_conditional_edges("evaluate", router)

    from graphkit import GraphkitWarning

    with pytest.warns(GraphkitWarning, match="returned 'generator', which is not a node"):
        verdict = lesson26.check_loop(add_loop)  # (a notebook shows the warning, then this)
    assert_fails(verdict, "stopped after step 2", hint="'generator', which no node is named")


def test_loop_ended_by_a_router_returning_the_string_end_is_told_to_return_end():
    """A router that returns "END", a name no node has, ends the run as END would, as
    its route is dropped (in LangGraph too): the loop ran right and the check passed it,
    though the router never ended the run on purpose."""

    def add_loop(builder, max_rounds):
        builder.add_edge(START, "generate")
        builder.add_edge("generate", "evaluate")

        def router(state):
            done = state["grade"] == "accepted" or state["rounds"] >= max_rounds
            return "END" if done else "generate"

        builder.add_conditional_edges("evaluate", router)

    from graphkit import GraphkitWarning

    with pytest.warns(GraphkitWarning, match="returned 'END', which is not a node"):
        verdict = lesson26.check_loop(add_loop)
    assert_fails(verdict, "'END'", hint="from graphkit import END")
