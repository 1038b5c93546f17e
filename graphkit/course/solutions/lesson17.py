"""Solutions to lesson 17 · Debug your LangGraph app with graphkit.

>>> from graphkit.course import lesson17
>>> bool(lesson17.check_fixed_app(build_fixed))
True
>>> bool(lesson17.check_last_writer(last_writer))
True
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import tools_condition

__all__ = ["build_fixed", "last_writer", "lost_at"]


def lost_at(run: Any, key: str) -> tuple[int, str] | None:
    """17.1: the first Update whose ``after`` lacks an item its ``before`` held."""
    for superstep in run.steps:
        change = superstep.update.change(key) if superstep.update else None
        if change is None or not isinstance(change.before, list):
            continue  # (no change, or the key was still empty)
        if any(item not in change.after for item in change.before):
            return superstep.step, change.writers[0]
    return None


def search(topic: str) -> str:
    """Search the wiki for a topic."""
    return f"wiki/{topic}"


class State(TypedDict):
    messages: Annotated[list, add_messages]
    sources: Annotated[list, operator.add]  # 17.2: the fix: a reducer keeps every write


def build_fixed(model: Any) -> StateGraph:
    """17.2: the lesson's app, unchanged but for the reducer on ``sources``."""

    def agent(state: State) -> dict:
        return {"messages": [model.invoke(state["messages"])]}

    def tools(state: State) -> dict:
        call = state["messages"][-1].tool_calls[0]
        found = search(**call["args"])
        return {"messages": [ToolMessage(found, tool_call_id=call["id"])], "sources": [found]}

    def write_answer(state: State) -> dict:
        said = state["messages"][-1].content
        sources = ", ".join(state.get("sources", []))
        return {"messages": [AIMessage(f"{said} (sources: {sources})")]}

    builder = StateGraph(State)
    builder.add_node("agent", agent)
    builder.add_node("tools", tools)
    builder.add_node("write_answer", write_answer)
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", tools_condition, {"tools": "tools", END: "write_answer"})
    builder.add_edge("tools", "agent")
    builder.add_edge("write_answer", END)
    return builder


def last_writer(run: Any, key: str) -> tuple[int, str] | None:
    """17.3: the latest Update with a change of ``key``, and its writer."""
    found = None
    for superstep in run.steps:
        change = superstep.update.change(key) if superstep.update else None
        if change is not None:
            found = (superstep.step, change.writers[0])
    return found
