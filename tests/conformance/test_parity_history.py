"""What ``get_state_history`` shows of edits and subgraphs, against LangGraph: an
``update_state(as_node=...)`` made while that node was pending is listed as that task's
result in the snapshot it was made from; a task that ran a subgraph names the
subgraph's thread as its ``state``; an update made on a subgraph's own config keeps the
subgraph's ``parents`` in its metadata."""

from __future__ import annotations

import operator
import re
from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS


class State(TypedDict):
    out: Annotated[list, operator.add]
    x: int


UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _ids(text: Any) -> str:
    return UUID.sub("<id>", str(text))


def _snapshot(snapshot: Any) -> tuple:
    tasks = [(task.name, task.result, _ids(task.state)) for task in snapshot.tasks]
    meta = {key: snapshot.metadata[key] for key in ("source", "step")}
    return snapshot.values, snapshot.next, meta, _ids(snapshot.metadata["parents"]), tasks


def _chain(lib: Lib, saver: Any) -> Any:
    graph = lib.StateGraph(State)
    for name in ("a", "b", "c"):
        graph.add_node(name, lambda state, name=name: {"out": [name]})
    graph.add_edge(lib.START, "a").add_edge("a", "b").add_edge("b", "c")
    return graph.compile(checkpointer=saver, interrupt_before=["b"])


def _with_subgraph(lib: Lib, saver: Any) -> Any:
    inner = lib.StateGraph(State)
    inner.add_node("i1", lambda state: {"out": ["i1"]})
    inner.add_node("i2", lambda state: {"out": ["i2"]})
    inner.add_edge(lib.START, "i1").add_edge("i1", "i2")
    graph = lib.StateGraph(State)
    graph.add_node("a", lambda state: {"out": ["a"]})
    graph.add_node("sub", inner.compile(interrupt_after=["i1"]))
    graph.add_edge(lib.START, "a").add_edge("a", "sub")
    return graph.compile(checkpointer=saver)


def _observe(lib: Lib, saver_kind: str, shape: str) -> list:
    config = {"configurable": {"thread_id": "t"}}
    seen: list = []
    with SAVERS[saver_kind](lib.name) as saver:
        if shape == "update-as-pending-node":
            app = _chain(lib, saver)
            app.invoke({"out": [], "x": 0}, config)
            app.update_state(config, {"x": 7})
            app.update_state(config, {"x": 8}, as_node="b")
        elif shape == "update-of-an-older-checkpoint":  # time travel: nothing saved there
            app = _chain(lib, saver)
            app.invoke({"out": [], "x": 0}, config)
            older = app.get_state(config).config
            app.update_state(config, {"x": 7})
            app.update_state(older, {"x": 8}, as_node="b")
        else:
            app = _with_subgraph(lib, saver)
            app.invoke({"out": [], "x": 0}, config)
            inner = app.get_state(config, subgraphs=True).tasks[0].state.config
            app.update_state(inner, {"x": 42})
            seen.append(_snapshot(app.get_state(config, subgraphs=True).tasks[0].state))
            app.invoke(None, config)
        seen += [_snapshot(snapshot) for snapshot in app.get_state_history(config)]
    return seen


@pytest.mark.parametrize("saver", sorted(SAVERS))
@pytest.mark.parametrize(
    "shape", ["update-as-pending-node", "update-of-an-older-checkpoint", "subgraph"]
)
def test_history_shows_edits_and_subgraphs_as_langgraph_does(shape, saver):
    expected = _observe(load_langgraph(), saver, shape)
    got = _observe(load_graphkit(), saver, shape)
    assert got == expected
    if shape == "update-as-pending-node":  # the snapshot the update was made from
        assert got[1][4] == [("b", {"x": 8}, "None")]
    elif shape == "update-of-an-older-checkpoint":
        older = [s for s in got if s[2] == {"source": "loop", "step": 1}]
        assert [s[4] for s in older] == [[("b", None, "None")]]
    else:
        assert got[0][3] == "{'': '<id>'}"
        assert any("checkpoint_ns': 'sub:<id>'" in task[2] for s in got[1:] for task in s[4])


def _sends_out_of_node_order(lib: Lib, saver: Any) -> Any:
    """START sends to `late` (added last) before `early`, and wakes `ask`, which pauses."""
    from .scenarios import _interrupt

    interrupt = _interrupt(lib.name)
    graph = lib.StateGraph(State)
    graph.add_node("early", lambda state: {"out": ["early"]})
    graph.add_node("ask", lambda state: {"out": [interrupt("go?")]})
    graph.add_node("late", lambda state: {"out": ["late"]})
    route = lambda state: [lib.Send("late", state), lib.Send("early", state)]  # noqa: E731
    graph.add_conditional_edges(lib.START, route, ["late", "early"])
    graph.add_edge(lib.START, "ask")
    return graph.compile(checkpointer=saver)


@pytest.mark.parametrize("saver_name", list(SAVERS))
def test_send_tasks_are_listed_in_send_order(saver_name):
    """A snapshot lists a step's Send tasks in the order they were sent, then its nodes
    in the order they were added (graphkit listed the Send tasks by node order)."""
    seen = []
    for lib in (load_langgraph(), load_graphkit()):
        with SAVERS[saver_name](lib.name) as saver:
            app = _sends_out_of_node_order(lib, saver)
            config = {"configurable": {"thread_id": "t"}}
            app.invoke({"out": [], "x": 0}, config)
            state = app.get_state(config)
            history = [_snapshot(snapshot) for snapshot in app.get_state_history(config)]
            seen.append((state.next, [task.name for task in state.tasks], history))
    assert seen[0][:2] == (("ask",), ["late", "early", "ask"])
    assert seen[1] == seen[0]


def _replay_at_latest(lib: Lib, saver: Any, case: str) -> list[Any]:
    """Replay addressed at the thread's latest checkpoint (its id in the config): LangGraph
    starts a new branch from it, as from an older one, unless it is a branch already."""
    from .scenarios import _interrupt

    interrupt = _interrupt(lib.name)
    graph = lib.StateGraph(State)
    graph.add_node("a", lambda state: {"out": ["a"]})
    graph.add_edge(lib.START, "a")
    if case == "paused":  # `a` finishes in the step `ask` pauses: its writes are pending
        graph.add_node("ask", lambda state: {"out": [interrupt("go?")]})
        graph.add_edge(lib.START, "ask")
    app = graph.compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"out": [], "x": 0}, config)
    if case == "updated":
        app.update_state(config, {"x": 1})
    latest = app.get_state(config).config
    chunks = app.stream(None, latest, stream_mode="updates")
    # one step: a task that finishes and one that pauses send their chunks in a racy
    # order (compatibility.md, "Chunk order"), so they compare as a multiset
    updates = sorted(re.sub(r"\b[0-9a-f]{32}\b", "<id>", _ids(chunk)) for chunk in chunks)
    history = [_snapshot(snapshot) for snapshot in app.get_state_history(config)]
    return [updates, history]


@pytest.mark.parametrize("case", ["finished", "paused", "updated"])
@pytest.mark.parametrize("saver_name", list(SAVERS))
def test_replaying_the_latest_checkpoint_by_id_starts_a_branch(saver_name, case):
    seen = []
    for lib in (load_langgraph(), load_graphkit()):
        with SAVERS[saver_name](lib.name) as saver:
            seen.append(_replay_at_latest(lib, saver, case))
    assert seen[1] == seen[0]
