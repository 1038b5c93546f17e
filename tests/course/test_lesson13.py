"""Tests of lesson 13's checks, and of its claims: each check passes on its solution and
fails, saying why, on the notebook's stub and on typical wrong answers; the lesson's
programs run on LangGraph's ``langgraph.func`` too, with the same outcomes."""

from __future__ import annotations

import json
import operator
import types
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

from graphkit.course import assert_fails, assert_passes, lesson13
from graphkit.course.solutions import lesson13 as solutions

LESSON = Path(__file__).parents[2] / "notebooks" / "13-functional-api.ipynb"


def lesson_code() -> list[str]:
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    return ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]


def run_cells(*starts: str) -> dict:
    """Run the lesson's code cells that start with ``starts`` in one namespace, after its
    imports (``from graphkit...``), as a learner's kernel would."""
    from graphkit import InMemorySaver
    from graphkit.func import entrypoint

    names: dict = {"lesson13": lesson13, "InMemorySaver": InMemorySaver}
    names["entrypoint"] = entrypoint
    for source in lesson_code():
        if source.startswith(starts):
            exec(source, names)
    return names


def test_the_notebooks_stubs_fail_their_checks(monkeypatch):
    monkeypatch.setattr(lesson13, "WAIT", 0.2)  # (the stub's calls wait alone: not long)
    stubs = run_cells("from graphkit.course.lesson13 import lookup", "@entrypoint(checkpoint")
    answers = run_cells("body_runs = 0")
    assert_fails(lesson13.check_together(stubs["forecast"]), "lookup('Oslo') ran alone")
    assert_fails(lesson13.check_budget(stubs["spend"]), "saved 70 for the next call")
    assert_fails(
        lesson13.check_reruns(answers["body_runs"], answers["reran"]),
        "ran it once, up to the pause",
    )


# -- 13.1 · Start the calls together


def test_together_passes_on_the_solution():
    assert "running at once" in assert_passes(lesson13.check_together(solutions.forecast)).message


def test_together_one_at_a_time(monkeypatch):
    monkeypatch.setattr(lesson13, "WAIT", 0.2)
    from graphkit.func import entrypoint

    @entrypoint()
    def forecast(cities):
        return {city: lesson13.lookup(city).result() for city in cities}

    verdict = lesson13.check_together(forecast)
    assert_fails(verdict, "only 1 call of 3 had been made", hint="before you wait for any")


def test_together_a_first_call_read_alone_is_not_told_all_ran_one_at_a_time(monkeypatch):
    """Only the first call waits alone here; the others start together. The verdict names
    the call that ran alone and does not say every call did."""
    monkeypatch.setattr(lesson13, "WAIT", 0.2)
    from graphkit.func import entrypoint

    @entrypoint()
    def forecast(cities):
        first = lesson13.lookup(cities[0]).result()
        rest = {city: lesson13.lookup(city) for city in cities[1:]}
        return {cities[0]: first, **{city: future.result() for city, future in rest.items()}}

    verdict = assert_fails(
        lesson13.check_together(forecast), "lookup('Oslo') ran alone", hint="before you wait"
    )
    assert "one at a time" not in verdict.message


def test_together_passes_when_the_calls_threads_start_late(monkeypatch):
    """The calls meet once they are all *made*, not once their threads have started: on a
    loaded machine (here: one worker thread for three calls, so two start only after
    another call finished) a right answer is not told its calls ran one at a time."""
    from concurrent.futures import ThreadPoolExecutor

    from graphkit.pregel import step_work

    monkeypatch.setattr(lesson13, "WAIT", 0.5)  # (a wait in vain would fail the check)
    with ThreadPoolExecutor(max_workers=1) as narrow:
        monkeypatch.setattr(step_work, "POOL", narrow)
        assert_passes(lesson13.check_together(solutions.forecast))


def test_together_leaves_the_service_as_it_was(monkeypatch):
    """A check's calls wait only while it runs (the run's Update waits for them all):
    afterwards ``lookup`` in the learner's own programs does not wait."""
    monkeypatch.setattr(lesson13, "WAIT", 0.2)
    from graphkit.func import entrypoint

    @entrypoint()
    def forecast(cities):
        return {city: lesson13.lookup(city).result() for city in cities}

    assert_fails(lesson13.check_together(forecast), "ran alone")
    assert lesson13._meeting is None
    monkeypatch.setattr(lesson13, "WAIT", 60)  # (a wait now would hang the test)
    assert forecast.invoke(["Oslo", "Lima"]) == {"Oslo": "snow in Oslo", "Lima": "fog in Lima"}


def test_together_without_the_task_or_hard_coded():
    from graphkit.func import entrypoint

    @entrypoint()
    def forecast(cities):
        return {city: lesson13.lookup.func(city) for city in cities}  # no task: no call

    assert_fails(lesson13.check_together(forecast), "step 0 ran 0 lookup calls")

    @entrypoint()
    def memorised(cities):
        futures = [lesson13.lookup(city) for city in cities]
        [future.result() for future in futures]
        return {"Oslo": "snow in Oslo", "Lima": "fog in Lima", "Rome": "sun in Rome"}

    assert_fails(lesson13.check_together(memorised), "forecast returned")


def test_together_a_list_not_a_dict_and_a_plain_function():
    from graphkit.func import entrypoint

    @entrypoint()
    def as_list(cities):
        return [future.result() for future in [lesson13.lookup(city) for city in cities]]

    assert_fails(lesson13.check_together(as_list), "expected {'Oslo'", hint="dict")

    def plain(cities):
        return {}

    assert_fails(lesson13.check_together(plain), "not an entrypoint", hint="@entrypoint()")


def test_together_with_entrypoint_missing_its_parentheses_is_told_so():
    """``@entrypoint`` without ``()`` leaves the decorator itself, holding the function
    as its checkpointer: the verdict said "forecast is a entrypoint, not an entrypoint"."""
    from graphkit.func import entrypoint

    @entrypoint
    def forecast(cities):
        return {
            city: future.result()
            for city, future in {c: lesson13.lookup(c) for c in cities}.items()
        }

    verdict = assert_fails(
        lesson13.check_together(forecast), "without its parentheses", hint="@entrypoint()"
    )
    assert "is a entrypoint, not an entrypoint" not in verdict.message


def test_together_returning_the_futures_is_told_to_read_them():
    from graphkit.func import entrypoint

    @entrypoint()
    def forecast(cities):
        return {city: lesson13.lookup(city) for city in cities}  # no .result()

    verdict = assert_fails(
        lesson13.check_together(forecast), "its values are futures", hint=".result()"
    )
    assert "TaskFuture at 0x" not in verdict.message


def test_together_with_a_checkpointer_is_judged_on_its_calls():
    """A forecast given a checkpointer (as section 4's entrypoints have) was told "a run
    needs a thread: pass config=...", which the learner cannot pass: the check runs it.
    The check gives it a thread of its own."""
    from graphkit import InMemorySaver
    from graphkit.func import entrypoint

    @entrypoint(checkpointer=InMemorySaver())
    def forecast(cities):
        futures = {city: lesson13.lookup(city) for city in cities}
        return {city: future.result() for city, future in futures.items()}

    assert_passes(lesson13.check_together(forecast))


# -- 13.2 · A budget across invocations


def test_budget_passes_on_the_solution():
    assert "saved the total spent" in assert_passes(lesson13.check_budget(solutions.spend)).message


def test_budget_without_final_saves_what_is_left():
    from graphkit import InMemorySaver
    from graphkit.func import entrypoint

    @entrypoint(checkpointer=InMemorySaver())
    def spend(amount, previous=None):
        return 100 - (previous or 0) - amount

    assert_fails(lesson13.check_budget(spend), "saved 70", hint="entrypoint.final")


def test_budget_with_a_global_total_is_shared_by_threads():
    from graphkit import InMemorySaver
    from graphkit.func import entrypoint

    total = [0]

    @entrypoint(checkpointer=InMemorySaver())
    def spend(amount, previous=None):
        total[0] += amount
        return entrypoint.final(value=100 - total[0], save=total[0])

    assert_fails(lesson13.check_budget(spend), "it counted what thread a spent")


def test_budget_forgetting_none_and_no_checkpointer():
    from graphkit import InMemorySaver
    from graphkit.func import entrypoint

    @entrypoint(checkpointer=InMemorySaver())
    def spend(amount, previous=None):
        total = previous + amount
        return entrypoint.final(value=100 - total, save=total)

    assert_fails(
        lesson13.check_budget(spend),
        "On a new thread (thread a, spending 30 after 0) spend raised TypeError: unsupported "
        "operand type(s) for +: 'NoneType' and 'int': on a thread's first call previous is None.",
        hint="Treat a previous of None as nothing spent yet",
    )

    @entrypoint()
    def forgetful(amount, previous=None):
        return 100 - amount

    assert_fails(lesson13.check_budget(forgetful), "no checkpointer", hint="InMemorySaver")


def test_budget_returning_the_total_spent_is_not_told_about_none():
    """The first call handled None; it returned what was spent instead of what is left."""
    from graphkit import InMemorySaver
    from graphkit.func import entrypoint

    @entrypoint(checkpointer=InMemorySaver())
    def spend(amount, previous=None):
        total = (previous or 0) + amount
        return entrypoint.final(value=total, save=100 - total)  # the two swapped

    verdict = assert_fails(
        lesson13.check_budget(spend),
        "spend returned 30, what was spent, not what is left, 70",
        hint="Return what is left",
    )
    assert "None" not in verdict.hint


def test_budget_whose_parameter_is_not_named_previous_is_told_it_gets_nothing():
    """The runtime hands the saved value only to a parameter named ``previous``; the
    verdict said "It got previous = 30" of a spend whose parameter is ``prev``."""
    from graphkit import InMemorySaver
    from graphkit.func import entrypoint

    @entrypoint(checkpointer=InMemorySaver())
    def spend(amount, prev=None):
        total = (prev or 0) + amount
        return entrypoint.final(value=100 - total, save=total)

    verdict = assert_fails(lesson13.check_budget(spend), "no parameter named previous")
    assert "It got previous = 30" not in verdict.message


def test_budget_that_stops_at_0_is_told_what_is_left_goes_below():
    from graphkit import InMemorySaver
    from graphkit.func import entrypoint

    @entrypoint(checkpointer=InMemorySaver())
    def spend(amount, previous=None):
        total = (previous or 0) + amount
        return entrypoint.final(value=max(0, 100 - total), save=total)

    verdict = assert_fails(lesson13.check_budget(spend), "120 spent of 100")
    # (what it got as previous it used right: the hint must not send it there)
    assert "previous is what the last call" not in verdict.hint


def test_budget_saving_the_wrong_total():
    from graphkit import InMemorySaver
    from graphkit.func import entrypoint

    @entrypoint(checkpointer=InMemorySaver())
    def spend(amount, previous=None):
        total = (previous or 0) + amount
        return entrypoint.final(value=100 - total, save=amount)  # saves the last amount

    assert_fails(
        lesson13.check_budget(spend),
        "saved 50 for the next call (previous), not the total spent, 80",
    )


def test_budget_returning_nothing_is_not_told_about_none_previous():
    """A spend without ``return`` was told "on a thread's first call previous is None",
    and to treat None as nothing spent: the None was its own return value."""
    from graphkit import InMemorySaver
    from graphkit.func import entrypoint

    @entrypoint(checkpointer=InMemorySaver())
    def spend(amount, previous=None):
        total = (previous or 0) + amount  # noqa: F841 (and no return)

    verdict = assert_fails(
        lesson13.check_budget(spend), "spend returned None", hint="Return what is left"
    )
    assert "previous" not in verdict.hint


def test_budget_returning_a_dict_of_value_and_save_is_pointed_at_final():
    from graphkit import InMemorySaver
    from graphkit.func import entrypoint

    @entrypoint(checkpointer=InMemorySaver())
    def spend(amount, previous=None):
        total = (previous or 0) + amount
        return {"value": 100 - total, "save": total}

    verdict = assert_fails(lesson13.check_budget(spend), "returned {'value': 70, 'save': 30}")
    assert "entrypoint.final(value=" in verdict.hint and "None" not in verdict.hint


def test_budget_returning_the_budget_before_spending_is_not_told_about_none():
    from graphkit import InMemorySaver
    from graphkit.func import entrypoint

    @entrypoint(checkpointer=InMemorySaver())
    def spend(amount, previous=None):
        total = (previous or 0) + amount
        return entrypoint.final(value=100 - total + amount, save=total)  # before spending

    verdict = assert_fails(lesson13.check_budget(spend), "spend returned 100, not 70")
    assert "Treat a previous of None" not in verdict.hint
    assert "after spending" in verdict.hint


def test_budget_raising_when_overspent_is_told_to_go_below_0():
    from graphkit import InMemorySaver
    from graphkit.func import entrypoint

    @entrypoint(checkpointer=InMemorySaver())
    def spend(amount, previous=None):
        total = (previous or 0) + amount
        if total > 100:
            raise ValueError("over budget")
        return entrypoint.final(value=100 - total, save=total)

    assert_fails(
        lesson13.check_budget(spend),
        "spend raised ValueError: over budget, with 120 spent of 100",
        hint="below 0",
    )


def test_budget_given_the_saver_class_is_told_to_make_one():
    from graphkit import InMemorySaver
    from graphkit.func import entrypoint

    @entrypoint(checkpointer=InMemorySaver)  # the class, not a saver
    def spend(amount, previous=None):
        total = (previous or 0) + amount
        return entrypoint.final(value=100 - total, save=total)

    assert_fails(lesson13.check_budget(spend), "the class InMemorySaver", hint="InMemorySaver()")


def test_budget_saving_what_is_left_with_final_is_not_pointed_at_final():
    from graphkit import InMemorySaver
    from graphkit.func import entrypoint

    @entrypoint(checkpointer=InMemorySaver())
    def spend(amount, previous=None):
        left = (previous if previous is not None else 100) - amount
        return entrypoint.final(value=left, save=left)  # saves what is left, as the stub

    verdict = assert_fails(lesson13.check_budget(spend), "saved 70", hint="save the total spent")
    assert "compute what is left from it" in verdict.hint


# -- 13.3 · Which code runs again on resume?


def test_reruns_passes_on_the_solution():
    assert "ran 2 times" in assert_passes(lesson13.check_reruns(**solutions.RERUN_ANSWERS)).message


@pytest.mark.parametrize(
    ("body_runs", "reran", "said"),
    [
        (1, {"ask_approval", "book"}, "it ran more times"),
        (0, set(), "the first invoke alone ran it once"),
        (3, {"ask_approval", "book"}, "it ran fewer times"),
        (2, {"book"}, "ask_approval's code did run again: it was paused inside"),
        (2, set(TASKS := lesson13.TASKS), "find_flights had finished before the pause"),
        (2, {"ask_approval"}, "book's code ran in the resumed run, for the first time"),
        (2, {"trip"}, "'trip' is not a task of trip"),
        (2, "book", "give a set of task names"),
    ],
)
def test_reruns_wrong_answers(body_runs, reran, said):
    verdict = lesson13.check_reruns(body_runs, reran)
    assert_fails(verdict, said)
    assert "2 times" not in verdict.message or said.startswith("find")


# -- the lesson's claims, on LangGraph


def libraries() -> list[types.SimpleNamespace]:
    import graphkit
    import graphkit.func

    langgraph_func = pytest.importorskip("langgraph.func")
    from langgraph.checkpoint.memory import InMemorySaver as LangGraphSaver
    from langgraph.graph import END, START, StateGraph
    from langgraph.types import Command, Send, interrupt

    return [
        types.SimpleNamespace(
            name="graphkit",
            entrypoint=graphkit.func.entrypoint,
            task=graphkit.func.task,
            Saver=graphkit.InMemorySaver,
            Command=graphkit.Command,
            interrupt=graphkit.interrupt,
            StateGraph=graphkit.StateGraph,
            Send=graphkit.Send,
            START=graphkit.START,
            END=graphkit.END,
        ),
        types.SimpleNamespace(
            name="langgraph",
            entrypoint=langgraph_func.entrypoint,
            task=langgraph_func.task,
            Saver=LangGraphSaver,
            Command=Command,
            interrupt=interrupt,
            StateGraph=StateGraph,
            Send=Send,
            START=START,
            END=END,
        ),
    ]


def observe_lesson(lib: Any) -> dict:
    """Sections 1, 4, 5 and 6 of the lesson, written against ``lib``: what a learner sees."""
    seen: dict = {}
    ran: list[str] = []

    @lib.task
    def fetch(city: str) -> str:
        ran.append(f"fetch {city}")
        return f"sunny in {city}"

    @lib.task
    def summarise(reports: list[str]) -> str:
        ran.append("summarise")
        return "; ".join(reports)

    @lib.entrypoint()
    def weather(cities: list[str]) -> str:
        futures = [fetch(city) for city in cities]
        return summarise([future.result() for future in futures]).result()

    seen["weather"] = weather.invoke(["Oslo", "Lima", "Rome"])
    steps = [
        (chunk["step"], chunk["payload"]["name"])
        for chunk in weather.stream(["Oslo", "Lima"], stream_mode="debug")
        if chunk["type"] == "task"
    ]
    seen["task steps"] = sorted(steps)  # every call in step 0, beside the entrypoint

    @lib.entrypoint(checkpointer=lib.Saver())
    def doorbell(name: str, previous: list[str] | None = None) -> Any:
        visitors = (previous or []) + [name]
        return lib.entrypoint.final(value=f"hello {name}, visitor #{len(visitors)}", save=visitors)

    door = {"configurable": {"thread_id": "front door"}}
    seen["doorbell"] = [doorbell.invoke(n, door) for n in ("Ada", "Alan")]
    seen["doorbell other"] = doorbell.invoke("Grace", {"configurable": {"thread_id": "back"}})
    seen["doorbell history"] = [
        (s.metadata["step"], s.metadata["source"]) for s in doorbell.get_state_history(door)
    ]

    ran.clear()
    body_runs: list[int] = []

    @lib.entrypoint(checkpointer=lib.Saver())
    def send_report(cities: list[str]) -> str:
        body_runs.append(1)
        reports = [future.result() for future in [fetch(city) for city in cities]]
        answer = lib.interrupt({"send these?": reports})
        return summarise(reports).result() if answer == "yes" else "not sent"

    report = {"configurable": {"thread_id": "report"}}
    paused = send_report.invoke(["Oslo", "Lima"], report)
    seen["question"] = paused["__interrupt__"][0].value
    seen["ran before"], seen["body before"] = sorted(ran), len(body_runs)  # (parallel calls)
    history = send_report.get_state_history
    seen["paused history"] = [(s.metadata["step"], s.metadata["source"]) for s in history(report)]
    ran.clear()
    seen["resumed"] = send_report.invoke(lib.Command(resume="yes"), report)
    seen["ran on resume"], seen["body in all"] = sorted(ran), len(body_runs)
    seen["resumed history"] = [(s.metadata["step"], s.metadata["source"]) for s in history(report)]

    class Weather(TypedDict, total=False):
        cities: list[str]
        reports: Annotated[list[str], operator.add]
        summary: str

    builder = lib.StateGraph(Weather)
    builder.add_node("fetch", lambda packet: {"reports": [f"sunny in {packet['city']}"]})
    builder.add_node("summarise", lambda state: {"summary": "; ".join(state["reports"])})
    builder.add_conditional_edges(
        lib.START, lambda s: [lib.Send("fetch", {"city": c}) for c in s["cities"]], ["fetch"]
    )
    builder.add_edge("fetch", "summarise")
    builder.add_edge("summarise", lib.END)
    graph = builder.compile(checkpointer=lib.Saver())
    config = {"configurable": {"thread_id": "graph"}}
    seen["graph summary"] = graph.invoke({"cities": ["Oslo", "Lima", "Rome"]}, config)["summary"]
    seen["graph checkpoints"] = len(list(graph.get_state_history(config)))
    seen["graph task steps"] = sorted(
        (chunk["step"], chunk["payload"]["name"])
        for chunk in graph.stream(
            {"cities": ["Oslo", "Lima"]}, {"configurable": {"thread_id": "g2"}}, stream_mode="debug"
        )
        if chunk["type"] == "task"
    )
    return seen


def test_the_lessons_programs_do_on_graphkit_what_they_do_on_langgraph():
    ours, theirs = (observe_lesson(lib) for lib in libraries())
    assert ours == theirs
    assert ours["task steps"] == [(0, "fetch"), (0, "fetch"), (0, "summarise"), (0, "weather")]
    assert ours["doorbell"] == ["hello Ada, visitor #1", "hello Alan, visitor #2"]
    assert ours["doorbell history"] == [(2, "loop"), (1, "input"), (0, "loop"), (-1, "input")]
    assert ours["ran on resume"] == ["summarise"] and ours["body in all"] == 2
    # the comparison table: a resume is one superstep, step 0 again, with no input step
    assert ours["paused history"] == [(-1, "input")]
    assert ours["resumed history"] == [(0, "loop"), (-1, "input")]
    assert ours["graph summary"] == ours["weather"]
    assert ours["graph checkpoints"] == 4  # one per step: -1, 0, 1 (fetch × 3), 2
    assert [step for step, _ in ours["graph task steps"]] == [1, 1, 2]  # fetch ×2, summarise


def exercise_outcomes(lib: Any) -> tuple:
    """13.2's solution and 13.3's trip (one search), written against ``lib``."""

    @lib.entrypoint(checkpointer=lib.Saver())
    def spend(amount: int, previous: int | None = None) -> Any:
        total = (previous or 0) + amount
        return lib.entrypoint.final(value=100 - total, save=total)

    config = {"configurable": {"thread_id": "a"}}
    left = [spend.invoke(amount, config) for amount in (30, 50, 40)]
    ran: list[str] = []

    @lib.task
    def find_flights(city: str) -> str:
        ran.append("find_flights")
        return f"a flight to {city}"

    @lib.task
    def ask_approval(offer: str) -> bool:
        ran.append("ask_approval")
        return lib.interrupt({"approve?": offer})

    @lib.task
    def book(offer: str) -> str:
        ran.append("book")
        return f"booked {offer}"

    @lib.entrypoint(checkpointer=lib.Saver())
    def trip(city: str) -> str:
        ran.append("trip")
        offer = find_flights(city).result()
        return book(offer).result() if ask_approval(offer).result() else "nothing booked"

    trip.invoke("Rome", config)
    before = len(ran)
    result = trip.invoke(lib.Command(resume=True), config)
    return left, ran[before:], ran.count("trip"), result


def test_exercise_programs_do_on_graphkit_what_they_do_on_langgraph():
    ours, theirs = (exercise_outcomes(lib) for lib in libraries())
    assert ours == theirs
    assert ours[0] == [70, 20, -20]
    assert ours[1] == ["trip", "ask_approval", "book"]  # what 13.3's answer says


@pytest.mark.parametrize("reran", [None, 3, "book", {"book": 1}, {1}])
def test_reruns_a_reran_that_is_not_a_set_of_names_is_told_so(reran):
    verdict = lesson13.check_reruns(2, reran)
    assert_fails(verdict, f"reran is {reran!r}; give a set of task names", hint="in a set")
    assert verdict.check_error is None


def test_the_resume_question_run_again_shows_the_resume_it_ran():
    """A learner changes a Q2 guess and reruns its reveal: the thread was resumed already,
    so it is not resumed again, and the reveal, the tasks table and ``why`` still show the
    resume. (It resumed a finished thread: the resumed run "added []", the tasks table was
    empty, and ``why`` raised ValueError.)"""
    from tests.course.cells import run_cells as run_in_order

    run_in_order(LESSON, until="from graphkit.course", again=("l13-c20", "l13-c22", "l13-c23"))


def test_a_resumed_run_is_one_superstep_as_the_comparison_table_says():
    """The table of section 6 said "two per run (input, step 0), whatever it does"; the
    resumed run of section 5 has one, step 0 run again, and no input step."""
    from graphkit import Command, InMemorySaver, interrupt
    from graphkit.func import entrypoint, task

    @task
    def fetch(city: str) -> str:
        return f"sunny in {city}"

    @entrypoint(checkpointer=InMemorySaver())
    def ask(city: str) -> str:
        report = fetch(city).result()
        return report if interrupt(report) == "yes" else "not sent"

    config = {"configurable": {"thread_id": "t"}}
    paused = ask.trace("Oslo", config)
    resumed = ask.trace(Command(resume="yes"), config)
    assert [step.step for step in paused.steps] == [-1, 0]
    assert [step.step for step in resumed.steps] == [0]
    assert resumed.values["__end__"] == "sunny in Oslo"
