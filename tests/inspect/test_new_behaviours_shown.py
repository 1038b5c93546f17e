"""The views show issue 14's new behaviours truthfully: a task cancelled with its async
run (``ainvoke`` cancelled while an async node sleeps) and an ``Overwrite`` write.

A cancelled ``ainvoke`` hands its caller a bare ``CancelledError`` (no ``error.run``),
and ``trace`` has no async form, so the cancelled run's records are taken here from the
stepper ``ainvoke`` drives (the same ``open_stream`` + ``astream_from`` path); a user
sees the same cancellation in the thread's pending writes when a checkpointer is set.
"""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest

from graphkit import START, InMemorySaver, StateGraph
from graphkit.inspect.threads import pending_writes_frame
from graphkit.inspect.timeline import run_timeline_svg
from graphkit.pregel.records import Run
from graphkit.streaming.aio import astream_from
from graphkit.streaming.run import open_stream
from graphkit.types import Overwrite


class State(TypedDict):
    log: Annotated[list, operator.add]


CONFIG = {"configurable": {"thread_id": "cancelled"}}


def _cancelled_app() -> tuple[Any, asyncio.Event]:
    """first, then fast and slow in parallel (step 2); slow sleeps until cancelled."""
    started = asyncio.Event()

    async def first(state):
        return {"log": ["first"]}

    async def fast(state):
        return {"log": ["fast"]}

    async def slow(state):
        started.set()
        await asyncio.sleep(5)
        return {"log": ["slow"]}

    builder = StateGraph(State)
    for name, node in [("first", first), ("fast", fast), ("slow", slow)]:
        builder.add_node(name, node)
    builder.add_edge(START, "first")
    builder.add_edge("first", "fast")
    builder.add_edge("first", "slow")
    return builder.compile(checkpointer=InMemorySaver()), started


def _cancelled_run() -> tuple[Run, Any, BaseException]:
    """Cancel the caller while slow sleeps; the run's records, the app, what the caller got."""

    async def main() -> tuple[Run, Any, BaseException]:
        app, started = _cancelled_app()
        held = {}

        def start(loop):  # what ``astream`` does, keeping the stepper and its records
            # (a root stream keeps no supersteps, as nobody else reads them; this test does)
            graph_options = app.run_options
            app.run_options = lambda **options: graph_options(**{**options, "record": True})
            stream = open_stream(app, {"log": []}, CONFIG, loop=loop)
            held["stepper"] = stream.stepper
            return stream.chunks()

        async def consume():
            return [chunk async for chunk in astream_from(start)]

        task = asyncio.create_task(consume())
        await asyncio.wait_for(started.wait(), 5)
        await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError) as raised:
            await task
        return held["stepper"].run_so_far, app, raised.value

    return asyncio.run(main())


@pytest.fixture(scope="module")
def cancelled() -> tuple[Run, Any, BaseException]:
    return _cancelled_run()


def test_a_cancelled_ainvoke_gives_no_run_to_its_caller(cancelled):
    _, _, error = cancelled
    assert not hasattr(error, "run")


def test_the_tasks_table_shows_the_cancelled_task(cancelled):
    run = cancelled[0]
    assert run.status == "error" and isinstance(run.error, asyncio.CancelledError)
    tasks = run.to_frame("tasks")
    step = tasks[tasks["step"] == 2].set_index("node")
    assert isinstance(step.loc["slow", "error"], asyncio.CancelledError)
    assert step.loc["fast", "error"] is None
    readable = run.to_frame("tasks", readable=True)
    shown = readable[readable["step"] == 2].set_index("node")["error"].to_dict()
    assert shown == {"fast": "", "slow": "CancelledError"}
    writes = run.to_frame("writes")
    assert writes[writes["step"] == 2]["node"].tolist() == ["fast"]  # slow wrote nothing


def test_why_says_the_task_was_cancelled_and_its_sibling_was_not_applied(cancelled):
    run = cancelled[0]
    slow = str(run.why("slow", 2))
    assert "slow was cancelled (CancelledError)" in slow
    assert "none of step 2's writes were applied" in slow
    assert "raised" not in slow
    fast = str(run.why("fast", 2))
    assert "fast finished, but slow was cancelled in the same step" in fast
    assert "fast's writes were not applied" in fast


def test_the_text_and_timeline_views_say_cancelled(cancelled):
    run = cancelled[0]
    text = str(run)
    assert "EXECUTE  slow  cancelled (CancelledError): the run was cancelled" in text
    assert "EXECUTE  fast  wrote log" in text
    assert "UPDATE   skipped: the run was cancelled, so no channel changed" in text
    assert (
        text.splitlines()[-1] == "the run was cancelled at step 2: slow cancelled (CancelledError)"
    )
    assert "failed" not in text
    timeline = run.to_frame("timeline")
    errors = timeline[timeline["step"] == 2].set_index("node")["error"].to_dict()
    assert errors == {"fast": False, "slow": True}
    assert "slow:" in run_timeline_svg(run)
    html = run._repr_html_()
    assert "skipped: the run was cancelled, so no channel changed" in html
    assert ">cancelled</span>" in html


def test_the_thread_keeps_the_cancellation_as_pending_writes(cancelled):
    """What a user without the stepper sees: the thread's pending writes."""
    _, app, _ = cancelled
    pending = pending_writes_frame(app, CONFIG)
    by_node = {row["node"]: row for _, row in pending.iterrows()}
    assert by_node["slow"]["value"] == "CancelledError()"  # the saved error, as text
    assert by_node["slow"]["channel"] == "__error__"
    assert by_node["fast"]["value"] == ["fast"]


# -- an Overwrite ------------------------------------------------------------------------


class Logged(TypedDict):
    x: int
    log: Annotated[list, operator.add]


def overwrite_app(checkpointer: Any = None) -> Any:
    """a appends, b overwrites, both in step 1; c appends after them (step 2)."""
    builder = StateGraph(Logged)
    builder.add_node("a", lambda state: {"log": ["a"]})
    builder.add_node("b", lambda state: {"log": Overwrite(["b"])})
    builder.add_node("c", lambda state: {"log": ["c"]})
    for name in ("a", "b"):
        builder.add_edge(START, name)
        builder.add_edge(name, "c")
    return builder.compile(checkpointer=checkpointer)


def test_why_a_node_ran_after_an_overwrite_names_the_overwriting_writer():
    run = overwrite_app().trace({"x": 0, "log": ["start"]})
    assert run.values["log"] == ["b", "c"]
    answer = str(run.why("c", 2))
    assert answer.startswith("c ran at step 2")
    assert "Traceback" not in answer
    for node in ("a", "b"):
        assert f"{node} ran at step 1" in str(run.why(node, 1))
    text = str(run)
    assert "['start'] -> ['b']  (from a, b; Overwrite by b)" in text
