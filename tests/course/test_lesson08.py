"""Tests of lesson 08's checks: each passes on its solution and fails, saying why, on
the notebook's stub and on typical wrong answers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graphkit import Command, GraphkitWarning, InMemorySaver, interrupt
from graphkit.course import lesson08
from graphkit.course.solutions import lesson08 as solutions
from tests.course.cells import AN_ID, run_cells

# -- 8.1 · An approval node


def test_approval_passes_on_the_solution():
    verdict = lesson08.check_approval(solutions.approve_mail)
    assert verdict, verdict.message


def test_approval_stub_never_pauses():
    def approve(state):
        return {"approved": True}  # the notebook's stub

    verdict = lesson08.check_approval(approve)
    assert not verdict
    assert "never paused" in verdict.message and "interrupt(" in verdict.hint
    assert "try" not in verdict.hint  # (the stub catches nothing: off the point)


def test_approval_catching_the_pause_names_the_try():
    def approve(state):
        try:
            answer = interrupt({"draft": state["body"]})
        except Exception:  # catches the interrupt itself
            answer = "no"
        return {"approved": answer == "yes"}

    verdict = lesson08.check_approval(approve)
    assert not verdict
    assert "never paused" in verdict.message and "try/except" in verdict.hint


def test_approval_without_the_draft_in_the_question():
    def approve(state):
        return {"approved": interrupt("Send it?") == "yes"}

    verdict = lesson08.check_approval(approve)
    assert not verdict
    assert "cannot see the draft" in verdict.message and "'Send it?'" in verdict.message


def test_approval_taking_any_answer_as_yes():
    def approve(state):
        return {"approved": bool(interrupt(state["body"]))}

    verdict = lesson08.check_approval(approve)
    assert not verdict
    assert "resumed with 'no', but send ran" in verdict.message and "truthy" in verdict.hint


def test_approval_upside_down():
    def approve(state):
        return {"approved": interrupt(state["body"]) == "no"}

    verdict = lesson08.check_approval(approve)
    assert not verdict
    assert "resumed with 'yes', but send did not run" in verdict.message


def test_approval_asking_twice():
    def approve(state):
        first = interrupt(state["body"])
        second = interrupt("Really?")
        return {"approved": first == second == "yes"}

    verdict = lesson08.check_approval(approve)
    assert not verdict
    assert "paused again" in verdict.message


def test_approval_writing_a_string_that_reads_as_a_bool():
    def approve(state):
        return {"approved": "True" if interrupt(state["body"]) == "yes" else ""}

    verdict = lesson08.check_approval(approve)
    assert not verdict
    assert "approved='True' (of type str)" in verdict.message and "answer == 'yes'" in verdict.hint


def test_approval_writing_the_answer_itself():
    def approve(state):
        return {"approved": interrupt(state["body"])}

    verdict = lesson08.check_approval(approve)
    assert not verdict
    assert "approved='yes' (of type str)" in verdict.message


# -- 8.2 · A static breakpoint


def test_approval_writing_a_misspelt_key_says_approved_was_never_written():
    # {"approve": ...} is dropped (not a state key): approve did not write approved=None
    def approve(state):
        return {"approve": interrupt({"draft": state["body"]}) == "yes"}

    with pytest.warns(GraphkitWarning, match="'approve'"):
        verdict = lesson08.check_approval(approve)
    assert not verdict
    assert "approved=None" not in verdict.message
    assert "wrote no `approved`" in verdict.message and "dropped" in verdict.message


def test_approval_calling_langgraph_s_interrupt_says_to_import_graphkit_s():
    # LangGraph's interrupt() reads LangGraph's run context: refused by name, not with
    # KeyError '__pregel_scratchpad' (see tests/graph/test_langgraph_objects.py)
    from langgraph.types import interrupt as langgraph_interrupt  # (a notebook's import)

    def approve(state):
        return {"approved": langgraph_interrupt({"draft": state["body"]}) == "yes"}

    verdict = lesson08.check_approval(approve)
    assert not verdict
    assert "interrupt() from langgraph.types" in verdict.message
    assert "from graphkit import interrupt" in verdict.message


def test_breakpoint_passes_on_the_solution():
    verdict = lesson08.check_breakpoint(solutions.pause_before_send)
    assert verdict, verdict.message


def test_breakpoint_after_review_also_passes():
    verdict = lesson08.check_breakpoint(
        lambda builder: builder.compile(checkpointer=InMemorySaver(), interrupt_after=["review"])
    )
    assert verdict, verdict.message


def test_breakpoint_stub_never_stops():
    def pause_before_send(builder):
        return builder.compile(checkpointer=InMemorySaver())  # the notebook's stub

    verdict = lesson08.check_breakpoint(pause_before_send)
    assert not verdict
    assert "sent before the run stopped" in verdict.message and "did not stop" in verdict.message


def test_breakpoint_after_send_is_too_late():
    verdict = lesson08.check_breakpoint(
        lambda builder: builder.compile(checkpointer=InMemorySaver(), interrupt_after=["send"])
    )
    assert not verdict
    assert "sent before the run stopped" in verdict.message and "interrupt_after" in verdict.hint


def test_breakpoint_before_review_is_too_early():
    verdict = lesson08.check_breakpoint(
        lambda builder: builder.compile(checkpointer=InMemorySaver(), interrupt_before=["review"])
    )
    assert not verdict
    assert "too early" in verdict.message and "('review',)" in verdict.message


def test_breakpoint_named_by_a_string_asks_for_a_list():
    verdict = lesson08.check_breakpoint(
        lambda builder: builder.compile(checkpointer=InMemorySaver(), interrupt_before="send")
    )
    assert not verdict
    assert "interrupt_before=['send']" in verdict.message and "no node 's'" not in verdict.message


def test_breakpoint_before_a_misspelt_node_says_compiling_raised_it():
    # (it said "Your code raised ValueError", though compile() refused the name)
    verdict = lesson08.check_breakpoint(
        lambda builder: builder.compile(checkpointer=InMemorySaver(), interrupt_before=["sned"])
    )
    assert not verdict
    assert verdict.message.startswith(
        "Compiling your graph raised ValueError: compile(interrupt_before=['sned']): there is "
        "no node 'sned'"
    )


def test_breakpoint_before_every_node_says_nothing_ran_yet():
    def pause_before_send(builder):
        return builder.compile(checkpointer=InMemorySaver(), interrupt_before="*")

    verdict = lesson08.check_breakpoint(pause_before_send)
    assert not verdict
    assert "only nothing" not in verdict.message
    assert "next is ('write',), nothing ran yet." in verdict.message


def test_breakpoint_without_a_checkpointer():
    verdict = lesson08.check_breakpoint(lambda builder: builder.compile(interrupt_before=["send"]))
    assert not verdict
    assert "no checkpointer" in verdict.message


def test_breakpoint_returning_something_else():
    verdict = lesson08.check_breakpoint(lambda builder: None)
    assert not verdict
    assert "NoneType" in verdict.message


# -- 8.3 · Edit the state at a breakpoint


def test_edit_passes_on_the_solution():
    verdict = lesson08.check_edit_at_breakpoint(solutions.fix_and_send)
    assert verdict, verdict.message


def test_edit_stub_sends_to_the_misspelt_address():
    def fix_and_send(app, config, address):
        return app.invoke(None, config)  # the notebook's stub

    verdict = lesson08.check_edit_at_breakpoint(fix_and_send)
    assert not verdict
    assert "ada@exmaple.com" in verdict.message
    # what is missing, and nothing about what the learner did not try
    assert "resumed the run without changing the thread's `to` first" in verdict.message
    assert "Command(resume" not in verdict.message and "get_state" not in verdict.message
    assert "update_state" in verdict.hint


def test_edit_after_resuming_says_send_ran_first():
    def fix_and_send(app, config, address):
        app.invoke(None, config)
        return app.update_state(config, {"to": address})

    verdict = lesson08.check_edit_at_breakpoint(fix_and_send)
    assert not verdict
    assert "send ran before your edit" in verdict.message


def test_edit_by_resuming_with_the_address_says_resume_edits_nothing():
    def fix_and_send(app, config, address):
        return app.invoke(Command(resume=address), config)  # a breakpoint asks nothing

    verdict = lesson08.check_edit_at_breakpoint(fix_and_send)
    assert not verdict
    assert "`to` was never changed" in verdict.message
    assert "Command(resume=...) answers an interrupt()" in verdict.message
    assert "get_state" not in verdict.message


def test_edit_by_streaming_a_resume_says_resume_edits_nothing():
    def fix_and_send(app, config, address):
        for _ in app.stream(Command(resume=address), config):
            pass

    verdict = lesson08.check_edit_at_breakpoint(fix_and_send)
    assert not verdict
    assert "Command(resume=...) answers an interrupt()" in verdict.message


def test_edit_with_command_update_passes_and_names_update_state():
    def fix_and_send(app, config, address):
        return app.invoke(Command(update={"to": address}), config)

    verdict = lesson08.check_edit_at_breakpoint(fix_and_send)
    assert verdict, verdict.message
    assert "Command(update=...)" in verdict.message and "update_state" in verdict.message


def test_edit_resumed_by_a_stream_passes_without_naming_invoke():
    # resuming with stream(None, ...) is as good as invoke(None, ...): the verdict says
    # what ran, not a call the learner did not make
    def fix_and_send(app, config, address):
        resumed_from = app.update_state(config, {"to": address}, as_node="review")
        for _ in app.stream(None, resumed_from):
            pass

    verdict = lesson08.check_edit_at_breakpoint(fix_and_send)
    assert verdict, verdict
    assert "invoke(None, config)" not in verdict.message
    assert "resuming with None" in verdict.message


def test_edit_as_send_skips_sending():
    def fix_and_send(app, config, address):
        app.update_state(config, {"to": address}, as_node="send")
        return app.invoke(None, config)

    verdict = lesson08.check_edit_at_breakpoint(fix_and_send)
    assert not verdict
    assert "outbox is empty" in verdict.message and "leads to END" in verdict.message
    assert "as_node" in verdict.hint


def test_edit_without_resuming():
    def fix_and_send(app, config, address):
        app.update_state(config, {"to": address})

    verdict = lesson08.check_edit_at_breakpoint(fix_and_send)
    assert not verdict
    assert "still paused before send" in verdict.message and "invoke(None" in verdict.hint


def test_edit_with_new_input():
    def fix_and_send(app, config, address):
        return app.invoke({"name": "Ada", "to": address}, config)

    verdict = lesson08.check_edit_at_breakpoint(fix_and_send)
    assert not verdict
    assert "new run" in verdict.message and "2 input steps" in verdict.message


def test_edit_then_new_input_says_the_edit_was_right_and_the_input_undid_it():
    def fix_and_send(app, config, address):
        app.update_state(config, {"to": address})
        return app.invoke({"to": address}, config)  # resumes with input, not None

    verdict = lesson08.check_edit_at_breakpoint(fix_and_send)
    assert not verdict
    assert "new run" in verdict.message
    # The hint does not tell the learner to do the update_state they already did.
    assert "update_state" not in verdict.hint and "invoke(None, config)" in verdict.hint


def test_edit_writing_the_outbox_directly():
    def fix_and_send(app, config, address):
        mail = f"to {address}: {app.get_state(config).values['body']}"
        app.update_state(config, {"outbox": [mail]}, as_node="send")

    verdict = lesson08.check_edit_at_breakpoint(fix_and_send)
    assert not verdict
    assert "send never ran" in verdict.message


def test_approval_sending_unless_the_answer_is_no():
    def approve(state):
        answer = interrupt({"draft": state["body"]})
        return {"approved": answer != "no"}

    verdict = lesson08.check_approval(approve)
    assert not verdict
    assert "resumed with 'maybe', but send ran" in verdict.message


def test_edit_as_an_earlier_node_says_review_ran_again():
    def fix_and_send(app, config, address):
        app.update_state(config, {"to": address}, as_node="write")  # review is next again
        return app.invoke(None, config)

    verdict = lesson08.check_edit_at_breakpoint(fix_and_send)
    assert not verdict
    assert "you resumed, but review ran again" in verdict.message
    assert "as_node" in verdict.hint


def test_edit_with_a_misspelt_key_says_to_did_not_change():
    # the edit came before send, but wrote nothing: "send ran before your edit" was wrong
    def fix_and_send(app, config, address):
        app.update_state(config, {"address": address})
        return app.invoke(None, config)

    with pytest.warns(GraphkitWarning, match="'address'"):
        verdict = lesson08.check_edit_at_breakpoint(fix_and_send)
    assert not verdict
    assert "send ran before your edit" not in verdict.message
    assert "did not change `to` (still 'ada@exmaple.com')" in verdict.message
    assert "(name, to, body, approved, outbox)" in verdict.message


def test_the_mail_graph_shows_the_same_when_run_again_after_the_exercises():
    """A learner re-runs the lesson's first cells after 8.1's stub: they build and run the
    lesson's graph still, with its ``approve``. (The stub once took the name ``approve``,
    so the rebuilt graph sent the mail without pausing.) Each run's interrupt has an id
    of its own and ``approve`` counts its starts, so the run is compared, not its print."""
    lesson = Path(__file__).parents[2] / "notebooks" / "08-human-in-the-loop.ipynb"
    names: dict = {}
    run_cells(lesson, again=("l08-c03b",), names=names)
    result = names["app"].invoke({"name": "Ada"}, {"configurable": {"thread_id": "again"}})
    assert [i.value["question"] for i in result["__interrupt__"]] == ["Send this mail?"]
    assert result["outbox"] == []


LESSON = Path(__file__).parents[2] / "notebooks" / "08-human-in-the-loop.ipynb"
IDS_AND_APPROVE = re.compile(rf"{AN_ID.pattern}|\b[0-9a-f]{{8}}\b|approve (starts|got) .*\n")
"""What may differ when a cell runs again: ids (a tasks table shows a task id's first
eight characters), and ``approve``'s prints, which count its starts (a resume run again
has nothing to resume, so ``approve`` does not start)."""


def test_the_traced_pause_and_its_resume_show_the_same_when_run_again_at_once():
    """A learner runs section 2's traced pause and its resume again, each twice in a row:
    each shows the run the text describes. (The pause run again went on Zoe's thread: a
    new run, in steps 2 to 5 (4 to 7 once resumed), so "approve's writes" showed the input
    step's or raised KeyError; the resume run again found the thread finished:
    Run(steps=0) and an empty table.)"""
    shown = run_cells(
        LESSON,
        until='bob = {"configurable"',
        again=("l08-c10b", "l08-c10b", "l08-c10c", "l08-c10c"),
        ignoring=IDS_AND_APPROVE,
    )
    assert "Run(steps=4, status='interrupted') · approve's writes: []" in shown["l08-c10b"][0]
    assert "Run(steps=2, status='done')" in shown["l08-c10c"][0]


def test_the_edited_mail_s_resume_shows_the_same_when_run_again_at_once():
    """A learner runs section 6's resume again: it shows the outbox empty, then the mail
    to the corrected address, as the text says. (The thread had finished: the stream
    showed its last state only.)"""
    shown = run_cells(LESSON, until="from graphkit.widgets import DebugSession", again=("l08-c24",))
    assert shown["l08-c24"][0] == "[]\n['to sam@example.com: Hi Sam, lunch on Friday? -- Ann']\n"


def test_approval_testing_the_answer_with_in_a_string_is_caught_on_an_empty_answer():
    # ("yes") is a string, not a tuple: `in` finds "" (a reviewer who just pressed Enter)
    def approve(state):
        return {"approved": interrupt(state["body"]) in ("yes")}

    verdict = lesson08.check_approval(approve)
    assert not verdict
    assert "resumed with '', but send ran" in verdict.message
    assert "in ('yes')` looks for a piece of the text 'yes'" in verdict.hint


def test_edit_resumed_by_a_stream_returned_unread_is_told_nothing_ran():
    # it said "After update_state, resume with app.invoke(None, config)", as if it had not
    def fix_and_send(app, config, address):
        app.update_state(config, {"to": address})
        return app.stream(None, config)

    verdict = lesson08.check_edit_at_breakpoint(fix_and_send)
    assert not verdict
    assert "returned app.stream(...) unread" in verdict.message
