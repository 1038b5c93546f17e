"""The stepper: phases in order, records, errors that leave state intact."""

from __future__ import annotations

import itertools
import operator
from typing import Annotated, TypedDict

import pytest

from graphkit import END, START, Command, GraphRecursionError, InvalidUpdateError, Send, StateGraph
from graphkit.errors import EmptyInputError


class State(TypedDict):
    n: int
    log: Annotated[list, operator.add]


def chain(*steps):
    builder = StateGraph(State)
    previous = START
    for name, function in steps:
        builder.add_node(name, function)
        builder.add_edge(previous, name)
        previous = name
    builder.add_edge(previous, END)
    return builder.compile()


def bad_reducer(current, new):
    if new == "bad":
        raise InvalidUpdateError("no bad values")
    return [*current, new]


class Guarded(TypedDict):
    items: Annotated[list, bad_reducer]
    n: int


def inc(state):
    return {"n": state["n"] + 1, "log": ["inc"]}


def test_phases_must_come_in_order():
    stepper = chain(("inc", inc)).stepper({"n": 0})
    with pytest.raises(RuntimeError, match=r"waiting for its plan phase.*stepper.plan\(\)"):
        stepper.execute()
    stepper.plan()
    with pytest.raises(RuntimeError, match="waiting for its execute phase, not update"):
        stepper.update()


def test_next_phase_and_values_follow_the_phases():
    stepper = chain(("inc", inc)).stepper({"n": 0})
    stepper.step()  # input
    stepper.step()  # __start__ writes the input into the state
    assert stepper.values == {"n": 0, "log": []}
    assert stepper.next_phase == "plan"
    stepper.plan()
    assert stepper.next_phase == "execute"
    stepper.execute()
    assert stepper.next_phase == "update"
    assert stepper.values == {"n": 0, "log": []}  # Execute changes nothing
    stepper.update()
    assert stepper.values == {"n": 1, "log": ["inc"]}


def test_step_at_the_end_returns_the_empty_final_plan():
    stepper = chain(("inc", inc)).stepper({"n": 0})
    stepper.run()
    assert stepper.done and stepper.status == "done"
    with pytest.raises(RuntimeError, match="The run is over"):
        stepper.plan()


def test_the_last_step_call_shows_that_nothing_is_triggered():
    stepper = chain(("inc", inc)).stepper({"n": 0})
    for _ in range(3):
        stepper.step()
    last = stepper.step()
    assert last.plan.tasks == () and last.update is None and stepper.done


def test_run_so_far_includes_the_step_in_progress():
    stepper = chain(("inc", inc)).stepper({"n": 0})
    stepper.step()
    stepper.plan()
    run = stepper.run_so_far
    assert [s.step for s in run.steps] == [-1, 0]
    assert run.steps[-1].phase == "plan" and run.status == "running"


def test_recording_off_keeps_no_steps_but_same_result():
    app = chain(("inc", inc), ("again", inc))
    stepper = app.stepper({"n": 0}, record=False)
    run = stepper.run()
    assert run.steps == () and run.values == {"n": 2, "log": ["inc", "inc"]}


def test_recording_off_still_lists_each_updates_channel_changes():
    app = chain(("inc", inc), ("again", inc))
    recorded = app.stepper({"n": 0}).run().steps
    unrecorded = app.stepper({"n": 0}, record=False)
    for kept in recorded:
        if unrecorded.next_phase is None:
            break
        unrecorded.plan()
        unrecorded.execute()
        update = unrecorded.update()
        assert kept.update is not None and update.changes == kept.update.changes
        assert dict(update.checkpoint.channel_values) == dict(kept.checkpoint.channel_values)


def test_invoke_and_stream_build_no_updates_nobody_reads(monkeypatch):
    from graphkit import InMemorySaver
    from graphkit.pregel import phases

    made: list[str] = []
    for name in ("ChannelChange", "Update"):
        real = getattr(phases, name)
        counted = lambda *args, real=real, name=name: made.append(name) or real(*args)  # noqa: E731
        monkeypatch.setattr(phases, name, counted)
    app = chain(("inc", inc), ("again", inc))
    assert app.invoke({"n": 0}) == {"n": 2, "log": ["inc", "inc"]}
    assert list(app.stream({"n": 0}, stream_mode="updates"))[-1] == {
        "again": {"n": 2, "log": ["inc"]}
    }
    assert made == []  # nobody could read them
    saved = app.copy({"checkpointer": InMemorySaver()})
    saved.invoke({"n": 0}, {"configurable": {"thread_id": "t"}})
    assert {"ChannelChange", "Update"} <= set(made)  # a saver is told the versions they give


def test_recording_off_hands_a_saver_the_same_new_versions():
    from graphkit.checkpoint import InMemorySaver

    class Noting(InMemorySaver):  # what LangGraph's put() tells a saver: what changed
        def put(self, config, checkpoint, metadata, new_versions):
            self.noted.append(dict(new_versions))
            return super().put(config, checkpoint, metadata, new_versions)

    noted = []
    for record in (True, False):
        saver = Noting()
        saver.noted = []
        app = chain(("inc", inc), ("again", inc)).copy({"checkpointer": saver})
        app.stepper({"n": 0}, {"configurable": {"thread_id": "t"}}, record=record).run()
        noted.append(saver.noted)
    assert noted[0] == noted[1] and len(noted[1]) == 4 and all(noted[1])


def test_a_failing_node_stops_before_update_and_leaves_state_untouched():
    def boom(state):
        raise KeyError("boom")

    stepper = chain(("inc", inc), ("boom", boom)).stepper({"n": 0})
    with pytest.raises(KeyError, match="boom"):
        stepper.run()
    assert stepper.status == "error" and stepper.done
    failed = stepper.run_so_far.steps[-1]
    assert failed.plan.nodes == ["boom"] and failed.update is None
    assert isinstance(failed.execution.results[0].error, KeyError)
    assert stepper.values == {"n": 1, "log": ["inc"]}


def test_a_failing_reducer_leaves_every_channel_as_it_was():
    builder = StateGraph(Guarded)
    builder.add_node("ok", lambda s: {"n": 5, "items": "fine"})
    builder.add_node("bad", lambda s: {"items": "bad"})
    builder.add_edge(START, "ok").add_edge("ok", "bad")
    stepper = builder.compile().stepper({"n": 0})
    with pytest.raises(InvalidUpdateError, match=r"Step 2: 'bad' wrote 'items'\. no bad values"):
        stepper.run()
    assert stepper.values == {"items": ["fine"], "n": 5}


def test_two_writes_to_a_plain_field_name_channel_step_and_nodes():
    builder = StateGraph(State)
    builder.add_node("a", lambda s: {"n": 1}).add_node("b", lambda s: {"n": 2})
    builder.add_edge(START, "a").add_edge(START, "b")
    with pytest.raises(InvalidUpdateError) as error:
        builder.compile().invoke({"n": 0})
    message = str(error.value)
    assert "Step 1: 'a' and 'b' wrote 'n'" in message
    assert "Give it a reducer in the state schema, e.g. n: Annotated[int, operator.add]" in message
    assert "ran 2 times" not in message and "low-level" not in message


def test_a_node_run_twice_by_an_edge_and_a_send_is_said_to_have_run_twice():
    def a(state):
        return Command(goto=Send("b", {"n": 5}), update={"n": 1})

    builder = StateGraph(State)
    builder.add_node("a", a).add_node("b", lambda s: {"n": s["n"] + 1})
    builder.add_edge(START, "a").add_edge("a", "b")
    with pytest.raises(InvalidUpdateError) as error:
        builder.compile().invoke({"n": 0})
    assert str(error.value).startswith(
        "Step 2: 'b' wrote 'n'; 'b' ran 2 times in this step (once because an edge or a "
        "Command(goto='b') led to it, once for a Send, from a Command(goto=Send(...)) or a "
        "router): lead it there one way only. Channel 'n' received 2 values"
    )


def test_recursion_limit_counts_steps_after_the_input_like_langgraph():
    app = chain(("a", inc), ("b", inc), ("c", inc))  # steps 0..3
    assert app.invoke({"n": 0}, {"recursion_limit": 4})["n"] == 3
    with pytest.raises(GraphRecursionError) as error:
        app.invoke({"n": 0}, {"recursion_limit": 3})
    message = str(error.value)
    assert "Recursion limit of 3 reached without hitting a stop condition." in message
    assert "Step 4 had no task left" in message
    assert "'recursion_limit': 6" in message


def test_recursion_error_keeps_the_partial_run():
    def loop(state):
        return {"n": state["n"] + 1}

    builder = StateGraph(State).add_node("loop", loop).add_edge(START, "loop")
    builder.add_edge("loop", "loop")
    with pytest.raises(GraphRecursionError, match="about to run \\['loop'\\]") as error:
        builder.compile().trace({"n": 0}, {"recursion_limit": 5})
    assert error.value.run.status == "out_of_steps"
    assert error.value.run.values["n"] == 5


@pytest.mark.parametrize("limit", [0, -1])
def test_recursion_limit_must_be_positive(limit):
    with pytest.raises(ValueError, match="at least 1"):
        chain(("a", inc)).invoke({"n": 0}, {"recursion_limit": limit})


def test_no_input_is_an_empty_input_error():
    with pytest.raises(EmptyInputError, match="Received no input"):
        chain(("a", inc)).invoke(None)


def test_input_step_is_a_superstep_of_its_own():
    run = chain(("a", inc)).trace({"n": 0})
    first = run.steps[0]
    assert first.step == -1 and first.plan.tasks[0].kind == "input"
    assert first.execution.results[0].writes == (("__start__", {"n": 0}),)
    assert first.checkpoint.source == "input" and run.steps[1].checkpoint.source == "loop"


def test_checkpoints_chain_parent_ids_and_share_unchanged_values():
    run = chain(("a", inc), ("b", inc)).trace({"n": 0})
    checkpoints = [s.checkpoint for s in run.steps]
    assert [c.step for c in checkpoints] == [-1, 0, 1, 2]
    for parent, child in itertools.pairwise(checkpoints):
        assert child.parent_id == parent.id and child.id > parent.id
    assert run.steps[1].checkpoint_before is checkpoints[0]
    assert dict(checkpoints[-1].channel_values) == {"n": 2, "log": ["inc", "inc"]}


def test_trace_of_a_run_that_pauses_in_a_node_returns_the_paused_run():
    """An interrupt() stops the run inside Execute; trace returns the run so far
    (status "interrupted", the paused step without an Update) instead of failing."""
    from graphkit import InMemorySaver, interrupt

    class Review(TypedDict):
        text: str

    def review(state):
        return {"text": state["text"] + interrupt("ok?")}

    builder = StateGraph(Review)
    builder.add_node("write", lambda state: {"text": "draft"})
    builder.add_node("review", review)
    builder.add_edge(START, "write")
    builder.add_edge("write", "review")
    app = builder.compile(checkpointer=InMemorySaver())
    run = app.trace({"text": ""}, {"configurable": {"thread_id": "t"}})
    assert run.status == "interrupted"
    paused = run.steps[-1]
    assert paused.plan.nodes == ["review"] and paused.update is None
    assert paused.execution.results[0].interrupts[0].value == "ok?"


def test_a_checkpoint_that_fails_to_save_under_sync_durability_ends_the_run():
    """``durability="sync"``: the Update was applied, then its checkpoint's ``put``
    raised. The stepper stayed "running" and waited for that Update again, so a run
    driven on (``run()`` again, once the disk had room) applied the step's writes twice
    and saved 'aabc' to the thread; ``trace``'s ``error.run`` read as still running."""
    from graphkit import InMemorySaver

    class FailingOnce(InMemorySaver):
        failed = False

        def put(self, config, checkpoint, metadata, new_versions):
            if metadata["step"] == 1 and not self.failed:
                self.failed = True
                raise OSError("disk full")
            return super().put(config, checkpoint, metadata, new_versions)

    class Text(TypedDict):
        text: Annotated[str, operator.add]

    builder = StateGraph(Text)
    for name in "abc":
        builder.add_node(name, lambda state, name=name: {"text": name})
    builder.add_edge(START, "a").add_edge("a", "b").add_edge("b", "c")
    app = builder.compile(checkpointer=FailingOnce())
    config = {"configurable": {"thread_id": "t"}}
    stepper = app.stepper({"text": ""}, config, durability="sync")
    with pytest.raises(OSError, match="disk full"):
        stepper.run()
    assert (stepper.status, stepper.next_phase, str(stepper.error)) == ("error", None, "disk full")
    assert [step.update is not None for step in stepper.run_so_far.steps] == [True, True, True]
    stepper.run()  # over: nothing is applied again
    assert stepper.values == app.get_state(config).values == {"text": "a"}
    assert app.invoke(None, config) == {"text": "abc"}  # from what was saved, as LangGraph
    with pytest.raises(OSError) as raised:
        builder.compile(checkpointer=FailingOnce()).trace({"text": ""}, config, durability="sync")
    assert raised.value.run.status == "error"


def test_a_node_run_by_sends_alone_is_not_told_to_be_led_there_one_way_only():
    # A map step (one Send per item) runs its node once per packet on purpose: the fix
    # is the reducer, and "lead it there one way only" sent a learner the wrong way.
    class Batch(TypedDict, total=False):
        items: list
        n: int

    builder = StateGraph(Batch)
    builder.add_node("split", lambda state: {"items": [1, 2, 3]})
    builder.add_node("work", lambda packet: {"n": packet})
    builder.add_edge(START, "split")
    builder.add_conditional_edges("split", lambda s: [Send("work", i) for i in s["items"]])
    with pytest.raises(InvalidUpdateError) as error:
        builder.compile().invoke({})
    message = str(error.value)
    assert message.startswith(
        "Step 2: 'work' wrote 'n'; 'work' ran 3 times in this step, once for each Send. "
        "Channel 'n' received 3 values in one step"
    )
    assert "one way only" not in message and "Annotated[int, operator.add]" in message
