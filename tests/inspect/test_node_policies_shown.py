"""Error handlers and timeouts in graphkit's records, tables, "why" and the debugger
(issue 15, item 2): the attempts, the timeout that fired, and the hand-over to the
handler are visible, and "why did the handler run" is answered."""

from __future__ import annotations

import asyncio
import operator
import time
from typing import Annotated, TypedDict

import pytest

from graphkit import START, InMemorySaver, RetryPolicy, StateGraph
from graphkit.errors import NodeError, NodeTimeoutError
from graphkit.types import TimeoutPolicy
from graphkit.widgets import DebugSession


class State(TypedDict):
    log: Annotated[list, operator.add]


def fetch(state: State) -> dict:
    raise ConnectionError("the service is down")


def fallback(state: State, error: NodeError) -> dict:
    return {"log": [f"cached answer ({error.node} failed: {error.error})"]}


def handled_graph(**compile_options):
    retry = RetryPolicy(max_attempts=2, initial_interval=0.0, jitter=False)
    builder = StateGraph(State)
    builder.add_node("fetch", fetch, retry_policy=retry, error_handler=fallback)
    builder.add_node("audit", lambda state: {"log": ["audited"]})
    builder.add_node("report", lambda state: {"log": ["reported"]})
    builder.add_edge(START, "fetch")
    builder.add_edge(START, "audit")
    builder.add_edge("fetch", "report")
    return builder.compile(**compile_options)


def test_the_records_show_the_attempts_and_the_hand_over():
    run = handled_graph().trace({"log": []})
    assert run.status == "done"
    step = run.step(1)
    assert [task.node for task in step.plan.tasks] == ["audit", "fetch"]  # the plan's
    results = {result.task.node: result for result in step.execution.results}
    failed, handler = results["fetch"], results["__error_handler__fetch"]
    assert failed.handled and failed.attempts == 2 and failed.writes == ()
    assert isinstance(failed.error, ConnectionError)
    assert [type(e) for e in failed.failed_attempts] == [ConnectionError]
    assert handler.task.kind == "error_handler" and handler.task.parent == failed.task.id
    assert handler.task.input == failed.task.input and handler.ok
    assert step.execution.error is None  # the step went on
    assert run.values["log"] == ["audited", "cached answer (fetch failed: the service is down)"]
    assert "report" not in [task.node for s in run.steps for task in s.plan.tasks]


def test_the_tasks_table_lists_the_handler_after_the_failed_task():
    tasks = handled_graph().trace({"log": []}).to_frame("tasks").query("step == 1")
    rows = tasks[["node", "kind", "attempts", "started_by"]].fillna("-").values.tolist()
    assert rows == [
        ["audit", "pull", 1, "-"],
        ["fetch", "pull", 2, "-"],
        ["__error_handler__fetch", "error_handler", 1, "fetch"],
    ]
    assert isinstance(tasks.set_index("node").loc["fetch", "error"], ConnectionError)


def test_why_says_why_the_handler_ran_and_what_happened_to_the_failed_node():
    run = handled_graph().trace({"log": []})
    handler = run.why("__error_handler__fetch", step=1)
    assert handler.summary == (
        "__error_handler__fetch ran at step 1 because fetch failed and it handles fetch's errors."
    )
    detail = str(handler)
    assert "fetch raised ConnectionError: the service is down after 2 attempts" in detail
    assert "edges were not taken" in detail
    failed = " ".join(str(run.why("fetch", step=1)).split())  # (printed, it wraps at words)
    assert "__error_handler__fetch took over in the same step" in failed


def test_the_drawing_has_an_on_error_edge_that_lights_up_when_taken():
    app = handled_graph(checkpointer=InMemorySaver())
    edges = {(e.source, e.target): e for e in app.get_graph().edges}
    assert edges[("fetch", "__error_handler__fetch")].label == "on error"
    assert ("fetch", "report") in edges and ("__error_handler__fetch", "__end__") in edges
    session = DebugSession(app, {"log": []}, {"configurable": {"thread_id": "d"}})
    session.step()
    session.step()
    session.plan()
    session.execute()
    svg = session.view().svg
    on_error = app.get_graph().edges
    taken = next(e for e in on_error if e.label == "on error").element_id
    assert f'id="{taken}" class="' in svg
    marked = svg.split(f'id="{taken}" class="')[1].split('"')[0]
    assert "pending" in marked  # taken in this step's Execute, not applied yet


def test_the_debugger_steps_a_handled_failure_phase_by_phase():
    session = DebugSession(handled_graph(checkpointer=InMemorySaver()), {"log": []},
                           {"configurable": {"thread_id": "h"}})  # fmt: skip
    session.step()  # the input step
    session.step()  # __start__
    assert session.plan().nodes == ["audit", "fetch"]
    execution = session.execute()
    assert [r.task.node for r in execution.results] == [
        "audit", "fetch", "__error_handler__fetch",
    ]  # fmt: skip
    writes = session.view().tables["writes"]
    assert writes["node"].tolist() == ["audit", "__error_handler__fetch"]
    session.update()
    assert session.values["log"][-1].startswith("cached answer")
    assert session.run().status == "done"


def slow_graph(checkpointer=None, **node_options):
    async def lookup(state: State) -> dict:
        await asyncio.sleep(0.5)
        return {"log": ["looked up"]}

    builder = StateGraph(State).add_node("lookup", lookup, **node_options)
    return builder.add_edge(START, "lookup").compile(checkpointer=checkpointer)


def test_each_timed_out_attempt_is_recorded_with_its_limit():
    retry = RetryPolicy(max_attempts=2, initial_interval=0.0, jitter=False)
    policy = TimeoutPolicy(run_timeout=0.05)
    app = slow_graph(InMemorySaver(), timeout=policy, retry_policy=retry)
    config = {"configurable": {"thread_id": "t"}}

    async def run_it() -> list:
        return [chunk async for chunk in app.astream({"log": []}, config, stream_mode="debug")]

    with pytest.raises(NodeTimeoutError) as raised:
        asyncio.run(run_it())
    assert raised.value.kind == "run" and raised.value.timeout == 0.05
    assert "During task with name 'lookup'" in raised.value.__notes__[0]
    (task,) = app.get_state(config).tasks
    assert "exceeded its run timeout of 0.050s" in task.error


def test_a_timeout_handed_to_a_handler_says_which_limit_fired():
    def handler(state: State, error: NodeError) -> dict:
        failure = error.error
        return {"log": [f"{failure.kind} timeout of {failure.timeout}s"]}

    app = slow_graph(timeout=TimeoutPolicy(idle_timeout=0.05), error_handler=handler)
    assert asyncio.run(app.ainvoke({"log": []})) == {"log": ["idle timeout of 0.05s"]}


def test_a_subgraph_node_with_a_timeout_is_awaited_so_it_can_be_cancelled():
    """Run in a thread, the subgraph's node would finish after the timeout; awaited, it
    is cancelled: it never finishes, even when the loop runs on past its sleep."""
    seen: list[str] = []

    async def inner(state: State) -> dict:
        try:
            await asyncio.sleep(0.3)
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise
        seen.append("finished")
        return {"log": ["inner"]}

    child = StateGraph(State).add_node("inner", inner).add_edge(START, "inner").compile()
    builder = StateGraph(State).add_node("child", child, timeout=0.05)
    app = builder.add_edge(START, "child").compile()

    async def run() -> None:
        with pytest.raises(NodeTimeoutError):
            await app.ainvoke({"log": []})
        await asyncio.sleep(0.5)  # long enough for an uncancelled node to finish

    asyncio.run(run())
    assert seen == ["cancelled"]


def test_a_sync_node_with_a_timeout_is_refused_with_the_fix():
    builder = StateGraph(State).add_node("sync", lambda state: {}, timeout=1)
    with pytest.raises(ValueError, match="Make it `async def`, or drop its `timeout=`"):
        builder.add_edge(START, "sync").compile()


def test_a_node_only_a_handler_routes_to_is_not_called_unreachable(recwarn):
    from graphkit import Command

    builder = StateGraph(State)
    builder.add_node("fetch", fetch, error_handler=lambda s: Command(goto="apologise"))
    builder.add_node("apologise", lambda state: {"log": ["sorry"]})
    builder.add_edge(START, "fetch").compile()
    assert not [w for w in recwarn if "nothing leads to it" in str(w.message)]


def test_the_step_timeout_fails_the_step_and_keeps_what_finished():
    builder = StateGraph(State)
    builder.add_node("slow", lambda state: time.sleep(0.5) or {"log": ["slow"]})
    builder.add_node("quick", lambda state: {"log": ["quick"]})
    builder.add_edge(START, "slow").add_edge(START, "quick")
    app = builder.compile(checkpointer=InMemorySaver())
    app.step_timeout = 0.1
    config = {"configurable": {"thread_id": "s"}}
    with pytest.raises(TimeoutError, match=r"step_timeout of 0\.1 s while 'slow' still ran"):
        app.invoke({"log": []}, config)
    state = app.get_state(config)  # the finished task's writes are saved, and shown
    assert state.next == ("slow",) and state.values == {"log": ["quick"]}
    # (in the order the nodes were added, as LangGraph lists them)
    assert [(t.name, t.result) for t in state.tasks] == [("slow", None),
                                                         ("quick", {"log": ["quick"]})]  # fmt: skip
