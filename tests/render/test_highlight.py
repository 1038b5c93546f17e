"""render.highlight: phases and a run's path shown by CSS classes, with no new layout."""

from __future__ import annotations

import re
import shutil

import pytest

from graphkit import END, START, GraphkitWarning, StateGraph
from graphkit.render import dot as dot_module
from graphkit.render import highlight, overlay_path
from graphkit.render import svg as svg_module

from .conftest import PlainState, noop

has_dot = shutil.which("dot") is not None


def classes(svg: str) -> dict[str, set[str]]:
    """The phase/overlay classes of every element, by id (the layout's own dropped)."""
    own = {"node", "edge", "graph", "gk-node", "gk-edge", "gk-join"}
    found = {}
    for element_id, names in re.findall(r'<g id="([^"]*)" class="([^"]*)">', svg):
        extra = {n for n in names.split() if n not in own and not n.startswith("gk-")}
        if extra:
            found[element_id] = extra
    return found


@pytest.fixture(
    params=["python", pytest.param("dot", marks=pytest.mark.skipif(not has_dot, reason="no dot"))]
)
def seed_svg(request, seed):
    return seed.get_graph().draw_svg(engine=request.param)


@pytest.fixture
def seed_run(seed):
    return seed.trace({"messages": [], "token_count": 1})


def test_plan_marks_the_planned_nodes(seed_svg, seed_run):
    assert classes(highlight(seed_svg, seed_run.step(2), "plan")) == {
        "node-weather": {"planned"},
        "node-news": {"planned"},
    }
    assert classes(highlight(seed_svg, seed_run.step(0), "plan")) == {"node-__start__": {"planned"}}


def test_execute_marks_writers_and_the_edges_their_router_chose(seed_svg, seed_run):
    assert classes(highlight(seed_svg, seed_run.step(1), "execute")) == {
        "node-planner": {"planned", "wrote", "pending"},
        "edge-planner.weather": {"wrote", "pending"},
        "edge-planner.news": {"wrote", "pending"},
    }
    assert classes(highlight(seed_svg, seed_run.step(3), "update")) == {
        "node-summarize": {"planned", "wrote", "applied"},
        "edge-summarize.__end__": {"wrote", "applied"},
    }


def test_a_step_still_executing_is_running(seed):
    stepper = seed.stepper({"messages": [], "token_count": 1})
    for _ in range(2):
        stepper.step()
    stepper.plan()
    current = stepper.run_so_far.steps[-1]
    assert current.execution is None
    svg = highlight(seed.get_graph().draw_svg(engine="python"), current, "execute")
    assert classes(svg) == {"node-planner": {"planned", "running"}}


def test_highlight_replaces_the_previous_phase_and_none_clears(seed_svg, seed_run):
    once = highlight(seed_svg, seed_run.step(1), "update")
    again = highlight(once, seed_run.step(2), "plan")
    assert again == highlight(seed_svg, seed_run.step(2), "plan")
    assert classes(highlight(again, None, "plan")) == {}
    assert again.count('id="gk-style"') == 1


def test_an_unknown_phase_is_refused(seed_svg, seed_run):
    with pytest.raises(ValueError, match="Unknown phase 'run'"):
        highlight(seed_svg, seed_run.step(1), "run")


def test_restyling_never_lays_the_graph_out_again(seed, seed_run, monkeypatch):
    svg_module._cache.clear()
    dot_calls, layout_calls = [], []
    run, layout = dot_module.subprocess.run, svg_module.layered_layout
    monkeypatch.setattr(
        dot_module.subprocess, "run", lambda *a, **k: dot_calls.append(1) or run(*a, **k)
    )
    monkeypatch.setattr(
        svg_module, "layered_layout", lambda *a: layout_calls.append(1) or layout(*a)
    )
    svg = seed.get_graph().draw_svg()
    drawn = len(dot_calls) + len(layout_calls)
    assert drawn == 1
    for superstep in seed_run.steps:
        for phase in ("plan", "execute", "update"):
            svg = highlight(svg, superstep, phase)
    overlay_path(svg, seed_run)
    assert len(dot_calls) + len(layout_calls) == drawn


def test_a_failed_task_is_marked_error_and_nothing_is_applied():
    def boom(state):
        raise RuntimeError("<script>no</script>")

    builder = StateGraph(PlainState).add_node("a", noop).add_node("b", boom)
    builder.add_edge(START, "a").add_edge(START, "b")
    app = builder.compile()
    with pytest.raises(RuntimeError) as caught:
        app.trace({"n": 1})
    run = caught.value.run
    svg = app.get_graph().draw_svg(engine="python")
    assert classes(highlight(svg, run.steps[-1], "execute")) == {
        "node-a": {"planned", "wrote-nothing"},  # a ran and returned no update
        # its edge to END was taken
        "edge-a.__end__": {"wrote", "pending"},
        "node-b": {"planned", "error"},
    }
    assert classes(highlight(svg, run.steps[-1], "update")) == {
        "node-a": {"planned"},  # nothing of a failed step is applied
        "node-b": {"planned", "error"},
    }
    overlay = classes(overlay_path(svg, run))
    assert overlay["node-b"] == {"ran", "failed"}
    assert "edge-b.__end__" not in overlay


def _report_graph(kit, returns):
    """approve writes; report runs after it and returns ``returns`` ({} or None)."""
    builder = kit.StateGraph(PlainState).add_node("approve", lambda s: {"n": s["n"] + 1})
    builder.add_node("report", lambda s: returns)
    builder.add_edge(kit.START, "approve").add_edge("approve", "report")
    return builder.add_edge("report", kit.END)


@pytest.mark.parametrize("returns", [{}, None], ids=["empty-dict", "none"])
@pytest.mark.parametrize("library", ["graphkit", "langgraph"])
def test_a_node_that_ran_and_wrote_nothing_is_marked_so_not_left_planned(library, returns):
    """P5's report returned {}: after Update it stayed "planned" (blue), as if it never
    ran. It is ``wrote-nothing`` with the phase's line, in graphkit's own run and in a
    thread read from LangGraph's saver."""
    import graphkit

    if library == "langgraph":
        langgraph_graph = pytest.importorskip("langgraph.graph")
        from langgraph.checkpoint.memory import InMemorySaver

        from graphkit import open_langgraph_thread

        app = _report_graph(langgraph_graph, returns).compile(checkpointer=InMemorySaver())
        config = {"configurable": {"thread_id": "t"}}
        app.invoke({"n": 1}, config)
        run = open_langgraph_thread(app, config)
    else:
        run = _report_graph(graphkit, returns).compile().trace({"n": 1})
    svg = _report_graph(graphkit, returns).compile().get_graph().draw_svg(engine="python")
    last = run.steps[-1]
    assert last.plan.nodes == ["report"]
    for phase, line in (("execute", "pending"), ("update", "applied")):
        assert classes(highlight(svg, last, phase)) == {
            "node-report": {"planned", "wrote-nothing"},  # nothing pending, nothing applied
            "edge-report.__end__": {"wrote", line},
        }
    assert classes(highlight(svg, last, "plan")) == {"node-report": {"planned"}}


def test_a_node_paused_in_interrupt_did_not_finish_so_is_not_wrote_nothing():
    from graphkit import InMemorySaver, interrupt

    builder = StateGraph(PlainState).add_node("ask", lambda s: {"n": interrupt("n?")})
    app = builder.add_edge(START, "ask").compile(checkpointer=InMemorySaver())
    run = app.trace({"n": 1}, {"configurable": {"thread_id": "t"}})
    svg = app.get_graph().draw_svg(engine="python")
    assert classes(highlight(svg, run.steps[-1], "execute")) == {
        "node-ask": {"planned", "interrupted"}
    }


def test_a_node_served_from_the_cache_did_not_run_so_is_not_wrote_nothing():
    """A cached report that returned {}: it did not run (its writes, none, came from
    the cache), so it is ``cached`` only, not also "ran, wrote nothing"."""
    from graphkit.cache.memory import InMemoryCache
    from graphkit.types import CachePolicy

    builder = StateGraph(PlainState).add_node("report", lambda s: {}, cache_policy=CachePolicy())
    app = builder.add_edge(START, "report").compile(cache=InMemoryCache())
    app.invoke({"n": 1})
    last = app.trace({"n": 1}).steps[-1]
    assert [r.cached for r in last.execution.results] == [True]
    svg = app.get_graph().draw_svg(engine="python")
    for phase in ("execute", "update"):
        assert classes(highlight(svg, last, phase))["node-report"] == {"planned", "cached"}


def test_the_stylesheet_draws_wrote_nothing_hollow_in_the_writers_colour():
    from graphkit.render.theme import PALETTE, STYLESHEET, TINTS

    rule = next(line for line in STYLESHEET.splitlines() if ".gk-node.wrote-nothing " in line)
    assert f"stroke: {PALETTE['green']}" in rule and "fill: #ffffff" in rule
    assert rule.index("fill: #ffffff") > rule.index(f"fill: {TINTS['green']}")  # (wins)


# -- the path a run took --------------------------------------------------------------------------


def test_the_seed_run_took_every_edge(seed_svg, seed_run):
    assert classes(overlay_path(seed_svg, seed_run)) == {
        "node-__start__": {"ran"},
        "node-planner": {"ran"},
        "node-weather": {"ran"},
        "node-news": {"ran"},
        "node-summarize": {"ran"},
        "edge-__start__.planner": {"traversed"},
        "edge-planner.weather": {"traversed"},
        "edge-planner.news": {"traversed"},
        "edge-weather.summarize": {"traversed"},
        "edge-news.summarize": {"traversed"},
        "edge-summarize.__end__": {"traversed"},
    }


def test_a_branch_not_taken_is_not_marked():
    builder = StateGraph(PlainState)
    for name in ("check", "yes", "no"):
        builder.add_node(name, noop)
    builder.add_edge(START, "check").add_edge("yes", END).add_edge("no", END)
    builder.add_conditional_edges("check", lambda s: s["n"] > 0, {True: "yes", False: "no"})
    app = builder.compile()
    svg = app.get_graph().draw_svg(engine="python")
    marks = classes(overlay_path(svg, app.trace({"n": 1})))
    assert marks["edge-check.yes"] == {"traversed"}
    assert "edge-check.no" not in marks and "node-no" not in marks


def test_a_router_that_chose_end_took_its_edge_to_end():
    builder = StateGraph(PlainState).add_node("loop", lambda s: {"n": s["n"] + 1})
    builder.add_edge(START, "loop")
    builder.add_conditional_edges(
        "loop", lambda s: "again" if s["n"] < 3 else "stop", {"again": "loop", "stop": END}
    )
    app = builder.compile()
    svg = app.get_graph().draw_svg(engine="python")
    marks = classes(overlay_path(svg, app.trace({"n": 0})))
    assert marks["edge-loop.loop"] == {"traversed"}
    assert marks["edge-loop.__end__"] == {"traversed"}


def test_a_router_that_sent_took_the_edge_to_its_sends_target_not_end():
    """A ReAct agent's router sends each tool call to tools with Send: the drawing
    lit the agent's edge to END (it wrote no branch channel, so "it chose END") and
    left its edge to tools dark, after Execute, after Update and on the run's path."""
    from graphkit.types import Send

    builder = StateGraph(PlainState).add_node("agent", lambda s: {"n": s["n"] + 1})
    builder.add_node("tools", noop).add_edge(START, "agent").add_edge("tools", "agent")
    builder.add_conditional_edges(
        "agent", lambda s: [Send("tools", s)] if s["n"] < 2 else END, ["tools", END]
    )
    app = builder.compile()
    svg = app.get_graph().draw_svg(engine="python")
    run = app.trace({"n": 0})
    assert classes(highlight(svg, run.step(1), "execute")) == {
        "node-agent": {"planned", "wrote", "pending"},
        "edge-agent.tools": {"wrote", "pending"},
    }
    assert "edge-agent.__end__" not in classes(highlight(svg, run.step(1), "update"))
    marks = classes(overlay_path(svg, run))
    assert marks["edge-agent.tools"] == {"traversed"}
    assert marks["edge-agent.__end__"] == {"traversed"}  # the last step chose END


def test_a_send_outside_the_path_map_does_not_light_the_edge_to_end():
    """A Send goes to its node whatever the router's path map says: the drawing read a
    router whose Send had no drawn edge as choosing END, and lit a -> __end__ though
    the run went on to c."""
    from graphkit.types import Send

    builder = StateGraph(PlainState).add_node("a", noop).add_node("b", noop)
    builder.add_node("c", noop).add_edge(START, "a").add_edge("c", END)
    builder.add_conditional_edges("a", lambda s: [Send("c", s)], ["b", END])
    with pytest.warns(GraphkitWarning, match="Node 'c': nothing leads to it"):
        app = builder.compile()
    svg = app.get_graph().draw_svg(engine="python")
    run = app.trace({"n": 0})
    assert [t.node for t in run.step(2).plan.tasks] == ["c"]
    assert "edge-a.__end__" not in classes(highlight(svg, run.step(1), "update"))
    assert "edge-a.__end__" not in classes(overlay_path(svg, run))


def test_a_command_goto_end_lights_its_edge_to_end():
    """A supervisor's Command(goto=END) writes nothing, as a router's END does: the
    drawing lit the supervisor applied and left its goto edge to END dark."""
    from graphkit import Command

    def boss(state: PlainState) -> Command:
        return Command(goto="worker" if state["n"] < 1 else END, update={"n": state["n"]})

    builder = StateGraph(PlainState).add_node("boss", boss, destinations=("worker", END))
    builder.add_node("worker", lambda s: {"n": s["n"] + 1})
    builder.add_edge(START, "boss").add_edge("worker", "boss")
    app = builder.compile()
    svg = app.get_graph().draw_svg(engine="python")
    run = app.trace({"n": 0})
    first, last = (
        classes(highlight(svg, run.step(1), "update")),
        classes(highlight(svg, run.step(3), "update")),
    )
    assert first["edge-boss.worker"] == {"wrote", "applied"}
    assert "edge-boss.__end__" not in first
    assert last["edge-boss.__end__"] == {"wrote", "applied"}
    assert classes(overlay_path(svg, run))["edge-boss.__end__"] == {"traversed"}


def test_a_waiting_edge_is_traversed_once_its_join_released():
    builder = StateGraph(PlainState)
    for name in ("fast", "slow_1", "slow_2", "join"):
        builder.add_node(name, noop)
    builder.add_edge(START, "fast").add_edge(START, "slow_1").add_edge("slow_1", "slow_2")
    builder.add_edge(["fast", "slow_2"], "join")
    app = builder.compile()
    run = app.trace({"n": 0})
    svg = app.get_graph().draw_svg(engine="python")
    marks = classes(overlay_path(svg, run))
    join = "node-join-3a-fast-2b-slow_2-3a-join"
    assert marks[join] == {"ran"}
    assert marks["edge-fast.join-3a-fast-2b-slow_2-3a-join"] == {"traversed"}
    assert marks["edge-slow_2.join-3a-fast-2b-slow_2-3a-join"] == {"traversed"}
    assert marks["edge-join-3a-fast-2b-slow_2-3a-join.join"] == {"traversed"}
    released = next(s for s in run.steps if "join" in s.plan.nodes)
    plan_marks = classes(highlight(svg, released, "plan"))
    assert plan_marks == {
        "node-join": {"planned"},
        join: {"planned"},
        "edge-join-3a-fast-2b-slow_2-3a-join.join": {"planned"},
    }


def test_overlay_and_highlight_keep_each_others_classes(seed_svg, seed_run):
    both = highlight(overlay_path(seed_svg, seed_run), seed_run.step(2), "plan")
    assert classes(both)["node-weather"] == {"ran", "planned"}
    assert classes(overlay_path(both, seed_run))["node-weather"] == {"ran", "planned"}


def test_a_foreign_svg_gets_the_stylesheet():
    svg = '<svg xmlns="http://www.w3.org/2000/svg"><g id="node-a" class="gk-node"></g></svg>'
    out = highlight(svg, None, "plan")
    assert out.startswith('<svg xmlns="http://www.w3.org/2000/svg"><style id="gk-style">')


def test_a_subgraph_node_stopped_at_its_breakpoint_is_marked_interrupted():
    from graphkit import InMemorySaver

    inner = StateGraph(PlainState).add_node("x", noop).add_node("y", noop)
    inner.add_edge(START, "x").add_edge("x", "y")
    builder = StateGraph(PlainState).add_node("sub", inner.compile(interrupt_before=["y"]))
    app = builder.add_edge(START, "sub").compile(checkpointer=InMemorySaver())
    run = app.trace({"n": 1}, {"configurable": {"thread_id": "t"}})
    svg = app.get_graph().draw_svg(engine="python")
    assert classes(highlight(svg, run.steps[-1], "execute"))["node-sub"] == {
        "planned",
        "interrupted",
    }


def test_a_task_paused_in_interrupt_takes_no_edge():
    """It did not finish: its edge to END is not drawn as taken (lesson 08's approve)."""
    from typing import TypedDict

    from graphkit import interrupt
    from graphkit.checkpoint import InMemorySaver

    class Draft(TypedDict):
        draft: str

    def approve(state: Draft) -> dict:
        return {"draft": interrupt("send it?")}

    builder = StateGraph(Draft).add_node("approve", approve)
    app = (
        builder.add_edge(START, "approve")
        .add_edge("approve", END)
        .compile(checkpointer=InMemorySaver())
    )
    run = app.trace({"draft": "hi"}, {"configurable": {"thread_id": "t"}})
    paused = run.steps[-1]
    marks = classes(highlight(app.get_graph().draw_svg(engine="python"), paused, "execute"))
    assert marks == {"node-approve": {"planned", "interrupted"}}


# -- a low-level Pregel: its edges carry messages -----------------------------------------


def weighted_paths():
    """Shortest paths from ``a`` over a -1-> b, a -4-> c, b -1-> c: a vertex program per
    vertex, as in lesson 10 (its inbox a Topic, its distance an output channel)."""
    from graphkit.channels import LastValue, Topic
    from graphkit.pregel import ChannelWriteEntry, NodeBuilder, Pregel

    edges = {"a": {"b": 1, "c": 4}, "b": {"c": 1}, "c": {}}
    channels = {f"inbox:{v}": Topic(int) for v in edges}
    channels |= {f"distance:{v}": LastValue(int) for v in edges}

    def relax(vertex):
        def program(x):
            best = min(x[f"inbox:{vertex}"])
            known = x.get(f"distance:{vertex}")
            return best if known is None or best < known else None

        return program

    nodes = {
        vertex: NodeBuilder()
        .subscribe_to(f"inbox:{vertex}")
        .read_from(f"distance:{vertex}")
        .do(relax(vertex))
        .write_to(
            ChannelWriteEntry(f"distance:{vertex}", skip_none=True),
            *(
                ChannelWriteEntry(
                    f"inbox:{target}",
                    mapper=lambda d, w=weight: None if d is None else d + w,
                    skip_none=True,
                )
                for target, weight in out.items()
            ),
        )
        .meta(edge_labels=out)
        for vertex, out in edges.items()
    }
    return Pregel(
        nodes=nodes,
        channels=channels,
        input_channels="inbox:a",
        output_channels=[f"distance:{v}" for v in edges],
    )


@pytest.mark.parametrize(
    "engine",
    ["python", pytest.param("dot", marks=pytest.mark.skipif(not has_dot, reason="no dot"))],
)
def test_a_pregel_edge_lights_when_its_message_is_sent_not_only_its_output(engine):
    """Lesson 10: after a vertex's Update, the edges its messages travelled along are
    applied (before, only its edge to END was, as if it were a StateGraph node)."""
    app = weighted_paths()
    run = app.trace(0)
    svg = app.get_graph().draw_svg(engine=engine)
    assert classes(highlight(svg, run.step(-1), "update")) == {
        "edge-__start__.a": {"wrote", "applied"}  # the input is a's first message
    }
    assert classes(highlight(svg, run.step(0), "execute")) == {
        "node-a": {"planned", "wrote", "pending"},
        "edge-a.b": {"wrote", "pending"},
        "edge-a.c": {"wrote", "pending"},
        "edge-a.__end__": {"wrote", "pending"},  # a wrote its distance, an output
    }
    # Step 1: b and c ran; c heard 4 from a, b offers it 2, so b sends; c sends nothing.
    marks = classes(highlight(svg, run.step(1), "update"))
    assert {element for element, names in marks.items() if "applied" in names} == {
        "node-b",
        "node-c",
        "edge-b.c",
        "edge-b.__end__",
        "edge-c.__end__",
    }


def test_a_pregel_vertex_that_halts_sends_nothing_along_its_edges():
    app = weighted_paths()
    run = app.trace(0)
    last = run.step(2)  # c hears 2 from b, improves, and has no one to tell
    assert last.plan.nodes == ["c"]
    svg = app.get_graph().draw_svg(engine="python")
    assert classes(highlight(svg, last, "update")) == {
        "node-c": {"planned", "wrote", "applied"},
        "edge-c.__end__": {"wrote", "applied"},
    }


def test_a_pregel_run_path_follows_its_messages():
    app = weighted_paths()
    marks = classes(overlay_path(app.get_graph().draw_svg(engine="python"), app.trace(0)))
    traversed = {element for element, names in marks.items() if "traversed" in names}
    assert traversed == {
        "edge-__start__.a",
        "edge-a.b",
        "edge-a.c",
        "edge-a.__end__",
        "edge-b.c",
        "edge-b.__end__",
        "edge-c.__end__",
    }


def test_a_pregel_send_s_edge_is_on_the_run_path():
    """A vertex that writes a Send wakes its target with a push task, whose trigger is
    not the Sends' channel: the edge is still the path the run took."""
    from graphkit.channels import EphemeralValue, LastValue
    from graphkit.pregel import NodeBuilder, Pregel
    from graphkit.types import Send

    nodes = {
        "a": NodeBuilder().subscribe_only("in").do(lambda x: x).write_to("mid", Send("b", 5)),
        "b": NodeBuilder().do(lambda x: x + 1).write_to("out"),  # woken only by the Send
        "c": NodeBuilder().subscribe_only("mid").do(lambda x: x).write_to("out2"),
    }
    channels = {"in": EphemeralValue(int), "mid": EphemeralValue(int)}
    channels |= {"out": LastValue(int), "out2": LastValue(int)}
    app = Pregel(
        nodes=nodes, channels=channels, input_channels="in", output_channels=["out", "out2"]
    )
    marks = classes(overlay_path(app.get_graph().draw_svg(engine="python"), app.trace(1)))
    assert "traversed" in marks["edge-a.b"] and "traversed" in marks["edge-a.c"]
