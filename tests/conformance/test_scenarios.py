"""graphkit must behave like LangGraph on every persistence scenario, with each kind of
checkpointer; the scenario harness itself is checked too.

`test_graphkit_matches_langgraph` plays each scenario on both libraries with the same kind
of saver (LangGraph's `InMemorySaver` / `SqliteSaver` against graphkit's) and compares the
transcripts. `test_langgraph_side_is_meaningful` needs LangGraph only: it pins LangGraph's
transcript, the same with both of its savers.
"""

from collections import Counter
from contextlib import nullcontext

import pytest

from . import (
    cases_persistence,
    cases_persistence_breakpoints,
    cases_persistence_state,
    cases_persistence_time_travel,
)
from .harness import load_graphkit, load_langgraph
from .scenarios import (
    SAVERS,
    Calls,
    GetState,
    History,
    Invoke,
    Older,
    ResumeEach,
    Scenario,
    Session,
    Tools,
    Transcript,
    UpdateState,
    compare_transcripts,
    load_tools,
    play,
    stream_lines,
)

SCENARIOS = [
    *cases_persistence.SCENARIOS,
    *cases_persistence_breakpoints.SCENARIOS,
    *cases_persistence_state.SCENARIOS,
    *cases_persistence_time_travel.SCENARIOS,
]


def scenario_id(scenario: Scenario) -> str:
    return scenario.name


@pytest.mark.parametrize("saver", list(SAVERS))
@pytest.mark.parametrize("scenario", SCENARIOS, ids=scenario_id)
def test_graphkit_matches_langgraph(scenario: Scenario, saver: str) -> None:
    expected = play(scenario, load_langgraph(), saver)
    if scenario.warns:
        graphkit = load_graphkit()
        with pytest.warns(graphkit.warning, match=scenario.warns):
            actual = play(scenario, graphkit, saver)
    else:
        actual = play(scenario, load_graphkit(), saver)
    problems = compare_transcripts(scenario.name, expected, actual)
    if problems:
        pytest.fail("\n\n".join(problems), pytrace=False)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=scenario_id)
def test_graphkit_matches_langgraph_through_the_async_api(scenario: Scenario) -> None:
    """The same scenarios through `ainvoke` and `astream` (with the in-memory savers:
    LangGraph's sync SqliteSaver has no async methods)."""
    expected = play(scenario, load_langgraph(), "memory", asynchronous=True)
    graphkit = load_graphkit()
    with pytest.warns(graphkit.warning, match=scenario.warns) if scenario.warns else nullcontext():
        actual = play(scenario, graphkit, "memory", asynchronous=True)
    assert expected.lines == play(scenario, load_langgraph(), "memory").lines  # same oracle
    problems = compare_transcripts(scenario.name, expected, actual)
    if problems:
        pytest.fail("\n\n".join(problems), pytrace=False)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=scenario_id)
def test_langgraph_side_is_meaningful(scenario: Scenario) -> None:
    memory = play(scenario, load_langgraph(), "memory")
    sqlite = play(scenario, load_langgraph(), "sqlite")
    assert memory.lines == scenario.expected_lines()
    assert compare_transcripts(scenario.name, memory, sqlite) == []
    assert len(memory.lines) >= len(scenario.steps)


def test_catalogue_is_large_and_names_are_unique() -> None:
    names = Counter(scenario.name for scenario in SCENARIOS)
    assert len(SCENARIOS) >= 25
    assert [name for name, count in names.items() if count > 1] == []


# --- the scenario harness ------------------------------------------------------------------


def _interrupt_pair(lib_name: str):
    if lib_name == "langgraph":
        from langgraph.types import Interrupt
    else:
        from graphkit import Interrupt
    return Interrupt(value="b?", id="9f"), Interrupt(value="a?", id="3c")


@pytest.mark.parametrize("library", ["langgraph", "graphkit"])
def test_session_numbers_ids_in_order_and_sorts_parallel_interrupts(library: str) -> None:
    lib = load_langgraph() if library == "langgraph" else load_graphkit()
    with load_tools(lib, "memory") as tools:
        session = Session(tools, app=None)
        late, early = _interrupt_pair(library)
        config = {"configurable": {"thread_id": "1", "checkpoint_id": "1f0-x"}}
        assert session.checkpoint(config) == "cp1"
        assert session.checkpoint({"configurable": {"checkpoint_id": "1f0-y"}}) == "cp2"
        assert session.checkpoint(config) == "cp1"
        assert session.checkpoint(None) is None
        # the same interrupts in either order: numbered by value, so shown the same
        shown = session.show({"__interrupt__": (late, early), "n": 1})
        assert shown == "{'__interrupt__': (Interrupt(i1, 'a?'), Interrupt(i2, 'b?')), 'n': 1}"
        assert session.show([early, late]) == "[Interrupt(i1, 'a?'), Interrupt(i2, 'b?')]"


def _paused(tools: Tools):
    """START -> ask (interrupts) -> END, each call counted."""
    import operator
    from typing import Annotated, TypedDict

    class Log(TypedDict):
        log: Annotated[list, operator.add]

    def ask(state: Log) -> dict:
        tools.calls["ask"] += 1
        return {"log": [tools.interrupt("name?")]}

    lib = tools.lib
    graph = lib.StateGraph(Log)
    graph.add_node("ask", ask)
    graph.add_edge(lib.START, "ask")
    return graph.compile(checkpointer=tools.checkpointer)


TOY = Scenario(
    "toy",
    _paused,
    (Invoke({"log": []}), Invoke(ResumeEach({"name?": "Ada"})), GetState(), Calls()),
    expected="",
)


@pytest.mark.parametrize("saver", list(SAVERS))
def test_steps_resume_by_looked_up_id_and_show_state(saver: str) -> None:
    transcript = play(TOY, load_langgraph(), saver)
    assert transcript.lines == (
        "invoke {'log': []}",
        "  {'__interrupt__': [Interrupt(i1, 'name?')], 'log': []}",
        "  state cp1<-cp2 loop/0 next=('ask',) {'log': []}",
        "    interrupts [Interrupt(i1, 'name?')]",
        "    tasks ['ask?1']",
        "invoke ResumeEach(answers={'name?': 'Ada'})",
        "  {'log': ['Ada']}",
        "  state cp3<-cp1 loop/1 next=() {'log': ['Ada']}",
        "get_state",
        "  cp3<-cp1 loop/1 next=() {'log': ['Ada']}",
        "calls {'ask': 2}",
    )


def test_steps_reach_older_checkpoints_and_report_errors() -> None:
    steps = (
        Invoke({"log": []}),
        GetState(at=Older(1)),
        History(limit=1),
        UpdateState({"log": ["x"]}, as_node="nowhere"),
    )
    transcript = play(Scenario("older", _paused, steps, ""), load_langgraph())
    assert transcript.lines[5:] == (
        "get_state at Older(back=1)",
        "  cp2<-None input/-1 next=('__start__',) {'log': []}",
        "    tasks ['__start__']",
        "history limit=1",
        "  1 snapshots",
        "  cp1<-cp2 loop/0 next=('ask',) {'log': []}",
        "    interrupts [Interrupt(i1, 'name?')]",
        "update_state {'log': ['x']} as_node='nowhere'",
        "  raised InvalidUpdateError",
        "  state cp1<-cp2 loop/0 next=('ask',) {'log': []}",
        "    interrupts [Interrupt(i1, 'name?')]",
        "    tasks ['ask?1']",
    )


def test_chunks_of_finishing_tasks_are_sorted() -> None:
    """LangGraph sends `updates` then `values` for each task that interrupts, as it stops."""
    b = [("updates", {"__interrupt__": ("b?",)}), ("values", {"n": 1, "__interrupt__": ("b?",)})]
    c = [("updates", {"__interrupt__": ("c?",)}), ("values", {"n": 1, "__interrupt__": ("c?",)})]
    values = ("values", {"n": 1})
    assert stream_lines([values, *b, *c]) == stream_lines([values, *c, *b])
    assert stream_lines([values, *b, *c]) == [
        "values {'n': 1}",
        "updates {'__interrupt__': ('b?',)}",
        "updates {'__interrupt__': ('c?',)}",
        "values {'__interrupt__': ('b?',), 'n': 1}",
        "values {'__interrupt__': ('c?',), 'n': 1}",
    ]
    a, z = ("updates", {"a": {"n": 1}}), ("updates", {"z": {"n": 2}})
    assert stream_lines([a, values, z]) != stream_lines([z, values, a])


def test_compare_transcripts_shows_a_diff() -> None:
    oracle = Transcript("langgraph", "memory", ("invoke {}", "  {'n': 1}"))
    same = Transcript("graphkit", "memory", ("invoke {}", "  {'n': 1}"))
    other = Transcript("graphkit", "sqlite", ("invoke {}", "  {'n': 2}"))
    assert compare_transcripts("toy", oracle, same) == []
    [problem] = compare_transcripts("toy", oracle, other)
    assert "-  {'n': 1}" in problem
    assert "+  {'n': 2}" in problem
    assert "graphkit (sqlite)" in problem
