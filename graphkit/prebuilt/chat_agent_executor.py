"""The ReAct agent, where LangGraph keeps it (``langgraph.prebuilt.chat_agent_executor``):
``create_react_agent`` and its state schemas; the agent itself lives in
``graphkit.prebuilt.agent``.

>>> from graphkit.prebuilt.chat_agent_executor import AgentState
>>> sorted(AgentState.__annotations__)
['messages', 'remaining_steps']
"""

from graphkit.prebuilt.agent import AgentState, AgentStateWithStructuredResponse, create_react_agent

__all__ = ["AgentState", "AgentStateWithStructuredResponse", "create_react_agent"]
