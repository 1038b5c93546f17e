"""Behaviours LangGraph's ``test_large_cases_async.py`` and ``test_subgraph_persistence_async.py``
pin, run on both libraries: a differential hunt through those files found each of these
different on graphkit. Each program is written for this file; none is LangGraph's code."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
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


class _RunTree(BaseCallbackHandler):
    """Each chain run as it starts: its name and tags, indented by its depth."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depths: dict[Any, int] = {}

    def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, **kwargs):
        depth = self.depths[run_id] = self.depths.get(parent_run_id, -1) + 1
        self.lines.append("  " * depth + f"{kwargs.get('name')} {sorted(kwargs.get('tags') or [])}")


def _a_chain_node_program(side: str, run: str) -> list[str]:
    """LangGraph's conditional-graph test adds ``prompt | llm | parser`` as a node; a
    tracer sees the chain's steps inside the node's run, then the node's router."""
    StateGraph, START = state_graph(side)
    end = "__end__"
    chain = RunnableLambda(lambda state: state["question"], name="pick") | RunnableLambda(
        lambda question: {"answer": question.upper()}, name="shout"
    )

    def done(state: State) -> str:
        return end

    builder = StateGraph(State).add_node("respond", chain).add_edge(START, "respond")
    app = builder.add_conditional_edges("respond", done).compile()
    tree = _RunTree()
    given, config = {"question": "why?", "log": []}, {"callbacks": [tree]}
    if run == "invoke":
        app.invoke(given, config)
    else:
        asyncio.run(app.ainvoke(given, config))
    return tree.lines


@pytest.mark.parametrize("run", ["invoke", "ainvoke"])
def test_a_chain_as_a_node_is_traced_as_its_steps(run):
    """LangGraph runs a ``RunnableSequence`` node's steps in the node's own sequence
    (``seq:step:1``, ``seq:step:2``, the router after them); graphkit traced a
    ``RunnableSequence`` run around the steps and tagged the router ``seq:step:3``."""
    expected, actual = (_a_chain_node_program(side, run) for side in SIDES)
    assert actual == expected
    assert expected[2:] == [
        "    pick ['seq:step:1']",
        "    shout ['seq:step:2']",
        "    done ['seq:step:4']",
    ]


def _names_of_unnamed_runnables(side: str) -> list[Any]:
    StateGraph, _ = state_graph(side)

    def shout(state: State) -> dict:
        return {"answer": state["question"].upper()}

    actions = [
        RunnableLambda(shout).with_retry(),
        RunnableLambda(shout).with_config(tags=["loud"]),
        {"answer": RunnablePick("question")},
        RunnableLambda(shout) | RunnableLambda(shout),
    ]
    names = []
    for action in actions:
        try:
            names.append(list(StateGraph(State).add_node(action).nodes))
        except (TypeError, ValueError) as error:
            names.append(type(error).__name__)
    return names


def test_a_runnable_added_without_a_name_is_named_as_langgraph_names_it():
    """LangGraph names an unnamed Runnable node by its ``get_name()``: a ``with_retry()``
    or ``with_config()`` after the function it wraps; graphkit took the wrapper's class
    name (``RunnableRetry``, ``RunnableBinding``), so an edge to "shout" found no node."""
    expected, actual = (_names_of_unnamed_runnables(side) for side in SIDES)
    assert actual == expected
    assert expected[:2] == [["shout"], ["shout"]]
