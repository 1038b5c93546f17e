"""A functional-API program in the debugger (issue 15, item 4): stepped phase by phase in
``DebugSession``, step 0's Plan holds the entrypoint alone; its Execution holds every
task the entrypoint called (kind "call", after their caller), the writes
table shows each call's return value, and "why" says who called it."""

from __future__ import annotations

import time

import pytest

from graphkit import InMemorySaver, interrupt
from graphkit.func import entrypoint, task
from graphkit.widgets import DebugSession

THREAD = {"configurable": {"thread_id": "func"}}


@task
def double(n: int) -> int:
    time.sleep(0.01)
    return n * 2


@task
def add(a: int, b: int) -> int:
    return a + b


def fan_out(checkpointer=None):
    @entrypoint(checkpointer=checkpointer)
    def fan(n: int, previous: int | None = None) -> int:
        futures = [double(i) for i in range(n)]
        return add(sum(future.result() for future in futures), previous or 0).result()

    return fan


def test_step_zero_plans_the_entrypoint_and_executes_its_calls():
    session = DebugSession(fan_out(InMemorySaver()), 3, THREAD)
    assert session.step().step == -1
    assert repr(session.plan()) == "Plan(step=0, tasks=['fan'])"
    assert session.view().tables["tasks"][["node", "kind"]].values.tolist() == [["fan", "pull"]]
    execution = session.execute()
    assert (
        repr(execution) == "Execution(step=0, results=['fan', 'double', 'double', 'double', 'add'])"
    )
    tables = session.view().tables
    tasks = tables["tasks"]
    assert tasks[["node", "kind", "triggers", "started_by"]].values.tolist() == [
        ["fan", "pull", "__start__", ""],
        ["double", "call", "__pregel_push", "fan"],
        ["double", "call", "__pregel_push", "fan"],
        ["double", "call", "__pregel_push", "fan"],
        ["add", "call", "__pregel_push", "fan"],
    ]
    rows = tables["writes"][["node", "channel", "value"]].values.tolist()
    assert rows[:2] == [["fan", "__end__", "6"], ["fan", "__previous__", "6"]]
    assert sorted(rows[2:5]) == [  # (the calls side by side: in the order they finished)
        ["double", "__return__", "0"],
        ["double", "__return__", "2"],
        ["double", "__return__", "4"],
    ]
    assert rows[5] == ["add", "__return__", "6"]
    update = session.update()
    assert update.changed == ["__end__", "__previous__", "__start__"]  # calls change nothing
    run = session.run()
    assert run.status == "done"
    assert session.values == {"__end__": 6}  # (what the entrypoint returned)


def test_why_says_which_task_called_it():
    session = DebugSession(fan_out(), 2, THREAD)
    run = session.run()
    assert run.why("add", step=0).summary == "add ran at step 0 because fan called it."
    why_double = run.why("double", step=0)
    assert why_double.summary == "double ran at step 0 (2 tasks) because fan called it."
    assert "fan called it in step 0 (a functional-API task)" in str(why_double)
    assert run.why("fan", step=0).summary == (
        "fan ran at step 0 because the input was written to __start__ in step -1."
    )
    session.select("fan")
    assert "the input was written to __start__" in session.view().why_html


def test_the_timeline_shows_each_call_in_the_step():
    run = DebugSession(fan_out(), 1, THREAD).run()
    lines = run.timeline().splitlines()
    assert "  EXECUTE  double        wrote __return__" in lines
    assert "  EXECUTE  add           wrote __return__" in lines
    assert "  UPDATE   __end__       <empty> -> 0  (from fan)" in lines


def test_a_paused_entrypoint_resumes_without_running_its_finished_call_again():
    ran = []

    @task
    def draft(topic: str) -> str:
        ran.append(topic)
        return f"about {topic}"

    @entrypoint(checkpointer=InMemorySaver())
    def review(topic: str) -> list:
        essay = draft(topic).result()
        return [essay, interrupt("ok?")]

    session = DebugSession(review, "owls", {"configurable": {"thread_id": "pause"}})
    session.run()
    assert session.status == "interrupted"
    paused = session.supersteps[-1].execution
    assert [(r.task.node, bool(r.interrupts)) for r in paused.results] == [
        ("review", True),
        ("draft", False),
    ]
    session.resume("yes")
    run = session.run()
    assert session.values["__end__"] == ["about owls", "yes"]
    assert ran == ["owls"]  # the call's saved result was reused
    resumed = run.steps[-1].execution
    assert [(r.task.node, r.reused) for r in resumed.results] == [
        ("review", False),
        ("draft", True),
    ]


def test_a_called_task_can_be_selected_for_why():
    session = DebugSession(fan_out(), 2, THREAD)
    with pytest.raises(ValueError, match=r"No node 'add', nor a task called so far.*\[\]."):
        session.select("add")  # not called yet
    session.run()
    assert session.called() == ("double", "add")
    session.select("add")
    assert "add ran at step 0 because fan called it" in session.view().why_html


def test_the_why_menu_offers_each_task_once_called():
    from graphkit.widgets import Debugger

    debugger = Debugger(fan_out(), 2, THREAD)
    offered = lambda: [value for _, value in debugger.node.options]  # noqa: E731
    assert offered() == [None, "fan"]
    debugger.session.run()
    debugger.refresh()
    assert offered() == [None, "fan", "double", "add"]
    assert ("add (called)", "add") in debugger.node.options
    debugger.node.value = "add"  # as a learner picks it
    assert debugger.session.selected == "add"
    assert "fan called it" in debugger.why.value


def test_a_finished_program_shows_what_it_returned_in_every_table():
    """What the entrypoint returned (and saved for the next call) is the program's
    state: the panel, the changes, the state and the checkpoints tables show it."""
    session = DebugSession(fan_out(), 3)
    while session.next_phase is not None:
        session.step()
    view = session.view()
    assert "__end__" in view.state_html and "no values yet" not in view.state_html
    changes = view.tables["changes"]
    assert list(changes["channel"]) == ["__end__", "__previous__"]
    assert list(changes["after"]) == ["6", "6"]
    assert list(view.tables["state"]["__end__"]) == ["<empty>", "6"]
    checkpoints = view.tables["checkpoints"]  # (its saver's values are plain ints)
    assert list(checkpoints["__end__"]) == ["6", ""]


def test_a_program_that_returns_a_dict_shows_the_dict_in_the_checkpoints_table():
    @entrypoint()
    def totals(n: int) -> dict:
        return {"sum": n + n, "product": n * n}

    session = DebugSession(totals, 3)
    while session.next_phase is not None:
        session.step()
    checkpoints = session.view().tables["checkpoints"]
    assert list(checkpoints["__end__"]) == ["{'sum': 6, 'product': 9}", ""]
