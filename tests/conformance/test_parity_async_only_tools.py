"""A tool with only a coroutine, run by a ToolNode, on both libraries: a sync run
(``invoke``, ``stream``) fails with langchain-core's ``NotImplementedError`` as
LangGraph's does (or answers with LangGraph's error message when the node handles every
error), and an async run answers. graphkit's ``trace``, ``atrace`` and ``stepper`` run
such a graph as ``ainvoke`` does, a LangGraph graph converted by ``from_langgraph`` too."""

from __future__ import annotations

import asyncio
import importlib
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from langchain_core.tools import StructuredTool, tool

from graphkit.prebuilt.fake import ScriptedChatModel

LIBRARIES = ["langgraph", "graphkit"]


async def _look(q: str) -> str:
    """Look something up."""
    return f"found {q}"


look = StructuredTool.from_function(coroutine=_look, name="look", description="Look.")


@tool
async def fetch(url: str) -> str:
    """Fetch a page, asynchronously."""
    return f"page {url}"


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def _asking(*calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    tool_calls = [{"name": n, "args": a, "id": f"c{i}"} for i, (n, a) in enumerate(calls)]
    return {"messages": [AIMessage("", tool_calls=tool_calls)]}


def _graph(library: str, tools: list[Any], **options: Any) -> Any:
    graph = importlib.import_module(f"{library}.graph")
    node = importlib.import_module(f"{library}.prebuilt").ToolNode(tools, **options)
    builder = graph.StateGraph(graph.MessagesState).add_node("tools", node)
    return builder.add_edge(graph.START, "tools").compile()


def _outcome(run: Any) -> Any:
    try:
        result = run()
    except Exception as error:
        return type(error).__name__, str(error)
    return [(m.content, m.status) for m in result["messages"][1:]]


HANDLING = [{}, {"handle_tool_errors": True}, {"handle_tool_errors": False}]
HANDLING += [{"handle_tool_errors": "try again"}, {"handle_tool_errors": (ValueError,)}]


@pytest.mark.parametrize("handling", HANDLING, ids=repr)
@pytest.mark.parametrize("which", ["from_function", "@tool", "beside a sync tool"])
def test_a_sync_run_fails_as_langgraphs_does(which, handling):
    tools, calls = {
        "from_function": ([look], [("look", {"q": "x"})]),
        "@tool": ([fetch], [("fetch", {"url": "u"})]),
        "beside a sync tool": ([look, add], [("look", {"q": "x"}), ("add", {"a": 1, "b": 2})]),
    }[which]

    def observe(library: str) -> Any:
        app = _graph(library, tools, **handling)
        return _outcome(lambda: app.invoke(_asking(*calls)))

    expected = observe("langgraph")
    assert observe("graphkit") == expected
    if not handling or handling.get("handle_tool_errors") in (False, (ValueError,)):
        assert expected == (
            "NotImplementedError",
            "StructuredTool does not support sync invocation.",
        )


@pytest.mark.parametrize("library", LIBRARIES)
def test_an_async_run_answers(library):
    app = _graph(library, [look, add])
    given = _asking(("look", {"q": "x"}), ("add", {"a": 1, "b": 2}))
    assert _outcome(lambda: asyncio.run(app.ainvoke(given))) == [
        ("found x", "success"),
        ("3", "success"),
    ]


def test_a_sync_wrapper_fails_under_ainvoke_too():
    """``execute`` of a sync ``wrap_tool_call`` runs the tool synchronously, in
    LangGraph's ``ainvoke`` as in its ``invoke``."""

    def observe(library: str) -> list[Any]:
        app = _graph(library, [look], wrap_tool_call=lambda request, execute: execute(request))
        given = _asking(("look", {"q": "x"}))
        return [
            _outcome(lambda: app.invoke(given)),
            _outcome(lambda: asyncio.run(app.ainvoke(given))),
        ]

    assert observe("graphkit") == observe("langgraph")


def test_the_error_says_how_to_fix_it():
    app = _graph("graphkit", [look])
    with pytest.raises(NotImplementedError) as caught:
        list(app.stream(_asking(("look", {"q": "x"}))))
    (note, *_) = caught.value.__notes__
    assert "ToolNode 'tools'" in note and "'look'" in note
    assert "ainvoke/astream" in note and "sync function" in note


@pytest.mark.filterwarnings("ignore:create_react_agent has been moved")
def test_a_react_agent_with_an_async_only_tool():
    def observe(library: str) -> list[Any]:
        agent = importlib.import_module(f"{library}.prebuilt").create_react_agent
        given = {"messages": [("user", "look x up")]}

        def model() -> ScriptedChatModel:
            call = {"name": "look", "args": {"q": "x"}, "id": "c1"}
            return ScriptedChatModel(responses=[AIMessage("", tool_calls=[call]), AIMessage("ok")])

        sync = _outcome(lambda: agent(model(), [look]).invoke(given))
        answered = asyncio.run(agent(model(), [look]).ainvoke(given))
        return [sync, [m.content for m in answered["messages"][1:]]]

    expected = observe("langgraph")
    assert observe("graphkit") == expected
    assert expected[0][0] == "NotImplementedError"


def test_trace_runs_it_as_ainvoke_does():
    given = _asking(("look", {"q": "x"}), ("add", {"a": 1, "b": 2}))
    expected = asyncio.run(_graph("langgraph", [look, add]).ainvoke(given))["messages"][1:]
    app = _graph("graphkit", [look, add])
    traced = app.trace(given).values["messages"][1:]
    atraced = asyncio.run(app.atrace(given)).values["messages"][1:]
    stepped = app.stepper(given).run().values["messages"][1:]
    want = [m.content for m in expected]
    assert [m.content for m in traced] == [m.content for m in atraced] == want
    assert [m.content for m in stepped] == want == ["found x", "3"]


def test_trace_runs_a_converted_langgraph_tool_node_as_ainvoke_does():
    from graphkit.bridge import from_langgraph

    given = _asking(("look", {"q": "x"}))
    app = from_langgraph(_graph("langgraph", [look]))
    assert _outcome(lambda: app.invoke(given))[0] == "NotImplementedError"
    assert app.trace(given).values["messages"][-1].content == "found x"
    assert asyncio.run(app.ainvoke(given))["messages"][-1].content == "found x"
