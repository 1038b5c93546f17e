"""A retried task's subgraphs resume: LangGraph marks a retry attempt's config as
resuming, so a `checkpointer=True` graph the retried node calls (it keeps its state
across calls within the parent's thread) resumes its saved run instead of taking the
new input, and so returns that run's state (found by fuzz property 9)."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS


class State(TypedDict):
    log: Annotated[list, operator.add]


def _run(lib: Lib, saver: str, run_async: bool, retried: bool) -> Any:
    inner = lib.StateGraph(State)
    inner.add_node("inner", lambda state: {"log": ["inner"]})
    inner.add_edge(lib.START, "inner")
    kept = inner.compile(checkpointer=True)
    failed: set[int] = set()

    def calls(state: State) -> dict:
        if retried and len(state["log"]) not in failed:
            failed.add(len(state["log"]))  # the first attempt at each step fails
            raise ValueError("first attempt")
        done = kept.invoke({"log": []})
        return {"log": [f"inner saw {len(done['log'])}"]}

    async def acalls(state: State) -> dict:
        return calls(state)

    policy = lib.RetryPolicy(
        max_attempts=2, initial_interval=0.0, jitter=False, retry_on=ValueError
    )
    graph = lib.StateGraph(State)
    graph.add_node("calls", acalls if run_async else calls, retry_policy=policy)
    graph.add_edge(lib.START, "calls")
    graph.add_conditional_edges(
        "calls", lambda state: "calls" if len(state["log"]) < 3 else lib.END, ["calls", lib.END]
    )
    thread = {"configurable": {"thread_id": "t"}}
    with SAVERS[saver](lib.name) as checkpointer:
        app = graph.compile(checkpointer=checkpointer)
        if run_async:
            return asyncio.run(app.ainvoke({"log": []}, thread))
        return app.invoke({"log": []}, thread)


# (LangGraph's SqliteSaver has no async methods)
@pytest.mark.parametrize(
    ("saver", "run_async"), [("memory", False), ("sqlite", False), ("memory", True)]
)
@pytest.mark.parametrize("retried", [True, False], ids=["retried", "first-attempt"])
def test_a_retried_node_resumes_the_graph_it_calls(saver, run_async, retried):
    ours = _run(load_graphkit(), saver, run_async, retried)
    assert ours == _run(load_langgraph(), saver, run_async, retried)
    # retried, the kept graph resumes its finished run; else it takes each input anew
    grows = ["inner saw 1", "inner saw 2", "inner saw 3"]
    assert ours["log"] == (["inner saw 1"] * 3 if retried else grows)
