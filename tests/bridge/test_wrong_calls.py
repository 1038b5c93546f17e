"""The bridge's entry points called wrong, as a notebook user calls them: a config
that is no dict, a builder or a Run where the graph goes. Each is refused by the call
the user made (not by as_graphkit(), which they never called), saying what to pass."""

from __future__ import annotations

from typing import TypedDict

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph

from graphkit.bridge import trace
from graphkit.inspect.examples import forecast_graph, forecast_run
from graphkit.widgets import DebugSession


class Count(TypedDict):
    n: int


def _builder() -> StateGraph:
    builder = StateGraph(Count)
    builder.add_node("inc", lambda state: {"n": state["n"] + 1})
    return builder.add_edge(START, "inc")


def test_trace_with_a_config_that_is_no_dict_names_the_config():
    # it raised "'str' object has no attribute 'get'" from inside trace
    with pytest.raises(TypeError) as caught:
        trace(_builder().compile(), {"n": 1}, "t1")
    assert str(caught.value) == (
        "A run's config must be a dict, got str 't1'. For a thread, write "
        "{'configurable': {'thread_id': ...}}."
    )


def test_the_saved_thread_is_unchanged_by_a_refused_trace():
    app = _builder().compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t1"}}
    app.invoke({"n": 1}, config)
    before = app.get_state(config)
    for config_given in ("t1", {"configurable": {"thread_id": "t1"}}):
        with pytest.raises((TypeError, ValueError)):
            trace(app, None, config_given)
    after = app.get_state(config)
    assert (after.values, after.next, after.config) == (before.values, before.next, before.config)


def test_trace_of_a_builder_is_refused_by_trace():
    with pytest.raises(TypeError) as caught:
        trace(_builder(), {"n": 1})
    said = str(caught.value)
    assert said.startswith("Expected a graphkit CompiledGraph or a compiled LangGraph ")
    assert said.endswith(
        "trace() reads a graph made by StateGraph(...).compile(); for a "
        "builder, call .compile() first."
    )


def test_a_debug_session_of_a_builder_is_refused_by_debug_session():
    with pytest.raises(TypeError, match=r"DebugSession\(\) reads a graph made by"):
        DebugSession(_builder(), {"n": 1})


def test_a_debug_session_of_a_run_points_at_from_run():
    run = forecast_run()
    with pytest.raises(TypeError) as caught:
        DebugSession(run, {"topic": "today", "tokens": 0})
    assert str(caught.value) == (
        "DebugSession(app, input) takes a graph, got a Run (Run(steps=5, status='done')): "
        "to step through a recorded run, open it with DebugSession.from_run(app, run)."
    )
    assert DebugSession.from_run(forecast_graph(), run).status == "done"


def test_open_thread_reads_a_thread_id_at_the_top_as_langgraphs_runs_do():
    # LangGraph's invoke and get_state_history take {"thread_id": ...} beside
    # "configurable" (it moves the key under it); it said only 'needs the thread to read'
    from graphkit.bridge import open_langgraph_thread

    app = _builder().compile(checkpointer=InMemorySaver())
    app.invoke({"n": 1}, {"thread_id": "t1"})
    assert open_langgraph_thread(app, {"thread_id": "t1"}).values == {"n": 2}
    assert open_langgraph_thread(app, {"configurable": {"thread_id": "t1"}}).values == {"n": 2}
