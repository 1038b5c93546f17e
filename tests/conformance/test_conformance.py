"""graphkit must behave like LangGraph on every case; the harness itself is checked too.

`test_graphkit_matches_langgraph` fails (it does not skip) while graphkit is missing or
incomplete. `test_langgraph_side_is_meaningful` needs LangGraph only: it pins what LangGraph
does on each case, so a broken harness or a case that tests nothing cannot pass unnoticed.
"""

import dataclasses
from collections import Counter

import pytest

from . import (
    cases_control,
    cases_errors,
    cases_flow,
    cases_nodes,
    cases_runtime,
    cases_state,
    cases_streaming,
    cases_subgraphs,
)
from .harness import (
    Case,
    Lib,
    Observation,
    Raised,
    Run,
    appender,
    canonical,
    compare,
    load_graphkit,
    load_langgraph,
    normalise_stream,
    observe,
    tidy,
)

CASES = [
    *cases_state.CASES,
    *cases_nodes.CASES,
    *cases_flow.CASES,
    *cases_errors.CASES,
    *cases_control.CASES,
    *cases_runtime.CASES,
    *cases_subgraphs.CASES,
    *cases_streaming.CASES,
]


def case_id(case: Case) -> str:
    return case.name


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_graphkit_matches_langgraph(case: Case) -> None:
    expected = observe(case, load_langgraph())
    actual = observe(case, load_graphkit())
    problems = compare(case, expected, actual)
    if problems:
        pytest.fail("\n\n".join(problems), pytrace=False)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_langgraph_side_is_meaningful(case: Case) -> None:
    observation = observe(case, load_langgraph())
    if case.build_raises is not None:
        assert not case.inputs, "a case that cannot build has nothing to run"
        assert observation.build == canonical(Raised(case.build_raises))
        return
    assert observation.build == "ok"
    assert len(case.inputs) == len(case.expected) >= 1
    for run, expected in zip(observation.runs, case.expected, strict=True):
        assert run.invoke == canonical(expected), f"input {run.input}"
        assert run.stream, f"input {run.input}: the stream yielded nothing"
        assert run.values, f"input {run.input}: the values stream yielded nothing"
        if isinstance(expected, Raised):  # the error also ends both streams
            assert run.stream[-1] == run.values[-1] == run.invoke


def test_catalogue_is_large_and_names_are_unique() -> None:
    names = Counter(case.name for case in CASES)
    assert len(CASES) >= 30
    assert [name for name, count in names.items() if count > 1] == []
    assert sum(case.warns for case in CASES) >= 2
    assert sum(case.build_raises is not None for case in CASES) >= 5


# --- the harness ---------------------------------------------------------------------------


def _observation(library: str, *stream: str, warnings: tuple[str, ...] | None = ()) -> Observation:
    run = Run(input="{'n': 0}", invoke="{'n': 1}", stream=stream, values=("{'n': 1}",))
    return Observation(library, "ok", (run,), warnings)


TOY = Case("toy", build=lambda lib: None)


def test_harness_detects_a_difference() -> None:
    oracle = _observation("langgraph", "values {'n': 0}", "values {'n': 1}")
    same = _observation("graphkit", "values {'n': 0}", "values {'n': 1}")
    other = _observation("graphkit", "values {'n': 0}", "values {'n': 2}")

    assert compare(TOY, oracle, same) == []
    [problem] = compare(TOY, oracle, other)
    assert "-    values {'n': 1}" in problem
    assert "+    values {'n': 2}" in problem


def test_harness_detects_a_different_graph_end_to_end() -> None:
    def build(name: str):
        def graph(lib: Lib):
            builder = lib.StateGraph(cases_flow.Log)
            builder.add_node(name, appender(name))
            builder.add_edge(lib.START, name)
            return builder.compile()

        return graph

    langgraph = load_langgraph()
    inputs = ({"log": []},)
    a = observe(Case("a", build("a"), inputs), langgraph)
    b = observe(Case("b", build("b"), inputs), langgraph)
    assert a == observe(Case("a", build("a"), inputs), langgraph)
    assert a != b
    assert compare(TOY, a, dataclasses.replace(b, library="graphkit")) != []


def test_harness_checks_graphkit_warnings() -> None:
    oracle = _observation("langgraph", warnings=None)
    silent = _observation("graphkit", warnings=())
    warned = _observation("graphkit", warnings=("key 'nn' is not in the state schema",))
    warns = dataclasses.replace(TOY, warns=True)

    assert compare(TOY, oracle, silent) == []
    assert compare(warns, oracle, warned) == []
    assert "should have warned" in compare(warns, oracle, silent)[0]
    assert "unexpected warnings" in compare(TOY, oracle, warned)[0]


def test_updates_within_a_step_are_a_multiset() -> None:
    a, b = ("updates", {"a": {"log": ["a"]}}), ("updates", {"b": {"log": ["b"]}})
    values = ("values", {"log": ["a", "b"]})
    assert normalise_stream([a, b, values]) == normalise_stream([b, a, values])
    assert normalise_stream([a, values, b]) != normalise_stream([b, values, a])


def test_canonical_handles_unhashable_values_and_keeps_types_apart() -> None:
    assert canonical({"b": [1, {"x": {2}}], "a": ()}) == canonical({"a": (), "b": [1, {"x": {2}}]})
    assert len({canonical(v) for v in [1, 1.0, True, "1", [1], (1,), {1}]}) == 7

    @dataclasses.dataclass
    class Point:
        x: int
        tags: list

    assert canonical(Point(1, ["t"])) == "Point(x=1, tags=['t'])"
    assert canonical(cases_state.Model(x=1)) == "Model(x=1, log=[], name='anon')"
    assert canonical(Raised("KeyError")) == "raised KeyError"


def test_task_results_within_a_step_are_a_multiset() -> None:
    start = ("tasks", {"id": "x", "name": "a", "input": {}, "triggers": ()})
    a = ("tasks", {"id": "x", "name": "a", "error": None, "result": {}, "interrupts": []})
    b = ("debug", {"step": 1, "type": "task_result", "payload": {"name": "b"}})
    assert normalise_stream([start, a, b]) == normalise_stream([start, b, a])
    assert normalise_stream([a, start]) != normalise_stream([start, a])


def test_tidy_normalises_ids_namespaces_timestamps_and_errors() -> None:
    chunks = [
        (("child:1f2e",), "tasks", {"id": "1f2e", "name": "c", "input": {}, "triggers": ()}),
        ("debug", {"step": 1, "timestamp": "2025-01-01", "type": "task", "payload": {"id": "9"}}),
        ("tasks", {"id": "1f2e", "name": "c", "error": KeyError("k"), "result": {}}),
    ]
    assert tidy(chunks) == [
        (("child",), "tasks", {"id": "task-1", "name": "c", "input": {}, "triggers": ()}),
        ("debug", {"step": 1, "type": "task", "payload": {"id": "task-2"}}),
        ("tasks", {"id": "task-1", "name": "c", "error": Raised("KeyError"), "result": {}}),
    ]
    assert normalise_stream([(("child",), "values", {"n": 1})]) == ["values ('child',) {'n': 1}"]
