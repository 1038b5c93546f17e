"""A drain on the hand-driven stepper and what the reading layers say of it (LangGraph
parity of ``invoke`` / ``stream`` is in tests/conformance/test_parity_drain.py)."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

from graphkit import START, InMemorySaver, StateGraph
from graphkit.errors import GraphDrained
from graphkit.runtime import RunControl, Runtime


class State(TypedDict, total=False):
    log: Annotated[list, operator.add]


def _app(drains_in: str = "b", **compile_options: Any) -> Any:
    def node(name: str) -> Any:
        def run(state: State, runtime: Runtime) -> dict:
            if name == drains_in and runtime.control is not None:
                runtime.control.request_drain("deploy")
            return {"log": [name]}

        return run

    builder = StateGraph(State)
    for name in "abc":
        builder.add_node(name, node(name))
    builder.add_edge(START, "a").add_edge("a", "b").add_edge("b", "c")
    return builder.compile(**compile_options)


def test_the_stepper_stops_after_planning_the_step_it_would_run():
    stepper = _app().stepper({"log": []})
    run = stepper.run()
    assert (run.status, run.values) == ("drained", {"log": ["a", "b"]})
    assert [step.plan.nodes for step in run.steps] == [["__input__"], ["__start__"], ["a"], ["b"]]
    assert stepper.drain_requested and stepper.next_phase is None
    assert stepper.upcoming_plan().nodes == ["c"]  # planned, not run
    last_line = str(run).splitlines()[-1]
    assert last_line.endswith("a drain was requested (GraphDrained); a resume runs it")


def test_a_run_without_a_control_of_its_own_never_drains():
    from graphkit.pregel.config import RunOptions
    from graphkit.pregel.stepper import Stepper

    app = _app()  # (b drains when its run has a control)
    stepper = Stepper(app.spec, {"log": []}, app.stepper({"log": []}).config, RunOptions())
    assert stepper.context.runtime.control is None
    run = stepper.run()
    assert (run.status, run.values) == ("done", {"log": ["a", "b", "c"]})
    assert not stepper.drain_requested and stepper.drain_reason is None


def test_a_control_drained_from_another_thread_stops_the_next_step():
    import threading

    control = RunControl()
    app = _app(drains_in="none", checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    seen = []
    with pytest.raises(GraphDrained, match="Graph drained: shutdown"):
        for chunk in app.stream({"log": []}, config, control=control):
            seen.append(chunk)
            if len(seen) == 1:  # another thread asks once a's update arrives
                thread = threading.Thread(target=control.request_drain)
                thread.start()
                thread.join()
    # as in LangGraph, a lone task's update arrives once the next step is planned: b runs
    assert seen == [{"a": {"log": ["a"]}}, {"b": {"log": ["b"]}}]
    assert app.get_state(config).next == ("c",)
    assert app.invoke(None, config) == {"log": ["a", "b", "c"]}


def test_the_debugger_says_the_run_drained():
    from graphkit.widgets import DebugSession

    session = DebugSession(_app(), {"log": []})
    session.run()
    assert session.status == "drained"
    assert session.view().status_text == ("drained before step 3 (deploy): a drain was requested")
