"""GraphSpec's indexes (which nodes a channel wakes, which channels finish) and
LangGraph's "has a parameter named config" rule (injectable_parameters)."""

import dataclasses
import functools
from typing import TypedDict

import pytest

from graphkit import END, START, StateGraph
from graphkit.channels import (
    AnyValue,
    BinaryOperatorAggregate,
    EphemeralValue,
    LastValue,
    NamedBarrierValue,
    Topic,
    UntrackedValue,
)
from graphkit.pregel.spec import GraphSpec, NodeSpec, injectable_parameters


class FinishingValue(LastValue):
    """A channel that changes when the run would end (like LangGraph's
    LastValueAfterFinish)."""

    def finish(self) -> bool:
        return False


class InheritsFinish(FinishingValue):
    pass


class ConsumingValue(LastValue):
    def consume(self) -> bool:
        return False


def identity(value, config):
    return value


def node(name, *triggers):
    return NodeSpec(name=name, triggers=triggers, reads=(), call=identity)


def spec(nodes=(), channels=None):
    return GraphSpec(
        nodes={n.name: n for n in nodes},
        channels=channels or {},
        input_channel=START,
        output_keys=(),
        stream_keys=(),
        state_keys=(),
    )


# -- trigger_to_nodes -------------------------------------------------------------------


def test_trigger_index_maps_each_channel_to_the_sorted_nodes_it_wakes():
    graph = spec(
        [
            node("zulu", "x"),
            node("bravo", "x", "y"),
            node("alpha", "y", "x"),
            node("idle"),
        ]
    )
    assert graph.trigger_to_nodes == {"x": ("alpha", "bravo", "zulu"), "y": ("alpha", "bravo")}


def test_trigger_index_is_empty_without_triggers():
    assert spec().trigger_to_nodes == {}
    assert spec([node("idle")]).trigger_to_nodes == {}


class State(TypedDict):
    value: int


def noop(state):
    return {}


def test_trigger_index_of_a_compiled_graph():
    builder = StateGraph(State)
    for name in ("c", "b", "a"):
        builder.add_node(name, noop)
    builder.add_edge(START, "b")
    builder.add_edge(START, "a")
    builder.add_edge(["a", "b"], "c")
    builder.add_edge("c", END)
    graph = builder.compile().spec
    assert graph.trigger_to_nodes == {
        "__start__": ("__start__",),
        "branch:to:a": ("a",),
        "branch:to:b": ("b",),
        "branch:to:c": ("c",),
        "join:a+b:c": ("c",),
    }


# -- finishing_channels -----------------------------------------------------------------


def test_finishing_channels_are_those_whose_class_overrides_finish():
    channels = {
        "plain": LastValue(int),
        "finishes": FinishingValue(int),
        "consumes": ConsumingValue(int),
        "inherited": InheritsFinish(int),
        "barrier": NamedBarrierValue(str, {"a"}),
    }
    assert spec(channels=channels).finishing_channels == ("finishes", "inherited")


def test_no_built_in_channel_finishes():
    channels = {
        "last": LastValue(int),
        "any": AnyValue(int),
        "ephemeral": EphemeralValue(int),
        "untracked": UntrackedValue(int),
        "topic": Topic(int),
        "aggregate": BinaryOperatorAggregate(int, max),
        "barrier": NamedBarrierValue(str, {"a"}),
    }
    assert spec(channels=channels).finishing_channels == ()


def test_graph_spec_is_frozen():
    graph = spec([node("a", "x")])
    with pytest.raises(dataclasses.FrozenInstanceError):
        graph.trigger_to_nodes = {}


# -- a config parameter -----------------------------------------------------------------------


def with_config(state, config):
    return state


def with_keyword_only_config(state, *, config=None):
    return state


def without_config(state):
    return state


def with_var_keywords(state, **kwargs):
    return state


def with_similar_name(state, configuration):
    return state


class Node:
    def run(self, state, config):
        return state

    def run_plain(self, state):
        return state

    def __call__(self, state, config):
        return state


class PlainCallable:
    def __call__(self, state):
        return state


@pytest.mark.parametrize(
    ("function", "expected"),
    [
        (with_config, True),
        (with_keyword_only_config, True),
        (without_config, False),
        (with_var_keywords, False),
        (with_similar_name, False),
        (lambda state, config: state, True),
        (lambda state: state, False),
        (lambda *args: args, False),
        (Node().run, True),
        (Node().run_plain, False),
        (Node(), True),
        (PlainCallable(), False),
        (functools.partial(with_config, {}), True),
        (len, False),  # a builtin with a signature
        (str.upper, False),
        (max, False),  # a builtin without a signature
        (iter, False),
        (object(), False),  # not callable at all
    ],
)
def test_a_parameter_named_config_is_injected(function, expected):
    assert ("config" in injectable_parameters(function)) is expected
