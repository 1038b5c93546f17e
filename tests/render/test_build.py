"""render.build: the drawn graph matches what can run (no phantom, no missing edge)."""

from __future__ import annotations

import warnings
from typing import Literal

import pytest

from graphkit import END, START, Command, GraphkitWarning, StateGraph
from graphkit.render import graph_from_builder
from graphkit.render.build import literal_names

from .conftest import PlainState, builder_with, edges, noop


def test_seed_graph(seed):
    graph = seed.get_graph()
    assert [(n.id, n.kind) for n in graph.nodes] == [
        ("__start__", "start"),
        ("planner", "node"),
        ("weather", "node"),
        ("news", "node"),
        ("summarize", "node"),
        ("__end__", "end"),
    ]
    assert edges(graph) == [
        ("__start__", "planner", "edge", None),
        ("planner", "weather", "conditional", None),  # the key just repeats the name
        ("planner", "news", "conditional", None),
        ("weather", "summarize", "edge", None),
        ("news", "summarize", "edge", None),
        ("summarize", "__end__", "edge", None),
    ]
    assert [e.conditional for e in graph.edges] == [False, True, True, False, False, False]
    assert graph.name == "LangGraph"


def test_path_map_keys_label_the_edges_they_choose():
    builder = builder_with("check", "tools", "retry")
    builder.add_edge(START, "check").add_edge("tools", END).add_edge("retry", END)
    builder.add_conditional_edges(
        "check", lambda s: True, {True: "tools", False: END, "again": "retry", "loop": "retry"}
    )
    assert edges(graph_from_builder(builder))[1:4] == [
        ("check", "tools", "conditional", "True"),
        ("check", "retry", "conditional", "again, loop"),
        ("check", "__end__", "conditional", "False"),
    ]


# -- no phantom edges ---------------------------------------------------------------------


def test_a_node_whose_only_exit_is_a_router_has_no_plain_edge_to_end():
    builder = builder_with("a", "b")
    builder.add_edge(START, "a").add_edge("b", END)
    builder.add_conditional_edges("a", lambda s: "b", {"go": "b", "stay": "a"})
    assert ("a", END, "edge", None) not in edges(graph_from_builder(builder))
    assert [e for e in edges(graph_from_builder(builder)) if e[0] == "a"] == [
        ("a", "a", "conditional", "stay"),
        ("a", "b", "conditional", "go"),
    ]


def test_a_node_with_no_outgoing_edge_ends_the_run():
    builder = builder_with("a", "b")
    builder.add_edge(START, "a").add_edge("a", "b")
    assert edges(graph_from_builder(builder))[-1] == ("b", END, "edge", None)
    # and the run does end there
    assert builder.compile().trace({"n": 1}).steps[-1].plan.nodes == ["b"]


def test_a_node_whose_only_exit_is_a_command_or_a_waiting_edge_has_no_end_edge():
    builder = builder_with("a", "b", "c")
    builder.add_node("d", noop, destinations=("c",))
    builder.add_edge(START, "a").add_edge(START, "b").add_edge(START, "d")
    builder.add_edge(["a", "b"], "c")
    drawn = edges(graph_from_builder(builder))
    assert [e for e in drawn if e[1] == END] == [("c", END, "edge", None)]


def test_end_is_drawn_only_when_an_edge_reaches_it():
    builder = builder_with("a")
    builder.add_edge(START, "a").add_conditional_edges("a", lambda s: "a", {"again": "a"})
    graph = graph_from_builder(builder)
    assert [n.id for n in graph.nodes] == ["__start__", "a"]


# -- routers without a path_map -----------------------------------------------------------


def route_literal(state) -> Literal["b", "__end__"]:
    return "b"


def route_list(state) -> list[Literal["a", "b", "not_a_node"]] | None:
    return ["a"]


def route_anything(state):
    return "b"


@pytest.mark.parametrize(
    ("router", "targets"),
    [
        (route_literal, ["b", END]),
        (route_list, ["a", "b"]),  # a name that is no node gets no edge: the run drops it
        (route_anything, ["a", "b", "c", END]),  # any node or END (LangGraph: END only)
    ],
)
def test_a_router_without_path_map_draws_its_literal_choices_or_every_node(router, targets):
    builder = builder_with("a", "b", "c")
    builder.add_edge(START, "a").add_edge("b", END).add_edge("c", END)
    builder.add_conditional_edges("a", router)
    drawn = sorted(e[1] for e in edges(graph_from_builder(builder)) if e[0] == "a")
    assert drawn == sorted(targets)


def test_literal_names_reads_unions_and_containers_and_skips_unreadable_hints():
    def unresolvable(state) -> Nope[Literal["a"]]:  # noqa: F821
        return "a"

    class Router:
        def __call__(self, state) -> Literal["x"]:
            return "x"

    assert literal_names(route_list, "return") == ["a", "b", "not_a_node"]
    assert literal_names(unresolvable, "return") is None
    assert literal_names(Router(), "return") == ["x"]
    assert literal_names(len, "return") is None


# -- waiting edges and Command routes --------------------------------------------------------


def test_a_waiting_edge_goes_through_one_join_point():
    builder = builder_with("a", "b", "c")
    builder.add_edge(START, "a").add_edge(START, "b").add_edge(["a", "b"], "c")
    graph = graph_from_builder(builder)
    join = "join:a+b:c"
    assert graph.node(join).kind == "join"
    assert [e for e in edges(graph) if join in e[:2]] == [
        ("a", join, "waiting", None),
        ("b", join, "waiting", None),
        (join, "c", "waiting", None),
    ]


def test_destinations_are_command_edges_labelled_with_their_labels_or_goto():
    builder = builder_with("b")
    builder.add_node("a", noop, destinations={"b": "retry", END: "give up"})
    builder.add_node("c", noop, destinations=("a", "b", "nowhere"))
    builder.add_edge(START, "a").add_edge(START, "c").add_edge("b", END)
    drawn = edges(graph_from_builder(builder))
    assert [e for e in drawn if e[2] == "command"] == [
        ("a", "b", "command", "retry"),
        ("a", END, "command", "give up"),
        ("c", "b", "command", "goto"),
        ("c", "a", "command", "goto"),
    ]


def go_to_b_or_end(state) -> Command[Literal["b", "__end__"]]:
    return Command(goto="b")


def test_a_command_return_annotation_declares_command_edges():
    builder = builder_with("b")
    builder.add_node("a", go_to_b_or_end)
    builder.add_edge(START, "a")
    drawn = edges(graph_from_builder(builder))
    assert [e for e in drawn if e[0] == "a"] == [
        ("a", "b", "command", "goto"),
        ("a", END, "command", "goto"),
    ]
    assert ("b", END, "edge", None) in drawn


# -- the compiled graph ---------------------------------------------------------------------


def test_get_graph_draws_only_the_nodes_the_compiled_graph_has():
    builder = builder_with("a")
    builder.add_edge(START, "a")
    app = builder.compile()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphkitWarning)
        builder.add_node("late", noop)
        builder.add_edge("a", "late")
    assert [n.id for n in app.get_graph().nodes] == ["__start__", "a", "__end__"]


def test_node_metadata_is_kept():
    builder = StateGraph(PlainState).add_node("a", noop, metadata={"team": "search"})
    graph = graph_from_builder(builder.add_edge(START, "a"))
    assert graph.node("a").metadata == {"team": "search"}
    assert graph.node("__start__").metadata == {}


def test_a_conditional_entry_point_starts_at_start():
    builder = builder_with("a", "b")
    builder.set_conditional_entry_point(lambda s: "a", {"left": "a", "right": "b"})
    assert edges(graph_from_builder(builder))[:2] == [
        (START, "a", "conditional", "left"),
        (START, "b", "conditional", "right"),
    ]


def test_a_graph_without_a_builder_says_so():
    from graphkit.render.build import graph_from_builder as build

    with pytest.raises(ValueError, match="no StateGraph builder"):
        build(None)


def test_a_pregel_edge_names_the_channels_it_carries_and_its_label():
    """A low-level Pregel's edge a -> b exists because a writes a channel that wakes b:
    the drawing keeps which channels (the debugger lights the edge when they are
    written), and a node's ``meta(edge_labels={target: label})`` labels its edges."""
    from graphkit.channels import LastValue, Topic
    from graphkit.pregel import ChannelWriteEntry, NodeBuilder, Pregel

    a = (
        NodeBuilder()
        .subscribe_only("inbox:a")
        .do(lambda m: m[0])
        .write_to("out", ChannelWriteEntry("inbox:b", mapper=lambda d: d + 3))
        .meta(edge_labels={"b": 3, "nobody": 9})  # a target it cannot wake: ignored
    )
    b = NodeBuilder().subscribe_only("inbox:b").do(lambda m: m[0]).write_to("out")
    app = Pregel(
        nodes={"a": a, "b": b},
        channels={"inbox:a": Topic(int), "inbox:b": Topic(int), "out": LastValue(int)},
        input_channels="inbox:a",
        output_channels="out",
    )
    drawn = [(e.source, e.target, e.label, e.channels) for e in app.get_graph().edges]
    assert drawn == [
        ("__start__", "a", None, ("inbox:a",)),
        ("a", "b", "3", ("inbox:b",)),
        ("a", "__end__", None, ("out",)),
        ("b", "__end__", None, ("out",)),
    ]
    svg = app.get_graph().draw_svg(engine="python")
    assert '<g id="edge-a.b" class="edge gk-edge gk-edge-edge gk-via-inbox-3a-b">' in svg
    assert "<title>a → b via inbox:b</title>" in svg


def test_a_pregel_tuple_writers_declared_channels_are_dashed_edges_that_carry_them():
    """A ``ChannelWriteTupleEntry``'s ``static`` declarations are conditional edges to the
    nodes those channels wake, labelled as declared and carrying the channel (so the
    debugger lights them); its mapper is not run to draw them."""
    from graphkit.channels import LastValue, Topic
    from graphkit.pregel import ChannelWriteTupleEntry, NodeBuilder, Pregel

    called = []
    split = ChannelWriteTupleEntry(
        lambda pair: called.append(pair) or [("left", pair[0]), ("right", pair[1])],
        static=[("left", None, "first"), ("right", None, None)],
    )
    nodes = {
        "split": NodeBuilder().subscribe_only("pair").write_to(split),
        "l": NodeBuilder().subscribe_only("left").write_to("out"),
        "r": NodeBuilder().subscribe_only("right").write_to("out"),
    }
    app = Pregel(
        nodes=nodes,
        channels={"pair": LastValue(tuple), "left": Topic(int), "right": Topic(int)}
        | {"out": Topic(int)},
        input_channels="pair",
        output_channels="out",
    )
    drawn = [(e.source, e.target, e.kind, e.label, e.channels) for e in app.get_graph().edges]
    assert ("split", "l", "conditional", "first", ("left",)) in drawn
    assert ("split", "r", "conditional", None, ("right",)) in drawn
    assert called == []
    assert app.invoke((1, 2)) == [1, 2]


def test_a_pregel_edge_two_declarations_label_differently_keeps_the_first_sorted():
    """As LangGraph 1.2 draws it (tests/conformance/test_parity_pregel_drawing.py): the
    label that sorts first, whichever was declared first; none when it names the target."""
    from graphkit.channels import LastValue, Topic
    from graphkit.pregel import ChannelWriteTupleEntry, NodeBuilder, Pregel

    def labels(*static: tuple[str, None, str]) -> dict[str, str | None]:
        entry = ChannelWriteTupleEntry(lambda _: [], static=list(static))
        nodes = {
            "a": NodeBuilder().subscribe_only("in").write_to(entry),
            "b": NodeBuilder().subscribe_only("x").write_to("out"),
        }
        channels = {"in": LastValue(int), "x": Topic(int), "out": LastValue(int)}
        app = Pregel(nodes=nodes, channels=channels, input_channels="in", output_channels="out")
        return {e.target: e.label for e in app.get_graph().edges if e.source == "a"}

    assert labels(("x", None, "zeta"), ("x", None, "alpha")) == {"b": "alpha"}
    assert labels(("x", None, "zeta"), ("x", None, "b")) == {"b": None}
    assert labels(("__end__", None, "zeta"), ("__end__", None, "alpha")) == {"__end__": "alpha"}
