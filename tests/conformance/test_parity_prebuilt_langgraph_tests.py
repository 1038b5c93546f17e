"""Behaviours LangGraph's own prebuilt tests pin (``test_react_agent.py``,
``test_tool_node.py``), run on both libraries: a prompt function that returns a Runnable
has it run on the state; a tool's parent Command without ``goto`` updates the parent."""

import asyncio
import importlib
from typing import Annotated, Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import InjectedToolCallId, tool

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


def _both_ways(said: str) -> Any:
    """A Runnable whose sync and async paths say which one ran."""

    async def awaited(state: dict[str, Any]) -> list[Any]:
        return [SystemMessage(f"{said} ainvoke"), *state["messages"]]

    return RunnableLambda(
        lambda state: [SystemMessage(f"{said} invoke"), *state["messages"]], afunc=awaited
    )


def _plain_prompt(state: dict[str, Any]) -> Any:
    return _both_ways("plain")


async def _async_prompt(state: dict[str, Any]) -> Any:
    return _both_ways("async")


@pytest.mark.parametrize("prompt", [_plain_prompt, _async_prompt])
def test_which_path_runs_a_returned_runnable_in_an_async_run(prompt):
    """Under ``ainvoke`` a plain prompt function's Runnable runs with ``invoke``, an
    ``async def`` one's with ``ainvoke``, in both libraries."""

    def answer(name: str) -> Any:
        agent = _prebuilt(name).create_react_agent(
            ScriptedChatModel(responses=[_echo]), [], prompt=prompt
        )
        given = {"messages": [HumanMessage("hi", id="h")]}
        return asyncio.run(agent.ainvoke(given))["messages"][-1].content

    expected = answer("langgraph")
    assert answer("graphkit") == expected
    assert expected == ("plain invoke-hi" if prompt is _plain_prompt else "async ainvoke-hi")


def _tell_parent(name: str) -> Any:
    types = importlib.import_module(f"{name}.types")

    @tool
    def tell_parent(tool_call_id: Annotated[str, InjectedToolCallId]) -> Any:
        """Update the parent graph's state without routing it."""
        answer = ToolMessage("told", tool_call_id=tool_call_id)
        return types.Command(
            update={"messages": [answer], "note": "from the tool"}, graph=types.Command.PARENT
        )

    return tell_parent


def test_a_tools_parent_command_without_goto_updates_the_parent() -> None:
    """LangGraph's ``test_tool_node_command`` (``node_update_parent_tool``): a parent
    Command whose ``goto`` is the default is no list of Sends to merge; its ``update``
    reaches the parent graph."""

    def answer(name: str) -> Any:
        graph = importlib.import_module(f"{name}.graph")

        class State(graph.MessagesState):
            note: str

        tools = _prebuilt(name).ToolNode([_tell_parent(name)])
        agent = graph.StateGraph(State).add_node("tools", tools).add_edge(graph.START, "tools")

        def after(state: dict[str, Any]) -> dict[str, Any]:
            return {"messages": [AIMessage(f"after sees {state['note']!r}", id="after")]}

        parent = graph.StateGraph(State).add_node("agent", agent.compile())
        parent = parent.add_node("after", after).add_edge(graph.START, "agent")
        parent = parent.add_edge("agent", "after").compile()
        call = {"name": "tell_parent", "args": {}, "id": "c1"}
        given = {"messages": [AIMessage("", tool_calls=[call], id="a")], "note": ""}
        final = parent.invoke(given)
        return final["note"], [(m.type, m.content) for m in final["messages"]]

    expected = answer("langgraph")
    assert answer("graphkit") == expected
    assert expected[0] == "from the tool"


TOOL_NODE_NAMES = [
    "INVALID_TOOL_NAME_ERROR_TEMPLATE",
    "TOOL_CALL_ERROR_TEMPLATE",
    "TOOL_EXECUTION_ERROR_TEMPLATE",
    "TOOL_INVOCATION_ERROR_TEMPLATE",
    "TOOL_MESSAGE_BLOCK_TYPES",
]


@pytest.mark.parametrize("constant", TOOL_NODE_NAMES)
def test_the_error_templates_are_langgraphs(constant: str) -> None:
    """LangGraph's ``test_tool_node_error_handling`` formats ``TOOL_CALL_ERROR_TEMPLATE``
    in a handler: the texts the model reads, importable from ``prebuilt.tool_node``."""
    ours = getattr(importlib.import_module("graphkit.prebuilt.tool_node"), constant)
    assert ours == getattr(importlib.import_module("langgraph.prebuilt.tool_node"), constant)


def _failing(some_val: int) -> str:
    """Fail."""
    raise ValueError("Test error")


def test_a_handler_answering_with_the_template_reads_as_the_default() -> None:
    def answer(name: str) -> Any:
        tool_node = importlib.import_module(f"{name}.prebuilt.tool_node")

        def handle(error: ValueError) -> str:
            return tool_node.TOOL_CALL_ERROR_TEMPLATE.format(error=repr(error))

        call = {"name": "_failing", "args": {"some_val": 0}, "id": "c1"}
        given = {"messages": [AIMessage("", tool_calls=[call])]}
        graph = importlib.import_module(f"{name}.graph")
        node = tool_node.ToolNode([_failing], handle_tool_errors=handle)
        app = graph.StateGraph(graph.MessagesState).add_node("tools", node)
        message = app.add_edge(graph.START, "tools").compile().invoke(given)["messages"][-1]
        return message.status, message.content

    assert answer("graphkit") == answer("langgraph")


def test_the_wrapper_types_are_there() -> None:
    """``ToolCallWrapper`` / ``AsyncToolCallWrapper`` type a ``wrap_tool_call``."""
    tool_node = importlib.import_module("graphkit.prebuilt.tool_node")
    assert tool_node.ToolCallWrapper.__args__[0] is tool_node.ToolCallRequest
    assert tool_node.AsyncToolCallWrapper.__args__[0] is tool_node.ToolCallRequest
