"""The ReAct agent, where LangGraph keeps it (``langgraph.prebuilt.chat_agent_executor``):
``create_react_agent`` and its state schemas; the agent itself lives in
``graphkit.prebuilt.agent``.

>>> from graphkit.prebuilt.chat_agent_executor import AgentState
>>> sorted(AgentState.__annotations__)
['messages', 'remaining_steps']
"""

from collections.abc import Callable, Sequence
from typing import Annotated, Any

from langchain_core.messages import BaseMessage, SystemMessage
from langchain_core.runnables import Runnable
from pydantic import BaseModel

from graphkit.managed import RemainingSteps
from graphkit.prebuilt.agent import (
    AgentState,
    AgentStateWithStructuredResponse,
    StructuredResponse,
    create_react_agent,
)
from graphkit.prebuilt.messages import add_messages

__all__ = [
    "AgentState",
    "AgentStatePydantic",
    "AgentStateWithStructuredResponse",
    "AgentStateWithStructuredResponsePydantic",
    "Prompt",
    "StructuredResponse",
    "StructuredResponseSchema",
    "create_react_agent",
    "create_tool_calling_executor",
]

create_tool_calling_executor = create_react_agent
"""LangGraph's older name for ``create_react_agent`` (the same function)."""


StructuredResponseSchema = dict | type[BaseModel]
"""What ``response_format`` takes: a JSON schema dict, or a pydantic model class."""

Prompt = SystemMessage | str | Callable[[Any], Any] | Runnable[Any, Any]
"""What ``prompt`` takes: a system message (or its text), or a function or Runnable
turning the state into the model's input."""


class AgentStatePydantic(BaseModel):
    """``AgentState`` as a pydantic model, for ``create_react_agent(state_schema=...)``
    subclasses that validate their fields."""

    messages: Annotated[Sequence[BaseMessage], add_messages]
    remaining_steps: RemainingSteps = 25


class AgentStateWithStructuredResponsePydantic(AgentStatePydantic):
    """``AgentStatePydantic`` plus the structured answer asked for with ``response_format``."""

    structured_response: StructuredResponse
