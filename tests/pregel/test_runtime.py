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


def test_a_context_dict_becomes_the_context_schema_in_every_way_a_run_starts():
    app = build(lambda state: {"out": get_runtime().context.user})
    assert app.invoke({"out": ""}, context={"user": "ada"}) == {"out": "ada"}
    assert list(app.stream({"out": ""}, context={"user": "bo"})) == [{"node": {"out": "bo"}}]
    assert app.trace({"out": ""}, context={"user": "cy"}).values == {"out": "cy"}


def test_a_context_dict_that_does_not_fit_says_which_schema_it_missed():
    app = build(lambda state: {"out": get_runtime().context.user})
    with pytest.raises(TypeError) as raised:
        app.invoke({"out": ""}, context={"name": "ada"})
    assert "does not fit the graph's context_schema Context" in "\n".join(raised.value.__notes__)


def test_a_pydantic_context_schema_validates_a_context_dict():
    pydantic = pytest.importorskip("pydantic")

    class Settings(pydantic.BaseModel):
        retries: int

    builder = StateGraph(State, context_schema=Settings)
    builder.add_node("node", lambda state, runtime: {"out": repr(runtime.context.retries)})
    app = builder.add_edge(START, "node").compile()
    assert app.invoke({"out": ""}, context={"retries": "3"}) == {"out": "3"}
    with pytest.raises(pydantic.ValidationError):
        app.invoke({"out": ""}, context={"retries": "many"})


def test_a_context_that_is_not_a_dict_is_passed_as_it_is():
    app = build(lambda state: {"out": str(get_runtime().context)})
    assert app.invoke({"out": ""}, context="plain") == {"out": "plain"}


def test_runtime_is_generic_in_its_context_type_as_langgraph_s():
    typed = Runtime[Context]  # evaluated here: this file's annotations are strings
    app = build(lambda state: {"out": get_runtime(Context).context.user})
    assert typed.__origin__ is Runtime
    assert app.invoke({"out": ""}, context=Context("bo")) == {"out": "bo"}


def test_merge_keeps_what_the_other_runtime_lacks():
    merged = Runtime(previous=1, server_info="s").merge(Runtime(context=Context("ada")))
    assert (merged.context, merged.previous, merged.server_info) == (Context("ada"), 1, "s")
    assert Runtime(previous=1).merge(Runtime(previous=2)).previous == 2
