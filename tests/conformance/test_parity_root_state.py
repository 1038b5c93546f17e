"""Single-value ("root") state schemas, as LangGraph has them (issue 14, item 12).

``StateGraph(int)`` or ``StateGraph(Annotated[list, operator.add])``: the state is one
channel, ``__root__``; nodes and routers receive the bare value and return the new value (or
a Command whose update is it); invoke, the "values" and "updates" streams and get_state show
the bare value; the "tasks" stream and the tables show the channel by its name.
"""

from __future__ import annotations

import operator
from typing import Annotated

import pytest

from .harness import Case, Lib, compare, load_graphkit, load_langgraph, observe
from .scenarios import SAVERS, _interrupt

Log = Annotated[list, operator.add]


def _chain(schema, step):
    def build(lib: Lib):
        graph = lib.StateGraph(schema)
        graph.add_node("first", step)
        graph.add_node("second", step)
        graph.add_edge(lib.START, "first")
        graph.add_edge("first", "second")
        return graph.compile()

    return build


def _routed(lib: Lib):
    def route(state):
        print("router got", repr(state))
        return "again" if len(state) < 3 else lib.END

    graph = lib.StateGraph(Log)
    graph.add_node("again", lambda state: [f"again{len(state)}"])
    graph.add_edge(lib.START, "again")
    graph.add_conditional_edges("again", route)
    return graph.compile()


def _commands(lib: Lib):
    graph = lib.StateGraph(int)
    jump = lambda state: lib.Command(update=state * 10, goto="land")  # noqa: E731
    graph.add_node("jump", jump, destinations=("land",))
    graph.add_node("land", lambda state: [lib.Command(update=state + 1)])
    graph.add_edge(lib.START, "jump")
    return graph.compile()


def _silent(lib: Lib):
    def look(state):
        print("node got", repr(state))

    graph = lib.StateGraph(str)
    graph.add_node("look", look)
    graph.add_edge(lib.START, "look")
    return graph.compile()


def _empty_update(lib: Lib):
    return _chain(Log, lambda state: [])(lib)


CASES = [
    Case("root-reducer-list", _chain(Log, lambda state: [len(state)]), (["a"], [])),
    Case("root-last-value-int", _chain(int, lambda state: state + 1), (1, 0)),
    Case("root-reducer-int", _chain(Annotated[int, operator.add], lambda state: state), (1,)),
    Case("root-dict-state", _chain(dict, lambda state: {"seen": sorted(state)}), ({"a": 1},)),
    Case("root-router-gets-the-value", _routed, (["in"],)),
    Case("root-command-update", _commands, (2,)),
    Case("root-node-returns-none", _silent, ("kept",)),
    Case("root-empty-update", _empty_update, (["a"],)),
    Case(
        "root-tasks-stream",
        _chain(Log, lambda state: ["x"]),
        (["a"],),
        stream_mode=("tasks", "updates", "values"),
    ),
    Case("root-async", _chain(int, lambda state: state * 2), (3,), run_async=True),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_root_state_runs_as_in_langgraph(case: Case) -> None:
    expected = observe(case, load_langgraph())
    actual = observe(case, load_graphkit())
    assert expected.build == "ok" and expected.runs
    problems = compare(case, expected, actual)
    assert not problems, "\n\n".join(problems)


def test_nodes_and_routers_receive_the_bare_value() -> None:
    """What the nodes and the router print already agrees (this needs no output change)."""
    for case in (CASES[4], CASES[6]):
        expected = observe(case, load_langgraph()).runs[0].printed
        assert expected and expected == observe(case, load_graphkit()).runs[0].printed


# -- persistence: get_state, history, update_state, interrupts on both savers -------------


def _thread(lib: Lib, saver_kind: str) -> dict:
    """One thread of a root-state graph with a pause: what a user reads back."""
    ask = _interrupt(lib.name)
    graph = lib.StateGraph(Log)
    graph.add_node("a", lambda state: ["a"])
    graph.add_node("ask", lambda state: [ask("more?")])
    graph.add_edge(lib.START, "a")
    graph.add_edge("a", "ask")
    seen: dict = {}
    config = {"configurable": {"thread_id": "t"}}
    with SAVERS[saver_kind](lib.name) as saver:
        app = graph.compile(checkpointer=saver)
        seen["empty"] = app.get_state(config).values
        paused = app.invoke(["x"], config)
        seen["paused"] = {k: [i.value for i in v] for k, v in paused.items()}
        state = app.get_state(config)
        seen["state"] = (state.values, state.next, [t.interrupts[0].value for t in state.tasks])
        resumed = app.stream(lib.Command(resume="y"), config, stream_mode=["values", "updates"])
        seen["resumed"] = list(resumed)
        seen["history"] = [
            (h.values, h.next, h.metadata["source"], [t.result for t in h.tasks])
            for h in app.get_state_history(config)
        ]
        app.update_state(config, ["edited"], as_node="a")
        state = app.get_state(config)
        seen["updated"] = (state.values, state.next)
    return seen


@pytest.mark.parametrize("saver_kind", sorted(SAVERS))
def test_root_state_threads_as_in_langgraph(saver_kind: str) -> None:
    expected = _thread(load_langgraph(), saver_kind)
    assert expected["state"][0] == ["x", "a"]  # LangGraph shows the bare value
    assert _thread(load_graphkit(), saver_kind) == expected


# -- graphkit's own views of a root-state run ----------------------------------------------


def _traced():
    from graphkit import END, START, InMemorySaver, StateGraph

    graph = StateGraph(Log)
    graph.add_node("n", lambda state: ["n"])
    graph.add_node("m", lambda state: ["m"])
    graph.add_edge(START, "n")
    graph.add_conditional_edges("n", lambda state: "m", ["m", END])
    app = graph.compile(checkpointer=InMemorySaver())
    return app, app.trace(["in"], {"configurable": {"thread_id": "1"}})


@pytest.mark.parametrize("kind", ["tasks", "writes", "changes", "state", "timeline"])
def test_tables_of_a_root_state_run(kind: str) -> None:
    _, run = _traced()
    frame = run.to_frame(kind)
    assert len(frame) > 0
    if kind in ("state", "changes"):  # the state's one channel is shown, not hidden
        shown = frame.columns if kind == "state" else frame["channel"].tolist()
        assert "__root__" in shown


def test_state_table_shows_the_value_after_each_step() -> None:
    _, run = _traced()
    assert run.to_frame("state")["__root__"].tolist()[-1] == ["in", "n", "m"]


def test_drawing_a_root_state_graph() -> None:
    app, _ = _traced()
    drawing = app.get_graph().draw_mermaid()
    assert "n -.-> m" in drawing and "__start__ --> n" in drawing
    assert "<svg" in app.get_graph().draw_svg()
