"""LangGraph 1.2's cooperative drain: ``RunControl.request_drain()`` stops a run at the
next superstep boundary.

The run plans its next step, passes the breakpoint check, and then, if a drain was
requested, stops before running anything: the checkpoint it planned from is saved (also
with ``durability="exit"``), what the last step wrote is streamed, and the run raises
``GraphDrained(reason)``. ``invoke(None, config)`` goes on from there. A run given no
``control=`` has one of its own, which its nodes reach as ``runtime.control``; a graph
run inside a node shares its caller's. A subgraph that drains stops the task that runs it
as a pause does (its siblings' writes are kept), and the root run raises ``GraphDrained``.
Every case runs on both libraries and compares what the caller sees.
"""

from __future__ import annotations

import asyncio
import importlib
import operator
from typing import Annotated, Any

import pytest
from typing_extensions import TypedDict

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import _memory_saver

LIBRARIES = [
    pytest.param(load_langgraph, id="langgraph"),
    pytest.param(load_graphkit, id="graphkit"),
]


class State(TypedDict, total=False):
    log: Annotated[list, operator.add]


def _runtime_module(lib: Lib) -> Any:
    return importlib.import_module(f"{lib.name}.runtime")


def _node(lib: Lib, name: str, drains: bool) -> Any:
    Runtime = _runtime_module(lib).Runtime

    def node(state: State, runtime: Runtime) -> dict:  # type: ignore[valid-type]
        if drains:
            runtime.control.request_drain("asked")  # type: ignore[attr-defined]
        return {"log": [name]}

    return node


def _chain(lib: Lib, drains_in: str = "b") -> Any:
    builder = lib.StateGraph(State)
    for name in "abc":
        builder.add_node(name, _node(lib, name, name == drains_in))
    builder.add_edge(lib.START, "a").add_edge("a", "b").add_edge("b", "c")
    return builder


def _thread(thread: str = "t") -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


def _shown(chunk: Any) -> Any:
    mode, data = chunk
    if mode == "checkpoints":
        return mode, data["metadata"]["step"], data["metadata"]["source"], data["next"]
    return mode, data


def _drained_run(lib: Lib, control: Any, asynchronous: bool, **compile_options: Any) -> Any:
    """Stream the chain (b asks for a drain), then resume it; what the caller sees."""
    modes = ["values", "updates", "checkpoints"]
    seen: list[Any] = []
    with _memory_saver(lib.name) as saver:
        graph = _chain(lib).compile(checkpointer=saver, **compile_options)
        options = {} if control is None else {"control": control}

        async def astream() -> None:
            async for chunk in graph.astream({"log": []}, _thread(), stream_mode=modes, **options):
                seen.append(_shown(chunk))

        try:
            if asynchronous:
                asyncio.run(astream())
            else:
                for chunk in graph.stream({"log": []}, _thread(), stream_mode=modes, **options):
                    seen.append(_shown(chunk))
        except lib.errors.GraphDrained as drained:
            seen.append(("drained", drained.reason, str(drained)))
        state = graph.get_state(_thread())
        seen.append(("state", state.values, state.next, state.metadata["step"]))
        seen.append(("resumed", graph.invoke(None, _thread())))
        history = graph.get_state_history(_thread())
        seen.append([(s.metadata["step"], s.metadata["source"], s.next) for s in history])
    return seen


@pytest.mark.parametrize("given", [True, False], ids=["control-given", "own-control"])
@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_a_drain_stops_at_the_next_step_boundary_and_resumes(given, asynchronous):
    def control(lib: Lib) -> Any:
        return _runtime_module(lib).RunControl() if given else None

    theirs = _drained_run(load_langgraph(), control(load_langgraph()), asynchronous)
    ours = _drained_run(load_graphkit(), control(load_graphkit()), asynchronous)
    assert ours == theirs
    assert ("drained", "asked", "Graph drained: asked") in ours


def _outcome(lib: Lib, run: Any) -> Any:
    try:
        return "returned", run()
    except lib.errors.GraphDrained as drained:
        return "drained", drained.reason


@pytest.mark.parametrize(
    "case",
    [
        "drained before it starts",
        "no checkpointer",
        "breakpoint first",
        "drained by the last node",
        "durability exit",
    ],
)
def test_where_a_drain_stops_a_run(case):
    def observe(lib: Lib) -> Any:
        RunControl = _runtime_module(lib).RunControl
        with _memory_saver(lib.name) as saver:
            if case == "drained before it starts":
                graph = _chain(lib, drains_in="none").compile(checkpointer=saver)
                control = RunControl()
                control.request_drain()
                outcome = _outcome(
                    lib, lambda: graph.invoke({"log": []}, _thread(), control=control)
                )
            elif case == "no checkpointer":
                graph = _chain(lib).compile()
                return _outcome(lib, lambda: graph.invoke({"log": []}))
            elif case == "breakpoint first":
                graph = _chain(lib).compile(checkpointer=saver, interrupt_before=["c"])
                outcome = _outcome(lib, lambda: graph.invoke({"log": []}, _thread()))
            elif case == "drained by the last node":
                graph = _chain(lib, drains_in="c").compile(checkpointer=saver)
                outcome = _outcome(lib, lambda: graph.invoke({"log": []}, _thread()))
            else:
                graph = _chain(lib).compile(checkpointer=saver)
                outcome = _outcome(
                    lib, lambda: graph.invoke({"log": []}, _thread(), durability="exit")
                )
            state = graph.get_state(_thread())
            return outcome, state.values, state.next
        return None

    assert observe(load_graphkit()) == observe(load_langgraph())


def _subgraph_drain(lib: Lib, invoked: bool) -> Any:
    inner = lib.StateGraph(State)
    inner.add_node("x", _node(lib, "x", True)).add_node("y", _node(lib, "y", False))
    inner = inner.add_edge(lib.START, "x").add_edge("x", "y").compile()
    builder = lib.StateGraph(State)
    builder.add_node("s", (lambda state: inner.invoke(state)) if invoked else inner)
    builder.add_node("p", _node(lib, "p", False)).add_node("q", _node(lib, "q", False))
    builder.add_edge(lib.START, "s").add_edge(lib.START, "p").add_edge("s", "q")
    with _memory_saver(lib.name) as saver:
        graph = builder.compile(checkpointer=saver)
        outcome = _outcome(lib, lambda: graph.invoke({"log": []}, _thread()))
        state = graph.get_state(_thread())
        tasks = sorted((task.name, task.error is not None) for task in state.tasks)
        return outcome, state.values, state.next, tasks, graph.invoke(None, _thread())


@pytest.mark.parametrize("invoked", [False, True], ids=["subgraph-node", "invoked-in-node"])
def test_a_subgraph_that_drains_pauses_its_task_and_drains_the_run(invoked):
    assert _subgraph_drain(load_graphkit(), invoked) == _subgraph_drain(load_langgraph(), invoked)


@pytest.mark.parametrize("load", LIBRARIES)
def test_run_control_and_graph_drained(load):
    lib = load()
    control = _runtime_module(lib).RunControl()
    assert (control.drain_requested, control.drain_reason) == (False, None)
    control.request_drain()
    assert (control.drain_requested, control.drain_reason) == (True, "shutdown")
    drained = lib.errors.GraphDrained()
    assert isinstance(drained, lib.errors.GraphBubbleUp)
    assert (drained.reason, str(drained)) == ("shutdown", "Graph drained: shutdown")
    assert _runtime_module(lib).Runtime().control is None


def _drained_elsewhere(lib: Lib, case: str) -> Any:
    """A ``GraphDrained`` the run's own control did not ask for: a graph a node invokes
    with a control of its own, a node raising it, a subgraph draining while a sibling
    asks a question. LangGraph raises it from the run every time."""
    from .scenarios import _interrupt

    interrupt = _interrupt(lib.name)
    runtime_module = _runtime_module(lib)
    inner = lib.StateGraph(State)
    inner.add_node("x", _node(lib, "x", True)).add_node("y", _node(lib, "y", False))
    inner = inner.add_edge(lib.START, "x").add_edge("x", "y").compile()

    def own_control(state: State) -> dict:
        control = runtime_module.RunControl()
        control.request_drain("inner only")
        return inner.invoke(state, control=control)

    def by_hand(state: State) -> dict:
        raise lib.errors.GraphDrained("by hand")

    def asks(state: State) -> dict:
        return {"log": [interrupt("p?")]}

    builder = lib.StateGraph(State)
    if case == "a graph invoked with its own control":
        builder.add_node("s", own_control)
    elif case == "a node raising GraphDrained":
        builder.add_node("s", by_hand)
    else:
        builder.add_node("s", inner).add_node("p", asks).add_edge(lib.START, "p")
    builder.add_node("q", _node(lib, "q", False))
    builder.add_edge(lib.START, "s").add_edge(lib.START, "q")
    with _memory_saver(lib.name) as saver:
        graph = builder.compile(checkpointer=saver)
        outcome = _outcome(lib, lambda: graph.invoke({"log": []}, _thread()))
        state = graph.get_state(_thread())
        return outcome, state.values, sorted(state.next)


@pytest.mark.parametrize(
    "case",
    [
        "a graph invoked with its own control",
        "a node raising GraphDrained",
        "a subgraph draining beside a question",
    ],
)
def test_a_drain_the_run_did_not_ask_for_still_drains_it(case):
    ours = _drained_elsewhere(load_graphkit(), case)
    assert ours == _drained_elsewhere(load_langgraph(), case)
    assert ours[0][0] == "drained"


def test_a_node_reads_whether_a_drain_was_asked_on_its_runtime() -> None:
    """``runtime.drain_requested`` / ``runtime.drain_reason``: LangGraph's shorthands for
    the run's ``RunControl``, so a long node can stop early."""
    seen = []
    for lib in (load_langgraph(), load_graphkit()):
        Runtime = _runtime_module(lib).Runtime

        def look(state: State, runtime: Runtime) -> dict:  # type: ignore[valid-type]
            before = [runtime.drain_requested, runtime.drain_reason]  # type: ignore[attr-defined]
            runtime.control.request_drain("asked")  # type: ignore[attr-defined]
            after = [runtime.drain_requested, runtime.drain_reason]  # type: ignore[attr-defined]
            return {"log": [before, after]}

        builder = lib.StateGraph(State).add_node("look", look).add_edge(lib.START, "look")
        with _memory_saver(lib.name) as saver:
            graph = builder.compile(checkpointer=saver)
            try:
                graph.invoke({"log": []}, _thread())
                outcome = "done"  # (nothing was left to run: the drain changes nothing)
            except Exception as error:
                outcome = type(error).__name__
            seen.append((outcome, graph.get_state(_thread()).values))
    assert seen[0] == seen[1]
    assert seen[1][1] == {"log": [[False, None], [True, "asked"]]}
    outside = importlib.import_module("graphkit.runtime").Runtime()
    assert (outside.drain_requested, outside.drain_reason) == (False, None)
