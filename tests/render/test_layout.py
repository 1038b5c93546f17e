"""render.layout: the pure-Python layered layout."""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from graphkit.render.layout import Box, LayoutEdge, layered_layout


def overlap(a: Box, b: Box) -> bool:
    return (
        abs(a.x - b.x) * 2 < a.width + b.width - 0.01
        and abs(a.y - b.y) * 2 < a.height + b.height - 0.01
    )


def assert_no_overlap(layout) -> None:
    for (name_a, a), (name_b, b) in itertools.combinations(layout.boxes.items(), 2):
        assert not overlap(a, b), (name_a, name_b, a, b)


def test_a_chain_is_a_straight_column():
    sizes = {name: (60.0, 30.0) for name in "abcd"}
    layout = layered_layout(sizes, [LayoutEdge(a, b) for a, b in itertools.pairwise("abcd")])
    assert len({box.x for box in layout.boxes.values()}) == 1
    ys = [layout.boxes[name].y for name in "abcd"]
    assert ys == sorted(ys) and len(set(ys)) == 4


def test_edges_leave_the_bottom_of_their_source_and_enter_the_top_of_their_target():
    sizes = {"a": (60.0, 30.0), "b": (60.0, 30.0), "c": (80.0, 30.0)}
    edges = [LayoutEdge("a", "b"), LayoutEdge("a", "c"), LayoutEdge("b", "c", (30.0, 14.0))]
    layout = layered_layout(sizes, edges)
    for edge, route in zip(edges, layout.routes, strict=True):
        source, target = layout.boxes[edge.source], layout.boxes[edge.target]
        assert route.points[0][1] == source.y + source.height / 2
        assert route.points[-1][1] == target.y - target.height / 2
        assert abs(route.points[0][0] - source.x) <= source.width / 2
    assert layout.routes[2].label_at is not None
    assert layout.routes[0].label_at is None


def test_a_cycle_is_laid_out_with_one_edge_reversed_but_drawn_from_its_source():
    sizes = {name: (60.0, 30.0) for name in "abc"}
    edges = [LayoutEdge("a", "b"), LayoutEdge("b", "c"), LayoutEdge("c", "a")]
    layout = layered_layout(sizes, edges)
    back = layout.routes[2]
    assert back.points[0][1] == layout.boxes["c"].y - 15  # leaves c's top
    assert back.points[-1][1] == layout.boxes["a"].y + 15  # enters a's bottom
    assert_no_overlap(layout)


def test_a_self_loop_sits_beside_its_node_and_gets_room():
    sizes = {"a": (60.0, 30.0), "b": (60.0, 30.0)}
    edges = [LayoutEdge("a", "a", (40.0, 14.0)), LayoutEdge("a", "b")]
    layout = layered_layout(sizes, edges)
    loop = layout.routes[0]
    assert loop.loop and len(loop.points) == 4
    assert min(x for x, _ in loop.points) >= layout.boxes["a"].x + 30
    assert layout.width >= loop.label_at[0] + 40


def test_labels_of_a_fan_out_do_not_overlap_each_other():
    sizes = {name: (60.0, 30.0) for name in ["r", "a", "b", "c"]}
    edges = [LayoutEdge("r", t, (50.0, 14.0)) for t in "abc"]
    layout = layered_layout(sizes, edges)
    xs = sorted(route.label_at[0] for route in layout.routes)
    assert all(later - earlier >= 50 for earlier, later in itertools.pairwise(xs))


def test_the_layout_is_deterministic():
    sizes = {f"n{i}": (50.0 + i, 30.0) for i in range(12)}
    rng = random.Random(3)
    edges = [LayoutEdge(f"n{rng.randrange(12)}", f"n{rng.randrange(12)}") for _ in range(20)]
    assert layered_layout(sizes, edges) == layered_layout(sizes, edges)


def test_two_hundred_nodes_lay_out_without_overlap():
    rng = random.Random(7)
    sizes = {f"node{i}": (40.0 + rng.randrange(80), 30.0) for i in range(200)}
    edges = [LayoutEdge(f"node{rng.randrange(i)}", f"node{i}") for i in range(1, 200)]
    edges += [
        LayoutEdge(f"node{rng.randrange(200)}", f"node{rng.randrange(200)}") for _ in range(60)
    ]
    layout = layered_layout(sizes, edges)
    assert len(layout.routes) == len(edges)
    assert_no_overlap(layout)


graphs = st.integers(1, 14).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(20, 120), min_size=n, max_size=n),
        st.lists(
            st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.booleans()), max_size=30
        ),
    )
)


@settings(max_examples=60, deadline=None)
@given(graphs)
def test_any_graph_lays_out_with_disjoint_boxes_and_a_route_per_edge(graph):
    widths, pairs = graph
    sizes = {f"v{i}": (float(w), 30.0) for i, w in enumerate(widths)}
    edges = [LayoutEdge(f"v{a}", f"v{b}", (30.0, 14.0) if label else None) for a, b, label in pairs]
    layout = layered_layout(sizes, edges)
    assert_no_overlap(layout)
    assert len(layout.routes) == len(edges)
    for route in layout.routes:
        assert all(0 <= x <= layout.width and 0 <= y <= layout.height for x, y in route.points)


def test_an_agent_loops_two_opposite_edges_keep_apart_at_both_boxes():
    """Lesson 06: assistant -> tools and tools -> assistant share one chain; their ends
    must not sit 12 px apart (they read as one line with two arrowheads)."""
    sizes = {"start": (80.0, 30.0), "assistant": (90.0, 30.0), "tools": (60.0, 30.0)}
    sizes["end"] = (70.0, 30.0)
    edges = [
        LayoutEdge("start", "assistant"),
        LayoutEdge("assistant", "tools"),
        LayoutEdge("assistant", "end"),
        LayoutEdge("tools", "assistant"),
    ]
    layout = layered_layout(sizes, edges)
    there, back = layout.routes[1], layout.routes[3]
    assert abs(there.points[0][0] - back.points[-1][0]) >= 24  # at assistant's bottom
    assert abs(there.points[-1][0] - back.points[0][0]) >= 24  # at tools' top
    assert_no_overlap(layout)
