"""langchain-core integration: the messages reducer, ToolNode, and the ReAct agent.

Needs ``langchain-core`` (``pip install "graphkit[agents]"``). ``import graphkit`` does
not import this package; ``from graphkit import create_react_agent`` does, on first use.

>>> from graphkit.prebuilt import ToolNode, create_react_agent, tools_condition
>>> ToolNode([])
ToolNode(name='tools', tools=[])
"""

from __future__ import annotations

# ruff: noqa: E402 - the submodules import langchain_core at their top; require() comes
# first so that a missing package is an ImportError naming the extra that brings it.
from graphkit.extras import require

require("langchain_core", extra="agents", feature="graphkit.prebuilt")

from graphkit.prebuilt.agent import (
    NEED_MORE_STEPS,
    AgentState,
    AgentStateWithStructuredResponse,
    create_react_agent,
)
from graphkit.prebuilt.fake import ScriptedChatModel, ScriptExhaustedError
from graphkit.prebuilt.messages import (
    REMOVE_ALL_MESSAGES,
    MessagesState,
    RemoveMessage,
    add_messages,
)
from graphkit.prebuilt.tool_args import InjectedState, InjectedStore, ToolRuntime
from graphkit.prebuilt.tool_node import ToolNode, tools_condition
from graphkit.prebuilt.tool_results import ToolInvocationError, default_handle_tool_errors

__all__ = [
    "NEED_MORE_STEPS",
    "REMOVE_ALL_MESSAGES",
    "AgentState",
    "AgentStateWithStructuredResponse",
    "InjectedState",
    "InjectedStore",
    "MessagesState",
    "RemoveMessage",
    "ScriptExhaustedError",
    "ScriptedChatModel",
    "ToolInvocationError",
    "ToolNode",
    "ToolRuntime",
    "add_messages",
    "create_react_agent",
    "default_handle_tool_errors",
    "tools_condition",
]
