"""Mistakes made building a graph, on both libraries: the same exception class at the
same moment (the call itself, ``compile()`` or ``invoke()``), and graphkit's message
naming the culprit and the fix in the learner's terms: a function by its name, never
by a memory address, and never Python's bare "unhashable type: 'list'"."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph


class State(TypedDict):
    x: int


def first(state: State) -> dict[str, int]:
    return {"x": 1}


def second(state: State) -> dict[str, int]:
    return {"x": 2}


def _builder(lib: Lib) -> Any:
    return lib.StateGraph(State).add_node("a", first).add_edge(lib.START, "a")


def _compiled(lib: Lib, at: list[str], builder: Any, **options: Any) -> Any:
    at.append("compile")
    return builder.compile(**options)


def _saver(lib: Lib) -> Any:
    if lib.name == "langgraph":
        from langgraph.checkpoint.memory import InMemorySaver
    else:
        from graphkit import InMemorySaver
    return InMemorySaver


def _invoked(lib: Lib, at: list[str], builder: Any, **options: Any) -> Any:
    app = _compiled(lib, at, builder)
    at.append("invoke")
    return app.invoke({"x": 0}, **options)


Program = Callable[[Lib, list[str]], Any]
"""Builds (and compiles, and runs) a graph for one library, appending to ``at`` the
moment it reaches: "compile", then "invoke"."""

CASES: dict[str, tuple[Program, str, str, list[str]]] = {
    # id: (program, moment, exception class, what graphkit's message says)
    "state schema a dict of values": (
        lambda lib, at: lib.StateGraph({"text": ""}),
        "call", "TypeError", ["StateGraph({'text': ''})", "TypedDict('State', {'text': str})"],
    ),
    "input schema a list of keys": (
        lambda lib, at: lib.StateGraph(State, input_schema=["x"]),
        "call", "TypeError", ["input_schema=['x']", "TypedDict('State', {'x': str})"],
    ),
    "node input schema a dict of types": (
        lambda lib, at: _builder(lib).add_node("b", second, input_schema={"x": int}),
        "call", "TypeError", ["add_node('b', ..., input_schema=", "TypedDict('State', {'x': int})"],
    ),
    "edge to a list of nodes": (
        lambda lib, at: _builder(lib).add_node("b", second).add_edge(lib.START, ["a", "b"]),
        "call", "TypeError", ["add_edge(START, ['a', 'b'])", "add_edge(START, 'a')"],
    ),
    "edge from a function": (
        lambda lib, at: _builder(lib).add_node("b", second).add_edge(first, "b"),
        "call", "TypeError", ["add_edge(first, 'b')", "add_node('first', first)"],
    ),
    "finish point a function": (
        lambda lib, at: _builder(lib).set_finish_point(first),
        "call", "TypeError", ["add_edge(first, END)"],
    ),
    "edge to a function": (
        lambda lib, at: _compiled(lib, at, _builder(lib).add_node(second).add_edge("a", second)),
        "compile", "ValueError", ["Edge 'a' -> second", "write 'second', not the function"],
    ),
    "waiting edge for a function": (
        lambda lib, at: _builder(lib).add_node("b", second).add_edge(["a", first], "b"),
        "call", "ValueError", ["['a', first] -> 'b'", "add_node('first', first)"],
    ),
    "conditional edge from a list": (
        lambda lib, at: _builder(lib).add_conditional_edges(["a"], first),
        "call", "TypeError", ["add_conditional_edges(['a'], first, ...)", "starts at one node"],
    ),
    "conditional edge from a function": (
        lambda lib, at: _compiled(lib, at, _builder(lib).add_conditional_edges(first, second)),
        "compile", "ValueError", ["starts at first, which is not a node's name"],
    ),
    "conditional edge from END": (
        lambda lib, at: _compiled(lib, at, _builder(lib).add_conditional_edges(lib.END, first)),
        "compile", "ValueError", ["cannot start at END"],
    ),
    # (a way back to the beginning: START is neither a node to add nor, as a target, a
    # constant to use; graphkit suggested add_node('__start__', ...), a reserved name)
    "path map to START": (
        lambda lib, at: _compiled(
            lib, at, _builder(lib).add_conditional_edges("a", first, {"again": lib.START})
        ),
        "compile", "ValueError", ["maps 'again' to", "nothing runs into START"],
    ),
    "path map to the string START": (
        lambda lib, at: _compiled(
            lib, at, _builder(lib).add_conditional_edges("a", first, {"again": "START"})
        ),
        "compile", "ValueError", ["maps 'again' to", "name the node START leads to"],
    ),
    "edge to the string START": (
        lambda lib, at: _compiled(lib, at, _builder(lib).add_edge("a", "START")),
        "compile", "ValueError", ["Edge 'a' -> 'START'", "nothing runs into START"],
    ),
    "conditional edge whose path is a name": (
        lambda lib, at: _builder(lib).add_node("b", second).add_conditional_edges("a", "b"),
        "call", "TypeError", ["add_conditional_edges('a', 'b')", "write add_edge('a', 'b')"],
    ),
    "sequence item a triple": (
        lambda lib, at: lib.StateGraph(State).add_sequence([("a", first, "x")]),
        "call", "TypeError", ["('a', first, 'x')", "('name', function) pair"],
    ),
    "sequence of names": (
        lambda lib, at: lib.StateGraph(State).add_sequence(["a", "b"]),
        "call", "TypeError", ["'a', a name without its function"],
    ),
    "sequence a dict": (
        lambda lib, at: lib.StateGraph(State).add_sequence({"a": first}),
        "call", "TypeError", ["add_sequence(list(nodes.items()))"],
    ),
    "sequence a function": (
        lambda lib, at: lib.StateGraph(State).add_sequence(first),
        "call", "TypeError", ["add_sequence([first])"],
    ),
    "sequence naming a function twice": (
        lambda lib, at: lib.StateGraph(State).add_sequence([first, first]),
        "call", "ValueError", ["('first_2', first)"],
    ),
    "error handler a name": (
        lambda lib, at: _builder(lib).add_node("b", second, error_handler="handle"),
        "call", "TypeError", ["add_node('b', ..., error_handler=...)", "'handle'"],
    ),
    "destinations a number": (
        lambda lib, at: _compiled(lib, at, _builder(lib).add_node("b", second, destinations=5)),
        "compile", "TypeError", ["destinations=5", "destinations=('a', 'b')"],
    ),
    "destinations nested": (
        lambda lib, at: _compiled(
            lib, at, _builder(lib).add_node("b", second, destinations=[["a"]])
        ),
        "compile", "TypeError", ["lists ['a']", "one flat tuple"],
    ),
    "destination a function": (
        lambda lib, at: _compiled(
            lib, at, _builder(lib).add_node("b", second, destinations=[first])
        ),
        "compile", "ValueError", ["destination first", "add_node('first', first)"],
    ),
    "checkpointer the saver class": (
        lambda lib, at: _compiled(lib, at, _builder(lib), checkpointer=_saver(lib)),
        "compile", "TypeError", ["got the class", "compile(checkpointer=InMemorySaver())"],
    ),
    "compile keyword misspelt": (
        lambda lib, at: _compiled(lib, at, _builder(lib), checkpoint=None),
        "compile", "TypeError", ["'checkpoint'", "Did you mean checkpointer=...?"],
    ),
    "interrupt_before a number": (
        lambda lib, at: _compiled(lib, at, _builder(lib), interrupt_before=5),
        "compile", "TypeError", ["compile(interrupt_before=5)", "a list of node names"],
    ),
    "interrupt_before a function": (
        lambda lib, at: _compiled(lib, at, _builder(lib), interrupt_before=[first]),
        "compile", "ValueError", ["interrupt_before=[first]", "add_node('first', first)"],
    ),
    "stream_mode a number": (
        lambda lib, at: _invoked(lib, at, _builder(lib), stream_mode=5),
        "invoke", "TypeError", ["stream_mode=5", "a list of names"],
    ),
    "output_keys a number": (
        lambda lib, at: _invoked(lib, at, _builder(lib), output_keys=5),
        "invoke", "TypeError", ["output_keys=5", "a list of names"],
    ),
    "context_schema not a class": (
        lambda lib, at: _invoked(
            lib, at, lib.StateGraph(State, context_schema=5).add_node("a", first)
            .add_edge(lib.START, "a"), context={"user": "ada"},
        ),
        "invoke", "TypeError", ["context_schema is 5 (int), not a class"],
    ),
}  # fmt: skip


def _raised(program: Program, lib: Lib) -> tuple[str, str, str]:
    """The moment ``program`` failed at, the class of its error, and the message."""
    at = ["call"]
    try:
        program(lib, at)
    except Exception as error:
        return at[-1], type(error).__name__, str(error)
    return at[-1], "nothing", ""


@pytest.mark.parametrize("case", list(CASES))
def test_a_building_mistake_is_refused_as_in_langgraph_and_named(case: str) -> None:
    program, moment, kind, words = CASES[case]
    expected = _raised(program, load_langgraph())
    assert expected[:2] == (moment, kind)
    got = _raised(program, load_graphkit())
    assert got[:2] == (moment, kind), got[2]
    assert all(word in got[2] for word in words), got[2]
    assert "0x" not in got[2] and "unhashable" not in got[2]


@pytest.mark.parametrize("schema", [dict[str, Any], list[int], Any], ids=repr)
def test_a_context_schema_issubclass_takes_runs_as_in_langgraph(schema: Any) -> None:
    """LangGraph's check is ``issubclass``, which takes a subscripted builtin: a graph
    declaring ``context_schema=dict[str, Any]`` runs with its context passed as given."""

    def read(state: State, runtime: Any) -> dict[str, int]:
        return {"x": len(runtime.context)}

    def run(lib: Lib) -> Any:
        builder = lib.StateGraph(State, context_schema=schema).add_node("a", read)
        return builder.add_edge(lib.START, "a").compile().invoke({"x": 0}, context=[1, 2])

    assert run(load_graphkit()) == run(load_langgraph()) == {"x": 2}
