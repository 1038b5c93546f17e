"""The programs of LangGraph's error guide (docs.langchain.com, `src/oss/<CODE>.mdx`), run
on both libraries: the same exception class, and the message ends with the same line
pointing at the guide's page (graphkit's wording before it is its own)."""

from __future__ import annotations

import asyncio
import importlib
import operator
import warnings
from types import SimpleNamespace
from typing import Annotated, Any, TypedDict

import pytest


def _library(name: str) -> SimpleNamespace:
    """The names the guide's programs use, from ``langgraph`` or from ``graphkit``."""

    def module(path: str) -> Any:
        return importlib.import_module(name + path.removeprefix("langgraph"))

    graph, types = module("langgraph.graph"), module("langgraph.types")
    return SimpleNamespace(
        StateGraph=graph.StateGraph,
        START=graph.START,
        Overwrite=types.Overwrite,
        InMemorySaver=module("langgraph.checkpoint.memory").InMemorySaver,
        prebuilt=module("langgraph.prebuilt"),
    )


class State(TypedDict):
    some_key: str


class Appended(TypedDict):
    some_key: Annotated[list, operator.add]


def endless_loop(lib: SimpleNamespace) -> Any:
    """GRAPH_RECURSION_LIMIT: a -> b -> a, with the limit the page suggests raising."""
    graph = lib.StateGraph(State)
    graph.add_node("a", lambda state: {"some_key": "a"})
    graph.add_node("b", lambda state: {"some_key": "b"})
    graph.add_edge(lib.START, "a")
    graph.add_edge("a", "b")
    graph.add_edge("b", "a")
    return graph.compile().invoke({"some_key": "x"}, {"recursion_limit": 100})


def endless_loop_run_async(lib: SimpleNamespace) -> Any:
    graph = lib.StateGraph(State)
    graph.add_node("a", lambda state: {"some_key": "a"})
    graph.add_edge(lib.START, "a")
    graph.add_edge("a", "a")
    return asyncio.run(graph.compile().ainvoke({"some_key": "x"}, {"recursion_limit": 5}))


def two_nodes_write_a_plain_key(lib: SimpleNamespace) -> Any:
    """INVALID_CONCURRENT_GRAPH_UPDATE: the page's fan-out without a reducer."""

    def node(state: State):
        return {"some_key": "some_string_value"}

    def other_node(state: State):
        return {"some_key": "some_string_value"}

    graph = lib.StateGraph(State)
    graph.add_node(node)
    graph.add_node(other_node)
    graph.add_edge(lib.START, "node")
    graph.add_edge(lib.START, "other_node")
    return graph.compile().invoke({"some_key": "x"})


def two_overwrites_in_a_step(lib: SimpleNamespace) -> Any:
    graph = lib.StateGraph(Appended)
    graph.add_node("node", lambda state: {"some_key": lib.Overwrite(["a"])})
    graph.add_node("other_node", lambda state: {"some_key": lib.Overwrite(["b"])})
    graph.add_edge(lib.START, "node")
    graph.add_edge(lib.START, "other_node")
    return graph.compile().invoke({"some_key": []})


def a_node_returns_a_list(lib: SimpleNamespace) -> Any:
    """INVALID_GRAPH_NODE_RETURN_VALUE: the page's `bad_node`."""

    def bad_node(state: State):
        return ["whoops"]

    graph = lib.StateGraph(State)
    graph.add_node(bad_node)
    graph.add_edge(lib.START, "bad_node")
    return graph.compile().invoke({"some_key": "someval"})


def the_input_is_a_list(lib: SimpleNamespace) -> Any:
    graph = lib.StateGraph(State)
    graph.add_node("n", lambda state: {"some_key": "v"})
    graph.add_edge(lib.START, "n")
    return graph.compile().invoke(["whoops"])


def update_state_with_a_list(lib: SimpleNamespace) -> Any:
    graph = lib.StateGraph(State)
    graph.add_node("n", lambda state: {"some_key": "v"})
    graph.add_edge(lib.START, "n")
    app = graph.compile(checkpointer=lib.InMemorySaver())
    config = {"configurable": {"thread_id": "1"}}
    app.invoke({"some_key": "a"}, config)
    return app.update_state(config, ["whoops"])


def an_agent_given_an_unanswered_tool_call(lib: SimpleNamespace) -> Any:
    """INVALID_CHAT_HISTORY: `graph.invoke({'messages': [AIMessage(..., tool_calls=[...])]})`."""
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.tools import tool

    @tool
    def get_weather(city: str) -> str:
        """The weather in a city."""
        return f"sunny in {city}"

    class Model(GenericFakeChatModel):
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    model = Model(messages=iter([AIMessage("done")]))
    agent = lib.prebuilt.create_react_agent(model, [get_weather])
    call = {"name": "get_weather", "args": {"city": "sf"}, "id": "c1"}
    return agent.invoke({"messages": [HumanMessage("hi"), AIMessage("", tool_calls=[call])]})


def _raised(program, lib: SimpleNamespace) -> tuple[str, str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # LangGraph's deprecations, graphkit's own warnings
        with pytest.raises(Exception) as raised:
            program(lib)
    return type(raised.value).__name__, str(raised.value).splitlines()[-1]


@pytest.mark.parametrize(
    "program",
    [
        endless_loop,
        endless_loop_run_async,
        two_nodes_write_a_plain_key,
        two_overwrites_in_a_step,
        a_node_returns_a_list,
        the_input_is_a_list,
        update_state_with_a_list,
        an_agent_given_an_unanswered_tool_call,
    ],
)
def test_the_error_and_its_guide_page_are_langgraphs(program):
    expected = _raised(program, _library("langgraph"))
    assert expected[1].startswith("For troubleshooting, visit: https://docs.langchain.com/")
    assert _raised(program, _library("graphkit")) == expected
