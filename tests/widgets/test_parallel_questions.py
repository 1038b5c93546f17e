"""Several ``interrupt()`` calls waiting at once (a Send fan-out of approvals) in the
debugger: LangGraph takes only answers keyed by interrupt id, so the debugger names each
question by its id and its Resume takes a dict of answers by id, on a live run and on a
thread LangGraph saved; a refused Resume leaves the run paused as it was."""

from __future__ import annotations

from typing import Any

import pytest

from graphkit import GraphkitWarning
from graphkit.widgets import DebugSession

langgraph = pytest.importorskip("langgraph")

from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402

from tests.widgets.graphs import approvals  # noqa: E402

INPUT = {"expenses": [{"item": "laptop", "amount": 1800}, {"item": "chair", "amount": 240}]}


def langgraph_kit() -> Any:
    import langgraph.graph
    import langgraph.types

    return type("kit", (), {**vars(langgraph.graph), **vars(langgraph.types)})


def langgraph_answers(ids_to_answers: Any) -> tuple[Any, list[str]]:
    """LangGraph's own run, paused then answered by ``ids_to_answers(ids)``; the app, and
    its decisions."""
    from langgraph.types import Command

    app = approvals(langgraph_kit()).compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "lg"}}
    ids = [asked.id for asked in app.invoke(INPUT, config)["__interrupt__"]]
    return app, app.invoke(Command(resume=ids_to_answers(ids)), config)["decisions"]


def live_session() -> DebugSession:
    import graphkit

    session = DebugSession(approvals(graphkit).compile(), INPUT)
    session.run()
    return session


def test_the_status_line_names_each_waiting_question_by_its_id():
    session = live_session()
    first, second = (asked.id[:8] for asked in session.interrupts)
    assert session.view().status_text == (
        f"interrupted at step 1: approve asks 'Approve laptop?' (id {first}); "
        f"approve asks 'Approve chair?' (id {second})"
    )


def test_one_answer_for_several_questions_is_refused_and_the_run_stays_paused():
    # LangGraph refuses it (RuntimeError); the session raised it half-way through
    # resuming, and then showed step 0 "paused by a compiled breakpoint", its questions gone
    session = live_session()
    before = (session.view().status_text, session.supersteps, session.interrupts)
    first, second = (asked.id[:8] for asked in session.interrupts)
    # (in a notebook cell, said as a warning too: the cell showed nothing)
    with pytest.warns(GraphkitWarning, match=r"^session\.resume\(\) resumed nothing: 2 questions"):
        session.resume("yes")
    assert session.message == (
        "2 questions are waiting, so Resume needs an answer for each, keyed by its id: "
        f"type {{'{first}': ..., '{second}': ...}} (a question left out asks again)."
    )
    assert (session.view().status_text, session.supersteps, session.interrupts) == before
    with pytest.warns(GraphkitWarning, match="'nope' begins none of the ids"):
        session.resume({"nope": "yes"})
    assert session.message == (
        "'nope' begins none of the ids of the 2 questions waiting: key each answer by its "
        f"own id, as in {{'{first}': ..., '{second}': ...}}."
    )
    assert session.status == "interrupted"


def test_a_resume_the_runtime_refuses_leaves_the_run_paused_as_it_was(monkeypatch):
    session = live_session()
    before = (session.view().status_text, session.supersteps, session.interrupts)

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the saver is down")

    monkeypatch.setattr(session.app, "stepper", refuse)
    with pytest.warns(GraphkitWarning) as warned:
        session.resume({asked.id: "yes" for asked in session.interrupts})
    assert session.message == "Not resumed: RuntimeError: the saver is down"
    assert str(warned[0].message) == (
        "session.resume() resumed nothing: RuntimeError: the saver is down; the run waits as "
        "it was."
    )
    assert (session.view().status_text, session.supersteps, session.interrupts) == before


def test_answers_by_short_id_resume_as_langgraph_resumes_with_the_whole_ids():
    _, expected = langgraph_answers(lambda ids: {ids[0]: "yes", ids[1]: "no"})
    session = live_session()
    first, second = (asked.id[:8] for asked in session.interrupts)
    session.resume({first: "yes", second: "no"})
    session.run()
    assert session.status == "done"
    assert session.values["decisions"] == expected == ["laptop: yes", "chair: no"]


def test_one_answer_by_id_leaves_the_other_question_waiting_as_in_langgraph():
    from langgraph.types import Command

    app, _ = langgraph_answers(lambda ids: {ids[0]: "yes"})
    state = app.get_state({"configurable": {"thread_id": "lg"}})
    asked = [i.value for task in state.tasks for i in task.interrupts]
    session = live_session()
    session.resume({session.interrupts[0].id: "yes"})
    session.run()
    assert [i.value for i in session.interrupts] == asked == ["Approve chair?"]
    session.resume("no")  # one question left: a plain answer
    session.run()
    done = app.invoke(Command(resume="no"), {"configurable": {"thread_id": "lg"}})
    assert session.values["decisions"] == done["decisions"] == ["laptop: yes", "chair: no"]


def test_a_langgraph_thread_waiting_on_two_questions_resumes_with_langgraphs_ids():
    # the copied thread asked again under graphkit's ids: answers keyed by LangGraph's
    # (the ones the session shows, and LangGraph's __interrupt__ gives) were dropped
    # without a word, and the run stopped at the same two questions
    from graphkit import open_langgraph_thread

    app = approvals(langgraph_kit()).compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "saved"}}
    ids = [asked.id for asked in app.invoke(INPUT, config)["__interrupt__"]]
    session = DebugSession.from_run(app, open_langgraph_thread(app, config), config)
    assert [asked.id for asked in session.interrupts] == ids
    assert f"(id {ids[0][:8]})" in session.view().status_text
    session.resume({ids[0][:8]: "yes", ids[1]: "no"})
    session.run()
    assert session.status == "done"
    _, expected = langgraph_answers(lambda ids: {ids[0]: "yes", ids[1]: "no"})
    assert session.values["decisions"] == expected
