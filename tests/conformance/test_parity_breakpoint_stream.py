"""The "checkpoints" and "debug" streams of a run that stops at a breakpoint, against
LangGraph: a run paused by ``interrupt_after`` streams the checkpoint it saved (with the
node it would run next) before it stops, as one paused by ``interrupt_before`` does."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS


class State(TypedDict):
    out: Annotated[list, operator.add]


def _shown(mode: str, chunk: dict) -> tuple:
    """A chunk without its ids (they differ between libraries)."""
    if mode == "debug":
        kind, step, payload = chunk["type"], chunk["step"], chunk["payload"]
    else:
        kind, step, payload = "checkpoint", chunk["metadata"]["step"], chunk
    if kind != "checkpoint":
        return kind, step, payload.get("name")
    meta = payload["metadata"]
    return kind, step, meta["source"], payload["next"], payload["values"]


def _observe(lib: Lib, mode: str, where: str, when: str) -> list:
    graph = lib.StateGraph(State)
    graph.add_node("a", lambda state: {"out": ["a"]})
    graph.add_node("b", lambda state: {"out": ["b"]})
    graph.add_edge(lib.START, "a").add_edge("a", "b")
    breakpoint = {f"interrupt_{when}": ["a" if when == "after" else "b"]}
    compile_options = breakpoint if where == "compile" else {}
    with SAVERS["memory"](lib.name) as saver:
        app = graph.compile(checkpointer=saver, **compile_options)
        config = {"configurable": {"thread_id": "t"}}
        call_options = breakpoint if where == "call" else {}
        first = list(app.stream({"out": []}, config, stream_mode=mode, **call_options))
        resumed = list(app.stream(None, config, stream_mode=mode))
    return [[_shown(mode, chunk) for chunk in run] for run in (first, resumed)]


@pytest.mark.parametrize("mode", ["checkpoints", "debug"])
@pytest.mark.parametrize("where", ["compile", "call"])
@pytest.mark.parametrize("when", ["after", "before"])
def test_a_breakpoint_streams_the_checkpoint_it_stopped_at(mode, where, when):
    expected = _observe(load_langgraph(), mode, where, when)
    got = _observe(load_graphkit(), mode, where, when)
    assert got == expected
    if mode == "checkpoints":  # the paused run's last chunk: step 1, about to run b
        assert got[0][-1][1:4] == (1, "loop", ["b"])
