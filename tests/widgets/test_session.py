"""DebugSession without a browser: phases, time travel, breakpoints, errors, interrupts."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from graphkit import START, Command, GraphkitWarning, InMemorySaver, StateGraph, interrupt
from graphkit.widgets import DebugSession
from tests.widgets.graphs import Calls, asking_app, chain_app, failing_app

INPUT = {"n": 1, "log": []}


def numbers(session: DebugSession) -> list[int]:
    return [superstep.step for superstep in session.supersteps]


def test_phases_go_plan_execute_update_in_order():
    session = DebugSession(chain_app(), INPUT)
    seen = []
    for _ in range(6):
        seen.append(session.next_phase)
        getattr(session, session.next_phase)()
    assert seen == ["plan", "execute", "update"] * 2
    assert session.view().phase_label == "after Update · next: Plan"


def test_position_says_whether_the_run_moved():
    """The public position (the predict panel's "is this verdict still about now?"):
    every phase, Back and Reset change it; looking (a view, a goto) does not. A Reset
    that brings the run back to the same shape is a move too."""
    session = DebugSession(chain_app(), INPUT)
    start = session.position
    session.view()
    assert session.position == start
    seen = [start]
    for move in ("plan", "execute", "update", "step", "back"):
        getattr(session, move)()
        assert session.position not in seen, move
        seen.append(session.position)
    session.goto(0)
    assert session.position == seen[-1]
    session.reset()
    assert session.position != start and session.next_phase == "plan"


def test_a_phase_out_of_turn_does_nothing_and_says_what_is_next():
    session = DebugSession(chain_app(), INPUT)
    # (called from code, it says so too: a notebook cell run twice showed nothing at all)
    with pytest.warns(GraphkitWarning, match=r"session.execute\(\) ran nothing: step -1 wa"):
        assert session.execute() is None
    assert session.message == "Step -1 waits for plan."
    assert session.supersteps == ()


def test_a_phase_called_twice_in_a_notebook_says_what_to_call_instead():
    session = DebugSession(chain_app(), INPUT)
    session.step()
    session.plan()
    assert session.execute() is not None
    with pytest.warns(GraphkitWarning) as said:
        assert session.execute() is None
    assert str(said[0].message) == (
        "session.execute() ran nothing: step 0 waits for update, its execute ran already. "
        "Call session.update(), or session.step() to finish the step."
    )
    session.run()
    with pytest.warns(GraphkitWarning) as said:
        assert session.plan() is None
    assert str(said[0].message) == (
        "session.plan() ran nothing: the run is over (done). session.back() goes back a "
        "step; session.reset() starts again."
    )


def test_step_after_the_run_is_over_runs_nothing_and_says_so():
    # Appendix A1's learner, working in code past the end: session.step() returned the
    # last superstep (Superstep(step=3, tasks=['summarize'], ...)) as if it had run it
    # again, where plan(), execute() and update() warn and return None.
    session = DebugSession(chain_app(), INPUT)
    session.run()
    before = session.supersteps
    with pytest.warns(GraphkitWarning) as said:
        assert session.step() is None
    assert str(said[0].message) == (
        "session.step() ran nothing: the run is over (done). session.back() goes back a "
        "step; session.reset() starts again."
    )
    assert session.supersteps == before


def test_an_update_cell_run_twice_is_told_its_update_ran_already():
    # "step 0 waits for plan. Call session.plan(), or session.step() to finish the step"
    # never said the cell's own update had run, and session.step() runs all of step 0.
    session = DebugSession(chain_app(), INPUT)
    session.plan()
    session.execute()
    assert session.update() is not None
    with pytest.warns(GraphkitWarning) as said:
        assert session.update() is None
    assert str(said[0].message) == (
        "session.update() ran nothing: step -1's update ran already, and step 0 waits for "
        "plan. Call session.plan(), or session.step() to run all of step 0."
    )


def test_step_and_run_reach_the_end():
    session = DebugSession(chain_app(), INPUT)
    assert session.step().step == -1
    run = session.run()
    assert run.status == "done"
    assert session.values == {"n": ((1 * 2 + 1) * 3 + 1) * 5 + 1, "log": ["a", "b", "c"]}
    assert numbers(session) == [-1, 0, 1, 2, 3]
    with pytest.warns(GraphkitWarning, match=r"session.step\(\) ran nothing"):
        assert session.step() is None
    assert "The run is over (done)" in session.message


def test_back_restores_the_previous_checkpoint_through_the_saver():
    calls = Calls()
    saver = InMemorySaver()
    app = chain_app(calls, checkpointer=saver)
    session = DebugSession(app, INPUT, {"configurable": {"thread_id": "t1"}})
    session.run()
    assert calls.counts == {"a": 1, "b": 1, "c": 1}
    before_c = session.supersteps[-1].checkpoint_before  # the checkpoint c's step read
    asked = []
    original = saver.get_tuple
    saver.get_tuple = lambda config: asked.append(config) or original(config)
    session.back()
    ids = [config["configurable"].get("checkpoint_id") for config in asked]
    assert before_c.id in ids  # restored through the checkpointer, by id
    assert session.values == {"n": 10, "log": ["a", "b"]}
    assert session.values == app.get_state({"configurable": {"thread_id": "t1"}}).values
    session.run()  # c runs again for real: no cache is replayed
    assert calls.counts == {"a": 1, "b": 1, "c": 2}
    assert session.values["log"] == ["a", "b", "c"]  # the reducer saw the restored state
    sources = [s.metadata["source"] for s in app.get_state_history(session.thread_config)]
    assert sources.count("fork") == 1


def test_back_says_where_it_went_in_lines_a_notebook_need_not_break():
    """Printed, the message was one ~150-character line with the checkpoint id inside,
    which JupyterLab broke mid-word; each clause has its line now, the id its own."""
    session = DebugSession(chain_app(), INPUT)
    session.run()
    session.back()
    session.run()  # forked twice now: the message names LangGraph's number too
    restored = session.supersteps[-1].checkpoint_before
    session.back()
    assert restored is not None and session.message.splitlines() == [
        "Back: restored the checkpoint before step 3;",
        "step 3 (LangGraph: step 5, after the fork) is next.",
        f"Checkpoint id: {restored.id}",
    ]
    assert all(len(line) <= 88 for line in session.message.splitlines())


def test_back_twice_and_rewind():
    session = DebugSession(chain_app(), INPUT)
    session.run()
    session.back()
    session.back()
    assert session.values == {"n": 3, "log": ["a"]}
    assert numbers(session) == [-1, 0, 1]
    session.rewind(1)  # just after step 0: the input is in, no node ran
    assert session.values == {"n": 1, "log": []}
    with pytest.raises(IndexError):
        session.rewind(5)


def test_back_within_a_step_discards_the_unapplied_plan():
    session = DebugSession(chain_app(), INPUT)
    session.step()
    session.step()
    session.plan()
    session.execute()
    assert session.next_phase == "update"
    session.back()
    assert session.next_phase == "plan"
    assert numbers(session) == [-1, 0]
    assert session.values == {"n": 1, "log": []}
    assert session.stepper.step_number == 1  # the same step again: nothing was applied


def test_back_past_the_input_step_is_reset():
    session = DebugSession(chain_app(), INPUT)
    session.back()
    assert "Nothing to go back to" in session.message
    session.step()
    session.back()
    assert session.supersteps == ()
    assert session.message.startswith("Reset")


def test_reset_starts_over_on_an_emptied_thread():
    calls = Calls()
    session = DebugSession(chain_app(calls), INPUT)
    session.run()
    session.reset()
    assert session.supersteps == () and session.status == "running"
    session.run()
    assert session.values["log"] == ["a", "b", "c"]  # not appended to the first run's log
    assert calls.counts == {"a": 2, "b": 2, "c": 2}


def test_reset_on_a_thread_with_history_goes_back_to_where_the_session_started():
    app = chain_app(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "old"}}
    app.invoke(INPUT, config)
    session = DebugSession(app, {"n": 0, "log": []}, config)
    session.run()
    assert session.values["log"] == ["a", "b", "c", "a", "b", "c"]
    session.reset()
    session.run()
    assert session.values["log"] == ["a", "b", "c", "a", "b", "c"]


def test_an_app_without_checkpointer_is_left_alone():
    app = chain_app()
    session = DebugSession(app, INPUT)
    assert app.checkpointer is None
    assert session.app is not app and isinstance(session.app.checkpointer, InMemorySaver)
    assert session.thread_id.startswith("debugger-")


def test_a_breakpoint_pauses_step_and_run_before_the_node():
    calls = Calls()
    session = DebugSession(chain_app(calls), INPUT, breakpoints=["b"])
    session.run()
    assert session.next_phase == "execute"
    assert session.supersteps[-1].plan.nodes == ["b"]
    assert calls.counts == {"a": 1}
    assert session.message == "Breakpoint: step 2 would run b."
    session.run()  # goes on past it
    assert session.status == "done" and calls.counts["b"] == 1


def test_step_stops_at_a_breakpoint_then_goes_on():
    session = DebugSession(chain_app(), INPUT, breakpoints={"a"})
    session.step()
    session.step()
    session.step()
    assert session.next_phase == "execute"
    session.step()
    assert session.next_phase == "plan" and session.values["log"] == ["a"]


def test_unknown_breakpoint_or_node_is_refused():
    session = DebugSession(chain_app(), INPUT)
    with pytest.raises(ValueError, match="No node named"):
        session.set_breakpoints(["nope"])
    with pytest.raises(ValueError, match="No node 'nope'"):
        session.select("nope")


def test_an_unknown_breakpoint_or_guess_in_a_big_graph_lists_a_few_nodes():
    from tests.widgets.graphs import wide_app

    session = DebugSession(wide_app(500), {"n": 1, "log": []})
    with pytest.raises(ValueError) as refused:
        session.set_breakpoints(["nope"])
    session.step(), session.step()
    with pytest.raises(ValueError) as guessed:
        session.predict(nodes=["nope"])
    with pytest.raises(ValueError) as selected:
        session.select("nope")
    for raised in (refused, guessed, selected):
        assert len(str(raised.value)) < 300 and "... " in str(raised.value), raised.value


def test_a_failing_node_is_shown_not_raised():
    session = DebugSession(failing_app(), INPUT)
    session.run()
    view = session.view()
    assert session.status == "error"
    assert view.status_text.startswith("error in node 'broken' at step 2: ValueError: boom")
    assert view.phase == "execute"
    assert 'class="node gk-node gk-node-node planned error"' in view.svg
    assert view.tables["tasks"]["error"].tolist()[0].startswith("ValueError: boom")
    session.back()  # discards the failed step: the state is the one before it
    assert session.status == "running" and session.values == {"n": 7, "log": []}


def test_an_interrupt_is_shown_and_resumed_with_an_answer():
    session = DebugSession(asking_app(), {"n": 1})
    session.run()
    view = session.view()
    assert view.status_text == "interrupted at step 2: ask asks 'publish?'"
    assert 'class="node gk-node gk-node-node planned interrupted"' in view.svg
    session.resume("yes")
    session.run()
    assert session.status == "done"
    assert session.values == {"n": 20, "answer": "yes"}
    assert numbers(session) == [-1, 0, 1, 2, 3]


def test_goto_only_looks():
    session = DebugSession(chain_app(), INPUT)
    session.run()
    session.goto(1)
    view = session.view()
    assert (view.step, view.live, view.phase_label) == (0, False, "after Update · looking back")
    assert session.values["log"] == ["a", "b", "c"]  # nothing was restored
    session.goto(len(session.supersteps) - 1)
    assert session.view().live
    with pytest.raises(IndexError):
        session.goto(99)


def test_why_explains_the_selected_node_at_the_shown_step():
    session = DebugSession(chain_app(), INPUT)
    session.run()
    session.select("b")
    session.goto(3)  # step 2, where b ran
    assert session.view().why_text.startswith("b ran at step 2")
    session.goto(2)
    assert session.view().why_text.startswith("b did not run at step 1")


def test_tasks_finished_before_a_back_within_the_step_are_reused_from_the_saver():
    calls = Calls()
    session = DebugSession(chain_app(calls), INPUT)
    session.step()
    session.step()
    session.plan()
    session.execute()  # a ran; its writes are saved as pending writes
    session.back()
    session.step()
    assert calls.counts == {"a": 1}
    (result,) = session.supersteps[-1].execution.results
    assert result.reused and session.values == {"n": 3, "log": ["a"]}


def test_back_within_a_step_after_a_back_does_not_fork_again():
    session = DebugSession(chain_app(), INPUT)
    session.run()
    session.back()  # forks: c's step is planned again as step 4
    session.plan()
    session.back()  # discards that plan: same checkpoint, no second fork
    history = list(session.app.get_state_history(session.thread_config))
    assert [h.metadata["source"] for h in history].count("fork") == 1
    assert session.stepper.step_number == 4
    session.run()
    assert numbers(session) == [-1, 0, 1, 2, 4]


def test_a_compiled_interrupt_before_pauses_and_resume_passes_it():
    app = chain_app(checkpointer=InMemorySaver())
    app.interrupt_before = ["b"]
    session = DebugSession(app, INPUT)
    session.run()
    assert session.status == "interrupted"
    assert session.view().status_text.startswith("paused by a compiled breakpoint")
    session.resume()
    session.run()
    assert session.status == "done" and session.values["log"] == ["a", "b", "c"]


def test_ticking_a_compiled_breakpoint_does_not_pause_there_twice():
    # (the break-at list names it "b (before, compiled)"; resume made a new stepper,
    # whose plan of b then stopped at the tick as well)
    app = chain_app(checkpointer=InMemorySaver())
    app.interrupt_before = ["b"]
    session = DebugSession(app, INPUT, breakpoints=["b", "c"])
    session.run()
    assert session.status == "interrupted"
    session.resume()
    session.run()
    assert session.at_breakpoint and session.message.endswith("would run c.")
    session.run()
    assert session.status == "done" and session.values["log"] == ["a", "b", "c"]


def test_a_tick_passed_before_an_interrupt_does_not_pause_again_after_resume():
    """A breakpoint on writer paused step 1, Execute ran writer into interrupt(), and
    after Resume the Step stopped at the same tick again before the same step."""
    from typing import TypedDict

    from graphkit import START, StateGraph, interrupt

    class Asked(TypedDict):
        answer: str

    builder = StateGraph(Asked).add_node("ask", lambda s: {"answer": interrupt("ok?")})
    app = builder.add_edge(START, "ask").compile(checkpointer=InMemorySaver())
    session = DebugSession(app, {"answer": ""}, breakpoints=["ask"])
    session.run()
    assert session.at_breakpoint
    session.run()
    assert session.status == "interrupted"
    session.resume("yes")
    session.run()
    assert session.status == "done" and session.values == {"answer": "yes"}
    session.back()  # a step run again after Back stops at the tick once more
    session.step()
    assert session.at_breakpoint


def test_a_tick_on_a_compiled_breakpoint_does_not_pause_again_after_its_interrupt():
    """ask compiled with interrupt_before and ticked: Resume passed the compiled pause,
    Run ran ask into interrupt(), and after Resume with the answer the Step stopped at
    the tick before the same step (the new stepper forgot the pause it had passed)."""
    from typing import TypedDict

    from graphkit import START, StateGraph, interrupt

    class Asked(TypedDict):
        answer: str

    builder = StateGraph(Asked).add_node("ask", lambda s: {"answer": interrupt("ok?")})
    builder.add_edge(START, "ask")
    app = builder.compile(checkpointer=InMemorySaver(), interrupt_before=["ask"])
    session = DebugSession(app, {"answer": ""}, breakpoints=["ask"])
    session.run()
    assert session.status == "interrupted" and not session.interrupts
    session.resume()
    session.run()
    assert session.status == "interrupted" and session.interrupts
    session.resume("yes")
    session.run()
    assert not session.at_breakpoint
    assert session.status == "done" and session.values == {"answer": "yes"}


def test_resuming_says_what_the_next_step_does():
    from typing import TypedDict

    from graphkit import START, StateGraph, interrupt

    class Mail(TypedDict):
        ok: str

    builder = StateGraph(Mail).add_node("approve", lambda state: {"ok": interrupt("send?")})
    session = DebugSession(builder.add_edge(START, "approve").compile(), {"ok": ""})
    session.run()
    session.resume("yes")
    assert (
        session.message
        == "Resumed with 'yes': interrupt() returns it. Step runs the paused step again."
    )
    session.step()
    assert session.values == {"ok": "yes"}


class Log(TypedDict):
    log: Annotated[list, operator.add]


def _asks_twice(*inputs: object) -> tuple[object, dict]:
    """A thread of a node that asks twice, given ``inputs``."""

    def ask(state: Log) -> dict:
        return {"log": [f"ask:{interrupt('q1')}:{interrupt('q2')}"]}

    builder = StateGraph(Log).add_node("ask", ask).add_node("z", lambda s: {"log": ["z"]})
    app = builder.add_edge(START, "ask").add_edge("ask", "z").compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    for given in inputs:
        app.invoke(given, config)
    return app, config


def test_back_to_a_checkpoint_holding_a_commands_update_keeps_it_and_shows_it_once():
    """A ``Command(resume=..., update=...)`` that paused again saved its update on the
    checkpoint as writes of no task; a replay of it applies the update again (as
    LangGraph's does): the values keep it, and the step that first applied it is not
    shown twice."""
    update = Command(resume="A", update={"log": ["u"]})
    app, config = _asks_twice({"log": ["in1"]}, update)
    session = DebugSession(app, {"log": ["in2"]}, config)
    for _ in range(3):
        session.step()
    for _ in range(3):
        session.back()
    assert session.values == {"log": ["in1", "u"]}
    assert [s.plan.tasks[0].node for s in session.supersteps] == ["__input__"]
    session.run()
    assert session.values == {"log": ["in1", "u"]} and session.status == "interrupted"


def test_resuming_after_a_command_update_paused_again_shows_the_update_once():
    app, config = _asks_twice({"log": ["in1"]})
    session = DebugSession(app, Command(resume="A", update={"log": ["u"]}), config)
    session.run()  # ask asks again
    session.resume("B")
    session.run()
    nodes = [s.plan.tasks[0].node for s in session.supersteps]
    assert nodes == ["__input__", "ask", "z"]
    assert session.values == {"log": ["in1", "u", "ask:A:B", "z"]}


def test_a_failed_save_is_told_and_the_run_goes_on():
    """A saver whose ``put_writes`` fails: ``invoke`` goes on to the end and raises it
    then (as LangGraph's background saves); stepping in the debugger goes on too, and
    says after each phase that what failed was not saved."""

    class FailingWrites(InMemorySaver):
        def put_writes(self, config, writes, task_id, task_path=""):
            if any(channel == "log" and value == ["b"] for channel, value in writes):
                raise OSError("disk full")
            return super().put_writes(config, writes, task_id, task_path)

    config = {"configurable": {"thread_id": "t1"}}
    with pytest.raises(OSError, match="disk full"):
        chain_app(checkpointer=FailingWrites()).invoke(INPUT, config)
    session = DebugSession(chain_app(checkpointer=FailingWrites()), INPUT, config)
    while session.status == "running":
        session.step()
        if "b" in session.values["log"]:
            assert "disk full" in session.message and "not saved" in session.message
    assert session.values["log"] == ["a", "b", "c"]
    assert session.stepper.save_error is not None
    assert "disk full" in session.message


def test_back_to_a_checkpoint_a_failed_save_never_saved_says_so_and_moves_nothing():
    """A saver whose ``put`` fails at step 1: the run goes on, nothing more is saved, and
    Back has no checkpoint to restore. It raised CheckpointNotFoundError into the widget
    ("copy an id from app.get_state_history") after it had already kept the steps it
    meant to drop, so the session listed steps 0 to 2 twice and marked step 3 undone."""

    class FailingPut(InMemorySaver):
        def put(self, config, checkpoint, metadata, new_versions):
            if metadata["step"] == 1:
                raise OSError("disk full")
            return super().put(config, checkpoint, metadata, new_versions)

    session = DebugSession(chain_app(checkpointer=FailingPut()), INPUT)
    session.run()
    before = (numbers(session), session.values, session.undone, session.position)
    session.back()
    assert (numbers(session), session.values, session.undone, session.position) == before
    assert session.message.startswith("Could not go back to checkpoint ")
    assert "never saved: a save failed earlier in the run (OSError: disk full)" in session.message
    session.rewind(1)  # the checkpoint after step 0 was saved before the failure
    assert numbers(session) == [-1, 0] and session.message.startswith("Back: restored")


def test_a_failure_unrelated_to_the_context_gets_no_context_hint():
    # A node raising ValueError in a graph with a context_schema read "... ValueError:
    # boom (the graph has a context_schema, Context, ... pass context=Context(...))".
    import dataclasses

    @dataclasses.dataclass
    class Context:
        tone: str

    class Text(TypedDict):
        text: str

    def boom(state: Text) -> dict:
        raise ValueError("boom")

    builder = StateGraph(Text, context_schema=Context).add_node("boom", boom)
    session = DebugSession(builder.add_edge(START, "boom").compile(), {"text": "hi"})
    session.run()
    assert session.view().status_text == "error in node 'boom' at step 1: ValueError: boom"


def test_a_none_in_the_state_gets_no_context_hint():
    # A node reading upper() on a state value that was None read "AttributeError:
    # 'NoneType' object has no attribute 'upper' (the graph has a context_schema, Context,
    # ... pass context=Context(...))": only an attribute the context schema names, get()
    # or a subscript is how a node reads its context.
    import dataclasses

    @dataclasses.dataclass
    class Context:
        tone: str

    class Text(TypedDict):
        text: str | None

    builder = StateGraph(Text, context_schema=Context)
    builder.add_node("shout", lambda state: {"text": state["text"].upper()})
    session = DebugSession(builder.add_edge(START, "shout").compile(), {"text": None})
    session.run()
    assert session.view().status_text == (
        "error in node 'shout' at step 1: AttributeError: 'NoneType' object has no attribute "
        "'upper'"
    )
