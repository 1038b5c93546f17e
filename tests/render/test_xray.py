"""render.xray: subgraph nodes drawn as the subgraph's own nodes."""

from __future__ import annotations

from graphkit import END, START
from graphkit.render import graph_from_builder

from .conftest import builder_with, edges


def test_xray_changes_nothing_without_subgraphs(seed):
    assert edges(seed.get_graph(xray=True)) == edges(seed.get_graph())


def child_graph():
    builder = builder_with("s1", "s2")
    builder.add_edge(START, "s1").add_edge("s1", "s2")
    builder.add_conditional_edges("s2", lambda s: END, {"again": "s1", "done": END})
    return builder.compile()


def parent_of(child):
    builder = builder_with("a", "after").add_node("sub", child)
    builder.add_edge(START, "a").add_edge("after", END)
    builder.add_conditional_edges("a", lambda s: "go", {"go": "sub", "skip": "after"})
    return builder.add_edge("sub", "after").compile()


def test_a_subgraph_node_is_one_node_without_xray():
    graph = parent_of(child_graph()).get_graph()
    assert [n.id for n in graph.nodes] == ["__start__", "a", "after", "sub", "__end__"]
    assert ("sub", "after", "edge", None) in edges(graph)


def test_xray_draws_the_subgraph_nodes_wired_to_the_parent():
    graph = parent_of(child_graph()).get_graph(xray=True)
    assert [n.id for n in graph.nodes] == [
        "__start__", "a", "after", "sub:s1", "sub:s2", "__end__"
    ]  # fmt: skip
    assert edges(graph) == [
        ("__start__", "a", "edge", None),
        ("a", "after", "conditional", "skip"),
        ("a", "sub:s1", "conditional", "go"),  # the parent's router into the entry
        ("after", "__end__", "edge", None),
        ("sub:s1", "sub:s2", "edge", None),
        ("sub:s2", "after", "conditional", "done"),  # the child's router out of its exit
        ("sub:s2", "sub:s1", "conditional", "again"),
    ]


def test_xray_depth_limits_how_deep_subgraphs_are_opened():
    nested = parent_of(parent_of(child_graph()))
    level_one = [n.id for n in nested.get_graph(xray=1).nodes]
    every_level = [n.id for n in nested.get_graph(xray=True).nodes]
    assert "sub:sub" in level_one and "sub:sub:s1" not in level_one
    assert "sub:sub:s1" in every_level and "sub:sub" not in every_level
    assert [n.id for n in nested.get_graph(xray=0).nodes] == [
        n.id for n in nested.get_graph().nodes
    ]


def test_xray_of_a_subgraph_that_loops_back_to_itself():
    builder = builder_with().add_node("sub", child_graph())
    builder.add_edge(START, "sub")
    builder.add_conditional_edges("sub", lambda s: END, {"retry": "sub", "stop": END})
    assert edges(graph_from_builder(builder, xray=True)) == [
        ("__start__", "sub:s1", "edge", None),
        ("sub:s1", "sub:s2", "edge", None),
        ("sub:s2", "sub:s1", "conditional", "again"),
        ("sub:s2", "sub:s1", "conditional", "retry"),
        ("sub:s2", "__end__", "conditional", "stop"),  # the child's END returns to the parent
    ]
