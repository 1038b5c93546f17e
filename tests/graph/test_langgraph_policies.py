"""LangGraph's ``RetryPolicy`` handed to graphkit (an import left as it was) retries as it
does on LangGraph, wherever a policy is taken: ``add_node``, ``set_node_defaults``,
``@task``, ``@entrypoint``, the low-level ``Pregel`` and ``NodeBuilder``. LangGraph's
``CachePolicy`` already works the same way; a retry policy is data of the same fields."""

from __future__ import annotations

from typing import TypedDict

import pytest
from langgraph.types import RetryPolicy as LangGraphRetryPolicy

import graphkit
from graphkit.func import entrypoint, task
from graphkit.types import RetryPolicy


class Count(TypedDict):
    n: int


class Flaky:
    """A node that raises ``error`` on its first ``failures`` calls."""

    def __init__(self, failures: int, error: type[Exception] = ConnectionError) -> None:
        self.failures, self.error, self.calls = failures, error, 0

    def __call__(self, state: Count) -> dict[str, int]:
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error(f"call {self.calls}")
        return {"n": self.calls}


def _calls(library: object, policy: object, failures: int, error: type[Exception]) -> object:
    """How many calls the node got on ``library``'s StateGraph, or the error's class."""
    node = Flaky(failures, error)
    builder = library.StateGraph(Count)  # type: ignore[attr-defined]
    builder.add_node("fetch", node, retry_policy=policy)
    builder.add_edge(library.START, "fetch")  # type: ignore[attr-defined]
    try:
        builder.compile().invoke({"n": 0})
    except Exception as raised:
        return type(raised).__name__, node.calls
    return node.calls


def _quick(**fields: object) -> LangGraphRetryPolicy:
    return LangGraphRetryPolicy(initial_interval=0.001, jitter=False, **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("policy", "failures", "error"),
    [
        (_quick(), 2, ConnectionError),  # the default retry_on retries it
        (_quick(), 1, ValueError),  # ... and not this
        (_quick(max_attempts=2), 5, ConnectionError),  # gives up after two tries
        (_quick(retry_on=KeyError), 2, KeyError),
        ([_quick(retry_on=KeyError), _quick(max_attempts=5)], 4, ConnectionError),
    ],
    ids=["default", "not-retried", "gives-up", "own-class", "a-list"],
)
def test_langgraphs_retry_policy_in_add_node_retries_as_on_langgraph(
    policy: object, failures: int, error: type[Exception]
) -> None:
    import langgraph.graph

    ours = _calls(graphkit, policy, failures, error)
    assert ours == _calls(langgraph.graph, policy, failures, error)
    assert ours != 1 or failures < 1 or error is ValueError  # a retry happened where due


def test_langgraphs_retry_policy_becomes_graphkits_where_it_is_declared() -> None:
    builder = graphkit.StateGraph(Count).add_node("fetch", Flaky(0), retry_policy=_quick())
    app = builder.add_edge(graphkit.START, "fetch").compile()
    (policy,) = app.spec.nodes["fetch"].retry_policies
    assert type(policy) is RetryPolicy
    assert policy == RetryPolicy(initial_interval=0.001, jitter=False)  # the default retry_on


def test_langgraphs_retry_policy_as_a_node_default() -> None:
    node = Flaky(2)
    builder = graphkit.StateGraph(Count).add_node("fetch", node)
    builder.set_node_defaults(retry_policy=_quick())
    builder.add_edge(graphkit.START, "fetch").compile().invoke({"n": 0})
    assert node.calls == 3


def test_langgraphs_retry_policy_on_a_task_and_an_entrypoint() -> None:
    flaky = Flaky(2)

    @task(retry_policy=_quick())
    def fetch(n: int) -> int:
        return flaky({"n": n})["n"]

    @entrypoint()
    def main(n: int) -> int:
        return fetch(n).result()

    assert main.invoke(0) == 3
    whole = Flaky(1)

    @entrypoint(retry_policy=[_quick()])
    def retried(n: int) -> int:
        return whole({"n": n})["n"]

    assert retried.invoke(0) == 2


def test_langgraphs_retry_policy_in_the_low_level_pregel() -> None:
    from graphkit.channels import LastValue
    from graphkit.pregel import NodeBuilder, Pregel

    flaky, other = Flaky(2), Flaky(1)
    first = NodeBuilder().subscribe_only("a").do(lambda n: flaky({"n": n})["n"]).write_to("b")
    node = NodeBuilder().subscribe_only("b").do(lambda n: other({"n": n})["n"]).write_to("c")
    app = Pregel(
        nodes={"one": first, "two": node.add_retry_policies(_quick())},
        channels={"a": LastValue(int), "b": LastValue(int), "c": LastValue(int)},
        input_channels="a",
        output_channels="c",
        retry_policy=_quick(),
    )
    assert app.invoke(0) == 2
    assert (flaky.calls, other.calls) == (3, 2)


def test_a_tasks_retry_policy_that_is_no_policy_is_refused_by_name() -> None:
    with pytest.raises(TypeError, match=r"Task 'fetch': retry_policy must be a RetryPolicy"):

        @task(retry_policy=5)  # type: ignore[arg-type]
        def fetch(n: int) -> int:
            return n
