"""Where a step fails after its node returned, with a checkpointer: a router that
raises, a ``Send`` whose argument cannot be saved, a reducer that raises under
``durability="exit"``. LangGraph keeps the node's writes and drops what failed (its
``SqliteSaver`` keeps none of them when a ``Send`` cannot be saved), so its
thread reads as past the node and a resume runs nothing more: the rest of the run is
lost. graphkit keeps the thread where it was before the failed task (as LangGraph does
for a node that raises, and for a reducer under "sync" and "async"), so a resume runs
the node again and finishes (docs/compatibility.md, "Differs on purpose")."""

from __future__ import annotations

import threading
from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS


def _build(lib: Lib, saver: Any, where: str, failing: dict, ran: list[str]) -> Any:
    """START → a → (router or Sends) → b → c; ``where`` fails while ``failing``."""

    def add(left: list, right: list) -> list:
        if failing["on"] and where == "reducer" and "b" in right:
            raise ValueError("the reducer refuses b")
        return left + right

    # (the functional form: its reducer is local, which a deferred annotation cannot name)
    State = TypedDict("State", {"log": Annotated[list, add]})  # noqa: UP013

    def node(name: str) -> Any:
        def write(state: Any) -> dict:
            ran.append(name)
            return {"log": [name]}

        return write

    def route(state: Any) -> Any:
        if failing["on"] and where == "router":
            raise KeyError("the router failed")
        if failing["on"] and where == "send":
            return [lib.Send("b", threading.Lock())]  # (no serializer takes it)
        return [lib.Send("b", state)] if where == "send" else "b"

    builder = lib.StateGraph(State)
    for name in "abc":
        builder.add_node(name, node(name))
    builder.add_edge(lib.START, "a").add_conditional_edges("a", route, ["b"])
    builder.add_edge("b", "c")
    return builder.compile(checkpointer=saver)


def _observe(lib: Lib, kind: str, where: str, durability: str) -> dict:
    config = {"configurable": {"thread_id": "t"}}
    failing, ran = {"on": True}, []
    with SAVERS[kind](lib.name) as saver:
        app = _build(lib, saver, where, failing, ran)
        with pytest.raises((KeyError, ValueError, TypeError)):
            app.invoke({"log": ["in"]}, config, durability=durability)
        failing["on"] = False
        ran.clear()
        resumed = app.invoke(None, config)
    return {"resumed": resumed, "ran on resume": ran}


CASES = [
    ("router", "sync"),
    ("router", "exit"),
    ("send", "sync"),
    ("send", "async"),
    ("reducer", "exit"),
]


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
@pytest.mark.parametrize(("where", "durability"), CASES)
def test_a_step_failing_after_its_node_returned_resumes_from_before_it(where, durability, kind):
    expected = _observe(load_langgraph(), kind, where, durability)
    got = _observe(load_graphkit(), kind, where, durability)
    if where == "send" and kind == "sqlite":  # LangGraph's SqliteSaver keeps none of a's writes
        assert got == expected
    else:
        assert expected == {"resumed": {"log": ["in", "a"]}, "ran on resume": []}  # lost
    again = ["c"] if where == "reducer" else ["a", "b", "c"]  # (b's writes were saved)
    assert got == {"resumed": {"log": ["in", "a", "b", "c"]}, "ran on resume": again}


@pytest.mark.parametrize("durability", ["sync", "async"])
def test_a_reducer_that_raises_leaves_the_thread_before_the_step_in_both(durability):
    """(the agreement the "exit" case above departs from)"""
    expected = _observe(load_langgraph(), "memory", "reducer", durability)
    assert _observe(load_graphkit(), "memory", "reducer", durability) == expected
    assert expected["resumed"] == {"log": ["in", "a", "b", "c"]}
