"""Cases about state: schema kinds, defaults, reducers and channel annotations.

No `from __future__ import annotations` here: the libraries read these annotations at
runtime, and the channel-annotated schemas are built inside functions from `lib.channels`.
"""

import dataclasses
import operator
from typing import Annotated, TypedDict

from pydantic import BaseModel, Field

from .harness import Case, Lib, appender

# --- TypedDict, plain fields and reducers ------------------------------------------------


class Pair(TypedDict):
    a: int
    b: str


def typeddict_partial_update(lib: Lib):
    def describe_a(state: Pair) -> dict:
        return {"b": f"a={state['a']}"}

    graph = lib.StateGraph(Pair)
    graph.add_node("describe_a", describe_a)
    graph.add_edge(lib.START, "describe_a")
    return graph.compile()


class Total(TypedDict):
    total: Annotated[int, operator.add]


def int_add_reducer(lib: Lib):
    graph = lib.StateGraph(Total)
    graph.add_node("one", lambda state: {"total": 1})
    graph.add_node("ten", lambda state: {"total": 10})
    graph.add_edge(lib.START, "one")
    graph.add_edge(lib.START, "ten")
    return graph.compile()


class Log(TypedDict):
    log: Annotated[list, operator.add]


def list_add_order(lib: Lib):
    """Three parallel writers registered out of alphabetical order."""
    graph = lib.StateGraph(Log)
    for name in ["zulu", "alpha", "mike"]:
        graph.add_node(name, appender(name))
        graph.add_edge(lib.START, name)
    return graph.compile()


def keep_max(current: int, new: int) -> int:
    return max(current, new)


class Custom(TypedDict):
    best: Annotated[int, keep_max]
    seen: Annotated[list, lambda seen, item: [*seen, item]]


def custom_reducers(lib: Lib):
    graph = lib.StateGraph(Custom)
    graph.add_node("three", lambda state: {"best": 3, "seen": "three"})
    graph.add_node("nine", lambda state: {"best": 9, "seen": "nine"})
    graph.add_edge(lib.START, "three")
    graph.add_edge(lib.START, "nine")
    return graph.compile()


def reducer_sees_input(lib: Lib):
    """A reducer channel starts at typ() and folds the input in too: 0 * 2 == 0."""

    class Product(TypedDict):
        product: Annotated[int, lib.channels.BinaryOperatorAggregate(int, operator.mul)]

    graph = lib.StateGraph(Product)
    graph.add_node("times_three", lambda state: {"product": 3})
    graph.add_edge(lib.START, "times_three")
    return graph.compile()


def whole_state_doubles(lib: Lib):
    graph = lib.StateGraph(Log)
    graph.add_node("echo", lambda state: state)
    graph.add_edge(lib.START, "echo")
    return graph.compile()


# --- dataclass and pydantic schemas --------------------------------------------------------


@dataclasses.dataclass
class Counter:
    x: int
    log: Annotated[list, operator.add] = dataclasses.field(default_factory=list)
    name: str = "anon"


def dataclass_defaults(lib: Lib):
    def bump(state: Counter) -> dict:
        return {"x": state.x + 1, "log": [state.name]}

    graph = lib.StateGraph(Counter)
    graph.add_node(bump)
    graph.add_edge(lib.START, "bump")
    return graph.compile()


def dataclass_returns_instance(lib: Lib):
    graph = lib.StateGraph(Counter)
    graph.add_node("rebuild", lambda state: Counter(x=state.x * 10, log=["rebuilt"]))
    graph.add_edge(lib.START, "rebuild")
    return graph.compile()


class Model(BaseModel):
    x: int
    log: Annotated[list[str], operator.add] = Field(default_factory=list)
    name: str = "anon"


def pydantic_defaults(lib: Lib):
    def bump(state: Model) -> dict:
        return {"x": state.x + 1, "log": [state.name]}

    graph = lib.StateGraph(Model)
    graph.add_node(bump)
    graph.add_edge(lib.START, "bump")
    return graph.compile()


def pydantic_returns_model(lib: Lib):
    """A returned model writes every field, defaults included."""
    graph = lib.StateGraph(Model)
    graph.add_node("rebuild", lambda state: Model(x=state.x * 10))
    graph.add_edge(lib.START, "rebuild")
    return graph.compile()


# --- channel annotations -------------------------------------------------------------------


def explicit_last_value(lib: Lib):
    class State(TypedDict):
        pinned: Annotated[int, lib.channels.LastValue(int)]
        plain: int

    graph = lib.StateGraph(State)
    graph.add_node("first", lambda state: {"pinned": state["plain"] + 1})
    graph.add_node("second", lambda state: {"plain": state["pinned"] * 2})
    graph.add_edge("first", "second")
    graph.add_edge(lib.START, "first")
    return graph.compile()


def ephemeral_and_topic(lib: Lib):
    """Channel classes (not instances) in Annotated; both forget their value a step later."""
    channels = lib.channels

    class State(TypedDict):
        flash: Annotated[int, channels.EphemeralValue]
        inbox: Annotated[list, channels.Topic]
        n: int

    def reader(state: State) -> dict:
        return {"n": state.get("flash", -1) * 10 + len(state.get("inbox", []))}

    graph = lib.StateGraph(State)
    graph.add_node("left", lambda state: {"flash": 5, "inbox": "left"})
    graph.add_node("right", lambda state: {"inbox": "right"})
    graph.add_node("reader", reader)
    graph.add_node("after", lambda state: {"n": state["n"] + len(state.get("inbox", []))})
    graph.add_edge(lib.START, "left")
    graph.add_edge(lib.START, "right")
    graph.add_edge(["left", "right"], "reader")
    graph.add_edge("reader", "after")
    return graph.compile()


def topic_accumulate(lib: Lib):
    channels = lib.channels

    class State(TypedDict):
        kept: Annotated[list, channels.Topic(int, accumulate=True)]
        latest: Annotated[list, channels.Topic(int)]

    graph = lib.StateGraph(State)
    graph.add_node("first", lambda state: {"kept": 1, "latest": 1})
    graph.add_node("second", lambda state: {"kept": [2, 3], "latest": [2, 3]})
    graph.add_node("third", lambda state: {"kept": 4})
    graph.add_edge(lib.START, "first")
    graph.add_edge("first", "second")
    graph.add_edge("second", "third")
    return graph.compile()


def any_value_forgets(lib: Lib):
    """AnyValue keeps the last of a step's writes (in node-name order), and a step that
    writes none clears it."""

    class State(TypedDict):
        vote: Annotated[int, lib.channels.AnyValue(int)]
        seen: Annotated[list, operator.add]

    graph = lib.StateGraph(State)
    graph.add_node("yes", lambda state: {"vote": 1})
    graph.add_node("no", lambda state: {"vote": 0})
    graph.add_node("look", lambda state: {"seen": [state.get("vote", -1)]})
    graph.add_node("look_again", lambda state: {"seen": [state.get("vote", -1)]})
    graph.add_edge(lib.START, "yes")
    graph.add_edge(lib.START, "no")
    graph.add_edge(["yes", "no"], "look")
    graph.add_edge("look", "look_again")
    return graph.compile()


def untracked_value(lib: Lib):
    class State(TypedDict):
        scratch: Annotated[int, lib.channels.UntrackedValue(int)]
        n: int

    graph = lib.StateGraph(State)
    graph.add_node("write", lambda state: {"scratch": state["n"] + 40})
    graph.add_node("read", lambda state: {"n": state["scratch"] + 2})
    graph.add_edge(lib.START, "write")
    graph.add_edge("write", "read")
    return graph.compile()


CASES = [
    Case(
        "typeddict-partial-update",
        typeddict_partial_update,
        inputs=({"a": 1},),
        expected=({"a": 1, "b": "a=1"},),
    ),
    Case("int-add-reducer", int_add_reducer, inputs=({"total": 5},), expected=({"total": 16},)),
    Case(
        "list-add-parallel-order",
        list_add_order,
        inputs=({"log": ["in"]},),
        expected=({"log": ["in", "alpha", "mike", "zulu"]},),
    ),
    Case(
        "custom-function-and-lambda-reducers",
        custom_reducers,
        inputs=({"best": 5, "seen": "in"}, {"best": 5}),
        expected=(
            {"best": 9, "seen": ["in", "nine", "three"]},
            {"best": 9, "seen": ["nine", "three"]},
        ),
    ),
    Case(
        "reducer-channel-folds-input",
        reducer_sees_input,
        inputs=({"product": 2}, {}),
        expected=({"product": 0}, {"product": 0}),
    ),
    Case(
        "whole-state-return-doubles-reducer",
        whole_state_doubles,
        inputs=({"log": ["x"]},),
        expected=({"log": ["x", "x"]},),
    ),
    Case(
        "dataclass-state-defaults",
        dataclass_defaults,
        inputs=({"x": 1}, Counter(x=5, name="n")),
        expected=({"x": 2, "log": ["anon"]}, {"x": 6, "log": ["n"], "name": "n"}),
    ),
    Case(
        "dataclass-node-returns-instance",
        dataclass_returns_instance,
        inputs=({"x": 2, "log": ["in"], "name": "kept?"},),
        expected=({"x": 20, "log": ["in", "rebuilt"], "name": "anon"},),
    ),
    Case(
        "pydantic-state-defaults",
        pydantic_defaults,
        inputs=({"x": 1}, Model(x=5, name="n")),
        expected=({"x": 2, "log": ["anon"]}, {"x": 6, "log": ["n"], "name": "n"}),
    ),
    Case(
        "pydantic-node-returns-model",
        pydantic_returns_model,
        inputs=({"x": 2, "log": ["in"], "name": "kept?"},),
        expected=({"x": 20, "log": ["in"], "name": "anon"},),
    ),
    Case(
        "explicit-last-value-channel",
        explicit_last_value,
        inputs=({"plain": 1},),
        expected=({"pinned": 2, "plain": 4},),
    ),
    Case(
        "ephemeral-and-topic-classes",
        ephemeral_and_topic,
        inputs=({"n": 0},),
        expected=({"n": 52},),
    ),
    Case(
        "topic-accumulate-or-not",
        topic_accumulate,
        inputs=({},),
        expected=({"kept": [1, 2, 3, 4]},),
    ),
    Case(
        "any-value-forgets",
        any_value_forgets,
        inputs=({"seen": []},),
        expected=({"seen": [1, -1]},),
    ),
    Case(
        "untracked-value", untracked_value, inputs=({"n": 0},), expected=({"n": 42, "scratch": 40},)
    ),
]
