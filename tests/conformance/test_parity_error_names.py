"""LangGraph's remaining error names, as a moved app meets them.

`GraphBubbleUp` is the base of the exceptions a run raises through node code on purpose
(`GraphInterrupt`, `ParentCommand`): node code that catches `Exception` but re-raises
`GraphBubbleUp` still pauses and routes. `ErrorCode` and `create_error_message` are
LangGraph's troubleshooting codes. `UnknownInterruptError` is what LangGraph's strict
resume mode raises (`configurable["__pregel_strict_resume"]`, which its server sets) when
an answer does not match the interrupts waiting: an empty map, an id nobody waits for, or
one answer for several. Each case runs on both libraries, sync and async, and compares
what the caller sees; interrupt ids differ between the libraries, so they are compared
by their place among the run's interrupts.
"""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any

import pytest
from typing_extensions import TypedDict

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import _interrupt, _memory_saver

LIBRARIES = [
    pytest.param(load_langgraph, id="langgraph"),
    pytest.param(load_graphkit, id="graphkit"),
]


class State(TypedDict, total=False):
    log: Annotated[list, operator.add]


# -- GraphBubbleUp ----------------------------------------------------------------------


@pytest.mark.parametrize("load", LIBRARIES)
def test_interrupts_and_parent_commands_are_graph_bubble_ups(load):
    errors = load().errors
    assert issubclass(errors.GraphInterrupt, errors.GraphBubbleUp)
    assert issubclass(errors.NodeInterrupt, errors.GraphBubbleUp)
    assert issubclass(errors.ParentCommand, errors.GraphBubbleUp)
    assert issubclass(errors.GraphBubbleUp, Exception)
    assert not issubclass(errors.GraphRecursionError, errors.GraphBubbleUp)


def _interrupt_args(lib: Lib) -> list[Any]:
    errors = lib.errors
    return [errors.GraphInterrupt().args, errors.GraphInterrupt(["asked"]).args]


def test_a_graph_interrupt_holds_its_interrupts_as_its_one_argument():
    """Made with no interrupts, it still holds them: an empty tuple, its ``args[0]``
    (LangGraph's ``test_errors.py``); code reading ``error.args[0]`` finds them."""
    expected = _interrupt_args(load_langgraph())
    assert expected == [((),), (["asked"],)]
    assert _interrupt_args(load_graphkit()) == expected


def _guarded_interrupt_run(lib: Lib, asynchronous: bool) -> list[Any]:
    """A node that turns every error into a log line, except what must bubble up."""
    interrupt = _interrupt(lib.name)

    def careful(state: State) -> dict:
        try:
            answer = interrupt("go on?")
        except lib.errors.GraphBubbleUp:
            raise
        except Exception as error:  # (what a node written for LangGraph often does)
            return {"log": [f"swallowed {type(error).__name__}"]}
        return {"log": [f"answer {answer}"]}

    builder = lib.StateGraph(State).add_node("careful", careful)
    builder.add_edge(lib.START, "careful")
    seen: list[Any] = []
    with _memory_saver(lib.name) as saver:
        graph = builder.compile(checkpointer=saver)
        config = {"configurable": {"thread_id": "t"}}
        for given in ({"log": []}, lib.Command(resume="yes")):
            if asynchronous:
                result = asyncio.run(graph.ainvoke(given, config))
            else:
                result = graph.invoke(given, config)
            paused = [item.value for item in result.get("__interrupt__", ())]
            seen.append((result["log"], paused))
    return seen


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_a_node_that_reraises_graph_bubble_up_still_pauses(asynchronous):
    theirs = _guarded_interrupt_run(load_langgraph(), asynchronous)
    ours = _guarded_interrupt_run(load_graphkit(), asynchronous)
    assert ours == theirs == [([], ["go on?"]), (["answer yes"], [])]


def _guarded_parent_command_run(lib: Lib) -> dict[str, Any]:
    """A subgraph routes its parent; the parent's node guards the call as above."""
    sub = lib.StateGraph(State)
    sub.add_node("route", lambda s: lib.Command(graph=lib.Command.PARENT, goto="after"))
    sub = sub.add_edge(lib.START, "route").compile()

    def calls_subgraph(state: State) -> dict:
        try:
            return sub.invoke(state)
        except lib.errors.GraphBubbleUp:
            raise
        except Exception as error:
            return {"log": [f"swallowed {type(error).__name__}"]}

    builder = lib.StateGraph(State).add_node("outer", calls_subgraph, destinations=("after",))
    builder.add_node("after", lambda s: {"log": ["after"]})
    builder.add_edge(lib.START, "outer")
    return builder.compile().invoke({"log": []})


def test_a_node_that_reraises_graph_bubble_up_still_routes_its_parent():
    theirs = _guarded_parent_command_run(load_langgraph())
    ours = _guarded_parent_command_run(load_graphkit())
    assert ours == theirs == {"log": ["after"]}


# -- ErrorCode --------------------------------------------------------------------------


def test_error_codes_and_their_message_are_langgraphs():
    theirs, ours = load_langgraph().errors, load_graphkit().errors
    assert [(code.name, code.value) for code in ours.ErrorCode] == [
        (code.name, code.value) for code in theirs.ErrorCode
    ]
    for code in ours.ErrorCode:
        mine = ours.create_error_message(message="It broke.", error_code=code)
        given = theirs.create_error_message(
            message="It broke.", error_code=theirs.ErrorCode[code.name]
        )
        assert mine == given
    with pytest.raises(TypeError):
        ours.create_error_message("It broke.", ours.ErrorCode.MULTIPLE_SUBGRAPHS)


# -- UnknownInterruptError (strict resume) ----------------------------------------------

STRICT = {"__pregel_strict_resume": True}


def _two_questions(lib: Lib) -> Any:
    interrupt = _interrupt(lib.name)
    builder = lib.StateGraph(State)
    builder.add_node("a", lambda s: {"log": [f"a {interrupt('a?')}"]})
    builder.add_node("b", lambda s: {"log": [f"b {interrupt('b?')}"]})
    builder.add_edge(lib.START, "a").add_edge(lib.START, "b")
    return builder


def _resume_outcome(lib: Lib, answer: Any, extra: dict[str, Any], asynchronous: bool) -> Any:
    """Pause on two interrupts, then resume with ``answer`` (a callable given the run's
    interrupt ids, in order) and ``extra`` configurable keys; what the caller sees, ids
    replaced by their place among the run's interrupts."""
    with _memory_saver(lib.name) as saver:
        graph = _two_questions(lib).compile(checkpointer=saver)
        config = {"configurable": {"thread_id": "t"}}
        first = graph.invoke({"log": []}, config)
        asked = sorted(first["__interrupt__"], key=lambda item: item.value)  # a? then b?
        ids = [item.id for item in asked]
        place = {id_: f"interrupt-{index}" for index, id_ in enumerate(ids)}
        resumed = {"configurable": {"thread_id": "t", **extra}}
        command = lib.Command(resume=answer(ids))
        try:
            if asynchronous:
                result = asyncio.run(graph.ainvoke(command, resumed))
            else:
                result = graph.invoke(command, resumed)
        except Exception as error:
            fields = ("reason", "interrupt_ids", "pending_ids")
            known = {name: getattr(error, name, None) for name in fields}
            for name in ("interrupt_ids", "pending_ids"):
                if known[name] is not None:  # sorted by id, as both libraries give them
                    assert list(known[name]) == sorted(known[name])
                    known[name] = sorted(place.get(id_, "unknown") for id_ in known[name])
            left = graph.get_state(config)
            return type(error).__name__, known, len(left.interrupts), left.values
        waiting = len(result.get("__interrupt__", ()))
        return "returned", sorted(result["log"]), waiting


ANSWERS = {
    "one answer, two waiting": lambda ids: "x",
    "an empty map": lambda ids: {},
    "an unknown id": lambda ids: {"0" * 32: "x"},
    "one known id and one unknown": lambda ids: {ids[1]: "x", "f" * 32: "y"},
    "a known id": lambda ids: {ids[0]: "x"},
    "both ids": lambda ids: {ids[0]: "x", ids[1]: "y"},
}


@pytest.mark.parametrize("strict", [False, True], ids=["lenient", "strict"])
@pytest.mark.parametrize("answer", list(ANSWERS))
def test_a_resume_that_does_not_match_the_waiting_interrupts(answer, strict):
    extra = STRICT if strict else {}
    theirs = _resume_outcome(load_langgraph(), ANSWERS[answer], extra, False)
    ours = _resume_outcome(load_graphkit(), ANSWERS[answer], extra, False)
    assert ours == theirs


@pytest.mark.parametrize("answer", ["an empty map", "an unknown id", "a known id"])
def test_strict_resume_on_the_async_path(answer):
    theirs = _resume_outcome(load_langgraph(), ANSWERS[answer], STRICT, True)
    ours = _resume_outcome(load_graphkit(), ANSWERS[answer], STRICT, True)
    assert ours == theirs


def test_strict_resume_accepts_one_answer_to_a_breakpoint():
    def outcome(lib: Lib) -> Any:
        builder = lib.StateGraph(State).add_node("a", lambda s: {"log": ["a"]})
        with _memory_saver(lib.name) as saver:
            graph = builder.add_edge(lib.START, "a").compile(
                checkpointer=saver, interrupt_before=["a"]
            )
            graph.invoke({"log": []}, {"configurable": {"thread_id": "t"}})
            config = {"configurable": {"thread_id": "t", **STRICT}}
            return graph.invoke(lib.Command(resume="go"), config)

    assert outcome(load_graphkit()) == outcome(load_langgraph()) == {"log": ["a"]}


def test_unknown_interrupt_error_keeps_what_it_was_given():
    errors = load_graphkit().errors
    error = errors.UnknownInterruptError(
        "no such interrupt", reason="not_pending", interrupt_ids=["b", "a"], pending_ids=["c"]
    )
    assert (error.reason, error.interrupt_ids, error.pending_ids) == (
        "not_pending",
        ("b", "a"),
        ("c",),
    )
    assert str(error) == "no such interrupt"
    assert not isinstance(error, errors.GraphBubbleUp)
