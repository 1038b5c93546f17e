"""Subgraphs: a compiled graph as a node, or invoked inside a node, nested in the records."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from graphkit import START, Command, ParentCommand, StateGraph


class Parent(TypedDict):
    log: Annotated[list, operator.add]
    x: int


class Child(TypedDict):
    log: Annotated[list, operator.add]
    inner: str


def child_graph():
    builder = StateGraph(Child)
    builder.add_node("s1", lambda s: {"log": ["s1"], "inner": "private"})
    builder.add_node("s2", lambda s: {"log": ["s2"]})
    return builder.add_edge(START, "s1").add_edge("s1", "s2").compile()


def parent_graph(child=None):
    child = child or child_graph()

    def calls(state):
        return {"x": len(child.invoke({"log": ["manual"]})["log"])}

    builder = StateGraph(Parent).add_node("a", lambda s: {"log": ["a"]})
    builder.add_node("sub", child).add_node("calls", calls)
    return builder.add_edge(START, "a").add_edge("a", "sub").add_edge("sub", "calls").compile()


def test_subgraph_output_goes_back_through_the_parents_reducers():
    # the child starts from the parent's log ['a'] and returns ['a', 's1', 's2'];
    # the parent's reducer appends that whole list: 'a' appears twice, as in LangGraph
    assert parent_graph().invoke({"log": [], "x": 0}) == {"log": ["a", "a", "s1", "s2"], "x": 3}


def test_subgraph_runs_are_nested_in_the_task_that_ran_them():
    run = parent_graph().trace({"log": [], "x": 0})
    (sub_result,) = run.step(2).execution.results
    (subrun,) = sub_result.subruns
    assert subrun.namespace == (f"sub:{sub_result.task.id}",)
    assert [s.plan.nodes for s in subrun.steps] == [["__input__"], ["__start__"], ["s1"], ["s2"]]
    assert subrun.values == {"log": ["a", "s1", "s2"], "inner": "private"}
    (manual,) = run.step(3).execution.results[0].subruns  # invoked inside a node function
    assert manual.values["log"] == ["manual", "s1", "s2"]


def test_stream_with_subgraphs_prefixes_chunks_with_their_namespace():
    chunks = list(parent_graph().stream({"log": [], "x": 0}, stream_mode="updates", subgraphs=True))
    shape = [(tuple(part.split(":")[0] for part in ns), next(iter(chunk))) for ns, chunk in chunks]
    assert shape == [
        ((), "a"),
        (("sub",), "s1"),
        (("sub",), "s2"),
        ((), "sub"),
        (("calls",), "s1"),
        (("calls",), "s2"),
        ((), "calls"),
    ]


def test_without_subgraphs_only_the_parents_chunks_are_streamed():
    chunks = list(parent_graph().stream({"log": [], "x": 0}, stream_mode=["updates"]))
    assert [next(iter(chunk)) for _, chunk in chunks] == ["a", "sub", "calls"]


def test_two_levels_of_nesting_give_two_part_namespaces():
    outer = (
        StateGraph(Parent).add_node("middle", parent_graph()).add_edge(START, "middle").compile()
    )
    chunks = list(outer.stream({"log": [], "x": 0}, stream_mode="updates", subgraphs=True))
    namespaces = {tuple(part.split(":")[0] for part in ns) for ns, _ in chunks}
    assert namespaces == {(), ("middle",), ("middle", "sub"), ("middle", "calls")}


def test_command_parent_routes_the_parent_graph():
    child = StateGraph(Child)
    child.add_node(
        "jump", lambda s: Command(graph=Command.PARENT, goto="target", update={"log": ["jumped"]})
    )
    child = child.add_edge(START, "jump").compile()
    builder = StateGraph(Parent).add_node("sub", child, destinations=("target",))
    builder.add_node("target", lambda s: {"log": ["target"]}).add_edge(START, "sub")
    run = builder.compile().trace({"log": [], "x": 0})
    assert run.values == {"log": ["jumped", "target"], "x": 0}
    assert run.step(1).execution.results[0].subruns[0].status == "error"  # the child stopped there


def test_command_parent_at_the_root_is_a_clear_error():
    builder = StateGraph(Child).add_node("jump", lambda s: Command(graph=Command.PARENT, goto="x"))
    with pytest.raises(ParentCommand, match="not running as a subgraph"):
        builder.add_edge(START, "jump").compile().invoke({"log": []})


def test_a_failing_subgraph_fails_the_parent_task_and_keeps_the_partial_subrun():
    def boom(state):
        raise KeyError("deep")

    child = StateGraph(Child).add_node("boom", boom).add_edge(START, "boom").compile()
    app = StateGraph(Parent).add_node("sub", child).add_edge(START, "sub").compile()
    with pytest.raises(KeyError, match="deep") as error:
        app.trace({"log": [], "x": 0})
    failed = error.value.run.steps[-1].execution.results[0]
    assert failed.subruns[0].status == "error" and failed.subruns[0].steps[-1].plan.nodes == [
        "boom"
    ]
