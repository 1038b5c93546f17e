"""Solutions to lesson 04, "Routing, fan-out and fan-in".

>>> from graphkit.course import lesson04
>>> bool(lesson04.check_router(build_triage)), bool(lesson04.check_fan_in(build_fan_in))
(True, True)
>>> bool(lesson04.check_predicted_steps(PREDICTED))
True
"""

import operator
from typing import Annotated, TypedDict

from graphkit import END, START, StateGraph

__all__ = ["PREDICTED", "build_fan_in", "build_fan_in_deferred", "build_triage", "route"]


# 4.1 · Route with a path map.
class Ticket(TypedDict):
    message: str
    handled_by: Annotated[list, operator.add]


def triage(state: Ticket) -> dict:
    return {"handled_by": ["triage"]}


def handler(name: str):
    def handle(state: Ticket) -> dict:
        return {"handled_by": [name]}

    return handle


def route(state: Ticket) -> str:
    """Return a key of the path map, not a node name."""
    message = state["message"]
    if not message:
        return "empty"
    if "refund" in message:
        return "money"
    if "error" in message:
        return "crash"
    return "other"


def build_triage() -> StateGraph:
    builder = StateGraph(Ticket)
    builder.add_node("triage", triage)
    for name in ("refund", "bug", "human"):
        builder.add_node(name, handler(name))
        builder.add_edge(name, END)
    builder.add_edge(START, "triage")
    builder.add_conditional_edges(
        "triage", route, {"money": "refund", "crash": "bug", "other": "human", "empty": END}
    )
    return builder


# 4.2 · Fan in exactly once: a waiting edge (or defer=True, below).
class Desk(TypedDict):
    city: str
    forecast: str
    headlines: Annotated[list, operator.add]
    summaries: Annotated[list, operator.add]


def fetch(state: Desk) -> dict:
    return {}


def weather(state: Desk) -> dict:
    return {"forecast": f"sun in {state['city']}"}


def news_1(state: Desk) -> dict:
    return {"headlines": ["bridge opens"]}


def news_2(state: Desk) -> dict:
    return {"headlines": ["market up"]}


def summarize(state: Desk) -> dict:
    forecast = state.get("forecast", "no forecast")
    return {"summaries": [f"{forecast}; {', '.join(state['headlines'])}"]}


def _desk(defer: bool = False) -> StateGraph:
    builder = StateGraph(Desk)
    for node in (fetch, weather, news_1, news_2):
        builder.add_node(node.__name__, node)
    builder.add_node("summarize", summarize, defer=defer)
    builder.add_edge(START, "fetch")
    builder.add_edge("fetch", "weather")
    builder.add_edge("fetch", "news_1")
    builder.add_edge("news_1", "news_2")
    builder.add_edge("summarize", END)
    return builder


def build_fan_in() -> StateGraph:
    builder = _desk()
    builder.add_edge(["weather", "news_2"], "summarize")
    return builder


def build_fan_in_deferred() -> StateGraph:
    """The other answer: plain edges, and summarize deferred until nothing else is left."""
    builder = _desk(defer=True)
    builder.add_edge("weather", "summarize")
    builder.add_edge("news_2", "summarize")
    return builder


# 4.3 · Predict the steps of lesson04.newsroom(): step 1 runs plan, step 2 search and
# outline, step 3 read; publish waits for read (step 4); audit, deferred, runs last.
PREDICTED = {"read": 3, "publish": 4, "audit": 5}
