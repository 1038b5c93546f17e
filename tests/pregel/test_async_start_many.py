"""A step's async tasks start in plan order (``graphkit.pregel.start_turns``) without
ever waiting for a task no thread runs: more tasks than the shared pool has threads,
a subgraph's async step inside a parent step that holds many threads, a
``max_concurrency`` and retries all finish, traced too (a run with callbacks, whose
nodes also wait for every planned task's start report). Each run has a hard time limit,
so a deadlock fails the test instead of hanging the suite."""

from __future__ import annotations

import asyncio
import operator
import threading
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.callbacks import BaseCallbackHandler

from graphkit import END, START, RetryPolicy, Send, StateGraph
from tests.pregel.deadlines import within_limit

LIMIT = 120.0  # seconds: generous; these runs take well under one


class State(TypedDict, total=False):
    xs: Annotated[list, operator.add]
    i: int


class Flaky(Exception):
    """Retried by the default ``retry_on`` (a ValueError is not)."""


def _fan_out(sends: int, work: Any, **node_options: Any) -> Any:
    graph = StateGraph(State)
    graph.add_node("work", work, **node_options)
    graph.add_conditional_edges(START, lambda s: [Send("work", {"i": i}) for i in range(sends)])
    graph.add_edge("work", END)
    return graph.compile()


async def _work(state: State) -> State:
    await asyncio.sleep(0)
    return {"xs": [state["i"]]}


TRACED = pytest.mark.parametrize("traced", [False, True], ids=["untraced", "traced"])


def _config(traced: bool, **config: Any) -> Any:
    """The run's config: with a callback handler when ``traced``."""
    return {**config, "callbacks": [BaseCallbackHandler()]} if traced else config or None


def _run(app: Any, how: str, config: Any = None) -> list[int]:
    """The run's ``xs``, by ``how``: ``ainvoke``, ``trace`` or ``atrace``."""
    if how == "ainvoke":
        return asyncio.run(app.ainvoke({"xs": []}, config))["xs"]
    if how == "trace":
        return app.trace({"xs": []}, config).values["xs"]
    return asyncio.run(app.atrace({"xs": []}, config)).values["xs"]


@TRACED
@pytest.mark.parametrize("how", ["ainvoke", "trace", "atrace"])
def test_300_async_sends_finish(how: str, traced: bool) -> None:
    app = _fan_out(300, _work)
    got = within_limit(lambda: _run(app, how, _config(traced)), LIMIT)
    assert sorted(got) == list(range(300))


@TRACED
@pytest.mark.parametrize("how", ["ainvoke", "trace", "atrace"])
def test_a_subgraphs_async_step_inside_a_parent_step_of_many_async_tasks(
    how: str, traced: bool
) -> None:
    """40 parent tasks hold pool threads while each one's subgraph runs a step of three
    async tasks: 160 tasks at once on a pool of 64 threads."""
    inner = StateGraph(State)
    for name in "abc":
        inner.add_node(name, _work)
        inner.add_edge(START, name)
    sub = inner.compile()

    async def parent_node(state: State) -> State:
        done = await sub.ainvoke({"xs": [], "i": state["i"]})
        return {"xs": done["xs"]}

    app = _fan_out(40, parent_node)
    got = within_limit(lambda: _run(app, how, _config(traced)), LIMIT)
    assert sorted(got) == sorted(list(range(40)) * 3)


@pytest.mark.parametrize("how", ["ainvoke", "trace", "atrace"])
def test_a_compiled_subgraph_node_inside_many_async_tasks(how: str) -> None:
    inner = StateGraph(State)
    for name in "abc":
        inner.add_node(name, _work)
        inner.add_edge(START, name)
    graph = StateGraph(State)
    graph.add_node("sub", inner.compile())
    graph.add_node("work", _work)
    sends = [Send("work", {"i": i}) for i in range(60)]
    graph.add_conditional_edges(START, lambda s: [*sends, Send("sub", {"i": 99})])
    app = graph.compile()
    got = within_limit(lambda: _run(app, how), LIMIT)
    assert sorted(got) == sorted([*range(60), 99, 99, 99])


@TRACED
@pytest.mark.parametrize("how", ["ainvoke", "trace", "atrace"])
def test_max_concurrency_2_with_10_async_sends(how: str, traced: bool) -> None:
    app = _fan_out(10, _work)
    got = within_limit(lambda: _run(app, how, _config(traced, max_concurrency=2)), LIMIT)
    assert sorted(got) == list(range(10))


@TRACED
@pytest.mark.parametrize("failing", ["one", "all"])
def test_retries_start_a_bounded_number_of_threads(failing: str, traced: bool) -> None:
    """A retry that waits for first attempts still queued starts one thread that runs
    them in turn, not a thread each: one retry among 300 ``Send``s started ~236."""
    failed: set[int] = set() if failing == "all" else set(range(1, 300))
    seen: set[str] = set()

    async def flaky(state: State) -> State:
        seen.update(str(t.ident) for t in threading.enumerate() if t.name == "graphkit-turn")
        if state["i"] not in failed:
            failed.add(state["i"])
            raise Flaky("fails once")
        return {"xs": [state["i"]]}

    retry = RetryPolicy(max_attempts=2, initial_interval=0.0, jitter=False)
    app = _fan_out(300, flaky, retry_policy=retry)
    got = within_limit(lambda: _run(app, "ainvoke", _config(traced)), LIMIT)
    assert sorted(got) == list(range(300))
    assert len(seen) <= 16
