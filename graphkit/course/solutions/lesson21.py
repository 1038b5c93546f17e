"""Solutions to lesson 21 · Tools in depth: parallel calls, errors, tools that change the
state, and a human approving a call.

>>> from graphkit.course import lesson21
>>> bool(lesson21.check_set_budget(set_budget)), bool(lesson21.check_tool_errors(tool_errors))
(True, True)
>>> bool(lesson21.check_approve_once(build_agent))
True
"""

from __future__ import annotations

from typing import Annotated, Any

from langchain_core.messages import ToolMessage
from langchain_core.tools import InjectedToolCallId, tool

from graphkit.prebuilt import ToolInvocationError
from graphkit.types import Command

__all__ = ["build_agent", "set_budget", "tool_errors"]


@tool  # 21.1: the graph fills in the call's id; the model sees only euros
def set_budget(euros: int, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    """Set the trip's budget, in euros."""
    return Command(
        update={
            "budget": euros,
            "messages": [ToolMessage(f"Budget set to {euros} euros.", tool_call_id=tool_call_id)],
        }
    )


tool_errors = (ValueError, ToolInvocationError)
"""21.2: the tool's own refusals and the arguments that do not fit its schema become
error ToolMessages; every other error (a ConnectionError) stops the run."""


def build_agent(model: Any, tools: list[Any], checkpointer: Any) -> Any:
    """21.3: ``create_react_agent``'s default (``version="v2"``) runs each tool call as a
    task of its own (a ``Send``), so the finished calls' writes are kept while ``pay``
    waits, and the resume runs only ``pay``'s task."""
    from graphkit.prebuilt import create_react_agent

    return create_react_agent(model, tools, checkpointer=checkpointer)
