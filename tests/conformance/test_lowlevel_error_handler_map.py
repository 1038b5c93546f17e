"""A low-level ``Pregel`` given ``node_error_handler_map`` alone (no handler node wired on
the failing node): LangGraph 1.2 sends the failure to no handler and loses the error (the
run returns ``None``, as if nothing failed); graphkit runs the handler, as the map says.
A deliberate difference, listed in docs/compatibility.md."""

from __future__ import annotations

from langgraph.channels import LastValue as TheirLastValue
from langgraph.pregel import NodeBuilder as TheirNodeBuilder
from langgraph.pregel import Pregel as TheirPregel

from graphkit.channels import LastValue
from graphkit.pregel import NodeBuilder, Pregel


def fail(value: int) -> int:
    raise ConnectionError("down")


def fallback(value: int) -> int:
    return 7


def build(pregel, node_builder, last_value):
    nodes = {
        "n": node_builder().subscribe_only("a").do(fail).write_to("b"),
        "h": node_builder().do(fallback).write_to("b"),
    }
    return pregel(
        nodes=nodes,
        channels={name: last_value(int) for name in "ab"},
        input_channels="a",
        output_channels=["b"],
        node_error_handler_map={"n": "h"},
    )


def test_langgraph_loses_the_error_of_a_node_whose_handler_is_only_in_the_map():
    app = build(TheirPregel, TheirNodeBuilder, TheirLastValue)
    assert app.invoke(1) is None  # no handler ran, and no error was raised


def test_graphkit_runs_the_handler_the_map_names():
    app = build(Pregel, NodeBuilder, LastValue)
    assert app.invoke(1) == {"b": 7}


def test_graphkit_runs_it_in_the_failing_step():
    run = build(Pregel, NodeBuilder, LastValue).trace(1)
    (step,) = [s for s in run.steps if s.execution and any(r.error for r in s.execution.results)]
    results = {r.task.node: r for r in step.execution.results}
    assert results["n"].handled and results["h"].error is None
