"""Tests of lesson 15's checks, and of its claims: each check passes on its solution and
fails, saying why, on the notebook's stub and on typical wrong answers; the lesson's
graphs run on LangGraph too, with the same outcomes (what a node reads, what
``remaining_steps`` reads in each step, what the node cache serves and for which key)."""

from __future__ import annotations

import json
import operator
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.runnables import RunnableConfig

from graphkit.course import assert_fails, assert_passes, lesson15
from graphkit.course.solutions import lesson15 as solutions
from tests.course.cells import run_cells as run_in_order

LESSON = Path(__file__).parents[2] / "notebooks" / "15-what-a-node-knows.ipynb"


def run_cells(*starts: str) -> dict:
    """Run the lesson's code cells that start with ``starts`` in one namespace, as a
    learner's kernel would."""
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    names: dict = {"lesson15": lesson15}
    for cell in cells:
        source = "".join(cell["source"])
        if cell["cell_type"] == "code" and source.startswith(starts):
            exec(source, names)
    return names


def test_the_notebooks_stubs_fail_their_checks():
    stubs = run_cells(
        "from graphkit.course.lesson15 import Reading",
        "from graphkit.course.lesson15 import Search",
        "def route(",
        "from graphkit.course.lesson15 import Request",
    )
    assert_fails(lesson15.check_context(stubs["describe"]), "expected 'Lima: 64.4 °F'")
    assert_fails(lesson15.check_stop_in_time(stubs["route"]), "sent the run to narrow")
    assert_fails(lesson15.check_cache_key(stubs["request_key"]), "translate ran again")


# -- 15.1 · Read the setting from the context


def test_context_passes_on_the_solution():
    assert "°F and in °C" in assert_passes(lesson15.check_context(solutions.describe)).message


def test_context_read_from_the_state_or_the_config():
    def from_state(state):
        return {"report": f"{state['city']}: {state['units']}"}

    def from_config(state, config):
        return {"report": config["configurable"]["units"]}

    for describe in (from_state, from_config):
        assert_fails(lesson15.check_context(describe), "KeyError", hint="context=")


def test_context_hard_coded_units():
    def fahrenheit(state, runtime):
        return {"report": f"{state['city']}: {state['celsius'] * 9 / 5 + 32:.1f} °F"}

    assert_fails(lesson15.check_context(fahrenheit), "Units(units='metric')", hint="context")
    assert_fails(lesson15.check_context(None), "not a function")


def test_context_read_right_but_a_wrong_number_is_told_about_the_number():
    def backwards(state, runtime):  # °C from °F: the formula turned round
        celsius = state["celsius"]
        if runtime.context.units == "imperial":
            return {"report": f"{state['city']}: {(celsius - 32) * 5 / 9:.1f} °F"}
        return {"report": f"{state['city']}: {celsius:.1f} °C"}

    def unrounded(state, runtime):
        celsius = state["celsius"]
        if runtime.context.units == "imperial":
            return {"report": f"{state['city']}: {celsius * 9 / 5 + 32} °F"}
        return {"report": f"{state['city']}: {celsius} °C"}

    for describe in (backwards, unrounded):
        verdict = assert_fails(lesson15.check_context(describe), hint="one decimal")
        assert "from the run's context" not in verdict.hint  # (it did read it from there)


def test_context_indexed_like_a_dict_is_told_it_is_a_dataclass():
    def indexed(state, runtime):
        return {"report": f"{state['city']}: {runtime.context['units']}"}

    verdict = assert_fails(lesson15.check_context(indexed), "not subscriptable", hint="Units")
    assert "Give describe a parameter" not in verdict.hint  # (it has one)


def test_context_field_misspelt_is_told_the_field_s_name():
    """runtime.context.unit was told to "read its field as an attribute", which it did."""

    def misspelt(state, runtime):
        return {"report": f"{state['city']}: {runtime.context.unit}"}

    assert_fails(lesson15.check_context(misspelt), "no attribute 'unit'", hint="one field, units")


def test_context_with_the_units_swapped_is_told_so_not_to_read_the_context():
    def swapped(state, runtime):
        celsius = state["celsius"]
        if runtime.context.units == "metric":
            return {"report": f"{state['city']}: {celsius * 9 / 5 + 32:.1f} °F"}
        return {"report": f"{state['city']}: {celsius:.1f} °C"}

    verdict = assert_fails(lesson15.check_context(swapped), "°C", hint="the other way round")
    assert "from the run's context" not in verdict.hint  # (it did read it from there)


def test_context_a_state_key_misspelt_is_not_told_about_the_context():
    """A KeyError of the state's own (state["temp"]) was told that runtime.context is a
    dataclass to read as an attribute, which the node did."""

    def misread(state, runtime):
        units = runtime.context.units
        return {"report": f"{state['city']}: {state['temp']:.1f} {units}"}

    verdict = assert_fails(lesson15.check_context(misread), "'temp'")
    assert "runtime.context" not in verdict.hint
    assert "city and celsius" in verdict.hint


def test_context_looked_for_in_the_config_is_not_told_about_the_state():
    """config["context"] raised KeyError 'context', and was told the state holds city
    and celsius: the key missing was the config's, and the units come with the runtime."""

    def from_config(state, config):
        return {"report": f"{state['city']}: {config['context'].units}"}

    verdict = assert_fails(lesson15.check_context(from_config), "KeyError", hint="context=")
    assert "city and celsius" not in verdict.hint


@pytest.mark.parametrize("name", ["context", "rt"])
def test_context_a_parameter_not_named_runtime_is_told_the_name(name):
    """A ``context`` (or ``rt: Runtime[Units]``) parameter gets nothing, in LangGraph as
    here: it was told to give describe a parameter, which it has."""
    namespace: dict = {}
    exec(
        f"def describe(state, {name}):\n"
        f"    return {{'report': state['city'] + ' ' + {name}.units}}",
        namespace,
    )
    verdict = assert_fails(
        lesson15.check_context(namespace["describe"]),
        f"missing 1 required positional argument: '{name}'",
        hint="named runtime",
    )
    assert "Give describe a parameter" not in verdict.hint


def test_context_compared_whole_to_a_str_is_told_it_is_a_units():
    """``runtime.context == "imperial"`` is never true (the context is a Units): the
    node reported °C for every run, and was told to read the units from the context."""

    def describe(state, runtime):
        celsius = state["celsius"]
        if runtime.context == "imperial":
            return {"report": f"{state['city']}: {celsius * 9 / 5 + 32:.1f} °F"}
        return {"report": f"{state['city']}: {celsius:.1f} °C"}

    assert_fails(
        lesson15.check_context(describe), "Units(units='imperial')", hint="same units whatever"
    )


def test_context_a_node_that_returns_nothing_is_told_so():
    def describe(state, runtime):
        units = runtime.context.units  # noqa: F841 (and no return)

    verdict = assert_fails(lesson15.check_context(describe), "describe returned None")
    assert "from the run's context" not in verdict.hint


def test_context_a_report_nested_in_a_dict_is_told_so():
    def describe(state, runtime):
        return {"report": {"report": f"{state['city']}: {state['celsius']:.1f} °C"}}

    verdict = assert_fails(lesson15.check_context(describe), "report is a dict")
    assert "from the run's context" not in verdict.hint


# -- 15.2 · Stop in time, with the best answer


def test_stop_passes_on_the_solution():
    assert "every step" in assert_passes(lesson15.check_stop_in_time(solutions.route)).message


@pytest.mark.parametrize(
    ("route", "said", "hint"),
    [
        (  # stops where is_last_step would: conclude gets a step past the clean end
            lambda s: "conclude" if s["remaining_steps"] <= 1 else "narrow",
            "sent the run to conclude in step 9",
            "a step of its own",
        ),
        (  # a count of its own: right for one limit, short for another
            lambda s: "conclude" if s["rounds"] >= 5 else "narrow",
            "narrow ran 5 rounds and the loop stopped at step 5, though 2 more rounds",
            "another run has another limit",
        ),
        (lambda s: "conclude", "narrow ran 1 round", "not on a count"),
    ],
)
def test_stop_wrong_answers(route, said, hint):
    assert_fails(lesson15.check_stop_in_time(route), said, hint=hint)


def test_stop_on_is_last_step_is_told_search_does_not_declare_it():
    """Section 2's loop stopped on is_last_step; Search declares only remaining_steps, and
    the KeyError came with "run it yourself with app.trace(...)"."""
    verdict = lesson15.check_stop_in_time(lambda s: "conclude" if s["is_last_step"] else "narrow")
    assert_fails(verdict, "'is_last_step'", hint="declares remaining_steps")


# -- 15.3 · A key for what the answer depends on


def test_cache_key_passes_on_the_solution():
    verdict = assert_passes(lesson15.check_cache_key(solutions.request_key))
    assert "served the repeats" in verdict.message


@pytest.mark.parametrize(
    ("key_func", "said", "hint"),
    [
        (lambda s: s["text"], "('good night' into it) was served", "everything"),
        (lambda s: "same", "('good night' into it) was served", "everything"),
        (lambda s: f"{s['text']}{s['request_id']}", "differed only in request_id", "Leave out"),
    ],
)
def test_cache_key_wrong_answers(key_func, said, hint):
    assert_fails(lesson15.check_cache_key(key_func), said, hint=hint)


def test_cache_key_returning_a_tuple_is_told_to_make_one_str_of_it():
    """The runtime's own error suggests key_func=lambda state: str(state['text']), its
    input's first field: here that is a wrong answer (a key on the text alone serves
    'gute Nacht' to an Italian request). The check says what was returned and how to make
    a str of it, without suggesting which fields."""
    verdict = lesson15.check_cache_key(lambda state: (state["text"], state["language"]))
    assert_fails(verdict, "request_key returned a tuple", hint="one str")
    assert "a cache key must be a str or bytes" in verdict.message
    assert "state['text']" not in verdict.message + (verdict.hint or "")


def test_cache_key_asking_for_the_runtime_is_told_it_gets_the_input_alone():
    """A key function with a second parameter (to read the context) was shown the
    runtime's TypeError and told to run the graph itself."""

    def request_key(state, runtime):
        return f"{state['text']}:{runtime.context}"

    assert_fails(
        lesson15.check_cache_key(request_key),
        "the node's input alone",
        hint="one parameter",
    )


def test_cache_key_reading_the_translation_is_told_it_is_not_in_the_input():
    verdict = lesson15.check_cache_key(lambda state: state["translation"])
    assert_fails(verdict, "translation is what translate writes", hint="text, language")


# (each check varies what a hard-coded answer would key on)


def test_context_a_report_chosen_by_city_fails():
    def by_city(state, runtime):
        celsius = state["celsius"]
        if state["city"] in ("Lima", "Cairo"):
            return {"report": f"{state['city']}: {celsius * 9 / 5 + 32:.1f} °F"}
        return {"report": f"{state['city']}: {celsius:.1f} °C"}

    assert_fails(lesson15.check_context(by_city), "Units(units='metric')", hint="context")


def test_stop_rounds_chosen_by_target_fail():
    rounds = {3.0: 7, 10.0: 11, 7.0: 4}  # right for the first limit each target was tried with

    def by_target(state):
        return "conclude" if state["rounds"] >= rounds[state["target"]] else "narrow"

    assert_fails(lesson15.check_stop_in_time(by_target), "recursion_limit=7", hint="a step")


def test_cache_key_chosen_by_request_id_fails():
    groups = {101: "a", 102: "a", 103: "b", 104: "c", 105: "c", 106: "d"}

    def by_id(state):
        return groups.get(state["request_id"], str(state["request_id"]))

    assert_fails(lesson15.check_cache_key(by_id), "differed only in request_id")


def test_cache_key_that_is_not_a_string():
    assert_fails(lesson15.check_cache_key(lambda s: (s["text"], s["language"])), "str or bytes")


# -- the lesson's claims, on LangGraph


def libraries() -> list[types.SimpleNamespace]:
    import graphkit
    from graphkit import managed, runtime
    from graphkit import types as graphkit_types
    from graphkit.cache.memory import InMemoryCache

    pytest.importorskip("langgraph")
    from langgraph import managed as lg_managed
    from langgraph import runtime as lg_runtime
    from langgraph import types as lg_types
    from langgraph.cache.memory import InMemoryCache as LangGraphCache
    from langgraph.checkpoint.memory import InMemorySaver as LangGraphSaver
    from langgraph.errors import GraphRecursionError
    from langgraph.graph import END, START, StateGraph

    return [
        types.SimpleNamespace(
            name="graphkit",
            StateGraph=graphkit.StateGraph,
            START=graphkit.START,
            END=graphkit.END,
            Saver=graphkit.InMemorySaver,
            Cache=InMemoryCache,
            CachePolicy=graphkit_types.CachePolicy,
            Runtime=runtime.Runtime,
            RemainingSteps=managed.RemainingSteps,
            IsLastStep=managed.IsLastStep,
            RecursionError=graphkit.errors.GraphRecursionError,
        ),
        types.SimpleNamespace(
            name="langgraph",
            StateGraph=StateGraph,
            START=START,
            END=END,
            Saver=LangGraphSaver,
            Cache=LangGraphCache,
            CachePolicy=lg_types.CachePolicy,
            Runtime=lg_runtime.Runtime,
            RemainingSteps=lg_managed.RemainingSteps,
            IsLastStep=lg_managed.IsLastStep,
            RecursionError=GraphRecursionError,
        ),
    ]


@dataclass
class Settings:
    language: str = "en"


class Ask(TypedDict, total=False):
    question: str
    language: str
    answer: str


def observe_lesson(lib: Any) -> dict:
    """Sections 1 to 3 of the lesson, written against ``lib``: what a learner sees."""
    seen: dict = {}

    def respond(state: Ask, config: RunnableConfig, runtime: lib.Runtime[Settings]) -> dict:
        thread = config["configurable"]["thread_id"]
        return {"answer": f"[{runtime.context.language}] {state['question']} (thread {thread})"}

    builder = lib.StateGraph(Ask, context_schema=Settings)
    builder.add_node("respond", respond)
    builder.add_edge(lib.START, "respond")
    saver = lib.Saver()
    app = builder.compile(checkpointer=saver)
    thread = {"configurable": {"thread_id": "ada"}}
    seen["section 1"] = app.invoke({"question": "why?"}, thread, context=Settings("fr"))
    seen["saved"] = app.get_state(thread).values
    seen["context in the checkpoint"] = "Settings" in repr(saver.get_tuple(thread))
    seen["dict context"] = app.invoke(
        {"question": "why?"}, {"configurable": {"thread_id": "b"}}, context={"language": "de"}
    )["answer"]

    fields = {
        "seen": Annotated[list, operator.add],
        "remaining_steps": lib.RemainingSteps,  # (the call form: the schema holds lib's own)
        "is_last_step": lib.IsLastStep,
    }
    Clock = TypedDict("Clock", fields, total=False)

    def tick(state: dict) -> dict:
        return {"seen": [(state["remaining_steps"], state["is_last_step"])]}

    def clock(route: Any) -> Any:
        builder = lib.StateGraph(Clock)
        builder.add_node("tick", tick)
        builder.add_node("last", tick)
        builder.add_edge(lib.START, "tick")
        builder.add_conditional_edges("tick", route, ["tick", "last", lib.END])
        return builder.compile()

    def until_last(state: dict) -> str:
        return lib.END if state["is_last_step"] else "tick"

    seen["section 2"] = clock(until_last).invoke({}, {"recursion_limit": 6})
    ran: list = []  # a run that raises: what its tasks read before it did
    forever = clock(lambda state: ran.append(state["remaining_steps"]) or "tick")
    with pytest.raises(lib.RecursionError):
        forever.invoke({}, {"recursion_limit": 6})
    seen["ran until"] = list(ran)  # steps 1..6: step 6 runs, reading 0, then the error
    ran.clear()
    late = clock(
        lambda s: ran.append(s["remaining_steps"]) or ("last" if s["is_last_step"] else "tick")
    )
    with pytest.raises(lib.RecursionError):  # a task in step 6 runs, yet the run raises
        late.invoke({}, {"recursion_limit": 6})
    seen["late"] = list(ran)

    calls: list = []

    def cached_respond(state: Ask, runtime: lib.Runtime[Settings]) -> dict:
        calls.append(runtime.context.language)
        return {"answer": f"[{runtime.context.language}] {state['question']}"}

    builder = lib.StateGraph(Ask, context_schema=Settings)
    builder.add_node("respond", cached_respond, cache_policy=lib.CachePolicy())
    builder.add_edge(lib.START, "respond")
    cached = builder.compile(cache=lib.Cache())
    question = {"question": "why is the sky blue?"}
    seen["first"] = cached.invoke(question, context=Settings("en"))
    seen["again"] = list(cached.stream(question, context=Settings("en")))
    seen["french"] = cached.invoke(question, context=Settings("fr"))
    seen["calls"] = list(calls)

    keys: list = []

    def spy(state: Any) -> str:
        keys.append(dict(state))
        return repr(sorted(state.items()))

    def settings(state: Ask, runtime: lib.Runtime[Settings]) -> dict:
        return {"language": runtime.context.language}

    def respond_in(state: Ask) -> dict:
        calls.append(state["language"])
        return {"answer": f"[{state['language']}] {state['question']}"}

    builder = lib.StateGraph(Ask, context_schema=Settings)
    builder.add_node("settings", settings)
    builder.add_node("respond", respond_in, cache_policy=lib.CachePolicy(key_func=spy, ttl=60))
    builder.add_edge(lib.START, "settings")
    builder.add_edge("settings", "respond")
    fixed = builder.compile(cache=lib.Cache())
    calls.clear()
    seen["fixed"] = [
        list(fixed.stream(question, context=Settings(language), stream_mode="updates"))
        for language in ("en", "fr", "en")
    ]
    seen["fixed calls"], seen["key_func got"] = list(calls), keys
    return seen


def test_the_lessons_graphs_do_on_graphkit_what_they_do_on_langgraph():
    ours, theirs = (observe_lesson(lib) for lib in libraries())
    assert ours == theirs
    assert ours["section 1"]["answer"] == "[fr] why? (thread ada)"
    assert ours["saved"] == ours["section 1"] and not ours["context in the checkpoint"]
    assert ours["dict context"] == "[de] why? (thread b)"  # a dict becomes the schema
    assert ours["section 2"]["seen"] == [(5, False), (4, False), (3, False), (2, False), (1, True)]
    assert ours["ran until"] == [5, 4, 3, 2, 1, 0]
    assert ours["late"] == [5, 4, 3, 2, 1]  # "last" ran in step 6, then the run raised
    assert ours["again"] == [
        {"respond": {"answer": "[en] why is the sky blue?"}, "__metadata__": {"cached": True}}
    ]
    assert ours["french"]["answer"] == "[en] why is the sky blue?"  # stale: input-only key
    assert ours["calls"] == ["en"]
    assert ours["fixed calls"] == ["en", "fr"]  # the second "en" was served
    assert ours["key_func got"][0] == {"question": "why is the sky blue?", "language": "en"}


def exercise_outcomes(lib: Any) -> dict:
    """The exercises' graphs with their solutions, written against ``lib``."""
    outcomes: dict = {}

    @dataclass
    class Units:
        units: str = "metric"

    class Reading(TypedDict, total=False):
        city: str
        celsius: float
        report: str

    def describe(state: Reading, runtime: lib.Runtime[Units]) -> dict:
        return solutions.describe(state, runtime)

    builder = lib.StateGraph(Reading, context_schema=Units)
    builder.add_node("describe", describe)
    builder.add_edge(lib.START, "describe")
    app = builder.compile()
    outcomes["15.1"] = [
        app.invoke({"city": "Lima", "celsius": 18.0}, context=Units(units))["report"]
        for units in ("metric", "imperial")
    ]

    fields = {"target": float, "low": float, "high": float, "rounds": int, "answer": str}
    Search = TypedDict("Search", {**fields, "remaining_steps": lib.RemainingSteps}, total=False)

    builder = lib.StateGraph(Search)
    # (unannotated wrappers: LangGraph reads a node's input schema from its annotation,
    # and the checks module's Search holds graphkit's RemainingSteps)
    builder.add_node("narrow", lambda state: lesson15._narrow(state))
    builder.add_node("conclude", lambda state: lesson15._conclude(state))
    builder.add_edge(lib.START, "narrow")
    builder.add_conditional_edges("narrow", lambda s: solutions.route(s), ["narrow", "conclude"])
    builder.add_edge("conclude", lib.END)
    search = builder.compile()
    outcomes["15.2"] = [
        search.invoke({"target": 3.0}, {"recursion_limit": limit})["answer"] for limit in (6, 9)
    ]

    ran: list = []

    def translate(state: lesson15.Request) -> dict:
        ran.append(state["request_id"])
        return lesson15._translate(state)

    builder = lib.StateGraph(lesson15.Request)
    policy = lib.CachePolicy(key_func=solutions.request_key)
    builder.add_node("translate", translate, cache_policy=policy)
    builder.add_edge(lib.START, "translate")
    cache = builder.compile(cache=lib.Cache())
    answers = [
        cache.invoke({"text": text, "language": language, "request_id": request_id})
        for text, language, request_id in lesson15.REQUESTS
    ]
    outcomes["15.3"] = [answer["translation"] for answer in answers], ran
    return outcomes


def test_exercise_graphs_do_on_graphkit_what_they_do_on_langgraph():
    ours, theirs = (exercise_outcomes(lib) for lib in libraries())
    assert ours == theirs
    assert ours["15.1"] == ["Lima: 18.0 °C", "Lima: 64.4 °F"]
    assert ours["15.2"][0].endswith("after 4 rounds")  # limit 6: narrow in steps 1-4
    assert ours["15.3"][1] == [101, 103, 104, 106]  # the repeats were served


def test_no_text_before_a_question_gives_its_answer_away():
    """Section 3's heading said the cached node's code does not run (Q2), and Q2's answer
    said the key is made from the input (Q3's answer), both before those were asked."""
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    text = ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown"]
    q2 = next(i for i, cell in enumerate(text) if cell.startswith("**Q2"))
    q3 = next(i for i, cell in enumerate(text) if cell.startswith("**Q3"))
    assert not any("without running" in cell for cell in text[:q2])
    assert not any("input" in cell and "key" in cell for cell in text[q2:q3])


def test_each_section_s_run_shows_the_same_when_read_again_after_a_later_one():
    """A learner re-reads a section's run after the later sections: each reads its own
    run still. (Every section named its run ``run``, so reading the clock's values again
    read the cached answer's, and the cached run's tasks read the last language's run.)"""
    run_in_order(LESSON, again=("l15-c09", "l15-c16"))


@pytest.mark.parametrize("library", ["graphkit", "langgraph"])
def test_remaining_steps_counts_from_each_runs_own_input_step(library):
    """The exception to "in step N remaining_steps reads recursion_limit − N" read off the
    step numbers: a second invoke on a thread numbers its steps on from the first run's
    (its ticks are steps 8 to 12), yet reads 5 down to 1 as the first run did, counting
    from its own input step as -1. The same on graphkit and LangGraph."""
    if library == "langgraph":
        pytest.importorskip("langgraph")
        from langgraph.checkpoint.memory import InMemorySaver
        from langgraph.graph import END, START, StateGraph
        from langgraph.managed import IsLastStep, RemainingSteps
    else:
        from graphkit import END, START, InMemorySaver, StateGraph
        from graphkit.managed import IsLastStep, RemainingSteps

    fields = {"seen": Annotated[list, operator.add]}
    fields.update(remaining_steps=RemainingSteps, is_last_step=IsLastStep)
    builder = StateGraph(TypedDict("Clock", fields, total=False))
    builder.add_node("tick", lambda state: {"seen": [state["remaining_steps"]]})
    builder.add_edge(START, "tick")
    builder.add_conditional_edges(
        "tick", lambda state: END if state["is_last_step"] else "tick", ["tick", END]
    )
    app = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}, "recursion_limit": 6}
    first = app.invoke({"seen": []}, config)["seen"]
    second = app.invoke({"seen": []}, config)["seen"][len(first) :]
    steps = [snapshot.metadata["step"] for snapshot in app.get_state_history(config)]
    assert first == second == [5, 4, 3, 2, 1]
    assert max(steps) == 12  # the second run's last tick: step 12, reading 1


def test_the_text_counts_step_n_from_the_runs_own_input_step():
    """The summary said "in a run's step N, remaining_steps reads recursion_limit − N"
    without saying where N counts from, and Q1's answer from "its input step, -1": a run
    on a thread that ran before is numbered on (the test above). Both say so now."""
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    text = [" ".join("".join(cell["source"]).split()) for cell in cells]
    said = [cell for cell in text if "`recursion_limit − N`" in cell]
    assert len(said) == 2
    for cell in said:
        assert "numbers it" in cell, cell[:300]
