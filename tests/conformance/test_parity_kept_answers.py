"""An answer given to an interrupt (``Command(resume=...)``) is saved before the run
that takes it goes on, as in LangGraph: when the resumed task then ends without a
result to save (a ``KeyboardInterrupt``, a ``SystemExit``, a write no serializer
takes), ``invoke(None, config)`` runs it again with the same answer rather than asking
the question again. graphkit keeps two answers LangGraph loses that way: one given by
interrupt id, and one under ``durability="exit"`` (saved on the way out). An answer
that was recorded (the task paused again) does not answer the next question."""

from __future__ import annotations

import operator
import threading
from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS, _interrupt


class State(TypedDict):
    log: Annotated[list, operator.add]


def _graph(lib: Lib, saver: Any, fault: str, failing: dict, ran: list[str]) -> Any:
    """START → a → ask → c; ``ask`` asks "?", then fails with ``fault`` while ``failing``."""
    interrupt = _interrupt(lib.name)

    def ask(state: State) -> dict:
        answer = interrupt("?")
        ran.append(f"ask:{answer}")
        if failing["on"]:
            if fault == "KeyboardInterrupt":
                raise KeyboardInterrupt()
            if fault == "SystemExit":
                raise SystemExit(1)
            if fault == "unsaveable":
                return {"log": [threading.Lock()]}
        return {"log": [answer]}

    builder = lib.StateGraph(State)
    builder.add_node("a", lambda state: {"log": ["a"]}).add_node("ask", ask)
    builder.add_node("c", lambda state: {"log": ["c"]})
    builder.add_edge(lib.START, "a").add_edge("a", "ask").add_edge("ask", "c")
    return builder.compile(checkpointer=saver)


def _observe(lib: Lib, kind: str, fault: str, durability: str, by_id: bool = False) -> dict:
    config = {"configurable": {"thread_id": "t"}}
    failing, ran = {"on": True}, []
    with SAVERS[kind](lib.name) as saver:
        app = _graph(lib, saver, fault, failing, ran)
        paused = app.invoke({"log": ["in"]}, config, durability=durability)
        answer = {paused["__interrupt__"][0].id: "yes"} if by_id else "yes"
        command = lib.Command(resume=answer)
        try:
            app.invoke(command, config, durability=durability)
            raised = None
        except BaseException as error:  # (the class is what is compared)
            raised = type(error).__name__
        failing["on"] = False
        state = app.get_state(config)
        seen = {"raised": raised, "values": state.values, "next": state.next}
        resumed = app.invoke(None, config)
        seen["resumed"] = {key: value for key, value in resumed.items() if key != "__interrupt__"}
        seen["asked again"] = "__interrupt__" in resumed
        seen["ran"] = ran
    return seen


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
@pytest.mark.parametrize("durability", ["sync", "async"])
@pytest.mark.parametrize("fault", ["KeyboardInterrupt", "SystemExit", "unsaveable"])
def test_an_answer_outlives_the_task_it_resumed(fault, durability, kind):
    expected = _observe(load_langgraph(), kind, fault, durability)
    got = _observe(load_graphkit(), kind, fault, durability)
    assert got == expected
    assert got["resumed"] == {"log": ["in", "a", "yes", "c"]}
    assert got["ran"] == ["ask:yes", "ask:yes"]


@pytest.mark.parametrize("fault", ["KeyboardInterrupt", "SystemExit", "unsaveable"])
def test_an_answer_by_interrupt_id_outlives_the_task_it_resumed(fault):
    expected = _observe(load_langgraph(), "memory", fault, "sync", by_id=True)
    got = _observe(load_graphkit(), "memory", fault, "sync", by_id=True)
    assert got["resumed"] == {"log": ["in", "a", "yes", "c"]}
    if fault == "unsaveable":
        assert got == expected
    else:  # LangGraph saves only a single answer first: it asks again
        assert expected["asked again"]


@pytest.mark.parametrize("fault", ["KeyboardInterrupt", "unsaveable"])
def test_under_exit_durability(fault):
    """What "exit" held back is saved on the way out, the answer too; a write no
    serializer takes fails that save, in both libraries."""
    expected = _observe(load_langgraph(), "memory", fault, "exit")
    got = _observe(load_graphkit(), "memory", fault, "exit")
    assert expected["asked again"]  # LangGraph saves nothing of it
    if fault == "unsaveable":
        assert got == expected
    else:
        assert got["resumed"] == {"log": ["in", "a", "yes", "c"]}


def _two_questions(lib: Lib, fail_on_second: bool) -> dict:
    """ask1 then ask2 in one node: the answer to the first is not the second's."""
    interrupt = _interrupt(lib.name)
    failing = {"on": fail_on_second}

    def ask(state: State) -> dict:
        first = interrupt("first?")
        second = interrupt("second?")
        if failing["on"]:
            raise KeyboardInterrupt()
        return {"log": [first, second]}

    builder = lib.StateGraph(State).add_node("ask", ask).add_edge(lib.START, "ask")
    config = {"configurable": {"thread_id": "t"}}
    seen: dict[str, Any] = {}
    with SAVERS["memory"](lib.name) as saver:
        app = builder.compile(checkpointer=saver)
        app.invoke({"log": []}, config)
        seen["first"] = app.invoke(lib.Command(resume="one"), config).get("__interrupt__")
        if fail_on_second:
            with pytest.raises(KeyboardInterrupt):
                app.invoke(lib.Command(resume="two"), config)
            failing["on"] = False
        after = app.invoke(None, config)
    seen["first"] = [interrupt.value for interrupt in seen["first"]]
    seen["after"] = after.get("log"), [i.value for i in after.get("__interrupt__", ())]
    return seen


def test_the_second_answer_outlives_the_task_and_the_first_is_not_reused():
    got = _two_questions(load_graphkit(), fail_on_second=True)
    assert got == _two_questions(load_langgraph(), fail_on_second=True)
    assert got["after"] == (["one", "two"], [])


def test_a_recorded_answer_does_not_answer_the_next_question():
    """LangGraph gives its saved answer to the first to the second question too."""
    got = _two_questions(load_graphkit(), fail_on_second=False)
    assert got == {"first": ["second?"], "after": ([], ["second?"])}
    assert _two_questions(load_langgraph(), fail_on_second=False)["after"] == (["one", "one"], [])
