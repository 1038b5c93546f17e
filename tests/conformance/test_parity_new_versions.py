"""The ``new_versions`` a saver's ``put`` is given: the channels changed since the
thread's last saved checkpoint, which a saver may store alone (LangGraph's database
savers write only those values). With ``durability="exit"`` the one put at the end
names every channel the run changed, not only its last step's, and a put after a
resume names the channels the resuming `Command(update=...)` changed."""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS, _interrupt


class State(TypedDict, total=False):
    a: int
    b: int
    c: int


def _record_puts(saver: Any) -> list:
    """Record ``(step, sorted new_versions)`` of each put ``saver`` gets, sync or async
    (LangGraph's ``aput`` calls its ``put``: one put, recorded once)."""
    puts: list = []
    put, aput = saver.put, saver.aput
    inside_aput: list = []

    def recorded_put(config, checkpoint, metadata, new_versions):
        if not inside_aput:
            puts.append((metadata["step"], sorted(new_versions)))
        return put(config, checkpoint, metadata, new_versions)

    async def recorded_aput(config, checkpoint, metadata, new_versions):
        puts.append((metadata["step"], sorted(new_versions)))
        inside_aput.append(True)
        try:
            return await aput(config, checkpoint, metadata, new_versions)
        finally:
            inside_aput.pop()

    saver.put, saver.aput = recorded_put, recorded_aput
    return puts


def _run(app: Any, inputs: Any, durability: str, run_async: bool) -> None:
    thread = {"configurable": {"thread_id": "t"}}
    for given in inputs:
        if run_async:
            asyncio.run(app.ainvoke(given, thread, durability=durability))
        else:
            app.invoke(given, thread, durability=durability)


def _observe(lib: Lib, durability: str, run_async: bool) -> list:
    with SAVERS["memory"](lib.name) as saver:
        puts = _record_puts(saver)
        builder = lib.StateGraph(State).add_node("x", lambda state: {"a": 1})
        builder.add_node("y", lambda state: {"b": 2}).add_node("z", lambda state: {"c": 3})
        app = builder.add_edge(lib.START, "x").add_edge("x", "y").add_edge("y", "z")
        _run(app.compile(checkpointer=saver), ({"a": 0}, {"a": 5}), durability, run_async)
    return puts


@pytest.mark.parametrize("run_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("durability", ["exit", "sync"])
def test_put_is_told_every_channel_changed_since_the_last_put(durability, run_async):
    ours = _observe(load_graphkit(), durability, run_async)
    assert ours == _observe(load_langgraph(), durability, run_async)
    if durability == "exit":  # (the one put names the input's and the first steps' channels)
        assert ours[-1][1][:3] == ["__start__", "a", "b"]


def _resumed_with_update(lib: Lib, durability: str, run_async: bool) -> list:
    """The puts of a run resumed with ``Command(resume=..., update={"a": 7})`` that pauses
    again before its next node: the update changed ``a`` with no checkpoint of its own."""
    interrupt = _interrupt(lib.name)
    with SAVERS["memory"](lib.name) as saver:
        puts = _record_puts(saver)
        builder = lib.StateGraph(State).add_node("ask", lambda state: {"b": interrupt("b?")})
        builder.add_node("z", lambda state: {"c": 3})
        app = builder.add_edge(lib.START, "ask").add_edge("ask", "z")
        app = app.compile(checkpointer=saver, interrupt_before=["z"])
        given = ({"a": 0}, lib.Command(resume=2, update={"a": 7}))
        _run(app, given, durability, run_async)
        thread = {"configurable": {"thread_id": "t"}}
        puts.append(saver.get_tuple(thread).checkpoint["channel_values"])
    return puts


@pytest.mark.parametrize("run_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("durability", ["exit", "sync"])
def test_put_is_told_the_channels_a_resuming_commands_update_changed(durability, run_async):
    ours = _resumed_with_update(load_graphkit(), durability, run_async)
    assert ours == _resumed_with_update(load_langgraph(), durability, run_async)
    assert "a" in ours[-2][1] and ours[-1]["a"] == 7  # (the resumed step's put names it)
