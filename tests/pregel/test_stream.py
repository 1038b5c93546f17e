"""Stream payloads (tasks, debug, custom) built from the records, in LangGraph's shapes."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from graphkit import START, Send, StateGraph, get_stream_writer


class State(TypedDict):
    log: Annotated[list, operator.add]


def reporter(state):
    get_stream_writer()({"progress": len(state["log"])})
    return {"log": ["a"]}


def with_writer(state, writer):
    writer("from b")
    return {"log": ["b"]}


def two_steps():
    builder = StateGraph(State).add_node("a", reporter, metadata={"team": "x"})
    builder.add_node("b", with_writer).add_edge(START, "a").add_edge("a", "b")
    return builder.compile()


def test_task_ids_differ_between_steps_and_between_unsaved_runs():
    # as in LangGraph: an unsaved run's checkpoints hold no values, but the ids its task
    # ids are hashed from are still new each step and each run
    builder = StateGraph(State).add_node("a", lambda state: {"log": ["a"]})
    builder.add_conditional_edges("a", lambda state: "a" if len(state["log"]) < 3 else "__end__")
    app = builder.add_edge(START, "a").compile()

    def ids():
        return [c["id"] for c in app.stream({"log": []}, stream_mode="tasks") if "input" in c]

    first, second = ids(), ids()
    assert len(first) == len(set(first)) == 3
    assert set(first).isdisjoint(second)


def test_tasks_stream_has_a_start_and_a_result_payload_per_task():
    chunks = list(two_steps().stream({"log": []}, stream_mode="tasks"))
    start, result = chunks[0], chunks[1]
    assert set(start) == {"id", "name", "input", "triggers", "metadata"}
    assert (start["name"], start["input"], start["triggers"]) == (
        "a",
        {"log": []},
        ("branch:to:a",),
    )
    assert start["metadata"] == {"team": "x"}
    assert result == {
        "id": start["id"],
        "name": "a",
        "error": None,
        "result": {"log": ["a"]},
        "interrupts": [],
    }
    assert [c["name"] for c in chunks] == ["a", "a", "b", "b"]


def test_debug_events_wrap_the_payloads_with_step_timestamp_and_type():
    events = list(two_steps().stream({"log": []}, stream_mode="debug"))
    assert [(e["step"], e["type"], e["payload"]["name"]) for e in events] == [
        (1, "task", "a"),
        (1, "task_result", "a"),
        (2, "task", "b"),
        (2, "task_result", "b"),
    ]
    assert events[0]["timestamp"].endswith("+00:00")


def test_custom_chunks_come_from_get_stream_writer_and_the_writer_parameter():
    chunks = list(two_steps().stream({"log": []}, stream_mode=["custom", "updates"]))
    assert chunks == [
        ("custom", {"progress": 0}),
        ("updates", {"a": {"log": ["a"]}}),
        ("custom", "from b"),
        ("updates", {"b": {"log": ["b"]}}),
    ]


def test_without_custom_mode_the_writer_discards_chunks():
    assert two_steps().invoke({"log": []}) == {"log": ["a", "b"]}


def test_checkpoints_stream_is_empty_without_a_checkpointer_as_in_langgraph():
    assert list(two_steps().stream({"log": []}, stream_mode="checkpoints")) == []


def test_push_tasks_report_the_push_trigger_and_their_send_argument():
    builder = StateGraph(State).add_node("split", lambda s: {"log": ["split"]})
    builder.add_node("work", lambda n: {"log": [n]}).add_edge(START, "split")
    builder.add_conditional_edges("split", lambda s: [Send("work", 1), Send("work", 2)])
    starts = [c for c in builder.compile().stream({"log": []}, stream_mode="tasks") if "input" in c]
    assert [(c["name"], c["triggers"], c["input"]) for c in starts[1:]] == [
        ("work", ("__pregel_push",), 1),
        ("work", ("__pregel_push",), 2),
    ]


def test_a_failed_task_reports_its_error_before_the_run_raises():
    def boom(state):
        raise ValueError("bad")

    builder = StateGraph(State).add_node("boom", boom).add_edge(START, "boom")
    chunks = []
    with pytest.raises(ValueError, match="bad"):
        for chunk in builder.compile().stream({"log": []}, stream_mode="tasks"):
            chunks.append(chunk)
    assert isinstance(chunks[-1]["error"], ValueError) and chunks[-1]["result"] == {}


def test_two_writes_to_one_key_fold_into_dollar_writes():
    from graphkit import Command

    builder = StateGraph(State).add_node(
        "twice", lambda s: [Command(update={"log": [1]}), Command(update={"log": [2]})]
    )
    chunks = list(
        builder.add_edge(START, "twice").compile().stream({"log": []}, stream_mode="tasks")
    )
    assert chunks[-1]["result"] == {"log": {"$writes": [[1], [2]]}}


def test_print_mode_prints_chunks_without_yielding_them(capsys):
    assert two_steps().invoke({"log": []}, print_mode="updates") == {"log": ["a", "b"]}
    assert capsys.readouterr().out == (
        "\x1b[1m[updates]\x1b[0m {'a': {'log': ['a']}}\n"
        "\x1b[1m[updates]\x1b[0m {'b': {'log': ['b']}}\n"
    )


def test_compile_debug_prints_updates_and_values(capsys):
    builder = StateGraph(State).add_node("a", lambda s: {"log": ["a"]}).add_edge(START, "a")
    builder.compile(debug=True).invoke({"log": []})
    assert capsys.readouterr().out.splitlines() == [
        "\x1b[1m[values]\x1b[0m {'log': []}",
        "\x1b[1m[updates]\x1b[0m {'a': {'log': ['a']}}",
        "\x1b[1m[values]\x1b[0m {'log': ['a']}",
    ]


def test_checkpoints_stream_reports_each_saved_checkpoint_and_what_runs_next():
    from graphkit import InMemorySaver

    builder = StateGraph(State).add_node("a", lambda s: {"log": ["a"]}).add_edge(START, "a")
    app = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "1"}}
    chunks = list(app.stream({"log": []}, config, stream_mode="checkpoints"))
    assert [(c["metadata"]["source"], c["metadata"]["step"], c["next"]) for c in chunks] == [
        ("input", -1, ["__start__"]),
        ("loop", 0, ["a"]),
        ("loop", 1, []),
    ]
    assert chunks[0]["parent_config"] is None
    assert chunks[1]["parent_config"] == chunks[0]["config"]
    assert chunks[-1]["values"] == {"log": ["a"]} and chunks[1]["tasks"][0]["name"] == "a"
    debug = [
        e
        for e in app.stream({"log": []}, {"configurable": {"thread_id": "2"}}, stream_mode="debug")
    ]
    assert [e["type"] for e in debug] == [
        "checkpoint",
        "checkpoint",
        "task",
        "task_result",
        "checkpoint",
    ]


def test_a_root_stream_keeps_no_supersteps_but_a_run_inside_a_traced_task_does():
    from graphkit.streaming.run import open_stream

    root = open_stream(two_steps(), {"log": []}, None, stream_mode="values")
    assert list(root.chunks())[-1] == {"log": ["a", "b"]}
    assert root.stepper.run_so_far.steps == ()  # nobody could read them: memory stays flat

    inner = two_steps()
    outer = StateGraph(State).add_node("call", lambda state: inner.invoke({"log": []}))
    outer = outer.add_edge(START, "call").compile()
    run = outer.trace({"log": []})
    (subrun,) = run.step(1).execution.results[0].subruns
    assert [step.plan.nodes for step in subrun.steps][1:] == [["__start__"], ["a"], ["b"]]


def test_a_graph_run_inside_a_root_invoke_keeps_no_supersteps_either():
    from graphkit.pregel.runtime import current_scope

    inner, kept = two_steps(), []

    def call(state):
        inner.invoke({"log": []})
        kept.append(len(current_scope().subruns))  # the runs this task holds for its records
        return {}

    outer = StateGraph(State).add_node("call", call).add_edge(START, "call").compile()
    outer.invoke({"log": []})
    outer.trace({"log": []})
    assert kept == [0, 1]  # nobody reads them under invoke; trace shows them


def test_modes_given_as_a_tuple_are_labelled_as_a_list_is():
    """LangGraph labels only a list's chunks; a tuple of modes gets unlabelled chunks of
    several kinds, which nobody could tell apart: graphkit labels them (compatibility.md,
    "Differs on purpose")."""

    class One(TypedDict):
        n: int

    app = StateGraph(One).add_node("a", lambda state: {"n": 1}).add_edge(START, "a").compile()
    as_tuple = list(app.stream({"n": 0}, stream_mode=("updates", "values")))
    assert as_tuple == list(app.stream({"n": 0}, stream_mode=["updates", "values"]))
    assert as_tuple == [("values", {"n": 0}), ("updates", {"a": {"n": 1}}), ("values", {"n": 1})]
