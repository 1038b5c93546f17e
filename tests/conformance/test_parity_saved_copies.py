"""What an in-memory saver keeps is its own: a value changed in place after it was saved
(by a node that edits its state, by the caller editing the dict it passed to ``invoke``
or ``update_state``, or the result it got back) changes no saved checkpoint. LangGraph's
``InMemorySaver`` serializes each value at put; graphkit's keeps its own copy of each
value a step changed. (``SqliteSaver`` differs on the node's in-place edit: see
docs/compatibility.md.)"""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS

THREAD = {"configurable": {"thread_id": "t"}}


class State(TypedDict, total=False):
    items: list
    notes: dict
    n: int


def app_editing_in_place(lib: Lib, saver: Any) -> Any:
    """``a`` appends to its state's list instead of writing it (a bug, in both libraries:
    the change is no write); ``b`` writes only ``n``."""

    def a(state: State) -> dict:
        state["items"].append("edited by a")
        state["notes"]["a"] = "in place"
        return {"n": 1}

    builder = lib.StateGraph(State).add_node("a", a).add_node("b", lambda state: {"n": 2})
    builder.add_edge(lib.START, "a").add_edge("a", "b")
    return builder.compile(checkpointer=saver)


def _history(app: Any) -> list:
    return [
        (snapshot.metadata["step"], snapshot.values) for snapshot in app.get_state_history(THREAD)
    ]


def _observe(lib: Lib, run_async: bool) -> list:
    with SAVERS["memory"](lib.name) as saver:
        app = app_editing_in_place(lib, saver)
        given = {"items": ["x"], "notes": {}, "n": 0}
        if run_async:
            result = asyncio.run(app.ainvoke(given, THREAD, durability="sync"))
        else:
            result = app.invoke(given, THREAD, durability="sync")
        after_run = [dict(result), _history(app)]
        given["items"].append("edited by the caller")  # the dict passed to invoke
        result["items"].append("edited in the result")  # the values invoke returned
        update = {"items": ["updated"]}
        app.update_state(THREAD, update)
        update["items"].append("edited after update_state")
        return [after_run, _history(app)]


@pytest.mark.parametrize("run_async", [False, True], ids=["sync", "async"])
def test_values_changed_in_place_after_a_put_change_no_saved_checkpoint(run_async):
    assert _observe(load_graphkit(), run_async) == _observe(load_langgraph(), run_async)


def test_a_saved_pending_write_is_the_savers_own():
    """A write saved for a step that paused: the list a finished task returned, edited
    later by the caller, is resumed with as it was written."""

    def observe(lib: Lib) -> Any:
        interrupt = _interrupt(lib)
        written = ["from a"]

        def pauses(state: State) -> dict:
            return {"n": interrupt("go?")}

        builder = lib.StateGraph(State).add_node("a", lambda state: {"items": written})
        builder.add_node("p", pauses).add_edge(lib.START, "a").add_edge(lib.START, "p")
        with SAVERS["memory"](lib.name) as saver:
            app = builder.compile(checkpointer=saver)
            app.invoke({"items": [], "n": 0}, THREAD, durability="sync")
            written.append("edited after the write was saved")
            return app.invoke(lib.Command(resume=7), THREAD, durability="sync")

    assert observe(load_graphkit()) == observe(load_langgraph())


def _interrupt(lib: Lib) -> Any:
    if lib.name == "langgraph":
        from langgraph.types import interrupt
    else:
        from graphkit import interrupt
    return interrupt


def test_appending_to_the_returned_messages_before_the_next_invoke_changes_no_checkpoint():
    """The notebook pattern: ``state = app.invoke(...)``, append the next question to
    ``state["messages"]`` (the channel's own list), invoke again with ``state``."""
    from langchain_core.messages import AIMessage, HumanMessage

    def observe(lib: Lib) -> list:
        if lib.name == "langgraph":
            from langgraph.graph import MessagesState
        else:
            from graphkit.graph import MessagesState

        def bot(state: Any) -> dict:
            count = len(state["messages"])
            return {"messages": [AIMessage(f"reply {count}", id=f"ai{count}")]}

        builder = lib.StateGraph(MessagesState).add_node("bot", bot)
        with SAVERS["memory"](lib.name) as saver:
            app = builder.add_edge(lib.START, "bot").compile(checkpointer=saver)
            state = app.invoke({"messages": [HumanMessage("hi", id="h1")]}, THREAD)
            state["messages"].append(HumanMessage("more", id="h2"))
            app.invoke(state, THREAD)
            return [
                [message.content for message in snapshot.values.get("messages", [])]
                for snapshot in app.get_state_history(THREAD)
            ]

    assert observe(load_graphkit()) == observe(load_langgraph())


@pytest.mark.parametrize("writes_it_back", [False, True], ids=["no write", "written back"])
def test_a_message_signed_in_place_changes_no_earlier_checkpoint(writes_it_back):
    """Lesson 24's wrong sign: a node adds to the content of the message its state holds
    (the object the step before wrote), with or without returning it. Each checkpoint
    of the history keeps the content it had when it was saved, in both libraries'
    in-memory savers (LangGraph's with ``durability="sync"``: under ``"async"`` it may
    serialize a checkpoint after the next node has run)."""
    from langchain_core.messages import AIMessage, HumanMessage

    def observe(lib: Lib) -> list:
        if lib.name == "langgraph":
            from langgraph.graph import MessagesState
        else:
            from graphkit.graph import MessagesState

        def sign(state: Any) -> dict:
            state["messages"][-1].content += " (signed)"
            return {"messages": [state["messages"][-1]]} if writes_it_back else {}

        builder = lib.StateGraph(MessagesState)
        builder.add_node("bot", lambda state: {"messages": [AIMessage("It left.", id="a")]})
        builder.add_node("sign", sign)
        builder.add_node("after", lambda state: {"messages": [AIMessage("Bye.", id="b")]})
        builder.add_edge(lib.START, "bot").add_edge("bot", "sign").add_edge("sign", "after")
        with SAVERS["memory"](lib.name) as saver:
            app = builder.compile(checkpointer=saver)
            given = {"messages": [HumanMessage("Where?", id="q")]}
            result = app.invoke(given, THREAD, durability="sync")
            return [
                [m.content for m in result["messages"]],
                *[
                    (snapshot.metadata["step"], [m.content for m in snapshot.values["messages"]])
                    for snapshot in app.get_state_history(THREAD)
                    if snapshot.metadata["step"] >= 0
                ],
            ]

    ours = observe(load_graphkit())
    assert ours == observe(load_langgraph())
    assert ours[-2] == (1, ["Where?", "It left."])  # (step 1's checkpoint, saved before sign)
