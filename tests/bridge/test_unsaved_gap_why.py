"""``why`` on a LangGraph thread with steps not saved in its middle: a run with
``durability="sync"``, then one with ``"exit"``, whose history jumps from step 2 to the
exit run's last step. Its stand-in ``__input__`` task is not the thread's first step, and
``why`` read the gap as saved steps: "a did not run at step 6: nothing wrote branch:to:a
in step 5" (step 5 has no record), and a node woken by a route written in the gap as
woken by "the runtime". It now says what the records support: those steps were not
saved, and the checkpoint they made says which nodes ran in them."""

from __future__ import annotations

import operator
import warnings
from typing import Annotated, TypedDict

import pytest

from graphkit import open_langgraph_thread

pytest.importorskip("langgraph")

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt

GAP = "which LangGraph did not save (a run with durability='exit' saves only its last checkpoint)"


class Log(TypedDict):
    log: Annotated[list, operator.add]


def _said(answer) -> str:
    return " ".join(str(answer).split())


def _open(app, config):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (its beginning was saved: no warning)
        return open_langgraph_thread(app, config)


def test_a_step_in_the_gap_is_said_not_saved_not_unwritten():
    builder = StateGraph(Log).add_node("a", lambda state: {"log": ["a"]})
    builder.add_node("b", lambda state: {"log": ["b"]})
    app = builder.add_edge(START, "a").add_edge("a", "b").compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "1"}}
    app.invoke({"log": []}, config, durability="sync")
    app.invoke({"log": ["x"]}, config, durability="exit")
    # (LangGraph's own history has the gap: a and b ran again in steps 3 to 6)
    assert [s.metadata["step"] for s in app.get_state_history(config)] == [6, 2, 1, 0, -1]
    run = _open(app, config)
    for step in (4, 6):
        said = _said(run.why("a", step))
        assert said.startswith(
            f"a ran in steps 3 to 6, which were not saved; whether at step {step}"
        )
        assert f"Step {step} is one of steps 3 to 6, {GAP}" in said
        assert "That checkpoint shows a ran in them" in said
        assert "nothing wrote" not in said and "step 5's Update" not in said


def test_a_node_woken_by_a_route_written_in_the_gap_is_not_woken_by_the_runtime():
    def ask(state):
        return {"log": [f"b:{interrupt('ok?')}"]}

    builder = StateGraph(Log).add_node("a", lambda state: {"log": ["a"]}).add_node("b", ask)
    app = builder.add_edge(START, "a").add_edge("a", "b").compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "2"}}
    app.invoke({"log": []}, config, durability="sync")
    app.invoke(Command(resume="1"), config, durability="sync")
    app.invoke({"log": ["x"]}, config, durability="exit")  # (pauses in b: saves step 5)
    app.invoke(Command(resume="2"), config, durability="sync")
    assert [s.metadata["step"] for s in app.get_state_history(config)] == [6, 5, 2, 1, 0, -1]
    run = _open(app, config)
    said = _said(run.why("b", 6))
    assert said.startswith(
        "b ran at step 6 because branch:to:b was written in steps 3 to 5, which were not saved."
    )
    assert f"branch:to:b was written in steps 3 to 5, {GAP}" in said
    assert "The runtime changed" not in said
    # b paused in step 6, after the steps not saved: the checkpoint says it had not run
    assert _said(run.why("b", 5)).startswith("b did not run in steps 3 to 5")
    # a ran in those steps, not at step 1 last
    said = _said(run.why("a", 6))
    assert "a last ran in steps 3 to 5, not saved." in said and "last ran at step 1" not in said
