"""A compiled graph composed as a LangChain Runnable, on both libraries: ``graph |
runnable`` makes a sequence that runs the graph as its first step (sync, async, batch),
and ``graph.with_retry(...)`` runs the whole graph again when it
raises, as LangChain's ``RunnableRetry`` does."""

import asyncio
from typing import Any, TypedDict

import pytest
from langchain_core.runnables import RunnableLambda

from .harness import Lib, load_graphkit, load_langgraph

LIBS = [load_langgraph, load_graphkit]


class Count(TypedDict):
    n: int


def _adding(lib: Lib) -> Any:
    graph = lib.StateGraph(Count).add_node("add", lambda state: {"n": state["n"] + 1})
    return graph.add_edge(lib.START, "add").compile()


def test_a_graph_piped_into_a_runnable_runs_as_the_first_step():
    seen = []
    for loader in LIBS:
        app = _adding(loader())
        after = app | RunnableLambda(lambda output: output["n"] * 10)
        seen.append(
            (
                after.invoke({"n": 1}),
                asyncio.run(after.ainvoke({"n": 2})),
                after.batch([{"n": 3}, {"n": 4}]),
                type(after).__name__,
            )
        )
    assert seen[1] == seen[0] == (20, 30, [40, 50], "RunnableSequence")


def test_with_retry_runs_the_graph_again_after_an_error():
    seen = []
    for loader in LIBS:
        lib = loader()
        calls = []

        def flaky(state: Count, calls: list = calls) -> dict[str, Any]:
            calls.append(state["n"])
            if len(calls) < 2:
                raise ConnectionError("try again")
            return {"n": state["n"] + 1}

        app = lib.StateGraph(Count).add_node("flaky", flaky).add_edge(lib.START, "flaky").compile()
        retrying = app.with_retry(stop_after_attempt=3, wait_exponential_jitter=False)
        output = retrying.invoke({"n": 1})
        with pytest.raises(ConnectionError):
            calls.clear()
            app.with_retry(stop_after_attempt=1).invoke({"n": 1})
        seen.append((output, len(calls)))
    assert seen[1] == seen[0] == ({"n": 2}, 1)


def test_a_function_or_a_dict_piped_into_a_graph_runs_it_as_the_last_step():
    """``function | graph`` and ``{key: function} | graph``: Python asks the graph, as a
    function and a dict have no ``|`` for it; graphkit's graph had no ``__ror__`` and
    Python raised "unsupported operand type(s) for |" where LangGraph runs the sequence
    (and a function's error is raised as the function's)."""

    def broken(value: Any) -> Any:
        raise RuntimeError("before the graph")

    seen = []
    for loader in LIBS:
        app = _adding(loader())
        called = (lambda value: {"n": value}) | app
        mapped = {"n": lambda value: value * 2} | app
        with pytest.raises(RuntimeError, match="before the graph"):
            (broken | app).invoke(1)
        seen.append(
            (
                called.invoke(1),
                list(called.stream(2)),
                asyncio.run(mapped.ainvoke(3)),
                mapped.batch([4, 5]),
                type(called).__name__,
            )
        )
    assert seen[1] == seen[0]
    assert seen[1] == (
        {"n": 2},
        [{"add": {"n": 3}}],
        {"n": 7},
        [{"n": 9}, {"n": 11}],
        "RunnableSequence",
    )
