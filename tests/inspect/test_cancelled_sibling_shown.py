"""An async task cancelled because a sibling raised: the run failed with the sibling's
error, and the cancelled task says why it stopped, in a LangGraph thread read with
``open_langgraph_thread`` and in graphkit's own run of the same graph."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest

from graphkit.bridge.threads import open_langgraph_thread
from graphkit.pregel.records import Run

CONFIG = {"configurable": {"thread_id": "t"}}


class State(TypedDict):
    log: Annotated[list, operator.add]


def _build(library: Any, saver: Any) -> Any:
    async def a(state):
        await asyncio.sleep(5)  # (cancelled when b raises)
        return {"log": ["a"]}

    async def b(state):
        raise ValueError("boom")

    builder = library.StateGraph(State)
    builder.add_node("a", a).add_node("b", b)
    builder.add_edge(library.START, "a").add_edge(library.START, "b")
    return builder.compile(checkpointer=saver)


def _langgraph_run(durability: str) -> Run:
    import langgraph.graph as library
    from langgraph.checkpoint.memory import InMemorySaver

    app = _build(library, InMemorySaver())
    with pytest.raises(ValueError, match="boom"):
        asyncio.run(app.ainvoke({"log": []}, CONFIG, durability=durability))
    return open_langgraph_thread(app, CONFIG)


def _graphkit_run() -> Run:
    import graphkit as library
    from graphkit import InMemorySaver
    from graphkit.streaming.aio import astream_from
    from graphkit.streaming.run import open_stream

    app = _build(library, InMemorySaver())
    held = {}

    def start(loop):  # what ``astream`` does, keeping the stepper and its records
        options = app.run_options
        app.run_options = lambda **given: options(**{**given, "record": True})
        stream = open_stream(app, {"log": []}, CONFIG, loop=loop)
        held["stepper"] = stream.stepper
        return stream.chunks()

    async def consume():
        return [chunk async for chunk in astream_from(start)]

    with pytest.raises(ValueError, match="boom"):
        asyncio.run(consume())
    return held["stepper"].run_so_far


@pytest.mark.parametrize("durability", ["async", "sync"])
def test_the_run_failed_with_the_error_that_cancelled_its_sibling(durability):
    # LangGraph saved a's CancelledError beside b's ValueError; the imported run ended
    # "the run failed at step 1: a raised CancelledError" (graphkit's own run: "the run
    # was cancelled at step 1: a cancelled (ValueError: boom)")
    for run in (_langgraph_run(durability), _graphkit_run()):
        assert type(run.error).__name__ == "ValueError"
        lines = str(run).splitlines()
        assert lines[-4:] == [
            "  EXECUTE  a  cancelled (CancelledError): b raised, which cancelled it",
            "  EXECUTE  b  raised ValueError: boom",
            "  UPDATE   skipped: a task failed, so no channel changed",
            "the run failed at step 1: b raised ValueError: boom",
        ]
        said = [r for r in run.why("a", 1).answers[0].reasons if r.kind == "raised"]
        assert [(r.text, r.writers) for r in said] == [
            (
                "a was cancelled (CancelledError): b raised ValueError: boom in the same "
                "step while a ran, and a failing task cancels the async tasks still running "
                "and stops the step before its Update, so none of step 1's writes were "
                "applied.",
                ("b",),
            )
        ]
        card = run.step(1)._repr_html_()
        assert "the run was cancelled" not in card and "a task failed" in card
