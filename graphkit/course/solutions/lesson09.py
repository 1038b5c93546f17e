"""Solutions to lesson 09 · Debugging recipes (kept apart from the lesson).

>>> from graphkit.course import lesson09
>>> bool(lesson09.check_report_runs(build_research))
True
>>> bool(lesson09.check_no_overwrite(build_tally))
True
>>> bool(lesson09.check_agent_stops(build_agent))
True
"""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from graphkit import END, START, StateGraph


class Research(TypedDict):
    question: str
    notes: Annotated[list, operator.add]
    answer: str


def build_research() -> StateGraph:
    """09.1: the router returned 'citations', which is not a node; it must return 'cite'."""

    def plan(state: Research) -> dict:
        return {"notes": [f"plan: {state['question']}"]}

    def search(state: Research) -> dict:
        return {"notes": ["found 3 sources"]}

    def cite(state: Research) -> dict:
        return {"notes": ["cited 2 papers"]}

    def report(state: Research) -> dict:
        return {"answer": " / ".join(state["notes"])}

    def route(state: Research) -> list[str]:
        return ["search", "cite"]  # was ["search", "citations"]

    builder = StateGraph(Research)
    for node in (plan, search, cite, report):
        builder.add_node(node.__name__, node)
    builder.add_edge(START, "plan")
    builder.add_conditional_edges("plan", route)
    builder.add_edge(["search", "cite"], "report")
    builder.add_edge("report", END)
    return builder


class Tally(TypedDict):
    items: Annotated[list, operator.add]
    total: int


def build_tally() -> StateGraph:
    """09.2: `count` returns only the key it changes, not the whole state."""

    def collect(state: Tally) -> dict:
        return {"items": ["apple", "pear"]}

    def count(state: Tally) -> dict:
        return {"total": len(state["items"])}  # was: state["total"] = ...; return state

    builder = StateGraph(Tally)
    builder.add_node("collect", collect)
    builder.add_node("count", count)
    builder.add_edge(START, "collect")
    builder.add_edge("collect", "count")
    builder.add_edge("count", END)
    return builder


class Agent(TypedDict):
    question: str
    tool_calls: Annotated[int, operator.add]
    answer: str


def build_agent() -> StateGraph:
    """09.3: the router reads the key the agent writes (`answer`), not `final`."""

    def agent(state: Agent) -> dict:
        if state["tool_calls"] >= 2:
            return {"answer": "42"}
        return {}

    def tools(state: Agent) -> dict:
        return {"tool_calls": 1}

    def should_continue(state: Agent) -> str:
        if state.get("answer"):  # was: state.get("final")
            return END
        return "tools"

    builder = StateGraph(Agent)
    builder.add_node("agent", agent)
    builder.add_node("tools", tools)
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", should_continue, ["tools", END])
    builder.add_edge("tools", "agent")
    return builder
