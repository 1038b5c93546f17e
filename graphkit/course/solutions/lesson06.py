"""Solutions to lesson 06's exercises (``notebooks/06-messages-and-agents.ipynb``).

>>> from graphkit.course import lesson06
>>> bool(lesson06.check_tool_round_trip(build_agent))
True
>>> bool(lesson06.check_keep_last(keep_last))
True
>>> bool(lesson06.check_should_summarize(should_summarize))
True
"""

from __future__ import annotations

from typing import Literal

from langchain_core.messages import AIMessage, RemoveMessage
from langchain_core.tools import tool

from graphkit import END
from graphkit.course.lesson06 import MAX_MESSAGES, TEMPERATURES
from graphkit.prebuilt import ScriptedChatModel, create_react_agent

__all__ = ["build_agent", "keep_last", "should_summarize", "temperature"]


@tool
def temperature(city: str) -> str:
    """The temperature in a city right now."""
    return TEMPERATURES.get(city, "unknown")


def build_agent():
    """6.1: one tool call, then an answer built from the tool's result."""
    model = ScriptedChatModel(
        responses=[
            AIMessage(
                "", tool_calls=[{"name": "temperature", "args": {"city": "Rome"}, "id": "call-1"}]
            ),
            lambda messages: f"It is {messages[-1].content} in Rome.",
        ]
    )
    return create_react_agent(model, [temperature])


def keep_last(state: dict, n: int) -> dict:
    """6.2: delete every message but the last ``n``."""
    messages = state["messages"]
    return {"messages": [RemoveMessage(id=m.id) for m in messages[: len(messages) - n]]}


def should_summarize(state: dict) -> Literal["summarize_conversation", "__end__"]:
    """6.3: summarise only a long history."""
    if len(state["messages"]) > MAX_MESSAGES:
        return "summarize_conversation"
    return END
