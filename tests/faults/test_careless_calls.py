"""Careless calls a user makes by accident (the hostile11 pass): each is refused where it
is made, naming the argument and what to write, and leaves the thread as it was."""

from __future__ import annotations

import asyncio
import sqlite3
from dataclasses import dataclass
from typing import Annotated, TypedDict

import pytest
from pydantic import BaseModel

from graphkit import (
    END,
    START,
    InMemorySaver,
    InvalidUpdateError,
    SqliteSaver,
    StateGraph,
)


class State(TypedDict):
    x: int


def _app(saver=None):
    builder = StateGraph(State)
    builder.add_node("work", lambda state: {"x": state["x"] + 1})
    builder.add_edge(START, "work")
    builder.add_edge("work", END)
    return builder.compile(checkpointer=saver or InMemorySaver())


def _sqlite():
    return SqliteSaver(sqlite3.connect(":memory:", check_same_thread=False))


CONFIG = {"configurable": {"thread_id": "t"}}


@pytest.mark.parametrize("new_saver", [InMemorySaver, _sqlite], ids=["memory", "sqlite"])
@pytest.mark.parametrize("limit", [-1, -5])
def test_a_negative_history_limit_is_refused_the_same_by_every_saver(new_saver, limit):
    # LangGraph's in-memory saver lists nothing for limit=-1 and its SQLite saver lists
    # everything (SQL's LIMIT -1): one call, two answers; graphkit names the fix
    app = _app(new_saver())
    app.invoke({"x": 1}, CONFIG)
    with pytest.raises(ValueError, match=r"get_state_history\(limit=-\d+\).*limit=None"):
        list(app.get_state_history(CONFIG, limit=limit))
    assert len(list(app.get_state_history(CONFIG))) == 3  # the thread is untouched


@pytest.mark.parametrize("limit", ["2", 1.5, [2]])
def test_a_history_limit_that_is_no_int_says_so(limit):
    app = _app()
    app.invoke({"x": 1}, CONFIG)
    with pytest.raises(TypeError, match=r"get_state_history\(limit=.*\): give an int"):
        list(app.get_state_history(CONFIG, limit=limit))


def test_the_async_history_refuses_the_same_limit():
    app = _app()
    app.invoke({"x": 1}, CONFIG)

    async def listed():
        return [snapshot async for snapshot in app.aget_state_history(CONFIG, limit=-1)]

    with pytest.raises(ValueError, match=r"limit=None"):
        asyncio.run(listed())


def test_a_zero_limit_still_lists_nothing_as_in_langgraph():
    app = _app()
    app.invoke({"x": 1}, CONFIG)
    assert list(app.get_state_history(CONFIG, limit=0)) == []
    assert len(list(app.get_state_history(CONFIG, limit=2))) == 2


def test_a_before_that_is_no_config_says_what_to_pass():
    app = _app()
    app.invoke({"x": 1}, CONFIG)
    with pytest.raises(TypeError, match=r"get_state_history\(before='abc'\).*\.config"):
        list(app.get_state_history(CONFIG, before="abc"))


def test_a_snapshot_given_as_before_is_told_to_pass_its_config():
    app = _app()
    app.invoke({"x": 1}, CONFIG)
    snapshot = list(app.get_state_history(CONFIG))[1]
    with pytest.raises(TypeError, match=r"StateSnapshot.*before=snapshot\.config"):
        list(app.get_state_history(CONFIG, before=snapshot))
    older = list(app.get_state_history(CONFIG, before=snapshot.config))
    assert len(older) == 1


@pytest.mark.parametrize("option", ["interrupt_before", "interrupt_after"])
def test_a_per_run_breakpoint_on_no_node_is_refused_as_compile_refuses_it(option):
    # LangGraph runs to the end without a word: a typo looks like a breakpoint that
    # never fired
    app = _app()
    with pytest.raises(ValueError, match=rf"invoke\({option}=\['wrok'\]\).*'work'"):
        app.invoke({"x": 1}, CONFIG, **{option: ["wrok"]})
    assert app.get_state(CONFIG).values == {}  # nothing ran, nothing was saved


def test_a_per_run_breakpoint_given_as_one_name_is_that_node_as_in_langgraph():
    app = _app()
    assert app.invoke({"x": 1}, CONFIG, interrupt_before="work") == {"x": 1}
    assert app.get_state(CONFIG).next == ("work",)
    with pytest.raises(ValueError, match=r"invoke\(interrupt_after='wrok'\).*'work'"):
        list(app.stream({"x": 1}, {"configurable": {"thread_id": "u"}}, interrupt_after="wrok"))


def test_a_per_run_breakpoint_on_a_real_node_still_stops_there():
    app = _app()
    assert app.invoke({"x": 1}, CONFIG, interrupt_before=["work"]) == {"x": 1}
    assert app.get_state(CONFIG).next == ("work",)
    assert app.invoke({"x": 1}, {"configurable": {"thread_id": "u"}}, interrupt_before="*")


@pytest.mark.parametrize(
    ("names", "told"),
    [
        (["*"], r"'\*' alone .*interrupt_before='\*'"),
        ([END], r"END is where a run finishes.*interrupt_after="),
        (["inner"], r"compile that subgraph with interrupt_before=\['inner'\]"),
    ],
    ids=["star-in-a-list", "end", "a-subgraphs-node"],
)
def test_a_breakpoint_langgraph_would_never_stop_at_says_what_would(names, told):
    # LangGraph runs each to the end: '*' in a list is no node's name, END is no node,
    # and a run's breakpoints stop at the graph's own nodes, not its subgraphs'
    with pytest.raises(ValueError, match=told):
        _app().invoke({"x": 1}, CONFIG, interrupt_before=names)
    builder = StateGraph(State)
    builder.add_node("work", lambda state: {})
    builder.add_edge(START, "work")
    with pytest.raises(ValueError, match=told):
        builder.compile(interrupt_before=names)


def test_a_thread_id_of_none_is_named_as_none():
    # LangGraph runs it and saves under a thread None that get_state cannot read back
    app = _app()
    with pytest.raises(ValueError, match=r"thread_id is None.*'thread_id': 'some-id'"):
        app.invoke({"x": 1}, {"configurable": {"thread_id": None}})
    with pytest.raises(ValueError, match=r"a run needs a thread: pass") as missing:
        app.invoke({"x": 1})
    assert "is None" not in str(missing.value)


def _reducer_that_refuses(current, update):
    if update == ["bad"]:
        raise ValueError("no bad entries")
    return current + update


class Log(TypedDict):
    log: Annotated[list, _reducer_that_refuses]


@pytest.mark.parametrize("new_saver", [InMemorySaver, _sqlite], ids=["memory", "sqlite"])
def test_get_state_after_a_reducer_failed_raises_again_and_says_the_way_on(new_saver):
    # as LangGraph's, get_state applies the failed step's saved writes and raises the
    # reducer's error again (lesson 24 teaches it); graphkit's note says how to go on
    builder = StateGraph(Log)
    builder.add_node("a", lambda state: {"log": ["bad"]})
    builder.add_edge(START, "a")
    app = builder.compile(checkpointer=new_saver())
    with pytest.raises(ValueError, match="no bad entries"):
        app.invoke({"log": ["in"]}, CONFIG)
    with pytest.raises(ValueError, match="no bad entries") as again:
        app.get_state(CONFIG)
    note = again.value.__notes__[-1]
    assert "get_state applies the saved writes of step 1's finished tasks" in note
    assert "invoke(None, config)" in note and "update_state(" in note
    app.update_state(CONFIG, {"log": ["fixed"]}, as_node="a")  # the way on the note names
    assert app.get_state(CONFIG).values == {"log": ["in", "fixed"]}


def test_a_bool_history_limit_is_the_int_it_equals_as_recursion_limit_s_is():
    app = _app()
    app.invoke({"x": 1}, CONFIG)
    assert len(list(app.get_state_history(CONFIG, limit=True))) == 1
    numpy = pytest.importorskip("numpy")
    assert len(list(app.get_state_history(CONFIG, limit=numpy.int64(2)))) == 2


def test_a_state_snapshot_given_as_input_or_values_is_told_to_pass_its_values():
    # read as a state object it has none of the state's keys: LangGraph writes nothing,
    # and the run then fails in a node reading a key (KeyError) or the update is lost
    app = _app()
    app.invoke({"x": 1}, CONFIG)
    snapshot = app.get_state(CONFIG)
    with pytest.raises(InvalidUpdateError, match=r"input is a StateSnapshot.*snapshot\.values"):
        app.invoke(snapshot, {"configurable": {"thread_id": "u"}})
    with pytest.raises(InvalidUpdateError, match=r"StateSnapshot.*snapshot\.values"):
        app.update_state(CONFIG, snapshot)
    assert len(list(app.get_state_history(CONFIG))) == 3
    assert app.get_state(CONFIG).values == {"x": 2}


@dataclass
class Listing:
    # (a state whose fields happen to be a snapshot's names: LangGraph runs it)
    values: list
    next: str = ""
    parent_config: dict | None = None


class ListingModel(BaseModel):
    values: list = []
    next: str = ""
    parent_config: dict = {}


@pytest.mark.parametrize("schema", [Listing, ListingModel], ids=["dataclass", "pydantic"])
def test_a_state_whose_fields_are_named_like_a_snapshots_is_no_snapshot(schema):
    builder = StateGraph(schema)
    builder.add_node("add", lambda state: schema(values=[*state.values, 1], next="y"))
    builder.add_edge(START, "add")
    builder.add_edge("add", END)
    app = builder.compile(checkpointer=InMemorySaver())
    assert app.invoke(schema(values=[0]), CONFIG)["values"] == [0, 1]
    app.update_state(CONFIG, schema(values=[9], next="q"))
    assert app.get_state(CONFIG).values["values"] == [9]


def test_a_value_that_only_looks_like_a_snapshot_is_told_it_is_no_dict():
    class Look:  # values, next and parent_config, but no StateSnapshot
        values, next, parent_config = {"x": 5}, (), None

    with pytest.raises(InvalidUpdateError) as raised:
        _app().invoke(Look(), CONFIG)
    assert "get_state returns" not in str(raised.value)
