"""How a run starts on its thread: resumes that have nothing to resume are flagged, and a
checkpoint id that the thread does not have is refused (issue 17, item 6)."""

from __future__ import annotations

import operator
import re
from typing import Annotated, TypedDict

import pytest

from graphkit import START, Command, GraphkitWarning, InMemorySaver, StateGraph, interrupt
from graphkit.errors import CheckpointNotFoundError


class State(TypedDict, total=False):
    log: Annotated[list, operator.add]


def ask(state):
    return {"log": [f"ask:{interrupt('name?')}"]}


def thread(name="t", checkpoint_id=None):
    configurable = {"thread_id": name}
    if checkpoint_id is not None:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


def asking():
    builder = StateGraph(State)
    builder.add_node("a", lambda state: {"log": ["a"]})
    builder.add_node("ask", ask)
    builder.add_edge(START, "a")
    builder.add_edge("a", "ask")
    return builder.compile(checkpointer=InMemorySaver())


def test_resuming_a_thread_that_never_ran_warns_and_runs_it_from_start_as_langgraph():
    app = asking()
    with pytest.warns(GraphkitWarning) as caught:
        result = app.invoke(Command(resume="yes"), thread("new"))
    assert str(caught[0].message) == (
        "Command(resume=...) on thread 'new', which has no checkpoint: there is nothing to "
        "resume, so the graph runs from START with no input and the answer is unused (as in "
        "LangGraph). Check the thread_id; to start a thread, invoke with an input."
    )
    assert result["log"] == ["a"]  # LangGraph's behaviour is kept


def test_resuming_a_finished_thread_warns_and_leaves_it_as_langgraph():
    app = asking()
    app.invoke({"log": []}, thread("done"))
    app.invoke(Command(resume="Ada"), thread("done"))
    latest = app.get_state(thread("done")).config["configurable"]["checkpoint_id"]
    with pytest.warns(GraphkitWarning) as caught:
        result = app.invoke(Command(resume="again"), thread("done"))
    assert str(caught[0].message) == (
        f"Command(resume=...) on thread 'done', whose run has finished: its checkpoint "
        f"{latest!r} has nothing left to run and no interrupt waiting, so the answer is "
        "ignored and the state is returned as it is (as in LangGraph). To run the graph "
        "again on this thread, invoke it with a new input."
    )
    assert result == {"log": ["a", "ask:Ada"]}


def test_resuming_a_paused_thread_does_not_warn():
    app = asking()
    app.invoke({"log": []}, thread())
    assert app.invoke(Command(resume="Ada"), thread()) == {"log": ["a", "ask:Ada"]}


def test_invoking_from_an_unknown_checkpoint_id_is_refused_with_the_thread_ids():
    app = asking()
    app.invoke({"log": []}, thread())
    ids = [s.config["configurable"]["checkpoint_id"] for s in app.get_state_history(thread())]
    with pytest.raises(CheckpointNotFoundError) as raised:
        app.invoke(None, thread(checkpoint_id="nope-123"))
    message = str(raised.value)
    assert message.startswith("Thread 't' has no checkpoint 'nope-123'. Its newest checkpoints: ")
    assert re.findall(r"'([0-9a-f-]{36})'", message) == ids[:5]
    assert len(list(app.get_state_history(thread()))) == len(ids)  # nothing was saved
