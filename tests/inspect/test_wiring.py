"""Wiring: trigger channels, edges and routers, from the records or from the graph."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from graphkit import START, StateGraph
from graphkit.inspect.wiring import Wiring


class Log(TypedDict):
    log: Annotated[list, operator.add]


def test_triggers_from_names_or_from_the_graph(waiting):
    run = waiting.trace({"x": 0, "log": []})
    assert Wiring(run).triggers("c") == ("branch:to:c", "join:a+b:c")
    assert Wiring(run, waiting).triggers("c") == tuple(waiting.spec.nodes["c"].triggers)
    assert Wiring(run).triggers("__start__") == ("__start__",)


def test_known_nodes(branch):
    run = branch.trace({"x": 0, "log": []})
    assert Wiring(run).knows("small") and not Wiring(run).knows("big")
    assert Wiring(run, branch).knows("big")
    assert "check" in Wiring(run).node_names()


def test_via_without_and_with_the_graph(seed_run, seed_app):
    bare, exact = Wiring(seed_run), Wiring(seed_run, seed_app)
    assert bare.via(("news", "weather"), "summarize", "branch:to:summarize") == (
        "an edge or conditional edge of news and weather"
    )
    assert exact.via(("news", "weather"), "summarize", "branch:to:summarize") == (
        "the edge news → summarize and the edge weather → summarize"
    )
    assert exact.via(("__start__",), "planner", "branch:to:planner") == "the edge START → planner"
    assert exact.via(("planner",), "weather", "branch:to:weather") == "planner's router 'route'"
    assert bare.via(("x",), "y", "branch:to:y", commanded=("x",)) == "x's Command(goto='y')"


def test_via_a_waiting_edge(waiting):
    run = waiting.trace({"x": 0, "log": []})
    assert Wiring(run).via(("b",), "c", "join:a+b:c") == "the waiting edge [a, b] → c"
    assert Wiring(run, waiting).barrier("join:a+b:c") == (("a", "b"), "c")


def test_may_route_and_router_words(seed_run, seed_app):
    bare, exact = Wiring(seed_run), Wiring(seed_run, seed_app)
    assert bare.may_route("planner", "weather") and not bare.may_route("news", "weather")
    assert exact.may_route("planner", "news") and not exact.may_route("weather", "summarize")
    assert bare.router_words("planner", "weather") == "conditional edge or Command"
    assert exact.router_words("planner", "weather") == "router 'route'"
    assert exact.is_trigger("join:a+b:c") and not exact.is_trigger("plan")


def test_a_deferred_node_is_known_from_the_graph_or_from_its_held_back_trigger():
    builder = StateGraph(Log)
    for name in ("a", "b"):
        builder.add_node(name, lambda state: {"log": ["."]})
    builder.add_node("end", lambda state: {"log": ["end"]}, defer=True)
    builder.add_edge(START, "a").add_edge("a", "b").add_edge("a", "end")
    app = builder.compile()
    run = app.trace({"log": []})
    assert Wiring(run, app).deferred("end") and not Wiring(run, app).deferred("b")
    assert Wiring(run).deferred("end") and not Wiring(run).deferred("b")


def test_a_router_without_a_path_map_declares_no_node(make):
    app = make(
        ["start", "search", "cite", "report"],
        [(START, "start")],
        [("start", lambda state: ["search"], None)],
        waiting=[(("search", "cite"), "report")],
    )
    wiring = Wiring(app.trace({"x": 0, "log": []}), app)
    assert wiring.may_route("start", "report") and not wiring.declares("start", "report")
    assert not wiring.reached_directly("report") and wiring.reached_directly("start")


def test_a_low_level_pregel_node_wakes_another_by_writing_a_channel_not_by_an_edge():
    from graphkit.channels import EphemeralValue, LastValue
    from graphkit.pregel import NodeBuilder, Pregel

    one = NodeBuilder().subscribe_only("a").do(lambda text: text + "!").write_to("b")
    two = NodeBuilder().subscribe_only("b").do(lambda text: text + "?").write_to("c")
    channels = {"a": EphemeralValue(str), "b": EphemeralValue(str), "c": LastValue(str)}
    app = Pregel(
        nodes={"one": one, "two": two},
        channels=channels,
        input_channels=["a"],
        output_channels=["c"],
    )
    run = app.trace({"a": "hi"})
    for graph in (None, app):
        text = str(run.why("two", graph=graph))
        assert "b was written in step 0 by one;" in text
        assert "edge" not in text


def test_a_low_level_pregel_nodes_triggers_without_the_graph_are_those_the_run_recorded():
    from graphkit.channels import LastValue, Topic
    from graphkit.pregel import NodeBuilder, Pregel

    one = NodeBuilder().subscribe_to("inbox:one").do(lambda x: 1).write_to("inbox:two")
    two = NodeBuilder().subscribe_to("inbox:two").do(lambda x: 2).write_to("out")
    app = Pregel(
        nodes={"one": one, "two": two},
        channels={"inbox:one": Topic(int), "inbox:two": Topic(int), "out": LastValue(int)},
        input_channels="inbox:one",
        output_channels="out",
    )
    assert Wiring(app.trace(0)).triggers("two") == ("inbox:two",)
