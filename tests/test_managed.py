"""Managed values: remaining_steps and is_last_step, computed per task."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from graphkit import END, START, GraphkitWarning, StateGraph
from graphkit.managed import IsLastStep, RemainingSteps


class State(TypedDict):
    log: Annotated[list, operator.add]
    remaining_steps: RemainingSteps
    is_last_step: IsLastStep


def agent(state):
    return {"log": [(state["remaining_steps"], state["is_last_step"])]}


def loop_until_last(state):
    return END if state["is_last_step"] else "agent"


def build(router):
    builder = StateGraph(State).add_node("agent", agent).add_edge(START, "agent")
    return builder.add_conditional_edges("agent", router).compile()


def test_remaining_steps_counts_down_to_the_recursion_limit():
    result = build(lambda s: END if s["remaining_steps"] <= 2 else "agent").invoke(
        {"log": []}, {"recursion_limit": 6}
    )
    assert result == {"log": [(5, False), (4, False), (3, False), (2, False)]}


def test_is_last_step_is_true_in_the_last_allowed_step_and_routers_see_it():
    result = build(loop_until_last).invoke({"log": []}, {"recursion_limit": 4})
    assert result == {"log": [(3, False), (2, False), (1, True)]}


def test_managed_values_are_not_channels_and_not_in_the_output():
    app = build(loop_until_last)
    assert "remaining_steps" not in app.spec.channels
    assert app.spec.output_keys == ("log",)


def test_writing_a_managed_value_is_dropped_with_a_warning():
    builder = StateGraph(State).add_node("cheat", lambda s: {"remaining_steps": 99})
    app = builder.add_edge(START, "cheat").compile()
    with pytest.warns(GraphkitWarning, match="'remaining_steps', a managed value"):
        assert app.invoke({"log": []}) == {"log": []}
