"""The debugger on lesson 20's pauses: a subgraph's node asking (the subgraph as a node,
or invoked inside one) is named in the status, and two ``Send`` tasks asking at once get
one answer box each, labelled with what they ask, which Resume passes as
``Command(resume={id: answer})``: the run ends as LangGraph's resumed the same way."""

from __future__ import annotations

from typing import Any, Literal, TypedDict

import pytest

import graphkit
from tests.widgets.graphs import approvals, desk

langgraph = pytest.importorskip("langgraph")

from ipywidgets import GridBox  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.types import Command, interrupt  # noqa: E402

from graphkit.widgets import Debugger  # noqa: E402

INPUT = {"expenses": [{"item": "laptop", "amount": 1800}, {"item": "chair", "amount": 240}]}


def langgraph_kit() -> Any:
    import langgraph.graph
    import langgraph.types

    return type("kit", (), {**vars(langgraph.graph), **vars(langgraph.types)})


def paused_debugger() -> Debugger:
    debugger = Debugger(approvals(graphkit).compile(), INPUT)
    debugger.click("run")
    return debugger


def labels(debugger: Debugger) -> list[str]:
    return [label.value for label in debugger.resume_box.questions.children[::2]]


def test_two_questions_get_one_answer_box_each_labelled_with_what_it_asks():
    # one box took a dict typed by hand ({'65233a7f': 'yes', ...}), and a plain answer
    # was refused: the learner copied ids out of the status line
    debugger = paused_debugger()
    first, second = (asked.id[:8] for asked in debugger.session.interrupts)
    assert labels(debugger) == [
        f"approve asks &#x27;Approve laptop?&#x27; (id {first})",
        f"approve asks &#x27;Approve chair?&#x27; (id {second})",
    ]
    assert len(debugger.resume_box.each) == 2
    assert debugger.answer.layout.display == "none"  # the one-answer box is not offered
    assert debugger.resume.layout.display is None


def test_the_answer_boxes_line_up_in_a_column_of_their_own():
    # each box sat right after its label in a row of its own, so under labels of
    # different lengths the boxes started at different places
    box = paused_debugger().resume_box
    grid = box.questions
    assert isinstance(grid, GridBox)
    assert grid.layout.grid_template_columns == "minmax(0, max-content) minmax(12em, 300px)"
    questions, answers = grid.children[::2], grid.children[1::2]
    assert all("gk-question" in q._dom_classes for q in questions)
    assert list(answers) == box.each  # each box in the column after its question
    assert "gk-resume-area" in box.widget._dom_classes  # (the width a narrow cell asks of)


def test_an_answer_in_each_box_resumes_as_langgraph_with_answers_by_id():
    app = approvals(langgraph_kit()).compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "lg"}}
    ids = [asked.id for asked in app.invoke(INPUT, config)["__interrupt__"]]
    expected = app.invoke(Command(resume={ids[0]: "yes", ids[1]: "no"}), config)
    debugger = paused_debugger()
    laptop, chair = debugger.resume_box.each
    laptop.value, chair.value = "yes", '"no"'  # (a string literal is the string it spells)
    debugger.resume.click()
    debugger.click("run")
    assert debugger.session.status == "done"
    assert debugger.session.values == expected
    assert debugger.resume.layout.display == "none"
    assert debugger.resume_box.questions.children == ()


def test_a_blank_box_asks_again_as_langgraph_asks_a_question_left_out():
    app = approvals(langgraph_kit()).compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "lg"}}
    ids = [asked.id for asked in app.invoke(INPUT, config)["__interrupt__"]]
    still = app.invoke(Command(resume={ids[1]: "no"}), config)["__interrupt__"]
    debugger = paused_debugger()
    debugger.resume_box.each[1].value = "no"
    debugger.resume.click()
    debugger.click("run")
    assert [i.value for i in debugger.session.interrupts] == [i.value for i in still]
    assert debugger.resume_box.questions.children == ()  # one question: the one box
    assert debugger.answer.layout.display is None
    debugger.answer.value = "yes"
    debugger.resume.click()
    debugger.click("run")
    done = app.invoke(Command(resume="yes"), config)
    assert debugger.session.values == done


def test_every_box_blank_is_refused_and_the_run_stays_paused():
    debugger = paused_debugger()
    before = debugger.status.value
    debugger.resume.click()
    assert debugger.message.value.startswith("Type an answer in a question's box first")
    assert (debugger.session.status, debugger.status.value) == ("interrupted", before)
    assert len(debugger.resume_box.each) == 2


def test_a_resume_the_runtime_refuses_is_shown_in_the_box_not_warned(monkeypatch):
    # session.resume warns a notebook cell that it resumed nothing; pressed in the
    # Debugger, the message line says it (a warning went to the kernel's log)
    debugger = paused_debugger()

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the saver is down")

    monkeypatch.setattr(debugger.session.app, "stepper", refuse)
    for box in debugger.resume_box.each:
        box.value = "yes"
    debugger.resume.click()  # (a GraphkitWarning fails the test: pyproject's filter)
    assert "Not resumed: RuntimeError: the saver is down" in debugger.message.value
    assert debugger.session.status == "interrupted"


def test_text_typed_stays_while_the_same_questions_wait():
    debugger = paused_debugger()
    debugger.resume_box.each[0].value = "yes"
    debugger.click("back")  # (the slider, a tab, a refresh: the questions did not change)
    debugger.click("run")
    debugger.refresh()
    assert debugger.resume_box.each[0].value == ""  # a new pause: new boxes
    debugger.resume_box.each[0].value = "yes"
    debugger.refresh()
    assert debugger.resume_box.each[0].value == "yes"


@pytest.mark.parametrize("inside", [False, True], ids=["subgraph node", "invoked in a node"])
def test_a_pause_in_a_subgraph_names_the_subgraphs_node_that_asked(inside):
    # the status said "editor asks 'Publish?'", and editor's code has no interrupt()
    debugger = Debugger(desk(graphkit, inside).compile(), {"topic": "tides"})
    debugger.click("run")
    node = "review" if inside else "editor"
    assert debugger.status.value == (
        f"interrupted at step 1: {node} asks 'Publish?' (asked in its subgraph, by node ask)"
    )
    app = desk(langgraph_kit(), inside).compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "lg"}}
    app.invoke({"topic": "tides"}, config)
    expected = app.invoke(Command(resume="yes"), config)
    debugger.answer.value = "yes"
    debugger.resume.click()
    debugger.click("run")
    assert debugger.session.values == expected
    assert expected["draft"] == "published: yes: A post about tides"


class Draft(TypedDict):
    draft: str


def review(state: Draft) -> Command[Literal["rewrite", "__end__"]]:
    answer = interrupt(f"publish {state['draft']!r}?")
    return Command(goto="__end__" if answer == "yes" else "rewrite")


def test_the_one_answer_box_is_emptied_when_a_new_question_asks():
    # a review loop (bridge11): answered 'no', the node asked again about the rewritten
    # draft, and the box still read 'no', so a click on Resume answered the new question
    # with the old answer, unread
    from langgraph.graph import START, StateGraph

    builder = StateGraph(Draft)
    builder.add_node("review", review)
    builder.add_node("rewrite", lambda state: {"draft": state["draft"] + "!"})
    builder.add_edge(START, "review")
    builder.add_edge("rewrite", "review")
    app = builder.compile(checkpointer=InMemorySaver())
    debugger = Debugger(app, {"draft": "hi"}, {"configurable": {"thread_id": "loop"}})
    debugger.click("run")
    assert "asks \"publish 'hi'?\"" in debugger.status.value
    debugger.answer.value = "no"
    debugger.refresh()
    assert debugger.answer.value == "no"  # the same question still waits: kept
    debugger.resume.click()
    debugger.click("run")
    assert "asks \"publish 'hi!'?\"" in debugger.status.value
    assert debugger.answer.value == ""
