"""Threads: checkpoints per step, interrupts and resume, breakpoints, state editing."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from graphkit import START, Command, InMemorySaver, StateGraph, interrupt
from graphkit.errors import EmptyInputError, GraphkitWarning, InvalidUpdateError


class State(TypedDict):
    log: Annotated[list, operator.add]


def appender(name):
    return lambda state: {"log": [name]}


def ask(state):
    answer = interrupt(f"approve after {state['log']}?")
    return {"log": [f"ask:{answer}"]}


def thread(name="t"):
    return {"configurable": {"thread_id": name}}


def chain(*nodes, **compile_options):
    builder = StateGraph(State)
    previous = START
    for name, function in nodes:
        builder.add_node(name, function).add_edge(previous, name)
        previous = name
    return builder.compile(checkpointer=InMemorySaver(), **compile_options)


def test_every_step_saves_a_checkpoint_with_langgraph_metadata():
    app = chain(("a", appender("a")), ("b", appender("b")))
    app.invoke({"log": []}, {**thread(), "metadata": {"user": "ada"}})
    history = list(app.get_state_history(thread()))
    assert [(h.metadata["source"], h.metadata["step"], h.next) for h in history] == [
        ("loop", 2, ()),
        ("loop", 1, ("b",)),
        ("loop", 0, ("a",)),
        ("input", -1, ("__start__",)),
    ]
    assert history[0].metadata["user"] == "ada" and history[-1].parent_config is None
    assert history[0].parent_config == history[1].config


def test_interrupt_pauses_and_command_resume_answers():
    app = chain(("a", appender("a")), ("ask", ask))
    paused = app.invoke({"log": []}, thread())
    (pending,) = paused["__interrupt__"]
    assert paused["log"] == ["a"] and pending.value == "approve after ['a']?"
    state = app.get_state(thread())
    assert state.next == ("ask",) and state.interrupts == (pending,)
    assert state.tasks[0].interrupts == (pending,)
    assert app.invoke(Command(resume="yes"), thread()) == {"log": ["a", "ask:yes"]}


def test_several_interrupts_in_one_node_are_answered_in_order():
    def two_questions(state):
        first = interrupt("first?")
        second = interrupt("second?")
        return {"log": [first, second]}

    app = chain(("q", two_questions))
    assert app.invoke({"log": []}, thread())["__interrupt__"][0].value == "first?"
    assert app.invoke(Command(resume=1), thread())["__interrupt__"][0].value == "second?"
    assert app.invoke(Command(resume=2), thread()) == {"log": [1, 2]}


def test_parallel_interrupts_are_answered_by_id_and_finished_siblings_do_not_rerun():
    runs = []

    def sibling(state):
        runs.append("sibling")
        return {"log": ["sibling"]}

    builder = StateGraph(State).add_node("sibling", sibling)
    builder.add_node("x", ask).add_node("y", ask)
    for name in ("sibling", "x", "y"):
        builder.add_edge(START, name)
    app = builder.compile(checkpointer=InMemorySaver())
    paused = app.invoke({"log": []}, thread())["__interrupt__"]
    assert len(paused) == 2 and runs == ["sibling"]
    answers = {paused[0].id: "one", paused[1].id: "two"}
    result = app.invoke(Command(resume=answers), thread())
    assert sorted(result["log"]) == ["ask:one", "ask:two", "sibling"]
    assert runs == ["sibling"]  # its saved writes were reused, not run again


def test_interrupt_before_and_after_stop_and_a_resume_passes_them():
    app = chain(("a", appender("a")), ("b", appender("b")), interrupt_before=["b"])
    assert app.invoke({"log": []}, thread()) == {"log": ["a"]}
    assert app.get_state(thread()).next == ("b",)
    assert app.invoke(None, thread()) == {"log": ["a", "b"]}
    app = chain(("a", appender("a")), ("b", appender("b")))
    assert app.invoke({"log": []}, thread(), interrupt_after=["a"]) == {"log": ["a"]}
    assert app.invoke(None, thread()) == {"log": ["a", "b"]}


def test_a_breakpoint_is_reported_in_the_updates_stream():
    app = chain(("a", appender("a")), ("b", appender("b")), interrupt_before=["b"])
    chunks = list(app.stream({"log": []}, thread(), stream_mode="updates"))
    assert chunks == [{"a": {"log": ["a"]}}, {"__interrupt__": ()}]


def test_a_crashed_step_resumes_without_rerunning_finished_tasks():
    calls = {"ok": 0, "flaky": 0}

    def ok(state):
        calls["ok"] += 1
        return {"log": ["ok"]}

    def flaky(state):
        calls["flaky"] += 1
        if calls["flaky"] == 1:
            raise ConnectionError("down")
        return {"log": ["flaky"]}

    builder = StateGraph(State).add_node("ok", ok).add_node("flaky", flaky)
    builder.add_edge(START, "ok").add_edge(START, "flaky")
    app = builder.compile(checkpointer=InMemorySaver())
    with pytest.raises(ConnectionError):
        app.invoke({"log": []}, thread())
    state = app.get_state(thread())  # ok's saved writes show, flaky is still to run
    assert state.values == {"log": ["ok"]} and state.next == ("flaky",)
    assert app.invoke(None, thread()) == {"log": ["flaky", "ok"]}
    assert calls == {"ok": 1, "flaky": 2}


def test_update_state_acts_as_the_node_and_continues_from_there():
    app = chain(("a", appender("a")), ("b", appender("b")), interrupt_before=["b"])
    app.invoke({"log": []}, thread())
    config = app.update_state(thread(), {"log": ["edited"]})  # as 'a', the last writer
    assert app.get_state(config).metadata["source"] == "update"
    assert app.get_state(thread()).next == ("b",)
    assert app.invoke(None, thread()) == {"log": ["a", "edited", "b"]}


def test_update_state_as_an_unknown_node_is_refused():
    app = chain(("a", appender("a")))
    app.invoke({"log": []}, thread())
    with pytest.raises(InvalidUpdateError, match="no such node"):
        app.update_state(thread(), {"log": ["x"]}, as_node="nope")


def test_replaying_from_an_older_checkpoint_forks_the_thread():
    app = chain(("a", appender("a")), ("b", appender("b")))
    app.invoke({"log": []}, thread())
    before_b = next(h for h in app.get_state_history(thread()) if h.next == ("b",))
    assert app.invoke(None, before_b.config) == {"log": ["a", "b"]}
    sources = [h.metadata["source"] for h in app.get_state_history(thread())]
    assert sources[:2] == ["loop", "fork"]
    assert len(sources) == 6  # 4 of the first run, the fork, the replayed step


def test_resuming_an_empty_thread_is_an_error():
    with pytest.raises(EmptyInputError, match="nothing to resume"):
        chain(("a", appender("a"))).invoke(None, thread())


def test_a_thread_is_required_and_an_interrupt_without_a_checkpointer_cannot_resume():
    with pytest.raises(ValueError, match="needs a thread"):
        chain(("a", appender("a"))).invoke({"log": []})
    builder = StateGraph(State).add_node("ask", ask).add_edge(START, "ask")
    # as in LangGraph, the run stops and returns the interrupt; nothing can resume it
    with pytest.warns(GraphkitWarning, match="without a checkpointer.*cannot be resumed"):
        result = builder.compile().invoke({"log": []})
    assert [i.value for i in result["__interrupt__"]] == ["approve after []?"]


def test_durability_exit_saves_only_the_last_checkpoint():
    app = chain(("a", appender("a")), ("b", appender("b")))
    app.invoke({"log": []}, thread(), durability="exit")
    history = list(app.get_state_history(thread()))
    assert len(history) == 1 and history[0].values == {"log": ["a", "b"]}


@pytest.mark.parametrize("durability", ["async", "exit"])
def test_a_saver_whose_put_writes_takes_no_task_path_is_called_without_one(durability):
    # savers written before LangGraph added put_writes's task_path: LangGraph's runtime
    # passes it only to those that take it, so such a saver keeps working
    calls = []

    class OlderSaver(InMemorySaver):
        def put_writes(self, config, writes, task_id):
            calls.append(task_id)
            super().put_writes(config, writes, task_id)

    builder = StateGraph(State)
    builder.add_node("a", appender("a")).add_node("ask", ask)
    builder.add_edge(START, "a").add_edge(START, "ask")
    app = builder.compile(checkpointer=OlderSaver())
    paused = app.invoke({"log": []}, thread(), durability=durability)
    assert paused["log"] == ["a"] and calls
    finished = app.invoke(Command(resume="ok"), thread(), durability=durability)
    assert finished["log"] == ["a", "ask:ok"]
