"""render.model: the drawable graph record."""

from __future__ import annotations

import dataclasses

import pytest

from graphkit.render.model import DrawableGraph, Edge, Node


def test_parallel_edges_get_numbered_ids():
    graph = DrawableGraph(
        "g",
        (Node("a", "a"), Node("b", "b")),
        (Edge("a", "b"), Edge("a", "b", "conditional", "x"), Edge("b", "a")),
    )
    assert [e.element_id for e in graph.edges] == ["edge-a.b", "edge-a.b.2", "edge-b.a"]


def test_conditional_means_chosen_at_run_time():
    assert [Edge("a", "b", kind).conditional for kind in ("edge", "waiting")] == [False, False]
    assert [Edge("a", "b", kind).conditional for kind in ("conditional", "command")] == [True, True]


def test_records_are_frozen_and_nodes_are_found_by_id():
    graph = DrawableGraph("g", (Node("a", "a"),), ())
    with pytest.raises(dataclasses.FrozenInstanceError):
        graph.name = "other"
    assert graph.node("a").element_id == "node-a"
    with pytest.raises(KeyError, match="No node 'zz'; nodes: \\['a'\\]"):
        graph.node("zz")


def test_repr_is_short_for_big_graphs():
    nodes = tuple(Node(f"n{i}", f"n{i}") for i in range(11))
    assert repr(DrawableGraph("big", nodes, ())) == "DrawableGraph('big', nodes=11, edges=0)"


def test_drawings_delegate_to_their_modules(seed):
    graph = seed.get_graph()
    assert graph.to_dot().startswith('digraph "LangGraph" {')
    assert graph.draw_mermaid().startswith("flowchart TD\n")
    assert graph.draw_svg(engine="python").startswith("<svg ")
