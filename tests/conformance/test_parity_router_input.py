"""What a conditional edge's router receives, as LangGraph gives it (issue 14, item 6).

LangGraph's rule: a router whose first parameter is annotated with a schema class reads that
class's channels, fresh (after the source node's writes), as the class; any other router
reads the source node's input-schema channels, fresh, and when both that read and what the
node returned are dicts it gets the two merged, the fresh read winning: a router after a node
with a private input schema still sees the keys the node returned. Each router here prints
what it got, so the observations compare it (and its key order) on both libraries.
"""

from __future__ import annotations

import dataclasses
from typing import TypedDict

import pydantic
import pytest

from .harness import Case, Lib, compare, load_graphkit, load_langgraph, observe


class State(TypedDict, total=False):
    a: str
    b: str
    c: str


class Private(TypedDict):
    a: str


class Other(TypedDict):
    c: str


class Extra(TypedDict):
    d: str


@dataclasses.dataclass
class PrivateClass:
    a: str


class OtherModel(pydantic.BaseModel):
    c: str | None = None


def untyped(state):
    print("router got", repr(state))
    return "__end__"


def typed_state(state: State):
    print("router got", repr(state))
    return "__end__"


def typed_other(state: Other):
    print("router got", repr(state))
    return "__end__"


def typed_extra(state: Extra):
    print("router got", repr(state))
    return "__end__"


def typed_model(state: OtherModel):
    print("router got", repr(state))
    return "__end__"


def _returns_b(state):
    return {"b": "from node", "extra": "not a state key"}


def _after_private(router, node=_returns_b, schema=Private):
    def build(lib: Lib):
        graph = lib.StateGraph(State)
        graph.add_node("n", node, input_schema=schema)
        graph.add_edge(lib.START, "n")
        graph.add_conditional_edges("n", router)
        return graph.compile()

    return build


def _entry(router):
    def build(lib: Lib):
        graph = lib.StateGraph(State)
        graph.add_node("n", lambda state: {"b": "n ran"})
        graph.add_conditional_edges(lib.START, router, ["n", "__end__"])
        return graph.compile()

    return build


def _two_routers(lib: Lib):
    def first(state):
        print("first got", repr(state))
        return "__end__"

    graph = lib.StateGraph(State)
    graph.add_node("n", _returns_b, input_schema=Private)
    graph.add_edge(lib.START, "n")
    graph.add_conditional_edges("n", first)
    graph.add_conditional_edges("n", typed_other)
    return graph.compile()


def _command_node(lib: Lib):
    graph = lib.StateGraph(State)
    graph.add_node("n", lambda state: lib.Command(update={"b": "cmd"}), input_schema=Private)
    graph.add_edge(lib.START, "n")
    graph.add_conditional_edges("n", untyped)
    return graph.compile()


INPUT = {"a": "x", "c": "kept"}
CASES = [
    Case("untyped-router-sees-returned-keys", _after_private(untyped), (INPUT,), warns=True),
    Case("untyped-router-node-returns-none", _after_private(untyped, lambda s: None), (INPUT,)),
    Case("router-typed-with-state", _after_private(typed_state), (INPUT,), warns=True),
    Case("router-typed-with-other-schema", _after_private(typed_other), (INPUT,), warns=True),
    Case("router-typed-with-new-keys", _after_private(typed_extra), (INPUT,), warns=True),
    Case("router-typed-with-a-model", _after_private(typed_model), (INPUT,), warns=True),
    Case("router-after-command", _command_node, (INPUT,)),
    Case(
        "router-after-dataclass-input",
        _after_private(untyped, _returns_b, PrivateClass),
        (INPUT,),
        warns=True,
    ),
    Case("two-routers-one-node", _two_routers, (INPUT,), warns=True),
    Case("entry-router-untyped", _entry(untyped), (INPUT,)),
    Case("entry-router-extra-input", _entry(untyped), ({"a": "x", "z": "no key"},), warns=True),
    Case("entry-router-typed", _entry(typed_other), (INPUT,)),
    Case("async-run-untyped-router", _after_private(untyped), (INPUT,), warns=True, run_async=True),
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_router_input_matches_langgraph(case: Case) -> None:
    expected = observe(case, load_langgraph())
    actual = observe(case, load_graphkit())
    assert expected.runs and expected.runs[0].printed, "the router must have printed"
    problems = compare(case, expected, actual)
    assert not problems, "\n\n".join(problems)


def test_untyped_router_gets_more_than_the_node_input() -> None:
    """The case this item is about: the router sees the key the node returned."""
    printed = observe(CASES[0], load_langgraph()).runs[0].printed
    assert any("'b': 'from node'" in line for line in printed)
