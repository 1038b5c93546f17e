"""Behaviours LangGraph's own prebuilt tests pin (``test_react_agent.py``,
``test_tool_node.py``), run on both libraries: a prompt function that returns a Runnable
has it run on the state."""

import asyncio
import importlib
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from graphkit.prebuilt import ScriptedChatModel


def _prebuilt(name: str) -> Any:
    return importlib.import_module(
        "langgraph.prebuilt" if name == "langgraph" else "graphkit.prebuilt"
    )


def _echo(messages: list[Any]) -> str:
    """What a model answering with the contents it was sent says."""
    return "-".join(message.content for message in messages)


def _prompt_returning_a_template(state: dict[str, Any]) -> Any:
    return SystemMessage("foo") + state["messages"]  # a ChatPromptTemplate


async def _async_prompt_returning_a_template(state: dict[str, Any]) -> Any:
    return SystemMessage("foo") + state["messages"]


@pytest.mark.parametrize(
    "prompt, run",
    [
        (_prompt_returning_a_template, "invoke"),
        (_prompt_returning_a_template, "ainvoke"),
        (_async_prompt_returning_a_template, "ainvoke"),
    ],
)
def test_a_prompt_function_returning_a_runnable_has_it_run_on_the_state(prompt, run):
    """LangGraph's ``test_prompt_with_store``: ``SystemMessage("foo") + messages`` is a
    ``ChatPromptTemplate``, which the agent invokes on the state before the model."""
    def answer(name: str) -> Any:
        model = ScriptedChatModel(responses=[_echo])
        agent = _prebuilt(name).create_react_agent(model, [], prompt=prompt)
        given = {"messages": [HumanMessage("hi", id="h")]}
        if run == "invoke":
            return agent.invoke(given)["messages"][-1].content
        return asyncio.run(agent.ainvoke(given))["messages"][-1].content

    expected = answer("langgraph")
    assert answer("graphkit") == expected == "foo-hi"
