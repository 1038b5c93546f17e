"""The ReAct agent, where LangGraph keeps it (``langgraph.prebuilt.chat_agent_executor``):
``create_react_agent`` and its state schemas; the agent itself lives in
``graphkit.prebuilt.agent``.

>>> from graphkit.prebuilt.chat_agent_executor import AgentState
>>> sorted(AgentState.__annotations__)
['messages', 'remaining_steps']
"""

from collections.abc import Callable
from typing import Any

from langchain_core.messages import SystemMessage
from langchain_core.runnables import Runnable
from pydantic import BaseModel

from graphkit.prebuilt.agent import AgentState, AgentStateWithStructuredResponse, create_react_agent

__all__ = [
    "AgentState",
    "AgentStateWithStructuredResponse",
    "Prompt",
    "StructuredResponse",
    "StructuredResponseSchema",
    "create_react_agent",
]

StructuredResponse = dict | BaseModel
"""What ``response_format`` makes the agent return: a dict, or the model instance."""

StructuredResponseSchema = dict | type[BaseModel]
"""What ``response_format`` takes: a JSON schema dict, or a pydantic model class."""

Prompt = SystemMessage | str | Callable[[Any], Any] | Runnable[Any, Any]
"""What ``prompt`` takes: a system message (or its text), or a function or Runnable
turning the state into the model's input."""
