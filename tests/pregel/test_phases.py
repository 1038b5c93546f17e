"""Plan, Execute and Update, one at a time."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from graphkit import END, START, GraphkitWarning, StateGraph
from graphkit.channels import EMPTY
from graphkit.pregel import phases
from graphkit.pregel.records import Task, TaskResult, task_id
from graphkit.pregel.runtime import RunContext


class State(TypedDict):
    log: Annotated[list, operator.add]
    n: int


def appender(name):
    return lambda state: {"log": [name]}


def build(edges, nodes=None, branches=()):
    if nodes is None:
        ends = [end for _, end in edges] + [s for start, _ in edges for s in [start] if s != START]
        nodes = sorted({name for name in ends if name not in (START, END)})
    builder = StateGraph(State)
    for name in nodes:
        builder.add_node(name, appender(name))
    for start, end in edges:
        builder.add_edge(start, end)
    for source, path in branches:
        builder.add_conditional_edges(source, path)
    return builder.compile()


def advance(app, input, steps):
    stepper = app.stepper(input)
    for _ in range(steps):
        stepper.step()
    return stepper


def test_plan_wakes_nodes_whose_trigger_has_an_unseen_version():
    app = build([(START, "a"), ("a", "b"), ("b", END)])
    stepper = advance(app, {"log": []}, 2)
    plan = phases.plan(app.spec, stepper._state)
    (task,) = plan.tasks
    assert (task.node, task.triggers, task.kind, task.path) == (
        "a",
        ("branch:to:a",),
        "pull",
        ("__pregel_pull", "a"),
    )
    assert task.trigger_versions == {"branch:to:a": stepper._state.versions["branch:to:a"]}
    assert task.input == {"log": []}


def test_plan_is_pure_and_deterministic():
    app = build([(START, "b"), (START, "a"), (START, "c")])
    stepper = advance(app, {"log": []}, 2)
    first = phases.plan(app.spec, stepper._state)
    second = phases.plan(app.spec, stepper._state)
    assert first.nodes == ["a", "b", "c"]  # node-name order, not declaration order
    assert [t.id for t in first.tasks] == [t.id for t in second.tasks]


def test_a_waiting_edge_holds_its_target_until_every_source_wrote():
    # a runs at step 1; b1 at 1, b2 at 2: c must wait for step 3.
    app = build(
        [(START, "a"), (START, "b1"), ("b1", "b2"), (["a", "b2"], "c"), ("c", END)],
        nodes=("a", "b1", "b2", "c"),
    )
    run = app.trace({"log": []})
    assert [s.plan.nodes for s in run.steps[2:]] == [["a", "b1"], ["b2"], ["c"]]
    barrier = run.step(1).update.change("join:a+b2:c")
    assert barrier.after == {"a"} and barrier.writers == ("a",)
    assert run.step(3).update.change("join:a+b2:c").writers == ()  # consumed: reset by c


def test_consume_happens_before_writes_so_a_loop_through_a_barrier_keeps_its_write():
    # c is woken by the barrier [a, b]; in the same step a (looping on itself via a
    # router) writes the barrier again. The barrier must reset first, then record a.
    rounds = {"a": 0}

    def again(state):
        rounds["a"] += 1
        return "a" if rounds["a"] < 3 else END

    builder = StateGraph(State)
    for name in ("a", "b", "c"):
        builder.add_node(name, appender(name))
    builder.add_edge(START, "a").add_edge(START, "b").add_edge(["a", "b"], "c")
    builder.add_conditional_edges("a", again)
    run = builder.compile().trace({"log": []})
    step_2 = run.step(2)
    assert step_2.plan.nodes == ["a", "c"]
    assert step_2.update.change("join:a+b:c").after == {"a"}


def test_execute_runs_each_task_on_the_same_frozen_channels():
    app = build([(START, "a"), (START, "b")])
    stepper = advance(app, {"log": ["in"]}, 2)
    plan = phases.plan(app.spec, stepper._state)
    results = list(phases.execute(app.spec, plan, stepper._state, RunContext({})))
    assert sorted(r.task.node for r in results) == ["a", "b"]
    assert stepper.values == {"log": ["in"]}  # nothing applied yet


def test_a_router_sees_its_own_nodes_writes_but_not_its_siblings():
    seen = []

    def router(state):
        seen.append(list(state["log"]))
        return END

    app = build([(START, "a"), (START, "b")], branches=[("a", router)])
    app.invoke({"log": ["in"]})
    assert seen == [["in", "a"]]


def test_update_gives_every_change_of_a_step_the_same_new_version():
    app = build([(START, "a"), ("a", END)])
    run = app.trace({"log": []})
    step = run.step(1)
    versions = {c.version_after for c in step.update.changes}
    assert len(versions) == 1
    assert versions.pop() > max(c.version_after for c in run.step(0).update.changes)


def test_update_clears_ephemeral_channels_a_step_later_without_waking_anything():
    app = build([(START, "a"), ("a", END)])
    run = app.trace({"log": []})
    cleared = run.step(1).update.change("branch:to:a")
    assert (cleared.before, cleared.after, cleared.writers) == (None, EMPTY, ())
    assert "branch:to:a" not in run.step(1).update.updated_channels


def test_update_records_which_node_saw_which_versions():
    app = build([(START, "a"), ("a", END)])
    run = app.trace({"log": []})
    seen = run.step(1).checkpoint.versions_seen["a"]
    assert seen == {"branch:to:a": run.step(0).update.change("branch:to:a").version_after}


def test_update_warns_about_writes_to_unknown_channels_and_drops_them():
    app = build([(START, "a")])
    stepper = advance(app, {"log": []}, 2)
    task = Task("t", 1, "a", "pull", ("__pregel_pull", "a"), ("branch:to:a",), {})
    result = TaskResult(task, (("nowhere", 1), ("log", ["a"])))
    with pytest.warns(GraphkitWarning, match="Step 1: node 'a' wrote to 'nowhere'"):
        record = phases.update(app.spec, stepper._state, [result])
    assert record.changed[0] == "log"


def test_task_ids_are_stable_uuid_shaped_strings():
    assert task_id("cp", 3, ("__pregel_pull", "a")) == task_id("cp", 3, ("__pregel_pull", "a"))
    assert task_id("cp", 3, ("__pregel_pull", "a")) != task_id("cp", 4, ("__pregel_pull", "a"))
    assert [len(part) for part in task_id("cp", 1, ("x",)).split("-")] == [8, 4, 4, 4, 12]


def test_a_planned_task_id_is_made_from_its_checkpoint_when_first_read():
    builder = StateGraph(State)
    builder.add_node("a", lambda state: {})
    stepper = builder.add_edge(START, "a").compile().stepper({"log": []})
    stepper.step()
    planned_from = stepper._state.checkpoint.id
    plan = stepper.plan()
    (task,) = plan.tasks
    assert task.id == task_id(planned_from, plan.step, ("__pregel_pull", "__start__"))
    assert task.id is task.id  # made once, then kept
    execution = stepper.execute()
    assert execution.finish_order == (task.id,)  # one task: plan order


# -- errors name their place (issue 17, item 4) ------------------------------------------


def refuse_even(total, value):
    if value % 2 == 0:
        raise ZeroDivisionError("no even numbers")
    return total + value


class Picky(TypedDict):
    total: Annotated[int, refuse_even]


def test_a_reducer_error_keeps_its_class_and_names_channel_step_reducer_and_writers():
    builder = StateGraph(Picky)
    builder.add_node("one", lambda state: {"total": 1})
    builder.add_node("two", lambda state: {"total": 2})
    builder.add_edge(START, "one")
    builder.add_edge(START, "two")
    with pytest.raises(ZeroDivisionError, match="no even numbers") as raised:
        builder.compile().invoke({"total": 1})
    assert raised.value.__notes__ == [
        "While step 1 applied its writes to channel 'total': its reducer refuse_even raised "
        "(writers: 'one' and 'two'); the state is left as it was before the step."
    ]


def test_a_recorded_update_reads_each_tasks_writes_a_fixed_number_of_times():
    # a ChannelChange names its writers: finding them per channel by reading every write
    # again made a recorded step (a saver, the debugger) quadratic in the keys written
    keys = [f"k{index}" for index in range(40)]
    builder = StateGraph(TypedDict("Wide", dict.fromkeys(keys, int)))  # type: ignore[operator]
    builder.add_node("a", lambda state: dict.fromkeys(keys, 1)).add_edge(START, "a")
    app = builder.compile()
    stepper = advance(app, {}, 2)
    (task,) = phases.plan(app.spec, stepper._state).tasks
    reads = []

    class Writes(tuple):
        def __iter__(self):
            reads.append(None)
            return super().__iter__()

    result = TaskResult(task, Writes((key, 1) for key in keys))
    update = phases.update(app.spec, stepper._state, [result])
    assert update is not None and [c.writers for c in update.changes[:2]] == [("a",), ("a",)]
    assert len(reads) <= 3
