"""Edges of the thread API a review found (issue 14), each run on LangGraph and graphkit:
``update_state`` on a subgraph's thread, a ``Command`` input on a paused thread and on an
older checkpoint (a fork), a subgraph nested in a ``checkpointer=True`` subgraph, an
``interrupt()`` first reached on a retry, ``get_state_history`` of one checkpoint, and a
new input on a thread paused before (or inside) a ``Send`` task or after a ``Command``
whose task paused again, and a replay of the checkpoint a resuming ``Command`` updated
(before and after the thread moved past it)."""

from __future__ import annotations

import operator
import re
import warnings
from types import SimpleNamespace
from typing import Annotated, Any, TypedDict

import pytest


class State(TypedDict):
    log: Annotated[list, operator.add]


class Number(TypedDict):
    x: int


def _library(name: str) -> SimpleNamespace:
    if name == "langgraph":
        from langgraph.checkpoint.memory import InMemorySaver
        from langgraph.graph import START, StateGraph
        from langgraph.types import Command, RetryPolicy, Send, interrupt
    else:
        from graphkit import (
            START,
            Command,
            InMemorySaver,
            RetryPolicy,
            Send,
            StateGraph,
            interrupt,
        )
    return SimpleNamespace(
        StateGraph=StateGraph,
        START=START,
        Command=Command,
        Send=Send,
        RetryPolicy=RetryPolicy,
        InMemorySaver=InMemorySaver,
        interrupt=interrupt,
    )


def _asker(m: SimpleNamespace, tag: str = "ask"):
    def ask(state):
        return {"log": [f"{tag}:{m.interrupt('q')}"]}

    return ask


def _plain(result: Any) -> Any:
    if isinstance(result, dict) and "__interrupt__" in result:
        return {**result, "__interrupt__": [item.value for item in result["__interrupt__"]]}
    return result


def _quiet(build):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # graphkit's own warnings are tested elsewhere
        return build()


CONFIG = {"configurable": {"thread_id": "t"}}


def update_a_subgraphs_thread(m: SimpleNamespace) -> list[Any]:
    sub = m.StateGraph(State).add_node("pre", lambda s: {"log": ["pre"]})
    sub = sub.add_node("ask", _asker(m)).add_edge(m.START, "pre").add_edge("pre", "ask")
    app = m.StateGraph(State).add_node("sub", sub.compile()).add_edge(m.START, "sub")
    app = app.compile(checkpointer=m.InMemorySaver())
    app.invoke({"log": ["in"]}, CONFIG)
    inner = app.get_state(CONFIG, subgraphs=True).tasks[0].state
    namespace = inner.config["configurable"]["checkpoint_ns"]
    app.update_state(
        {"configurable": {"thread_id": "t", "checkpoint_ns": namespace}}, {"log": ["e"]}
    )
    root = app.get_state(CONFIG)
    edited = app.get_state(CONFIG, subgraphs=True).tasks[0].state
    resumed = app.invoke(m.Command(resume="R"), CONFIG)
    return [root.values, root.next, root.metadata["source"], edited.values, edited.next, resumed]


def command_update_on_a_paused_thread(m: SimpleNamespace) -> list[Any]:
    app = m.StateGraph(State).add_node("a", lambda s: {"log": ["a"]})
    app = app.add_node("ask", _asker(m)).add_edge(m.START, "a").add_edge("a", "ask")
    app = app.compile(checkpointer=m.InMemorySaver())
    app.invoke({"log": ["in"]}, CONFIG)
    updated = _plain(app.invoke(m.Command(update={"log": ["u"]}), CONFIG))
    state = app.get_state(CONFIG)
    resumed = app.invoke(m.Command(resume="R"), CONFIG)
    return [updated, state.values, state.next, resumed]


def command_on_an_older_checkpoint(m: SimpleNamespace) -> list[Any]:
    app = m.StateGraph(State).add_node("a", lambda s: {"log": ["a"]})
    app = app.add_node("b", lambda s: {"log": ["b"]}).add_node("ask", _asker(m))
    app = _quiet(
        lambda: (
            app.add_edge(m.START, "a").add_edge("a", "b").compile(checkpointer=m.InMemorySaver())
        )
    )
    app.invoke({"log": ["in"]}, CONFIG)
    older = next(s for s in app.get_state_history(CONFIG) if s.metadata["step"] == 1)
    forked = _plain(app.invoke(m.Command(goto="ask", update={"log": ["u"]}), older.config))
    state = app.get_state(CONFIG)
    resumed = app.invoke(m.Command(resume="R"), CONFIG)
    history = [
        (s.metadata["step"], s.metadata["source"], s.values["log"], s.next)
        for s in app.get_state_history(CONFIG)
    ]
    return [forked, state.values, state.next, resumed, history]


def nested_in_an_own_thread(m: SimpleNamespace) -> list[Any]:
    inner = m.StateGraph(State).add_node("ask", _asker(m, "inner")).add_edge(m.START, "ask")
    middle = m.StateGraph(State).add_node("pre", lambda s: {"log": ["pre"]})
    middle = middle.add_node("inner", inner.compile()).add_edge(m.START, "pre")
    middle = middle.add_edge("pre", "inner").compile(checkpointer=True)

    def call_middle(state):
        return {"log": [len(middle.invoke({"log": ["m"]})["log"])]}

    saver = m.InMemorySaver()
    app = m.StateGraph(State).add_node("mid", call_middle).add_edge(m.START, "mid")
    app = app.compile(checkpointer=saver)
    seen: list[Any] = []

    def shown(state, depth=0):
        names = [p.split(":")[0] for p in state.config["configurable"]["checkpoint_ns"].split("|")]
        seen.append((depth, state.values, state.next, names))
        for task in state.tasks:
            if task.state is not None:
                shown(task.state, depth + 1)

    for given in ({"log": []}, m.Command(resume="A"), {"log": []}, m.Command(resume="B")):
        seen.append(_plain(app.invoke(given, CONFIG)))
        shown(app.get_state(CONFIG, subgraphs=True))
    namespaces = {
        re.sub(r":[0-9a-f-]{20,}", ":<id>", saved.config["configurable"]["checkpoint_ns"])
        for saved in saver.list(None)
    }
    return [*seen, sorted(namespaces)]


def interrupt_reached_on_a_retry(m: SimpleNamespace) -> list[Any]:
    calls = [0]

    def flaky_then_ask(state):
        calls[0] += 1
        if calls[0] == 1:
            raise ValueError("boom")
        return {"x": m.interrupt("q")}

    retry = m.RetryPolicy(max_attempts=3, initial_interval=0.0, jitter=False, retry_on=ValueError)
    app = m.StateGraph(Number).add_node("n", flaky_then_ask, retry_policy=retry)
    app = app.add_edge(m.START, "n").compile(checkpointer=m.InMemorySaver())
    paused = app.invoke({"x": 0}, CONFIG)["__interrupt__"][0]
    return [paused.value, app.invoke(m.Command(resume={paused.id: 7}), CONFIG)]


def history_of_one_checkpoint(m: SimpleNamespace) -> list[Any]:
    app = m.StateGraph(State).add_node("a", lambda s: {"log": ["a"]})
    app = app.add_node("b", lambda s: {"log": ["b"]}).add_edge(m.START, "a").add_edge("a", "b")
    app = app.compile(checkpointer=m.InMemorySaver())
    app.invoke({"log": []}, CONFIG)
    one = next(s for s in app.get_state_history(CONFIG) if s.metadata["step"] == 1)
    return [(s.metadata["step"], s.values) for s in app.get_state_history(one.config)]


def _paused_before_a_send(m: SimpleNamespace, work, **compile_options: Any):
    app = m.StateGraph(State).add_node("plan", lambda s: {"log": ["plan"]})
    app = app.add_node("work", work).add_edge(m.START, "plan")
    app = app.add_conditional_edges("plan", lambda s: [m.Send("work", {"log": []})], ["work"])
    return app.compile(checkpointer=m.InMemorySaver(), **compile_options)


def _after_a_new_input(app) -> list[Any]:
    first = _plain(app.invoke({"log": ["in1"]}, CONFIG))
    chunks = [_plain(chunk) for chunk in app.stream({"log": ["in2"]}, CONFIG)]
    snapshot = app.get_state(CONFIG)
    history = [
        (h.metadata["source"], h.metadata["step"], h.next) for h in app.get_state_history(CONFIG)
    ]
    return [first, chunks, snapshot.values, snapshot.next, history]


def new_input_at_a_breakpoint_before_a_send(m: SimpleNamespace) -> list[Any]:
    """The new input replaces the pending Send, as a pull task would be: ``plan`` runs
    again and the run stops before the Send it makes (a Send kept would stop the run
    before its input was ever applied: a chat agent's new message lost)."""
    app = _paused_before_a_send(m, lambda s: {"log": ["work"]}, interrupt_before=["work"])
    return _after_a_new_input(app)


def new_input_while_a_send_task_waits_for_an_answer(m: SimpleNamespace) -> list[Any]:
    """The Send task paused in ``interrupt()`` is dropped by the new input too."""
    return _after_a_new_input(_paused_before_a_send(m, _asker(m, "work")))


def _asks_twice(m: SimpleNamespace):
    def ask(state):
        return {"log": [f"ask:{m.interrupt('q1')}:{m.interrupt('q2')}"]}

    app = m.StateGraph(State).add_node("ask", ask).add_node("z", lambda s: {"log": ["z"]})
    app = app.add_edge(m.START, "ask").add_edge("ask", "z")
    return app.compile(checkpointer=m.InMemorySaver())


def new_input_after_a_command_that_paused_again(m: SimpleNamespace, goto: Any = ()) -> list[Any]:
    """``Command(resume=..., update=...)`` whose task pauses again saves its update as
    writes of no task; a new input then keeps it (applied first, as a resume would) and
    replaces what its ``goto`` woke too."""
    app = _asks_twice(m)
    app.invoke({"log": ["in1"]}, CONFIG)
    app.invoke(m.Command(resume="A", update={"log": ["u"]}, goto=goto), CONFIG)
    chunks = [_plain(chunk) for chunk in app.stream({"log": ["in2"]}, CONFIG)]
    snapshot = app.get_state(CONFIG)
    history = [
        (h.metadata["source"], h.metadata["step"], h.values, h.next)
        for h in app.get_state_history(CONFIG)
    ]
    return [chunks, snapshot.values, snapshot.next, history]


def new_input_after_a_command_with_goto_that_paused_again(m: SimpleNamespace) -> list[Any]:
    return new_input_after_a_command_that_paused_again(m, goto="z")


def replay_of_a_checkpoint_holding_a_commands_update(m: SimpleNamespace) -> list[Any]:
    """A resuming ``Command(update=...)`` is saved as writes of no task on the checkpoint
    it resumed, which ``get_state`` shows as that checkpoint's state; replaying that
    checkpoint (``invoke(None, its config)``) starts from it, update included."""
    app = m.StateGraph(State).add_node("ask", _asker(m)).add_node("z", lambda s: {"log": ["z"]})
    app = app.add_edge(m.START, "ask").add_edge("ask", "z")
    app = app.compile(checkpointer=m.InMemorySaver())
    app.invoke({"log": ["in"]}, CONFIG)
    app.invoke(m.Command(resume="A", update={"log": ["u"]}), CONFIG)
    paused = next(s for s in app.get_state_history(CONFIG) if s.metadata["step"] == 0)
    replayed = [_plain(chunk) for chunk in app.stream(None, paused.config, stream_mode="values")]
    resumed = app.invoke(m.Command(resume="B"), CONFIG)
    history = [
        (h.metadata["source"], h.metadata["step"], h.values, h.next)
        for h in app.get_state_history(CONFIG)
    ]
    return [app.get_state(paused.config).values, replayed, resumed, history]


def replay_after_the_thread_moved_past_a_commands_update(m: SimpleNamespace) -> list[Any]:
    """Replaying (``invoke(None, ...)`` with its id) the checkpoint a paused-again
    ``Command`` saved its update on: the fork keeps the update, as a resume would."""
    app = _asks_twice(m)
    app.invoke({"log": ["in1"]}, CONFIG)
    app.invoke(m.Command(resume="A", update={"log": ["u"]}), CONFIG)
    app.invoke(m.Command(resume="B"), CONFIG)  # the thread moves on past it
    (paused,) = [h for h in app.get_state_history(CONFIG) if h.next == ("ask",)]
    replayed = _plain(app.invoke(None, paused.config))
    history = [(h.metadata["source"], h.values, h.next) for h in app.get_state_history(CONFIG)]
    return [replayed, history]


@pytest.mark.parametrize(
    "scenario",
    [
        update_a_subgraphs_thread,
        command_update_on_a_paused_thread,
        command_on_an_older_checkpoint,
        nested_in_an_own_thread,
        interrupt_reached_on_a_retry,
        history_of_one_checkpoint,
        new_input_at_a_breakpoint_before_a_send,
        new_input_while_a_send_task_waits_for_an_answer,
        new_input_after_a_command_that_paused_again,
        new_input_after_a_command_with_goto_that_paused_again,
        replay_of_a_checkpoint_holding_a_commands_update,
        replay_after_the_thread_moved_past_a_commands_update,
    ],
)
def test_matches_langgraph(scenario):
    expected = _quiet(lambda: scenario(_library("langgraph")))
    assert _quiet(lambda: scenario(_library("graphkit"))) == expected


def a_dict_as_the_answer(m: SimpleNamespace) -> list[Any]:
    """``Command(resume={"ok": True})`` answers the one pending interrupt with that dict
    (only a dict of interrupt ids is a map of answers)."""

    def review(state):
        return {"x": m.interrupt("approve?")}

    app = m.StateGraph(Number).add_node("review", review).add_edge(m.START, "review")
    app = app.compile(checkpointer=m.InMemorySaver())
    first = _plain(app.invoke({"x": 0}, CONFIG))
    return [first, app.invoke(m.Command(resume={"ok": True, "note": "fine"}), CONFIG)]


def test_a_dict_answer_resumes():
    expected = _quiet(lambda: a_dict_as_the_answer(_library("langgraph")))
    assert expected[1] == {"x": {"ok": True, "note": "fine"}}
    assert _quiet(lambda: a_dict_as_the_answer(_library("graphkit"))) == expected
