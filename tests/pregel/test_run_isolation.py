"""Runs of one compiled graph share nothing mutable: each starts from its own empty
channels, even when a reducer or a node changes a value in place."""

from __future__ import annotations

from typing import Annotated, TypedDict

from graphkit import END, START, StateGraph


def extend_in_place(left: list, right: list) -> list:
    left.extend(right)  # a reducer that mutates its left side (common in user code)
    return left


class State(TypedDict):
    log: Annotated[list, extend_in_place]


def test_an_in_place_reducer_does_not_leak_into_the_next_run():
    builder = StateGraph(State)
    builder.add_node("a", lambda state: {"log": ["a"]})
    app = builder.add_edge(START, "a").add_edge("a", END).compile()
    results = [app.invoke({"log": [first]}) for first in "xyz"]
    assert results == [{"log": ["x", "a"]}, {"log": ["y", "a"]}, {"log": ["z", "a"]}]


def test_a_node_appending_to_its_input_does_not_leak_into_the_graph():
    class Plain(TypedDict):
        log: Annotated[list, lambda left, right: left + right]

    def appends(state: Plain) -> dict:
        state["log"].append("seen")  # mutates the state it was handed
        return {}

    builder = StateGraph(Plain).add_node("a", appends)
    app = builder.add_edge(START, "a").compile()
    app.invoke({"log": []})
    second = app.invoke({"log": []})
    assert second == {"log": ["seen"]}  # only this run's append
    assert app.spec.empty_channels["log"].get() == []


def test_a_long_run_and_its_records_pickle():
    import pickle

    class Counter(TypedDict):
        n: int

    builder = StateGraph(Counter).add_node("spin", lambda state: {"n": state["n"] + 1})
    builder.add_edge(START, "spin").add_conditional_edges(
        "spin", lambda state: "spin" if state["n"] < 40 else END
    )
    run = builder.compile().trace({"n": 0})
    copy = pickle.loads(pickle.dumps(run))
    assert copy.values == {"n": 40} and len(copy.steps) == len(run.steps)
    assert dict(copy.steps[-1].checkpoint.channel_values) == dict(
        run.steps[-1].checkpoint.channel_values
    )
