"""A run paused at several ``interrupt()`` calls at once (a Send fan-out of approvals)
says how to answer them: LangGraph refuses one answer for several questions, so the
timeline gives each question's id and ends with the map of answers to fill, where it
said ``resume with Command(resume=...)``, which fails with a RuntimeError."""

from __future__ import annotations

from typing import Any

import pytest

langgraph = pytest.importorskip("langgraph")

from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402

from tests.widgets.graphs import approvals  # noqa: E402

INPUT = {"expenses": [{"item": "laptop"}, {"item": "chair"}]}


def words(run: Any) -> list[str]:
    return [" ".join(line.split()) for line in run.timeline(width=None).splitlines()]


def test_the_timeline_gives_each_questions_id_and_the_map_that_resumes_langgraph():
    import langgraph.graph
    import langgraph.types
    from langgraph.types import Command

    from graphkit import open_langgraph_thread

    kit = type("kit", (), {**vars(langgraph.graph), **vars(langgraph.types)})
    app = approvals(kit).compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    first, second = (asked.id for asked in app.invoke(INPUT, config)["__interrupt__"])
    lines = words(open_langgraph_thread(app, config))
    assert lines[-3:] == [
        f"EXECUTE approve paused in interrupt('Approve laptop?') (id {first})",
        f"EXECUTE approve paused in interrupt('Approve chair?') (id {second})",
        "paused in step 1: approve, approve called interrupt(); 2 questions wait, so resume "
        "on the same thread with an answer for each by its id: "
        f"Command(resume={{'{first}': ..., '{second}': ...}})",
    ]
    with pytest.raises(RuntimeError, match="multiple pending interrupts"):
        app.invoke(Command(resume="yes"), config)  # what the timeline said to do
    done = app.invoke(Command(resume={first: "yes", second: "no"}), config)
    assert done["decisions"] == ["laptop: yes", "chair: no"]


def test_one_question_keeps_the_short_advice_and_no_id():
    import graphkit

    app = approvals(graphkit).compile(checkpointer=graphkit.InMemorySaver())
    run = app.trace({"expenses": [{"item": "laptop"}]}, {"configurable": {"thread_id": "t"}})
    assert words(run)[-2:] == [
        "EXECUTE approve paused in interrupt('Approve laptop?')",
        "paused in step 1: approve called interrupt(); resume with Command(resume=...) on "
        "the same thread",
    ]
