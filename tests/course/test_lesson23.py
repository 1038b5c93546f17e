"""Lesson 23's checks on their solutions, on typical wrong answers and on the notebook's
stubs; and the lesson's claims on LangGraph: every graph it shows (the desk, the
colleague's desk, the agent, and the checks' desks with a bug) takes the same path and
ends in the same state there, read from LangGraph's own debug stream."""

from __future__ import annotations

import json
import linecache
import time
import warnings
from pathlib import Path
from typing import ClassVar

import pytest

from graphkit import Command, StateGraph
from graphkit.course import assert_fails, assert_passes, lesson23
from graphkit.course.solutions import lesson23 as solutions
from tests.course.cells import (
    cells_showing_an_id,
    lines_too_long,
    run_again_in_reverse,
    run_cells,
    stub_names,
)

LESSON = Path(__file__).parents[2] / "notebooks" / "23-testing-a-graph.ipynb"
IMPORT = "from graphkit.course import lesson23"


def stub_cells() -> dict:
    return stub_names(
        LESSON, lesson23, ("def test_route(", "def test_refund_path(", "def test_approval(")
    )


def lesson_names() -> dict:
    names: dict = {"display": print}
    run_cells(LESSON, until=IMPORT, names=names)
    return names


def test_the_notebooks_stubs_fail_their_checks():
    stubs = stub_cells()
    assert_fails(
        lesson23.check_route_test(stubs["test_route"]),
        "a refund of exactly the limit",
        hint="both sides of it",
    )
    assert_fails(
        lesson23.check_path_test(stubs["test_refund_path"]),
        "closes the ticket while it waits for the human, and again after the refund, and ends "
        "the refund in the right state",
        hint="in the run that pauses and in the one that resumes",
    )
    assert_fails(
        lesson23.check_approval_test(stubs["test_approval"]),
        "refunds whatever the human answers",
        hint="each answer",
    )


def test_run_test_awaits_an_async_test(capsys):
    """A learner who did lesson 18 may write ``async def test_...``: the lesson's
    ``run_test`` awaits it, as pytest-asyncio does, instead of calling it and printing
    "passed" for a coroutine nobody ran."""
    names = lesson_names()
    capsys.readouterr()

    async def test_refund_is_booked(app):
        result = await app.ainvoke(SMALL, {"configurable": {"thread_id": "async-1"}})
        assert result["ledger"] == [], "the desk booked the refund"

    async def test_the_desk_answers(app):
        result = await app.ainvoke(SMALL, {"configurable": {"thread_id": "async-2"}})
        assert result["ledger"] == [30]

    SMALL = names["SMALL_REFUND"]
    names["run_test"](test_refund_is_booked, names["build_desk"]())
    names["run_test"](test_the_desk_answers, names["build_desk"]())
    shown = capsys.readouterr().out
    assert shown.startswith("test_refund_is_booked: FAILED, AssertionError: the desk booked")
    assert shown.endswith("\ntest_the_desk_answers: passed\n")


def test_the_lessons_cells_show_the_same_when_run_again():
    """Every cell that runs a test or a graph shows the same when run again, in any order:
    each builds its own desk and checkpointer."""
    shown = run_again_in_reverse(
        LESSON, IMPORT, lambda source: "run_test(" in source or "invoke(" in source
    )
    said = "\n".join(out for out, _ in shown.values())
    assert "test_small_refund_is_booked: FAILED, AssertionError: ledger is [30, 30]" in said
    assert said.count("test_small_refund_result: passed") == 2
    assert (
        "test_small_refund_path: FAILED, AssertionError: "
        "{1: ['classify'], 2: ['refund'], 3: ['book', 'close'], 4: ['close']}" in said
    )
    assert "FAILED" not in said.replace("is_booked: FAILED", "").replace("path: FAILED", "")
    # Section 5 shows a refused resume's path, not the approved one's, which 23.2 asks for.
    assert "{2: ['approve'], 3: ['close']}" in said
    assert "{2: ['approve'], 3: ['refund'], 4: ['book', 'close']}" not in said
    assert "close ran at step 4 because book wrote branch:to:close in step 3." in said
    assert said.count("test_small_refund_path: passed") == 2  # graphkit's desk, LangGraph's
    assert "LangGraph ran the right desk: {1: ['classify'], 2: ['refund'], 3: ['book', " in said
    assert "LangGraph ran the colleague's: {1: ['classify'], 2: ['refund'], 3: ['book', " in said
    assert "4: ['close']}" in said


def test_no_cell_shows_an_id():
    """A checkpoint's id, a task's or an interrupt's change from run to run."""
    assert cells_showing_an_id(LESSON, IMPORT) == {}


def test_every_code_line_fits_the_cell():
    """JupyterLab at the course's reading width shows about 105 characters of a code line;
    a longer one scrolls sideways, hiding its end."""
    assert lines_too_long(LESSON) == []


# -- the lesson's claims on LangGraph


def langgraph_path(app, given, config=None) -> dict[int, list[str]]:
    """Each step's nodes, in task order, from LangGraph's (or graphkit's) debug stream."""
    steps: dict[int, list[str]] = {}
    for event in app.stream(given, config, stream_mode="debug"):
        if event["type"] == "task" and event["payload"]["name"] != "__start__":
            steps.setdefault(event["step"], []).append(event["payload"]["name"])
    return steps


def final_values(app, config) -> dict:
    return dict(app.get_state(config).values)


TICKETS = {
    "small refund": {"text": "Please refund my order", "amount": 30},
    "question": {"text": "Where is my parcel?", "amount": 500},
    "big refund": {"text": "Refund my TV", "amount": 300},
}


def walk(app, command) -> dict:
    """Each ticket's path and final state on ``app`` (a new thread each), big refunds
    answered "yes" and "no"; ``command``: the library's ``Command``."""
    seen = {}
    for name, ticket in TICKETS.items():
        answers = ("yes", "no") if name == "big refund" else (None,)
        for answer in answers:
            config = {"configurable": {"thread_id": f"{name} {answer}"}}
            steps = langgraph_path(app, ticket, config)
            if answer is not None and app.get_state(config).next:  # (a desk that paused)
                for step, nodes in langgraph_path(app, command(resume=answer), config).items():
                    steps.setdefault(step, []).extend(nodes)
            seen[f"{name} {answer}"] = (steps, final_values(app, config))
    return seen


@pytest.fixture(scope="module")
def both():
    """The lesson's names, and LangGraph's classes."""
    pytest.importorskip("langgraph")
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import StateGraph
    from langgraph.types import Command as TheirCommand
    from langgraph.types import interrupt

    return lesson_names(), StateGraph, InMemorySaver, TheirCommand, interrupt


def test_the_lessons_desks_take_the_same_path_on_langgraph(both):
    names, their_graph, their_saver, their_command, _ = both
    ours = walk(names["build_desk"](), Command)
    theirs = walk(names["build_langgraph_desk"](), their_command)
    assert ours == theirs
    assert ours["big refund yes"][0] == {
        1: ["classify"],
        2: ["approve", "approve"],
        3: ["refund"],
        4: ["book", "close"],
    }
    assert ours["big refund no"][1]["ledger"] == []
    colleague = names["build_desk_closing_after_book"]()
    their_colleague = (
        names["wire"](their_graph(names["Ticket"]), approve=names["langgraph_approve"])
        .add_edge("book", "close")
        .compile(checkpointer=their_saver())
    )
    seen = walk(colleague, Command)
    assert seen == walk(their_colleague, their_command)
    assert seen["small refund None"][0][4] == ["close"]


def test_a_node_that_pauses_cannot_run_alone_on_either(both):
    names = both[0]
    for desk in (names["build_desk"](), names["build_langgraph_desk"]()):
        with pytest.raises(RuntimeError):
            desk.nodes["approve"].invoke(names["BIG_REFUND"])
        assert desk.nodes["classify"].invoke(names["SMALL_REFUND"]) == {"category": "refund"}


def test_the_agent_takes_the_same_path_on_langgraph(both):
    from langchain_core.messages import HumanMessage
    from langgraph.prebuilt import create_react_agent as their_agent

    from graphkit.prebuilt import ScriptedChatModel

    names = both[0]
    asked = {"messages": [HumanMessage("Where is my order A-17?", id="q")]}

    def theirs():
        with warnings.catch_warnings():  # (LangGraph 1.x points to langchain's create_agent)
            warnings.simplefilter("ignore")
            model = ScriptedChatModel(responses=[names["support_script"]] * 2)
            return their_agent(model, [names["order_status"]])

    ours = langgraph_path(names["build_agent"](), asked)
    assert ours == langgraph_path(theirs(), asked) == {1: ["agent"], 2: ["tools"], 3: ["agent"]}
    names["test_agent_answers_from_the_tool"](theirs())  # trace(...) of a LangGraph agent


def test_a_waiting_edge_runs_close_once_only_in_place_of_refunds_edge(both):
    """Section 4's answer: a waiting edge from ``refund`` and ``book`` runs ``close`` once,
    a step later, when it replaces ``refund``'s edge to ``close``; added beside it, as the
    colleague added theirs, ``close`` still runs twice. On both libraries."""
    names, their_graph, their_saver, _, _ = both
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    said = " ".join("".join(cell["source"]) for cell in cells).replace("\n", " ")
    assert "in place of `refund`'s edge to `close`" in said
    ours = (names["StateGraph"], names["InMemorySaver"], names["approve"])
    theirs = (their_graph, their_saver, names["langgraph_approve"])
    for graph, saver, approve in (ours, theirs):
        beside = names["wire"](graph(names["Ticket"]), approve=approve)
        beside.add_edge(["refund", "book"], "close")
        instead = graph(names["Ticket"])
        for node in ("classify", "refund", "book", "close"):
            instead.add_node(node, names[node])
        instead.add_edge(names["START"], "classify").add_edge("classify", "refund")
        instead.add_edge("refund", "book").add_edge(["refund", "book"], "close")
        for builder, steps in (
            (beside, {3: ["book", "close"], 4: ["close"]}),
            (instead, {3: ["book"], 4: ["close"]}),
        ):
            app = builder.compile(checkpointer=saver())
            seen = langgraph_path(app, names["SMALL_REFUND"], {"configurable": {"thread_id": "t"}})
            assert {step: seen[step] for step in (3, 4)} == steps


@pytest.mark.parametrize("bug", [None, *lesson23.PATH_BUGS, *lesson23.APPROVAL_BUGS])
def test_the_checks_desks_behave_the_same_on_langgraph(both, bug):
    """What a check says of a desk with a bug (the same final state, another path; no
    pause; ...) holds on LangGraph too."""
    _, their_graph, their_saver, their_command, their_interrupt = both
    ours = lesson23.build_desk(bug)
    theirs = lesson23.wire(their_graph(lesson23.Ticket), bug, their_interrupt).compile(
        checkpointer=their_saver()
    )
    seen = walk(ours, Command)
    assert seen == walk(theirs, their_command)
    right = walk(lesson23.build_desk(), Command)
    if bug in lesson23.PATH_BUGS:  # another path once approved, the same state; else right
        assert seen["big refund yes"][1] == right["big refund yes"][1]
        assert seen["big refund yes"][0] != right["big refund yes"][0]
        assert seen["small refund None"] == right["small refund None"]


# -- 23.1 · A router's limit


def test_route_test_passes_on_the_solution():
    assert_passes(lesson23.check_route_test(solutions.test_route))


def route_limit_only(route):
    assert route({"category": "refund", "amount": 100}) == "refund"
    assert route({"category": "refund", "amount": 101}) == "approve"


def route_far_from_the_limit(route):
    assert route({"category": "question", "amount": 500}) == "answer"
    assert route({"category": "refund", "amount": 99}) == "refund"
    assert route({"category": "refund", "amount": 102}) == "approve"


def route_wrong_way(route):
    assert route({"category": "refund", "amount": 100}) == "approve"


def route_missing_key(route):
    assert route({"amount": 100}) == "refund"


@pytest.mark.parametrize(
    ("answer", "said", "hint"),
    [
        (route_limit_only, "a question with a large amount", "each way out"),
        (route_far_from_the_limit, "exactly the limit", "as near as they can be"),
        (route_wrong_way, "fails on the right router: AssertionError", "must pass"),
        (route_missing_key, "KeyError: 'category'", "run it on the lesson's router"),
        (None, "not a function", ""),
    ],
)
def test_route_test_wrong_answers(answer, said, hint):
    assert_fails(lesson23.check_route_test(answer), said, hint=hint)


def test_a_failing_assert_is_shown_with_its_line():
    """pytest rewrites this module's asserts; a notebook's (the test below) are plain, and
    IPython keeps each cell's source in ``linecache``, as this test does."""
    source = "def test(route):\n    assert route({'category': 'refund', 'amount': 100}) == 'x'\n"
    linecache.cache["<cell 23>"] = (len(source), None, source.splitlines(True), "<cell 23>")
    names: dict = {}
    exec(compile(source, "<cell 23>", "exec"), names)
    assert_fails(
        lesson23.check_route_test(names["test"]),
        "fails on the right router: AssertionError, at `assert route({'category': 'refund'",
    )


# -- 23.2 · The path of an approved refund

BIG = {"text": "refund", "amount": 300}
PAUSED = {1: ["classify"], 2: ["approve"]}
RESUMED = {2: ["approve"], 3: ["refund"], 4: ["book", "close"]}


def path_from_the_tasks_table(app):
    """Another right answer: the tasks table instead of each step's Plan."""
    config = {"configurable": {"thread_id": "t"}}
    app.trace(BIG, config)
    tasks = app.trace(Command(resume="yes"), config).to_frame("tasks")
    ran = list(zip(tasks.step, tasks.node, strict=True))
    assert ran == [(2, "approve"), (3, "refund"), (4, "book"), (4, "close")]


def path_from_the_history(app, Command=Command):
    """Another: what each checkpoint of the thread said would run next, oldest first."""
    config = {"configurable": {"thread_id": "t"}}
    app.invoke(BIG, config)
    app.invoke(Command(resume="yes"), config)
    nexts = [list(snapshot.next) for snapshot in app.get_state_history(config)]
    assert nexts[::-1] == [
        ["__start__"],
        ["classify"],
        ["approve"],
        ["refund"],
        *[["book", "close"]],
        [],
    ], nexts


def debug_steps(app, given, config) -> dict:
    steps: dict = {}
    for event in app.stream(given, config, stream_mode="debug"):
        if event["type"] == "task" and event["step"] >= 1:
            steps.setdefault(event["step"], []).append(event["payload"]["name"])
    return steps


def path_from_the_debug_stream(app, Command=Command):
    """Another: the tasks of LangGraph's debug stream, with their step."""
    config = {"configurable": {"thread_id": "t"}}
    assert debug_steps(app, BIG, config) == PAUSED
    assert debug_steps(app, Command(resume="yes"), config) == RESUMED


def path_as_sets(app):
    """Another: each step's nodes as a set, where the order within a step must not matter."""
    config = {"configurable": {"thread_id": "t"}}
    app.trace(BIG, config)
    run = app.trace(Command(resume="yes"), config)
    seen = {step.step: set(step.plan.nodes) for step in run.steps if step.step >= 1}
    assert seen == {step: set(nodes) for step, nodes in RESUMED.items()}


OTHER_RIGHT_PATH_TESTS = [
    path_from_the_tasks_table,
    path_from_the_history,
    path_from_the_debug_stream,
    path_as_sets,
]


@pytest.mark.parametrize("answer", [solutions.test_refund_path, *OTHER_RIGHT_PATH_TESTS])
def test_path_test_passes_on_the_solutions(answer):
    assert_passes(lesson23.check_path_test(answer))


@pytest.mark.parametrize("answer", [path_from_the_history, path_from_the_debug_stream])
def test_other_right_path_tests_pass_on_langgraph_too(both, answer):
    """What they read (the history, the stream) is LangGraph's API: it says the same there."""
    answer(both[0]["build_langgraph_desk"](), Command=both[3])


def test_section_4s_small_refund_path_test_copied_is_told_to_approve_a_big_refund():
    """Section 4's ``test_small_refund_path``, word for word, answered the exercise when it
    asked for a small refund's path; the desks now differ only once a big one is approved."""
    names = lesson_names()
    assert_fails(
        lesson23.check_path_test(names["test_small_refund_path"]),
        "closes the ticket while it waits for the human",
        hint='your test approved none: run a refund over the limit, then resume it with "yes"',
    )


def path_result_only(app):
    config = {"configurable": {"thread_id": "t"}}
    app.invoke(BIG, config)
    state = app.invoke(Command(resume="yes"), config)
    assert state["ledger"] == [300] and state["status"] == "closed"


def path_resume_counts_only(app):
    config = {"configurable": {"thread_id": "t"}}
    app.invoke(BIG, config)
    run = app.trace(Command(resume="yes"), config)
    nodes = [node for step in run.steps for node in step.plan.nodes]
    assert nodes.count("refund") == 1 and nodes.count("book") == 1


def path_first_run_only(app):
    run = app.trace(BIG, {"configurable": {"thread_id": "t"}})
    assert {step.step: step.plan.nodes for step in run.steps if step.step >= 1} == PAUSED


def path_resume_one_step_off(app):
    config = {"configurable": {"thread_id": "t"}}
    app.invoke(BIG, config)
    assert app.trace(Command(resume="yes"), config).step(5).plan.nodes == ["book", "close"]


@pytest.mark.parametrize(
    ("answer", "said", "hint"),
    [
        (path_result_only, "while it waits for the human, and again after", "records"),
        (path_resume_counts_only, "closes the ticket while it waits", "which nodes"),
        (
            path_first_run_only,
            "closes the ticket as soon as the refund is approved",
            "approved none",
        ),
        (path_resume_one_step_off, "fails on the right desk: KeyError", "read what it asserts"),
        ("test", "not a function", "def"),
        # (it said "Your test fails on the right desk: AttributeError: 'CompiledGraph'
        # object has no attribute '__name__'", StateGraph's, given the desk)
        (StateGraph, "Your test is the class StateGraph, not a function.", "def"),
    ],
)
def test_path_test_wrong_answers(answer, said, hint):
    assert_fails(lesson23.check_path_test(answer), said, hint=hint)


# -- 23.3 · Approve or refuse


def approval_on_one_thread(app):
    """Both answers on one thread: the ledger keeps the first refund."""
    config = {"configurable": {"thread_id": "one"}}
    for answer, ledger in (("yes", [300]), ("no", [])):
        app.invoke({"text": "refund", "amount": 300}, config)
        assert app.invoke(Command(resume=answer), config)["ledger"] == ledger


def approval_typo_on_one_thread(app):
    """Two runs on one thread, but the failure is a typo in the expected reply: a thread
    of its own for each run would fail the same."""
    config = {"configurable": {"thread_id": "one"}}
    app.invoke({"text": "refund", "amount": 30}, config)
    assert app.invoke({"text": "a question", "amount": 0}, config)["reply"] == "Our FAQ."


def approval_yes_only(app):
    config = {"configurable": {"thread_id": "yes"}}
    assert "__interrupt__" in app.invoke({"text": "refund", "amount": 300}, config)
    assert app.invoke(Command(resume="yes"), config)["ledger"] == [300]


def approval_reply_only(app):
    for answer, reply in (("yes", "Refunded 300 euros."), ("no", "Your refund was refused.")):
        config = {"configurable": {"thread_id": answer}}
        assert "__interrupt__" in app.invoke({"text": "refund", "amount": 300}, config)
        assert app.invoke(Command(resume=answer), config)["reply"] == reply


@pytest.mark.parametrize(
    ("answer", "said", "hint"),
    [
        (
            approval_on_one_thread,
            "== ledger`. It started 2 runs on the thread 'one'",
            "a thread of its own",
        ),
        (approval_typo_on_one_thread, '== "Our FAQ."`.', "in a cell of its own"),
        (approval_yes_only, "refunds whatever the human answers", "each answer"),
        (approval_reply_only, "books the refund in the ledger all the same", "must not"),
        (None, "not a function", ""),
        (StateGraph, "Your test is the class StateGraph, not a function.", "def"),
    ],
)
def test_approval_test_wrong_answers(answer, said, hint):
    assert_fails(lesson23.check_approval_test(answer), said, hint=hint)


def approval_from_the_stream(app):
    """Another right answer: the pause from the updates stream, the end from get_state, and
    an answer other than "no" for the refusal."""
    for answer, ledger in (("yes", [300]), ("maybe", [])):
        config = {"configurable": {"thread_id": answer}}
        chunks = list(app.stream({"text": "refund", "amount": 300}, config, stream_mode="updates"))
        assert "__interrupt__" in chunks[-1] and "book" not in str(chunks)
        list(app.stream(Command(resume=answer), config))
        values = app.get_state(config).values
        assert values["ledger"] == ledger and values["status"] == "closed"
        assert values["reply"] == ("Refunded 300 euros." if ledger else "Your refund was refused.")


@pytest.mark.parametrize("answer", [solutions.test_approval, approval_from_the_stream])
def test_approval_test_passes_on_the_solutions(answer):
    assert_passes(lesson23.check_approval_test(answer))


# -- answers a learner might write, on any exercise


def route_with_pytest_fail(route):
    """A right answer written with ``pytest.fail``, whose ``Failed`` is no ``Exception``."""
    for category, amount, way in (
        ("question", 500, "answer"),
        ("refund", 100, "refund"),
        ("refund", 101, "approve"),
    ):
        if route({"category": category, "amount": amount}) != way:
            pytest.fail(
                f"{category} of {amount} went to {route({'category': category, 'amount': amount})}"
            )


def test_a_test_failing_with_pytest_fail_is_judged():
    assert_passes(lesson23.check_route_test(route_with_pytest_fail))

    def fails_on_the_right_one(route):
        pytest.fail("not written yet")

    assert_fails(
        lesson23.check_route_test(fails_on_the_right_one),
        "fails on the right router: Failed: not written yet",
    )


def test_a_test_that_skips_itself_is_told_so_and_never_passes():
    """``pytest.skip(...)`` was reported as a failure on the right router, and on the bugs
    taken for one: a test that skipped every router with a bug passed the check."""
    import unittest

    def skips_everything(route):
        pytest.skip("not written yet")

    def skips_the_bugs(route):
        if route is not lesson23.route_ticket:
            raise unittest.SkipTest("only the real router")
        solutions.test_route(route)

    verdict = assert_fails(
        lesson23.check_route_test(skips_everything),
        "Your test skipped itself on the right router: Skipped: not written yet, at "
        '`pytest.skip("not written yet")`. A skipped test neither passes nor fails',
        hint="take the skip out",
    )
    assert "fails on the right router" not in verdict.message
    assert_fails(
        lesson23.check_route_test(skips_the_bugs),
        "Your test skipped itself on a router that asks a human about a refund of exactly "
        "the limit: SkipTest: only the real router",
        hint="take the skip out",
    )


def test_a_test_that_marks_itself_xfail_is_told_so_and_never_passes():
    """``pytest.xfail(...)`` is reported by pytest as xfailed, neither passed nor failed,
    as a skip is: on the bugs it was taken for a failure, so a test marking every router
    with a bug xfail passed the check."""

    def xfails_the_bugs(route):
        if route is not lesson23.route_ticket:
            pytest.xfail("not the real router")
        solutions.test_route(route)

    def xfails_everything(route):
        pytest.xfail("not written yet")

    assert_fails(
        lesson23.check_route_test(xfails_the_bugs),
        "Your test marked itself xfail on a router that asks a human about a refund of "
        "exactly the limit: XFailed: not the real router",
        hint="take the xfail out",
    )
    verdict = assert_fails(
        lesson23.check_route_test(xfails_everything),
        "Your test marked itself xfail on the right router: XFailed: not written yet",
    )
    assert "fails on the right router" not in verdict.message


def test_a_test_that_asserted_before_its_skip_is_not_told_it_checked_nothing():
    def asserts_then_skips(route):
        assert route({"category": "question", "amount": 30}) == "answer"
        pytest.skip("the limit, later")

    verdict = assert_fails(
        lesson23.check_route_test(asserts_then_skips),
        "A skipped test neither passes nor fails, whatever it asserted before the skip.",
    )
    assert "checked nothing" not in verdict.message


def route_returning(route):
    """Compares, but returns the comparison: a test that returns passes."""
    return route({"category": "refund", "amount": 100}) == "refund"


def test_a_test_that_returns_its_comparison_is_told_to_assert():
    assert_fails(
        lesson23.check_route_test(route_returning),
        "returned False on a router that asks a human about a refund of exactly the limit",
        hint="write assert",
    )


def route_returning_its_checks(route):
    """Returns a list of comparisons, not one bool: it was told only that it let bugs
    through, not that a test that returns passes."""
    return [
        route({"category": "refund", "amount": 100}) == "refund",
        route({"category": "refund", "amount": 101}) == "approve",
    ]


def test_a_test_that_returns_a_list_of_comparisons_is_told_to_assert():
    assert_fails(
        lesson23.check_route_test(route_returning_its_checks),
        "returned [False, True] on a router that asks a human about a refund of exactly",
        hint="write assert",
    )


def first_only():
    """A test that passes only on the first object it is given: it special-cases it."""
    seen = []

    def test(app_or_route):
        seen.append(app_or_route)
        assert app_or_route is seen[0]

    return test


def path_like_the_first():
    """A snapshot test with no snapshot of its own: each path must be the first it saw."""
    seen = []

    def test(app):
        config = {"configurable": {"thread_id": "t"}}
        app.invoke(BIG, config)
        run = app.trace(Command(resume="yes"), config)
        seen.append({step.step: step.plan.nodes for step in run.steps})
        assert seen[-1] == seen[0]

    return test


@pytest.mark.parametrize(
    ("check", "answer"),
    [
        (lesson23.check_route_test, first_only),
        (lesson23.check_path_test, first_only),
        (lesson23.check_approval_test, first_only),
        (lesson23.check_path_test, path_like_the_first),
    ],
)
def test_a_test_that_passes_on_whatever_it_sees_first_fails(check, answer):
    assert_fails(check(answer()), "fails on the right")


def path_step_count_and_result(app):
    """Right for the wrong reason: as many supersteps as the right desk, and its result."""
    config = {"configurable": {"thread_id": "t"}}
    app.invoke(BIG, config)
    run = app.trace(Command(resume="yes"), config)
    assert len(run.steps) == 3 and run.values["ledger"] == [300]
    assert run.values["status"] == "closed"


def approval_no_only(app):
    """Tests the pause and the refusal well, but never the answer yes."""
    config = {"configurable": {"thread_id": "no"}}
    paused = app.invoke({"text": "refund", "amount": 300}, config)
    assert "__interrupt__" in paused and paused["ledger"] == []
    done = app.invoke(Command(resume="no"), config)
    assert done["reply"] == "Your refund was refused." and done["ledger"] == []
    assert done["status"] == "closed"


@pytest.mark.parametrize(
    ("check", "answer", "said"),
    [
        (lesson23.check_path_test, path_step_count_and_result, "1 other bug through too"),
        (lesson23.check_approval_test, approval_no_only, "refuses the refund even when"),
    ],
)
def test_a_test_that_checks_too_little_fails(check, answer, said):
    assert_fails(check(answer), said)


def test_a_test_that_loops_is_stopped(monkeypatch):
    """The check's time limit stops a test from outside: it is not the test's failure."""
    from graphkit.course import checking

    monkeypatch.setattr(checking, "TIME_LIMIT", 0.5)

    def loops(route):
        start = time.monotonic()
        while time.monotonic() < start + 2:  # (ends, so that a check that swallowed the
            pass  # time limit would fail this test, not hang it)

    assert_fails(lesson23.check_route_test(loops), "still running after 0.5 seconds")


def path_of_the_notebooks_desk(app):
    """Runs a desk of its own, not the one it is given: it passes on every desk."""
    path_from_the_debug_stream(lesson23.build_desk())


def approval_of_the_notebooks_desk(app):
    """Another: tests the pause well, on a desk of its own."""
    approval_from_the_stream(lesson23.build_desk())


def route_of_the_notebook(route):
    """Another: tests the limit well, on the notebook's route_ticket, not on ``route``."""
    solutions.test_route(lesson23.route_ticket)


@pytest.mark.parametrize(
    ("check", "answer", "what"),
    [
        (lesson23.check_path_test, path_of_the_notebooks_desk, "desk"),
        (lesson23.check_approval_test, approval_of_the_notebooks_desk, "desk"),
        (lesson23.check_route_test, route_of_the_notebook, "router"),
    ],
)
def test_a_test_that_never_runs_the_app_it_is_given_is_told_so(check, answer, what):
    assert_fails(check(answer), f"never ran the {what} it was given", hint="its argument")


# -- a test written with async def, as lesson 18 taught: run as pytest-asyncio runs it


async def async_approval(app):
    """23.3's solution written with ``ainvoke``: a right answer."""
    for answer, reply, ledger in [
        ("yes", "Refunded 300 euros.", [300]),
        ("no", "Your refund was refused.", []),
    ]:
        config = {"configurable": {"thread_id": f"async {answer}"}}
        paused = await app.ainvoke(BIG, config)
        assert "__interrupt__" in paused and paused["ledger"] == []
        state = await app.ainvoke(Command(resume=answer), config)
        assert state["ledger"] == ledger and state["reply"] == reply


async def async_approval_on_one_thread(app):
    """The same on one thread for both answers: the second run starts from the first's end."""
    config = {"configurable": {"thread_id": "async, shared"}}
    for answer, ledger in [("yes", [300]), ("no", [])]:
        paused = await app.ainvoke(BIG, config)
        assert paused["ledger"] == [], f"ledger {paused['ledger']}"
        state = await app.ainvoke(Command(resume=answer), config)
        assert state["ledger"] == ledger


async def async_route_checking_too_little(route):
    assert route({"category": "question", "amount": 500}) == "answer"


def test_an_async_test_is_run_and_judged_not_told_it_never_ran():
    """An ``async def`` test was called and never awaited: its coroutine "passed" on every
    desk, and the verdict said it never ran the desk it was given."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # (a coroutine never awaited)
        assert_passes(lesson23.check_approval_test(async_approval))
        assert_fails(
            lesson23.check_approval_test(async_approval_on_one_thread),
            "started 2 runs on the thread 'async, shared'",
            hint="thread of its own",
        )
        assert_fails(
            lesson23.check_route_test(async_route_checking_too_little), "Your test passed on a"
        )


# -- a test class, as pytest collects one


class RouteTests:
    """23.1's solution as a pytest class (a name pytest does not collect here)."""

    def test_questions_are_answered(self, route):
        assert route({"category": "question", "amount": 30}) == "answer"
        assert route({"category": "question", "amount": 500}) == "answer"

    def test_the_limit_from_both_sides(self, route):
        assert route({"category": "refund", "amount": 100}) == "refund"
        assert route({"category": "refund", "amount": 101}) == "approve"


class ApprovalTests:
    """23.3's solution as a pytest class whose methods use one thread name: pytest gives
    each method a desk of its own (a function-scoped fixture), and so does the check."""

    def answered(self, app, answer):
        config = {"configurable": {"thread_id": "t"}}
        paused = app.invoke({"text": "Refund my TV", "amount": 300}, config)
        assert "__interrupt__" in paused and paused["ledger"] == []
        return app.invoke(Command(resume=answer), config)

    def test_yes_refunds(self, app):
        done = self.answered(app, "yes")
        assert done["reply"] == "Refunded 300 euros." and done["ledger"] == [300]
        assert done["status"] == "closed"

    def test_no_refuses(self, app):
        done = self.answered(app, "no")
        assert done["reply"] == "Your refund was refused." and done["ledger"] == []


def test_a_test_class_is_run_as_pytest_runs_it():
    """A pytest-style class (it was refused as "not a function", with "Write it with
    def."): each test_ method runs on a new instance, given what it tests; the class
    catches a bug when one method fails on it, and passes when all pass."""
    assert_passes(lesson23.check_route_test(RouteTests))
    assert_passes(lesson23.check_approval_test(ApprovalTests))

    class TestQuestionsOnly:
        created: ClassVar[list] = []

        def __init__(self):
            self.created.append(self)

        def test_questions(self, route):
            assert route({"category": "question", "amount": 500}) == "answer"

    verdict = assert_fails(lesson23.check_route_test(TestQuestionsOnly), "exactly the limit")
    assert len(TestQuestionsOnly.created) == len(lesson23.ROUTER_BUGS) + 1  # (one a run)

    class TestWrongWay:
        def test_small(self, route):
            assert route({"category": "refund", "amount": 30}) == "refund"

        def test_big(self, route):
            assert route({"category": "refund", "amount": 300}) == "refund"

    verdict = assert_fails(lesson23.check_route_test(TestWrongWay), "fails on the right router")
    assert "TestWrongWay.test_big: AssertionError" in verdict.message
    assert 'at `assert route({"category": "refund", "amount": 300}) == "refund"`' in (
        verdict.message
    )


def test_a_class_or_object_the_check_cannot_run_is_told_what_to_pass():
    import unittest

    class TestNothing:
        def check_it(self, route):
            assert route({"category": "question", "amount": 5}) == "answer"

    verdict = assert_fails(lesson23.check_route_test(TestNothing), "no method whose name starts")
    assert "def test_route(route)" in verdict.hint

    class RouteCase(unittest.TestCase):
        def test_it(self):
            pass

    verdict = assert_fails(lesson23.check_route_test(RouteCase), "a unittest.TestCase")
    assert "def test_route(route)" in verdict.hint
    verdict = assert_fails(lesson23.check_route_test(RouteTests()), "an instance of RouteTests")
    assert "pass the class itself, RouteTests" in verdict.hint
    assert " at 0x" not in verdict.message


def test_what_is_no_test_is_named_with_its_article():
    # it said "Your test is a int, not a function."
    assert_fails(lesson23.check_route_test(3), "Your test is an int, not a function.")


def test_a_callable_object_is_run_as_a_test():
    class Tester:
        def __call__(self, route):
            RouteTests().test_questions_are_answered(route)
            RouteTests().test_the_limit_from_both_sides(route)

    assert_passes(lesson23.check_route_test(Tester()))


def test_a_test_taking_a_fixture_or_no_argument_is_told_what_the_check_hands_it():
    """A class's method (or a function) asking for a pytest fixture the check cannot give,
    or for nothing: it was told it "fails on the right router" with a TypeError, and to
    read what it asserts."""

    class TestWithTmpPath:
        def test_limit(self, route, tmp_path):
            RouteTests().test_the_limit_from_both_sides(route)

    verdict = assert_fails(lesson23.check_route_test(TestWithTmpPath), "TestWithTmpPath.test_limit")
    assert "route, tmp_path" in verdict.message and "no pytest fixture" in verdict.message
    assert "fails on the right" not in verdict.message
    assert "take route alone" in verdict.hint

    def test_route():
        RouteTests().test_the_limit_from_both_sides(lesson23.route_ticket)

    verdict = assert_fails(lesson23.check_route_test(test_route), "takes no argument")
    assert "def test_route(route)" in verdict.hint

    class TestNoArgument:
        def test_limit(self):
            pass

    verdict = assert_fails(lesson23.check_route_test(TestNoArgument), "TestNoArgument.test_limit")
    assert "def test_limit(self, route)" in verdict.hint


def test_a_setup_method_that_raises_is_named_not_the_test():
    """pytest reports an error in setup_method as the setup's, not the test's."""

    class TestSetUpFails:
        def setup_method(self, method):
            raise RuntimeError("no database")

        def test_limit(self, route):
            RouteTests().test_the_limit_from_both_sides(route)

    verdict = assert_fails(lesson23.check_route_test(TestSetUpFails), "no database")
    assert "TestSetUpFails.setup_method, before test_limit: RuntimeError" in verdict.message
    # the hint is about the setup, which ran before anything was asserted
    assert "read what it asserts" not in verdict.hint
    assert "setup_method" in verdict.hint


def test_a_teardown_method_that_raises_keeps_the_tests_own_failure():
    """pytest reports a failed test's own error, and the teardown's beside it; the check
    told only the teardown's, hiding what the test found."""

    class TestTornDown:
        def teardown_method(self, method):
            raise RuntimeError("could not clean up")

        def test_big(self, route):
            assert route({"category": "refund", "amount": 300}) == "refund"

    verdict = assert_fails(lesson23.check_route_test(TestTornDown), "fails on the right router")
    assert "TestTornDown.test_big: AssertionError" in verdict.message
    assert "could not clean up" not in verdict.message


def test_a_test_class_whose_init_takes_arguments_is_told_pytest_would_not_run_it():
    """pytest collects no test class with an __init__; one that needs arguments was told
    it "fails on the right router" with the TypeError of calling it."""

    class TestWithLimit:
        def __init__(self, limit):
            self.limit = limit

        def test_limit(self, route):
            assert route({"category": "refund", "amount": self.limit}) == "refund"

    verdict = assert_fails(lesson23.check_route_test(TestWithLimit), "TestWithLimit")
    assert "__init__" in verdict.message and "fails on the right" not in verdict.message
    assert "pytest" in verdict.message


def test_a_right_but_slow_test_class_is_told_how_often_it_runs_not_of_a_loop(monkeypatch):
    """Each method runs on each desk with a bug and on the right one: a right class of
    slow tests ran out of time, and was told to look for a loop that never ends."""
    from graphkit.course import checking

    monkeypatch.setattr(checking, "TIME_LIMIT", 1.0)

    class TestSlowly:
        def test_yes(self, app):
            time.sleep(0.15)
            ApprovalTests().test_yes_refunds(app)

        def test_no(self, app):
            time.sleep(0.15)
            ApprovalTests().test_no_refuses(app)

    verdict = lesson23.check_approval_test(TestSlowly)
    assert_fails(verdict, "still running after 1 seconds")
    runs = 2 * (len(lesson23.APPROVAL_BUGS) + 1)
    assert f"{runs} runs" in verdict.message and "2 test methods" in verdict.message
    assert not verdict.hint.startswith("Look for a loop") and "sleep" in verdict.hint


def test_a_bug_desk_that_never_pauses_does_not_warn_the_learner():
    """Found by a learner's review: on the check's desk that never pauses, the learner's
    resume warned (a finished run on their thread), in their notebook, as if their own
    code had erred; the verdict says it better, and names the bug."""

    def test_approval(app):
        for answer, reply in [("yes", "Refunded 300 euros."), ("no", "Your refund was refused.")]:
            config = {"configurable": {"thread_id": answer}}
            app.invoke(BIG, config)
            done = app.invoke(Command(resume=answer), config)
            assert done["reply"] == reply and done["status"] == "closed"

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert_fails(lesson23.check_approval_test(test_approval), "books the refund")
    assert [str(warning.message)[:60] for warning in caught] == []
