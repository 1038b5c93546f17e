"""Retries: a node's RetryPolicy re-runs a failing task, and the records show it."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from graphkit import START, RetryPolicy, StateGraph


class State(TypedDict):
    log: Annotated[list, operator.add]


NO_WAIT = {"initial_interval": 0.0, "jitter": False}


def flaky(failures: list[Exception]):
    """A node that raises the given errors in turn, then succeeds."""
    remaining = list(failures)

    def node(state):
        if remaining:
            raise remaining.pop(0)
        return {"log": ["ok"]}

    return node


def run_with(policy, failures):
    builder = StateGraph(State).add_node("flaky", flaky(failures), retry_policy=policy)
    return builder.add_edge(START, "flaky").compile().trace({"log": []})


def test_a_retried_task_records_its_attempts_and_their_errors():
    errors = [ConnectionError("down"), ConnectionError("still down")]
    run = run_with(RetryPolicy(max_attempts=3, **NO_WAIT), errors)
    result = run.step(1).execution.results[0]
    assert (result.attempts, result.error, result.writes) == (3, None, (("log", ["ok"]),))
    assert [str(e) for e in result.failed_attempts] == ["down", "still down"]
    assert run.values == {"log": ["ok"]}


def test_giving_up_after_max_attempts_raises_the_last_error():
    errors = [ConnectionError("1"), ConnectionError("2"), ConnectionError("3")]
    with pytest.raises(ConnectionError, match="2") as error:
        run_with(RetryPolicy(max_attempts=2, **NO_WAIT), errors)
    result = error.value.run.steps[-1].execution.results[0]
    assert result.attempts == 2 and [str(e) for e in result.failed_attempts] == ["1"]


@pytest.mark.parametrize("error", [ValueError("v"), KeyError("k"), RuntimeError("r"), OSError("o")])
def test_the_default_retry_on_does_not_retry_programming_errors(error):
    with pytest.raises(type(error)) as raised:
        run_with(RetryPolicy(**NO_WAIT), [error])
    assert raised.value.run.steps[-1].execution.results[0].attempts == 1


def test_retry_on_an_exception_class_or_a_predicate():
    run = run_with(RetryPolicy(retry_on=KeyError, **NO_WAIT), [KeyError("k")])
    assert run.step(1).execution.results[0].attempts == 2
    run = run_with(
        RetryPolicy(retry_on=lambda e: "again" in str(e), **NO_WAIT), [ValueError("again")]
    )
    assert run.step(1).execution.results[0].attempts == 2


def test_the_first_matching_policy_of_a_list_decides():
    policies = [
        RetryPolicy(retry_on=KeyError, max_attempts=1, **NO_WAIT),
        RetryPolicy(retry_on=Exception, **NO_WAIT),
    ]
    with pytest.raises(KeyError):
        run_with(policies, [KeyError("k")])
    run = run_with(policies, [ValueError("v")])
    assert run.step(1).execution.results[0].attempts == 2


def test_backoff_intervals_follow_langgraph():
    policy = RetryPolicy(initial_interval=0.5, backoff_factor=2.0, max_interval=1.5, jitter=False)
    assert [policy.interval(attempt) for attempt in (2, 3, 4)] == [0.5, 1.0, 1.5]
