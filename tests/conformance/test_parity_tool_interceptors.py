"""A ToolNode called alone as LangGraph's own tests call it, on both libraries: the
runtime its config carries under ``"__pregel_runtime"`` gives the tools their store and
context (and a wrapper its request); the tool a wrapper's ``execute`` runs for a name
the node lacks; and assigning a ``ToolCallRequest`` field warns in LangGraph's words,
which tests match with ``pytest.warns``."""

import asyncio
import importlib
import warnings
from typing import Annotated, Any
from unittest.mock import Mock

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool

SIDES = ("langgraph", "graphkit")


def _prebuilt(side: str) -> Any:
    return importlib.import_module(f"{side}.prebuilt")


def _config_with_runtime(side: str, context: Any = None) -> dict[str, Any]:
    """The config LangGraph's ToolNode tests hand a node called outside a graph."""
    runtime = Mock()
    runtime.store = importlib.import_module(f"{side}.store.memory").InMemoryStore()
    runtime.context = context
    runtime.stream_writer = lambda *args, **kwargs: None
    runtime.execution_info = runtime.server_info = None
    return {"configurable": {"__pregel_runtime": runtime}}


def _asking(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"messages": [AIMessage("", tool_calls=list(calls))]}


def _call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args, "id": f"c-{name}", "type": "tool_call"}


def _answers(result: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(m.content, m.tool_call_id, m.status) for m in result["messages"]]


def _tools_reading_the_runtime(side: str) -> list[Any]:
    prebuilt = _prebuilt(side)
    base_store = importlib.import_module(f"{side}.store.base").BaseStore

    @tool
    def who(question: str, runtime: prebuilt.ToolRuntime) -> str:
        """Say who asks."""
        store = type(runtime.store).__name__
        return f"{question}: {runtime.context} via {store} for {runtime.tool_call_id}"

    @tool
    def remember(key: str, store: Annotated[base_store, prebuilt.InjectedStore()]) -> str:
        """Remember a key."""
        store.put(("notes",), key, {"seen": True})
        return str(store.get(("notes",), key).value)

    return [who, remember]


@pytest.mark.parametrize("how", ["invoke", "ainvoke"])
def test_a_tool_node_called_alone_uses_the_runtime_its_config_carries(how: str) -> None:
    def run(side: str) -> Any:
        node = _prebuilt(side).ToolNode(_tools_reading_the_runtime(side))
        config = _config_with_runtime(side, context={"user": "ada"})
        given = _asking(_call("who", question="hi"), _call("remember", key="k"))
        if how == "invoke":
            return _answers(node.invoke(given, config=config))
        return _answers(asyncio.run(node.ainvoke(given, config=config)))

    assert (
        run("langgraph")
        == run("graphkit")
        == [
            ("hi: {'user': 'ada'} via InMemoryStore for c-who", "c-who", "success"),
            ("{'seen': True}", "c-remember", "success"),
        ]
    )


def test_a_store_tool_s_bad_arguments_are_answered_when_the_config_carries_a_store() -> None:
    def run(side: str) -> Any:
        node = _prebuilt(side).ToolNode(_tools_reading_the_runtime(side))
        result = node.invoke(_asking(_call("remember")), config=_config_with_runtime(side))
        message = result["messages"][0]
        return message.status, "key" in message.content, "store" in message.content.lower()

    assert run("langgraph") == run("graphkit") == ("error", True, False)


def test_a_wrapper_runs_its_own_tool_for_a_name_the_node_lacks() -> None:
    def run(side: str) -> Any:
        prebuilt = _prebuilt(side)

        @tool
        def stand_in() -> str:
            """Answer for a tool the node does not have."""
            return "stand-in result"

        def wrap(request: Any, execute: Any) -> Any:
            if request.tool is None:
                return execute(request.override(tool=stand_in))
            return execute(request)

        def refuse(request: Any, execute: Any) -> Any:
            if request.tool is None:
                return ToolMessage("no such tool", tool_call_id=request.tool_call["id"])
            return execute(request)

        config = _config_with_runtime(side)
        given = _asking(_call("missing"), _call("who", question="q"))
        tools = _tools_reading_the_runtime(side)
        return [
            _answers(prebuilt.ToolNode(tools, wrap_tool_call=w).invoke(given, config=config))
            for w in (wrap, refuse)
        ]

    assert run("langgraph") == run("graphkit")


@pytest.mark.parametrize("field", ["tool_call", "tool", "state", "runtime"])
def test_assigning_a_request_field_warns_in_langgraphs_words(field: str) -> None:
    def run(side: str) -> Any:
        request_class = importlib.import_module(f"{side}.prebuilt.tool_node").ToolCallRequest
        call = {"name": "add", "args": {}, "id": "c1"}
        request = request_class(tool_call=call, tool=None, state={}, runtime=None)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            setattr(request, field, None)
        (warning,) = caught
        return warning.category, str(warning.message).split(". ")[0], getattr(request, field)

    assert (
        run("langgraph")
        == run("graphkit")
        == (
            DeprecationWarning,
            f"Setting attribute '{field}' on ToolCallRequest is deprecated",
            None,
        )
    )
