"""Small runs to try the inspection layer on (the docstring examples use them).

``counter_run()`` is the smallest run there is: START → inc. ``forecast_run()`` has
every shape a learner meets first: a router choosing two nodes, two siblings in one
step writing the same reducer key, and a waiting edge joining them.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Annotated, TypedDict

from graphkit import END, START, StateGraph

if TYPE_CHECKING:
    from graphkit.pregel.app import CompiledGraph
    from graphkit.pregel.records import Run

__all__ = ["counter_run", "forecast_graph", "forecast_run", "paused_thread", "subgraph_run"]


class Counter(TypedDict):
    n: int


def counter_run() -> Run:
    """START → inc, run from ``n=1``.

    >>> counter_run().values
    {'n': 2}
    """
    builder = StateGraph(Counter)
    builder.add_node("inc", lambda state: {"n": state["n"] + 1})
    builder.add_edge(START, "inc")
    return builder.compile().trace({"n": 1})


class Forecast(TypedDict):
    topic: str
    forecast: str
    headlines: str
    summary: str
    tokens: Annotated[int, operator.add]


def _planner(state: Forecast) -> dict:
    return {"tokens": 100}


def route(state: Forecast) -> list[str]:
    """The planner's router: ask both sources."""
    return ["weather", "news"]


def _weather(state: Forecast) -> dict:
    return {"forecast": "sunny", "tokens": 50}


def _news(state: Forecast) -> dict:
    return {"headlines": "market up", "tokens": 50}


def _summarize(state: Forecast) -> dict:
    return {"summary": f"{state['forecast']}; {state['headlines']}"}


def forecast_graph() -> CompiledGraph:
    """planner —router→ (weather ∥ news) → summarize, joined by a waiting edge."""
    builder = StateGraph(Forecast)
    builder.add_node("planner", _planner)
    builder.add_node("weather", _weather)
    builder.add_node("news", _news)
    builder.add_node("summarize", _summarize)
    builder.add_edge(START, "planner")
    builder.add_conditional_edges("planner", route, ["weather", "news"])
    builder.add_edge(["weather", "news"], "summarize")
    builder.add_edge("summarize", END)
    return builder.compile()


def forecast_run() -> Run:
    """``forecast_graph()`` run on ``{"topic": "today", "tokens": 0}``.

    >>> [superstep.plan.nodes for superstep in forecast_run().steps[2:]]
    [['planner'], ['news', 'weather'], ['summarize']]
    """
    return forecast_graph().trace({"topic": "today", "tokens": 0})


def _plan(state: Forecast) -> dict:
    return {"tokens": 1}


def _ask(state: Forecast) -> dict:
    from graphkit.pregel.runtime import interrupt

    return {"summary": interrupt("publish?")}


def paused_thread() -> tuple[CompiledGraph, dict]:
    """plan → ask, where ask waits for a human: a thread paused at an interrupt.

    >>> app, config = paused_thread()
    >>> app.get_state(config).next
    ('ask',)
    """
    from graphkit.checkpoint import InMemorySaver

    builder = StateGraph(Forecast).add_node("plan", _plan).add_node("ask", _ask)
    app = (
        builder.add_edge(START, "plan")
        .add_edge("plan", "ask")
        .compile(checkpointer=InMemorySaver())
    )
    config = {"configurable": {"thread_id": "example"}}
    app.invoke({"topic": "today", "tokens": 0}, config)
    return app, config


def subgraph_run() -> Run:
    """A node ``sub`` running a subgraph that keeps its own thread across calls
    (``compile(checkpointer=True)``), in a thread of an in-memory saver.

    >>> subgraph_run().steps[-1].execution.results[0].subruns[0].values
    {'n': 2}
    """
    from graphkit.checkpoint import InMemorySaver

    inner = StateGraph(Counter).add_node("inc", lambda state: {"n": state["n"] + 1})
    sub = inner.add_edge(START, "inc").compile(checkpointer=True)
    outer = StateGraph(Counter).add_node("sub", sub).add_edge(START, "sub")
    app = outer.compile(checkpointer=InMemorySaver())
    return app.trace({"n": 1}, {"configurable": {"thread_id": "example"}})
