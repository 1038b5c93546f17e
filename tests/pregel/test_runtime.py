"""What a node can reach besides its state: context, store, writer, config."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

import pytest

from graphkit import START, Runtime, StateGraph, get_runtime


class State(TypedDict):
    out: str


@dataclass
class Context:
    user: str


def build(node, **compile_options):
    builder = StateGraph(State, context_schema=Context).add_node("node", node)
    return builder.add_edge(START, "node").compile(**compile_options)


def test_runtime_parameter_carries_context_and_store():
    def node(state, runtime: Runtime):
        return {"out": f"{runtime.context.user}/{runtime.store}"}

    app = build(node, store="the-store")
    assert app.invoke({"out": ""}, context=Context("ada")) == {"out": "ada/the-store"}


def test_get_runtime_works_inside_a_node_and_only_there():
    app = build(lambda state: {"out": get_runtime().context.user})
    assert app.invoke({"out": ""}, context=Context("grace")) == {"out": "grace"}
    with pytest.raises(RuntimeError, match="only inside a running node"):
        get_runtime()


def test_store_parameter_is_injected():
    def node(state, store):
        return {"out": store["greeting"]}

    assert build(node, store={"greeting": "hi"}).invoke({"out": ""}) == {"out": "hi"}


def test_stepper_takes_a_context_too():
    app = build(lambda state: {"out": get_runtime().context.user})
    assert app.stepper({"out": ""}, context=Context("linus")).run().values == {"out": "linus"}
