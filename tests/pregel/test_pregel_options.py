"""graphkit-only behaviour of the low-level ``Pregel``'s options (LangGraph 1.2.24 fails
on a hand-built handler map, and keeps ``ChannelWriteTupleEntry`` private)."""

from __future__ import annotations

import pytest

from graphkit.channels import EphemeralValue, LastValue
from graphkit.errors import NodeError
from graphkit.pregel import ChannelWriteTupleEntry, NodeBuilder, Pregel


def test_a_handler_map_hands_a_failure_to_the_handler_node():
    def fetch(x: int) -> str:
        raise ConnectionError("down")

    def fallback(x: int, error: NodeError) -> str:
        return f"{x} from the cache ({error.node}: {error.error})"

    app = Pregel(
        nodes={
            "fetch": NodeBuilder().subscribe_only("ask").do(fetch).write_to("answer"),
            "fallback": NodeBuilder().subscribe_only("ask").do(fallback).write_to("answer"),
        },
        channels={"ask": EphemeralValue(int), "answer": LastValue(str)},
        input_channels="ask",
        output_channels="answer",
        node_error_handler_map={"fetch": "fallback"},
    )
    assert app.invoke(7) == "7 from the cache (fetch: down)"
    step = app.trace(7).step(0)
    assert step.plan.nodes == ["fetch"]  # the handler is not woken by the channel
    assert [r.task.kind for r in step.execution.results] == ["pull", "error_handler"]


def test_a_handler_map_naming_no_node_is_refused():
    with pytest.raises(ValueError, match=r"node_error_handler_map\['a'\] = 'nope'"):
        Pregel(
            nodes={"a": NodeBuilder().subscribe_only("x").write_to("y")},
            channels={"x": EphemeralValue(int), "y": LastValue(int)},
            input_channels="x",
            output_channels="y",
            node_error_handler_map={"a": "nope"},
        )


def test_a_tuple_entry_writes_the_pairs_its_mapper_returns():
    split = ChannelWriteTupleEntry(lambda pair: [("left", pair[0]), ("right", pair[1])])
    app = Pregel(
        nodes={"split": NodeBuilder().subscribe_only("pair").write_to(split)},
        channels={"pair": EphemeralValue(tuple), "left": LastValue(int), "right": LastValue(int)},
        input_channels="pair",
        output_channels=["left", "right"],
    )
    assert app.invoke((1, 2)) == {"left": 1, "right": 2}
