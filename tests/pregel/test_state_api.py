"""get_state and update_state refuse a checkpoint id the thread does not have, instead of
an empty snapshot or a fork from nothing (issue 17, item 6)."""

from __future__ import annotations

import operator
import warnings
from typing import Annotated, TypedDict

import pytest

from graphkit import END, START, InMemorySaver, StateGraph
from graphkit.errors import CheckpointNotFoundError, GraphkitWarning, InvalidUpdateError


class State(TypedDict, total=False):
    log: Annotated[list, operator.add]


def app_with_a_run(steps=7):
    builder = StateGraph(State)
    previous = START
    for index in range(steps):
        name = f"n{index}"
        builder.add_node(name, lambda state, name=name: {"log": [name]})
        builder.add_edge(previous, name)
        previous = name
    app = builder.compile(checkpointer=InMemorySaver())
    app.invoke({"log": []}, {"configurable": {"thread_id": "t"}})
    return app


def config(thread_id, checkpoint_id):
    return {"configurable": {"thread_id": thread_id, "checkpoint_id": checkpoint_id}}


def newest_ids(app, count):
    history = app.get_state_history({"configurable": {"thread_id": "t"}})
    return [snapshot.config["configurable"]["checkpoint_id"] for snapshot in history][:count]


def test_get_state_with_an_unknown_checkpoint_id_names_it_and_lists_the_thread_ids():
    app = app_with_a_run()
    a, b, c, d, e = newest_ids(app, 5)
    with pytest.raises(CheckpointNotFoundError) as raised:
        app.get_state(config("t", "nope-123"))
    assert str(raised.value) == (
        f"Thread 't' has no checkpoint 'nope-123'. Its newest checkpoints: {a!r}, {b!r}, "
        f"{c!r}, {d!r}, {e!r} (and 4 older). Copy an id from "
        "app.get_state_history(config), or leave checkpoint_id out to use the latest."
    )
    assert isinstance(raised.value, ValueError)


def test_a_saver_that_cannot_list_keeps_the_not_found_error_without_suggestions():
    app = app_with_a_run()

    def fail(*args, **kwargs):
        raise RuntimeError("database is locked")

    app.checkpointer.list = fail
    with pytest.raises(CheckpointNotFoundError) as raised:
        app.get_state(config("t", "nope-123"))
    assert str(raised.value) == (
        "Thread 't' has no checkpoint 'nope-123' (its checkpoints could not be listed: "
        "RuntimeError: database is locked). Copy an id from app.get_state_history(config), "
        "or leave checkpoint_id out to use the latest."
    )


def test_get_state_with_a_checkpoint_id_on_an_empty_thread_says_the_thread_is_empty():
    app = app_with_a_run()
    (known,) = newest_ids(app, 1)
    with pytest.raises(CheckpointNotFoundError) as raised:
        app.get_state(config("other", known))
    assert str(raised.value) == (
        f"Thread 'other' has no checkpoint {known!r}: it has no checkpoints at all. Check "
        "the thread_id, or leave checkpoint_id out."
    )


def test_get_state_of_a_new_thread_is_still_an_empty_snapshot():
    app = app_with_a_run()
    assert app.get_state({"configurable": {"thread_id": "new"}}).values == {}


def test_update_state_with_a_mistyped_checkpoint_id_is_refused_and_saves_nothing():
    app = app_with_a_run(steps=2)
    before = newest_ids(app, 10)
    with pytest.raises(CheckpointNotFoundError, match="Thread 't' has no checkpoint 'typo'"):
        app.update_state(config("t", "typo"), {"log": ["edited"]})
    assert newest_ids(app, 10) == before
    assert app.get_state({"configurable": {"thread_id": "t"}}).values == {"log": ["n0", "n1"]}


def test_update_state_with_a_key_the_state_lacks_names_the_call_not_a_node():
    # the warning said "Node 'n6' returned key 'lgo'" (or "The input has" for __start__):
    # neither the node nor the input gave it; update_state's values did
    app = app_with_a_run(2)
    thread = {"configurable": {"thread_id": "t"}}
    for as_node in ("n1", START, None):  # (None: the node that wrote last, n1)
        with pytest.warns(GraphkitWarning) as caught:
            app.update_state(thread, {"lgo": ["x"]}, as_node=as_node)
        (message,) = [str(w.message) for w in caught]
        assert message.startswith(
            f"update_state's values (read as what {as_node or 'n1'!r} returned) have key "
            "'lgo', which is not in the state schema (keys: ['log']); the write is dropped"
        )
    # a node's own return is still the node's
    node = StateGraph(State).add_node("n0", lambda state: {"lgo": 1}).add_edge(START, "n0")
    with pytest.warns(GraphkitWarning, match="^Node 'n0' returned key 'lgo'"):
        node.compile().invoke({})


def test_update_state_values_no_node_could_return_name_the_node_not_an_as_node_not_written():
    # the note quoted "update_state(config, values, as_node='n1')" to a call without one
    app = app_with_a_run(2)
    thread = {"configurable": {"thread_id": "t"}}
    for as_node in ("n1", None):  # (None: the node that wrote last, n1)
        with pytest.raises(InvalidUpdateError) as raised:
            app.update_state(thread, [1, 2], as_node=as_node)
        assert raised.value.__notes__ == [
            "(update_state's values are read as what node 'n1' returned, so they must be "
            "what that node could return)"
        ]


def test_a_graph_a_router_runs_during_update_state_names_its_own_nodes():
    # the edit's as_node leaked into the warnings of a graph the router ran: "update_state
    # (config, values, as_node='n0') got key 'lgo'" for what the inner node returned
    inner = StateGraph(State).add_node("inner", lambda state: {"lgo": 1}).add_edge(START, "inner")
    inner_app = inner.compile()

    def route(state: State) -> str:
        inner_app.invoke({"log": [], "typo": 1})
        return END

    builder = StateGraph(State).add_node("n0", lambda state: {"log": ["n0"]})
    builder.add_edge(START, "n0").add_conditional_edges("n0", route)
    app = builder.compile(checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": "t"}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        app.invoke({"log": []}, thread)
    with pytest.warns(GraphkitWarning) as caught:
        app.update_state(thread, {"log": ["edited"]}, as_node="n0")
    assert [str(w.message).split(",")[0] for w in caught] == [
        "The input has key 'typo'",
        "Node 'inner' returned key 'lgo'",
    ]
