"""defer=True: a node that waits until nothing else is left to run."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from graphkit import START, StateGraph


class State(TypedDict):
    log: Annotated[list, operator.add]


def appender(name):
    return lambda state: {"log": [name]}


def test_a_deferred_node_runs_after_the_longest_branch():
    builder = StateGraph(State)
    for name in ("a", "b", "b2", "b3"):
        builder.add_node(name, appender(name))
    builder.add_node("final", appender("final"), defer=True)
    builder.add_edge(START, "a").add_edge(START, "b").add_edge("b", "b2").add_edge("b2", "b3")
    builder.add_edge("a", "final").add_edge("b3", "final")
    run = builder.compile().trace({"log": []})
    assert [s.plan.nodes for s in run.steps[2:]] == [["a", "b"], ["b2"], ["b3"], ["final"]]
    # written in step 1 by a, held back until the run would otherwise have ended
    held = run.step(1).update.change("branch:to:final")
    assert held.writers == ("a",) and "branch:to:final" not in run.step(1).update.updated_channels
    released = run.step(3).update.change("branch:to:final")
    assert released.after == (None, True) and released.writers == ("b3",)
    assert run.values["log"] == ["a", "b", "b2", "b3", "final"]


def test_a_waiting_edge_into_a_deferred_node_waits_for_the_end_too():
    builder = StateGraph(State)
    for name in ("a", "b", "b2"):
        builder.add_node(name, appender(name))
    builder.add_node("final", appender("final"), defer=True)
    builder.add_edge(START, "a").add_edge(START, "b").add_edge("b", "b2")
    builder.add_edge(["a", "b2"], "final")
    assert builder.compile().invoke({"log": []})["log"] == ["a", "b", "b2", "final"]
