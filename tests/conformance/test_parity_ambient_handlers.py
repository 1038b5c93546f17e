"""Handlers LangChain adds to every run whose config names none: LangChain's debug
printer (``set_debug(True)``), the collector of ``collect_runs()``, the tracer of
``tracing_v2_enabled()`` and any handler a library put in context through
``register_configure_hook`` (as ``get_openai_callback()`` does). A LangGraph run with
no callbacks reports to them as every LangChain runnable does; a graphkit run does too."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import io
import re
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph

pytest.importorskip("langchain_core")

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.globals import set_debug
from langchain_core.tracers.context import collect_runs, register_configure_hook


class State(TypedDict):
    value: int


def _graph(lib: Lib) -> Any:
    return (
        lib.StateGraph(State)
        .add_node("step", lambda state: {"value": state["value"] + 1})
        .add_edge(lib.START, "step")
        .compile()
    )


class _Starts(BaseCallbackHandler):
    def __init__(self) -> None:
        self.names: list[str | None] = []

    def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
        self.names.append(kwargs.get("name"))


_hooked: ContextVar[_Starts | None] = ContextVar("graphkit_test_hooked", default=None)
register_configure_hook(_hooked, inheritable=True)


def _hooked_starts(lib: Lib) -> list[str | None]:
    handler = _Starts()
    token = _hooked.set(handler)
    try:
        _graph(lib).invoke({"value": 1})
    finally:
        _hooked.reset(token)
    return handler.names


def test_a_handler_a_configure_hook_put_in_context_hears_the_run():
    expected = _hooked_starts(load_langgraph())
    assert expected[:2] == ["LangGraph", "step"]
    assert _hooked_starts(load_graphkit()) == expected


def _collected(lib: Lib) -> list[tuple[str, list[str]]]:
    with collect_runs() as collector:
        _graph(lib).invoke({"value": 1})
    return [
        (run.name, sorted(child.name for child in run.child_runs)) for run in collector.traced_runs
    ]


def test_collect_runs_collects_the_graphs_run():
    expected = _collected(load_langgraph())
    assert expected and expected[0][0] == "LangGraph"
    assert _collected(load_graphkit()) == expected


@contextlib.contextmanager
def _debugging() -> Iterator[io.StringIO]:
    printed = io.StringIO()
    set_debug(True)
    try:
        with contextlib.redirect_stdout(printed):
            yield printed
    finally:
        set_debug(False)


def _debug_lines(lib: Lib) -> list[str]:
    with _debugging() as printed:
        _graph(lib).invoke({"value": 1})
    # the lines naming each run, without colours and timings
    lines = re.sub(r"\x1b\[[0-9;]*m", "", printed.getvalue()).splitlines()
    return [re.sub(r"\[\d+ms\]", "", line) for line in lines if line.startswith("[chain/")]


def test_set_debug_prints_the_graphs_runs():
    expected = _debug_lines(load_langgraph())
    assert "[chain/start] [chain:LangGraph] Entering Chain run with input:" in expected
    assert _debug_lines(load_graphkit()) == expected


_local: ContextVar[_Starts | None] = ContextVar("graphkit_test_local", default=None)
register_configure_hook(_local, inheritable=False)


def _locally_heard(lib: Lib, agent: bool, asynchronous: bool = False) -> list[str | None]:
    """What a handler a hook puts in context for one run only (not inherited, as
    ``collect_runs()``'s) hears: the graph's run, and what configures anew inside it (a
    runnable a node calls), not the nodes' and routers' runs."""
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.runnables import RunnableLambda

    class Model(GenericFakeChatModel):
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    if agent:
        prebuilt = importlib.import_module(f"{lib.name}.prebuilt")

        async def prompt(state: Any) -> Any:  # (LangGraph runs a sync one configured anew)
            return state["messages"]

        graph = prebuilt.create_react_agent(
            Model(messages=iter([AIMessage("hi")])), [], prompt=prompt if asynchronous else None
        )
        given: Any = {"messages": [("user", "hello")]}
    else:
        inner = RunnableLambda(lambda value: value + 1, name="inner")

        def route(state: State) -> str:
            return lib.END

        graph = (
            lib.StateGraph(State)
            .add_node("step", lambda state: {"value": inner.invoke(state["value"])})
            .add_edge(lib.START, "step")
            .add_conditional_edges("step", route)
            .compile()
        )
        given = {"value": 1}
    handler = _Starts()
    token = _local.set(handler)
    try:
        if asynchronous:
            asyncio.run(graph.ainvoke(given))
        else:
            graph.invoke(given)
    finally:
        _local.reset(token)
    return handler.names


@pytest.mark.parametrize("agent", [False, True], ids=["node", "react_agent"])
def test_a_handler_for_the_graphs_run_alone_does_not_hear_its_nodes(agent: bool):
    expected = _locally_heard(load_langgraph(), agent)
    assert expected[0] == "LangGraph"
    assert _locally_heard(load_graphkit(), agent) == expected


@pytest.mark.parametrize("agent", [False, True], ids=["node", "react_agent"])
def test_a_handler_for_the_graphs_run_alone_does_not_hear_its_nodes_run_async(agent: bool):
    # (an async graphkit run gives its tasks sync managers: the agent's call_model,
    # configured anew for want of an async one, was heard)
    expected = _locally_heard(load_langgraph(), agent, asynchronous=True)
    assert "call_model" not in expected
    assert _locally_heard(load_graphkit(), agent, asynchronous=True) == expected


def _traced_to_client(lib: Lib, asynchronous: bool) -> list[tuple[Any, ...]]:
    """The runs ``tracing_v2_enabled(client=...)``'s tracer sends its client (a mock:
    nothing goes to the network), by name, type, tags and whether it has a parent."""
    from unittest import mock

    from langchain_core.tracers.context import tracing_v2_enabled
    from langchain_core.tracers.langchain import wait_for_all_tracers

    sent: list[tuple[Any, ...]] = []
    client = mock.MagicMock()

    def create_run(**run: Any) -> None:
        tags = sorted(run.get("tags") or [])
        sent.append((run["name"], run["run_type"], tags, bool(run.get("parent_run_id"))))

    client.create_run.side_effect = create_run
    graph = _graph(lib)
    with tracing_v2_enabled(project_name="graphkit-tests", client=client):
        if asynchronous:
            asyncio.run(graph.ainvoke({"value": 1}))
        else:
            graph.invoke({"value": 1})
    wait_for_all_tracers()
    return sorted(sent)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
def test_tracing_v2_enabled_traces_the_graphs_run(asynchronous: bool):
    expected = _traced_to_client(load_langgraph(), asynchronous)
    assert expected == [
        ("LangGraph", "chain", [], False),
        ("step", "chain", ["graph:step:1"], True),
    ]
    assert _traced_to_client(load_graphkit(), asynchronous) == expected
