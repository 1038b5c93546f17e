"""A node with two plain edges into it, from branches of unequal length, runs twice
(langgraph#6336, #4026): ``c → d`` wakes it at step 3 and ``b_2 → d`` at step 4. The
user expected d to wait for both. ``why`` said what woke each run, but not that two
separate edges wake a node once each, nor the waiting edge that runs it once. A waiting
edge beside a plain edge, a router or another waiting edge into the same node does the
same (each run and each fix checked on LangGraph 1.2)."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

pytest.importorskip("langgraph")

import langgraph.graph
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send

import graphkit
from graphkit import open_langgraph_thread
from graphkit.bridge import trace


class Trail(TypedDict):
    trail: Annotated[list, operator.add]


def _uneven_branches(waiting: bool = False):
    builder = StateGraph(Trail)
    for name in ("a", "b", "b_2", "c", "d"):
        builder.add_node(name, lambda state, name=name: {"trail": [name]})
    builder.add_edge(START, "a").add_edge("a", "b").add_edge("a", "c").add_edge("b", "b_2")
    if waiting:
        builder.add_edge(["b_2", "c"], "d")
    else:
        builder.add_edge("b_2", "d").add_edge("c", "d")
    return builder.add_edge("d", END).compile()


EXPECTED = (
    "d has an edge of its own from each of b_2 and c: each wakes d by itself, in the step "
    "after its source ran, so d ran once for each (at steps 3 and 4). To run d once, after "
    "all of them, give it one waiting edge instead: add_edge(['b_2', 'c'], 'd')."
)


def test_why_says_two_plain_edges_wake_a_node_once_each_and_names_the_waiting_edge():
    app = _uneven_branches()
    assert app.invoke({"trail": []})["trail"] == ["a", "b", "c", "b_2", "d", "d"]
    explanation = trace(app, {"trail": []}).why("d", graph=app)
    for answer in explanation.answers:
        assert [r.kind for r in answer.reasons] == ["edge", "separate_edges"]
        assert answer.reasons[-1].text == EXPECTED


def test_the_waiting_edge_it_names_runs_the_node_once_in_langgraph_and_says_nothing_more():
    app = _uneven_branches(waiting=True)
    assert app.invoke({"trail": []})["trail"] == ["a", "b", "c", "b_2", "d"]
    explanation = trace(app, {"trail": []}).why("d", graph=app)
    assert [r.kind for r in explanation.answers[0].reasons] == ["waiting_edge"]


def test_a_loop_back_into_the_node_is_not_taken_for_separate_branches():
    """An agent's START → agent and tools → agent: agent runs again because tools, which
    agent leads to, ran; a waiting edge there would be wrong advice."""

    def route(state: Trail) -> str:
        return "tools" if len(state["trail"]) < 3 else END

    builder = StateGraph(Trail)
    builder.add_node("agent", lambda state: {"trail": ["agent"]})
    builder.add_node("tools", lambda state: {"trail": ["tools"]})
    builder.add_edge(START, "agent").add_conditional_edges("agent", route, ["tools", END])
    app = builder.add_edge("tools", "agent").compile()
    explanation = trace(app, {"trail": []}).why("agent", graph=app)
    assert len(explanation.answers) == 2
    for answer in explanation.answers:
        assert "separate_edges" not in [r.kind for r in answer.reasons]


def _equal_branches(builder: StateGraph) -> StateGraph:
    for name in ("a", "b", "c", "d"):
        builder.add_node(name, lambda state, name=name: {"trail": [name]})
    builder.add_edge(START, "a").add_edge("a", "b").add_edge("a", "c")
    return builder.add_edge("b", "d").add_edge("c", "d")


def test_a_join_woken_by_both_edges_at_once_and_later_by_a_router_is_not_said_to_run_per_edge():
    """b and c end in the same step: d runs once for both; it runs again because e's
    router chose it. 'ran once for each (at steps 3 and 5)' would be untrue."""

    def again(state: Trail) -> str:
        return "d" if state["trail"].count("d") < 2 else END

    builder = _equal_branches(StateGraph(Trail)).add_node("e", lambda state: {"trail": ["e"]})
    app = builder.add_edge("d", "e").add_conditional_edges("e", again, ["d", END]).compile()
    assert app.invoke({"trail": []})["trail"] == ["a", "b", "c", "d", "e", "d", "e"]
    for answer in trace(app, {"trail": []}).why("d", graph=app).answers:
        assert "separate_edges" not in [r.kind for r in answer.reasons]


def test_a_join_also_reached_by_send_is_not_said_to_run_per_edge():
    """The Sends' two runs of d, in step 2, are no run of an edge of its own."""

    def fan(state: Trail) -> list:
        return [Send("d", {"trail": ["x"]}), Send("d", {"trail": ["y"]})]

    app = _equal_branches(StateGraph(Trail)).add_conditional_edges("a", fan, ["d"]).compile()
    assert app.invoke({"trail": []})["trail"] == ["a", "b", "c", "d", "d", "d"]
    for answer in trace(app, {"trail": []}).why("d", graph=app).answers:
        assert "separate_edges" not in [r.kind for r in answer.reasons]


def test_a_join_run_once_per_invoke_on_a_thread_is_not_said_to_run_per_edge():
    app = _equal_branches(StateGraph(Trail)).compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "twice"}}
    app.invoke({"trail": []}, config)
    assert app.invoke({"trail": []}, config)["trail"].count("d") == 2
    answers = open_langgraph_thread(app, config).why("d", graph=app).answers
    assert len(answers) == 2
    for answer in answers:
        assert "separate_edges" not in [r.kind for r in answer.reasons]


def test_an_edge_from_start_is_not_put_in_the_waiting_edge_langgraph_refuses():
    """add_edge(["__start__", "a"], "d") raises 'Need to add_node `__start__` first' in
    LangGraph: START precedes every node, so the fix is to drop START → d."""
    builder = StateGraph(Trail)
    for name in ("a", "d"):
        builder.add_node(name, lambda state, name=name: {"trail": [name]})
    app = builder.add_edge(START, "a").add_edge(START, "d").add_edge("a", "d").compile()
    assert app.invoke({"trail": []})["trail"] == ["a", "d", "d"]
    with pytest.raises(ValueError, match="Need to add_node `__start__` first"):
        StateGraph(Trail).add_node("a", lambda state: {}).add_edge([START, "a"], "d")
    answer = trace(app, {"trail": []}).why("d", step=2, graph=app).answers[0]
    assert answer.reasons[-1].text == (
        "d has an edge of its own from each of START and a: each wakes d by itself, in the "
        "step after its source ran, so d ran once for each (at steps 1 and 2). To run d "
        "once, after all of them, remove the edge START → d: a runs after START anyway, "
        "and the edge a → d runs d after it."
    )


def _branch_routed_into_the_join(defer: bool = False):
    """As ``_uneven_branches``, but the long branch reaches d through b_2's router."""

    def onward(state: Trail) -> str:
        return "d" if "c" in state["trail"] else END

    builder = StateGraph(Trail)
    for name in ("a", "b", "b_2", "c"):
        builder.add_node(name, lambda state, name=name: {"trail": [name]})
    builder.add_node("d", lambda state: {"trail": ["d"]}, defer=defer)
    builder.add_edge(START, "a").add_edge("a", "b").add_edge("a", "c").add_edge("b", "b_2")
    builder.add_conditional_edges("b_2", onward, ["d", END]).add_edge("c", "d")
    return builder.add_edge("d", END).compile()


def test_a_plain_edge_and_a_router_into_the_join_are_said_to_wake_it_once_each():
    """c → d wakes d at step 3, b_2's router at step 4; a waiting edge cannot wait for a
    router that may choose END, so the fix named is LangGraph's deferred node."""
    app = _branch_routed_into_the_join()
    assert app.invoke({"trail": []})["trail"] == ["a", "b", "c", "b_2", "d", "d"]
    explanation = trace(app, {"trail": []}).why("d", graph=app)
    assert len(explanation.answers) == 2
    for answer in explanation.answers:
        assert answer.reasons[-1].kind == "separate_edges"
        assert answer.reasons[-1].text == (
            "d is woken by the edge c → d and b_2's router 'onward', each by itself, in the "
            "step after its source ran, so d ran once for each (at steps 3 and 4). To "
            "run d once, after all of them, add it with defer=True (add_node('d', ..., "
            "defer=True)): a deferred node waits until no other node is left to run, then "
            "runs once."
        )


def test_the_deferred_node_it_names_runs_once_in_langgraph_and_says_nothing_more():
    app = _branch_routed_into_the_join(defer=True)
    assert app.invoke({"trail": []})["trail"] == ["a", "b", "c", "b_2", "d"]
    explanation = trace(app, {"trail": []}).why("d", graph=app)
    assert len(explanation.answers) == 1
    assert "separate_edges" not in [r.kind for r in explanation.answers[0].reasons]


def test_a_join_woken_only_by_routers_is_not_said_to_run_per_edge():
    """Two routers choosing d at different steps may mean it: no plain edge was expected
    to wait."""

    def to_d(state: Trail) -> str:
        return "d"

    builder = StateGraph(Trail)
    for name in ("a", "b", "b_2", "c", "d"):
        builder.add_node(name, lambda state, name=name: {"trail": [name]})
    builder.add_edge(START, "a").add_edge("a", "b").add_edge("a", "c").add_edge("b", "b_2")
    builder.add_conditional_edges("b_2", to_d, ["d"]).add_conditional_edges("c", to_d, ["d"])
    app = builder.add_edge("d", END).compile()
    assert app.invoke({"trail": []})["trail"] == ["a", "b", "c", "b_2", "d", "d"]
    for answer in trace(app, {"trail": []}).why("d", graph=app).answers:
        assert "separate_edges" not in [r.kind for r in answer.reasons]


# -- a waiting edge and a plain edge (or a router) into the same node -----------------------


def _join_and_edge(lib, extra: str = "plain", defer: bool = False):
    """START → a → b, the waiting edge [a, b] → c, and a second way from a into c: a
    plain edge (``extra="plain"``), a router (``"router"``), or none (``"none"``). The
    second way wakes c at step 2, the waiting edge at step 3."""
    builder = lib.StateGraph(Trail)
    for name in ("a", "b"):
        builder.add_node(name, lambda state, name=name: {"trail": [name]})
    builder.add_node("c", lambda state: {"trail": ["c"]}, defer=defer)
    builder.add_edge(lib.START, "a").add_edge("a", "b").add_edge(["a", "b"], "c")
    if extra == "plain":
        builder.add_edge("a", "c")
    elif extra == "router":
        builder.add_conditional_edges("a", lambda state: "c", ["c"])
    return builder.compile()


def _ran_at(run, node: str) -> list[int]:
    return [step.step for step in run.steps if any(t.node == node for t in step.plan.tasks)]


JOIN_AND_EDGE = (
    "c is woken by the waiting edge [a, b] → c and the edge a → c, each by itself: the edge "
    "in the step after its source ran, the waiting edge once all its sources had run, so c "
    "ran once for each (at steps 2 and 3). To run c once, after all of them, remove the "
    "edge a → c: the waiting edge [a, b] → c already waits for a."
)


@pytest.mark.parametrize("lib_name", ["langgraph", "graphkit"])
def test_a_waiting_edge_and_a_plain_edge_into_a_node_run_it_once_each(lib_name):
    lib = langgraph.graph if lib_name == "langgraph" else graphkit
    app = _join_and_edge(lib)
    assert app.invoke({"trail": []})["trail"] == ["a", "b", "c", "c"]
    run = trace(app, {"trail": []}) if lib_name == "langgraph" else app.trace({"trail": []})
    assert _ran_at(run, "c") == [2, 3]
    explanation = run.why("c", graph=app)
    assert [r.kind for r in explanation.answers[0].reasons] == ["edge", "separate_edges"]
    assert [r.kind for r in explanation.answers[1].reasons] == ["waiting_edge", "separate_edges"]
    for answer in explanation.answers:
        assert answer.reasons[-1].text == JOIN_AND_EDGE


def test_dropping_the_plain_edge_it_names_runs_the_node_once_in_langgraph():
    app = _join_and_edge(langgraph.graph, extra="none")
    assert app.invoke({"trail": []})["trail"] == ["a", "b", "c"]
    explanation = trace(app, {"trail": []}).why("c", graph=app)
    assert [r.kind for r in explanation.answers[0].reasons] == ["waiting_edge"]


def test_a_waiting_edge_and_a_router_into_a_node_name_the_deferred_node():
    """A router may choose END, so no edge can be dropped for it: defer=True."""
    app = _join_and_edge(langgraph.graph, extra="router")
    assert app.invoke({"trail": []})["trail"] == ["a", "b", "c", "c"]
    explanation = trace(app, {"trail": []}).why("c", graph=app)
    assert len(explanation.answers) == 2
    for answer in explanation.answers:
        assert answer.reasons[-1].text == (
            "c is woken by the waiting edge [a, b] → c and a's router (a lambda, to c), "
            "each by itself: the router in the step after its source ran, the waiting edge "
            "once all its sources had run, so c ran once for each (at steps 2 and 3). To run "
            "c once, after all of them, add it with defer=True (add_node('c', ..., "
            "defer=True)): a deferred node waits until no other node is left to run, then "
            "runs once."
        )
    deferred = _join_and_edge(langgraph.graph, extra="router", defer=True)
    assert deferred.invoke({"trail": []})["trail"] == ["a", "b", "c"]
    answers = trace(deferred, {"trail": []}).why("c", graph=deferred).answers
    assert len(answers) == 1
    assert "separate_edges" not in [r.kind for r in answers[0].reasons]


def test_a_waiting_edge_and_a_plain_edge_from_elsewhere_are_made_one_waiting_edge():
    """x → c comes from outside the waiting edge [a, b] → c: one waiting edge from a, b
    and x runs c once, after all three (checked on LangGraph)."""

    def build(merged: bool):
        builder = StateGraph(Trail)
        for name in ("a", "b", "c", "x"):
            builder.add_node(name, lambda state, name=name: {"trail": [name]})
        builder.add_edge(START, "a").add_edge(START, "x").add_edge("a", "b")
        if merged:
            return builder.add_edge(["a", "b", "x"], "c").compile()
        return builder.add_edge(["a", "b"], "c").add_edge("x", "c").compile()

    app = build(merged=False)
    assert app.invoke({"trail": []})["trail"] == ["a", "x", "b", "c", "c"]
    answer = trace(app, {"trail": []}).why("c", step=3, graph=app).answers[0]
    assert answer.reasons[-1].text == (
        "c is woken by the waiting edge [a, b] → c and the edge x → c, each by itself: the "
        "edge in the step after its source ran, the waiting edge once all its sources had "
        "run, so c ran once for each (at steps 2 and 3). To run c once, after all of them, "
        "give it one waiting edge from all their sources instead: add_edge(['a', 'b', 'x'], "
        "'c')."
    )
    merged = build(merged=True)
    assert merged.invoke({"trail": []})["trail"] == ["a", "x", "b", "c"]


def _wired(wire):
    builder = StateGraph(Trail)
    for name in ("a", "b", "c", "x"):
        builder.add_node(name, lambda state, name=name: {"trail": [name]})
    builder.add_edge(START, "a").add_edge(START, "x").add_edge("a", "b")
    return wire(builder).compile()


@pytest.mark.parametrize(
    ("wire", "fixed", "steps", "fix"),
    [
        (
            lambda b: b.add_edge(["a", "b"], "c").add_edge(START, "c"),
            lambda b: b.add_edge(["a", "b"], "c"),
            "1 and 3",
            "remove the edge START → c: the waiting edge [a, b] → c runs c after START anyway.",
        ),
        (
            lambda b: b.add_edge(["a", "b"], "c").add_edge(["a", "x"], "c"),
            lambda b: b.add_edge(["a", "b", "x"], "c"),
            "2 and 3",
            "give it one waiting edge from all their sources instead: add_edge(['a', 'b', "
            "'x'], 'c').",
        ),
    ],
    ids=["start-and-waiting-edge", "two-waiting-edges"],
)
def test_a_waiting_edge_beside_an_edge_from_start_or_another_waiting_edge(wire, fixed, steps, fix):
    """Both run c twice on LangGraph; the fix named runs it once there."""
    app = _wired(wire)
    assert app.invoke({"trail": []})["trail"].count("c") == 2
    for answer in trace(app, {"trail": []}).why("c", graph=app).answers:
        assert answer.reasons[-1].kind == "separate_edges"
        assert f"so c ran once for each (at steps {steps})" in answer.reasons[-1].text
        assert answer.reasons[-1].text.endswith(f"To run c once, after all of them, {fix}")
    assert _wired(fixed).invoke({"trail": []})["trail"].count("c") == 1


def _waiting_edge_beside_a_command(defer: bool = False):
    builder = StateGraph(Trail)
    builder.add_node(
        "a", lambda state: Command(goto="c", update={"trail": ["a"]}), destinations=("c",)
    )
    for name in ("b", "b_2"):
        builder.add_node(name, lambda state, name=name: {"trail": [name]})
    builder.add_node("c", lambda state: {"trail": ["c"]}, defer=defer)
    builder.add_edge(START, "a").add_edge(START, "b").add_edge("b", "b_2")
    return builder.add_edge(["a", "b_2"], "c").add_edge("c", END).compile()


def test_a_command_beside_a_waiting_edge_is_called_a_command_not_a_router():
    """a's Command(goto='c') wakes c at step 2, the waiting edge at step 3: why called the
    Command "the router"; defer=True, the fix it names, runs c once on LangGraph."""
    app = _waiting_edge_beside_a_command()
    assert app.invoke({"trail": []})["trail"] == ["a", "b", "b_2", "c", "c"]
    assert _waiting_edge_beside_a_command(defer=True).invoke({"trail": []})["trail"] == [
        "a",
        "b",
        "b_2",
        "c",
    ]
    answer = trace(app, {"trail": []}).why("c", graph=app).answers[0]
    text = answer.reasons[-1].text
    assert "a's Command(goto=...)" in text and "defer=True" in text
    assert "the Command in the step after its source ran" in text and "router" not in text
