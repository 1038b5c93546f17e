"""Behaviours LangGraph's ``test_large_cases_async.py`` and ``test_subgraph_persistence_async.py``
pin, run on both libraries: a differential hunt through those files found each of these
different on graphkit. Each program is written for this file; none is LangGraph's code."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any

import pytest
from langchain_core.runnables import RunnableLambda, RunnablePick
from typing_extensions import TypedDict

SIDES = ("langgraph", "graphkit")


class State(TypedDict):
    question: str
    answer: str
    log: Annotated[list[str], operator.add]


def state_graph(side: str) -> Any:
    if side == "langgraph":
        from langgraph.graph import START, StateGraph
    else:
        from graphkit import START, StateGraph
    return StateGraph, START


async def _shout(question: str) -> str:
    return question.upper()


def _a_dict_node_program(side: str, run: str) -> Any:
    """LangGraph's packets test writes ``add_node("agent", {"messages": pick | model})``:
    a dict of runnables, each run on the state, their results the node's update."""
    StateGraph, START = state_graph(side)
    builder = StateGraph(State)
    builder.add_node(
        "respond",
        {
            "answer": RunnablePick("question") | RunnableLambda(str.upper, afunc=_shout),
            "log": lambda state: [f"answered {state['question']!r}"],
        },
    )
    builder.add_edge(START, "respond")
    app = builder.compile()
    given = {"question": "why?", "log": []}
    if run == "invoke":
        return app.invoke(given), list(app.stream(given))

    async def run_async() -> Any:
        return await app.ainvoke(given), [chunk async for chunk in app.astream(given)]

    return asyncio.run(run_async())


@pytest.mark.parametrize("run", ["invoke", "ainvoke"])
def test_a_dict_as_a_node_runs_each_value_on_the_state(run):
    """A dict given as a node's action is LangChain's ``RunnableParallel`` in LangGraph;
    graphkit refused it as "expected a function or an object with .invoke()"."""
    expected, actual = (_a_dict_node_program(side, run) for side in SIDES)
    assert actual == expected
    assert expected[0] == {"question": "why?", "answer": "WHY?", "log": ["answered 'why?'"]}
