"""A reducer that changes its left side in place (``x.extend(y); return x``), as
beginners write them. LangGraph's savers keep serialized copies, so with
``durability="sync"`` its history and a resume after a pause are right (with "async",
the default, a checkpoint can be serialized after the next step already changed the
list). graphkit keeps the values themselves, so a channel folds into a copy of a list,
dict or set, never into the value saved or recorded."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS

THREAD = {"configurable": {"thread_id": "t"}}


def extend(left: list, right: list) -> list:
    left.extend(right)
    return left


def merge(left: dict, right: dict) -> dict:
    left.update(right)
    return left


class State(TypedDict, total=False):
    log: Annotated[list, extend]
    seen: Annotated[dict, merge]


def _interrupt(lib: Lib) -> Any:
    if lib.name == "langgraph":
        from langgraph.types import interrupt
    else:
        from graphkit import interrupt
    return interrupt


def chain(lib: Lib, saver: Any) -> Any:
    builder = lib.StateGraph(State)
    for name in "pab":
        builder.add_node(name, lambda state, name=name: {"log": [name], "seen": {name: 1}})
    builder.add_edge(lib.START, "p").add_edge("p", "a").add_edge("a", "b")
    return builder.compile(checkpointer=saver)


def paused(lib: Lib, saver: Any) -> Any:
    """``a`` finishes and ``b`` pauses in one step: the paused run's values apply ``a``."""
    interrupt = _interrupt(lib)

    def b(state: State) -> dict:
        return {"log": [f"b:{interrupt('q')}"]}

    builder = lib.StateGraph(State).add_node("p", lambda state: {"log": ["p"]})
    builder.add_node("a", lambda state: {"log": ["a"]}).add_node("b", b)
    builder.add_edge(lib.START, "p").add_edge("p", "a").add_edge("p", "b")
    return builder.compile(checkpointer=saver)


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_history_keeps_each_steps_value(saver):
    def observe(lib: Lib) -> list:
        with SAVERS[saver](lib.name) as checkpointer:
            app = chain(lib, checkpointer)
            final = app.invoke({"log": []}, THREAD, durability="sync")
            return [final, [snapshot.values for snapshot in app.get_state_history(THREAD)]]

    assert observe(load_graphkit()) == observe(load_langgraph())


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_a_resume_after_a_pause_applies_each_write_once(saver):
    def observe(lib: Lib) -> list:
        with SAVERS[saver](lib.name) as checkpointer:
            app = paused(lib, checkpointer)
            app.invoke({"log": []}, THREAD, durability="sync")
            before = app.get_state(THREAD).values
            resumed = app.invoke(lib.Command(resume="y"), THREAD, durability="sync")
            return [before, resumed]

    assert observe(load_graphkit()) == observe(load_langgraph())


def test_runs_without_a_saver_start_from_an_empty_value_each_time():
    def observe(lib: Lib) -> list:
        app = chain(lib, None)
        return [app.invoke({}), app.invoke({}), app.invoke({"log": ["i"]})]

    assert observe(load_graphkit()) == observe(load_langgraph())
