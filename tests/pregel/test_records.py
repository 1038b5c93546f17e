"""The records a run leaves behind: exact reprs, the helper properties, and that they
are frozen. Records come both from a real run (``app.trace``) and from direct
construction."""

import dataclasses
import itertools
import operator
from typing import Annotated, TypedDict

import pytest

from graphkit import (
    END,
    START,
    ChannelChange,
    Execution,
    Plan,
    Run,
    StateGraph,
    Superstep,
    Task,
    TaskResult,
    Update,
)
from graphkit.channels import EMPTY
from graphkit.checkpoint import Checkpoint
from graphkit.managed import RemainingSteps


class State(TypedDict):
    x: int
    log: Annotated[list, operator.add]


def add_one(state):
    return {"x": state["x"] + 1, "log": ["a"]}


def times_ten(state):
    return {"x": state["x"] * 10, "log": ["b"]}


def fail(state):
    raise ValueError("boom")


def set_five(state):
    return {"x": 5}


@pytest.fixture(scope="module")
def run():
    """START -> a -> b -> END, run from x=1."""
    builder = StateGraph(State)
    builder.add_node("a", add_one)
    builder.add_node("b", times_ten)
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("b", END)
    return builder.compile().trace({"x": 1, "log": []})


@pytest.fixture(scope="module")
def failed_run():
    """START -> a -> (fail || set_five): the run stops in step 2's Execute."""
    builder = StateGraph(State)
    builder.add_node("a", add_one)
    builder.add_node("fail", fail)
    builder.add_node("set_five", set_five)
    builder.add_edge(START, "a")
    builder.add_edge("a", "fail")
    builder.add_edge("a", "set_five")
    with pytest.raises(ValueError, match="boom") as excinfo:
        builder.compile().trace({"x": 1, "log": []})
    return excinfo.value.run


# -- records of a real run --------------------------------------------------------------


def test_run_repr_len_values_and_status(run):
    assert repr(run) == "Run(steps=4, status='done')"
    assert len(run) == 4
    assert run.status == "done"
    assert run.error is None
    assert run.values == {"x": 20, "log": ["a", "b"]}


def test_superstep_reprs_of_a_run(run):
    assert [repr(step) for step in run.steps] == [
        "Superstep(step=-1, tasks=['__input__'], changed=['__start__'])",
        "Superstep(step=0, tasks=['__start__'], changed=['x', 'log', 'branch:to:a', '__start__'])",
        "Superstep(step=1, tasks=['a'], changed=['x', 'log', 'branch:to:b', 'branch:to:a'])",
        "Superstep(step=2, tasks=['b'], changed=['x', 'log', 'branch:to:b'])",
    ]


def test_phase_record_reprs_of_a_run(run):
    assert [repr(step.plan) for step in run.steps] == [
        "Plan(step=-1, tasks=['__input__'])",
        "Plan(step=0, tasks=['__start__'])",
        "Plan(step=1, tasks=['a'])",
        "Plan(step=2, tasks=['b'])",
    ]
    assert [repr(step.execution) for step in run.steps] == [
        "Execution(step=-1, results=['__input__'])",
        "Execution(step=0, results=['__start__'])",
        "Execution(step=1, results=['a'])",
        "Execution(step=2, results=['b'])",
    ]
    assert [repr(step.update) for step in run.steps] == [
        "Update(step=-1, changed=['__start__'])",
        "Update(step=0, changed=['x', 'log', 'branch:to:a', '__start__'])",
        "Update(step=1, changed=['x', 'log', 'branch:to:b', 'branch:to:a'])",
        "Update(step=2, changed=['x', 'log', 'branch:to:b'])",
    ]


def test_task_and_task_result_reprs_of_a_run(run):
    assert [repr(task) for step in run.steps for task in step.plan.tasks] == [
        "Task(step=-1, node='__input__', triggers=[])",
        "Task(step=0, node='__start__', triggers=['__start__'])",
        "Task(step=1, node='a', triggers=['branch:to:a'])",
        "Task(step=2, node='b', triggers=['branch:to:b'])",
    ]
    assert [repr(result) for step in run.steps for result in step.execution.results] == [
        "TaskResult(node='__input__', writes=['__start__'])",
        "TaskResult(node='__start__', writes=['x', 'log', 'branch:to:a'])",
        "TaskResult(node='a', writes=['x', 'log', 'branch:to:b'])",
        "TaskResult(node='b', writes=['x', 'log'])",
    ]


def test_channel_change_reprs_of_a_run(run):
    assert [repr(change) for change in run.step(1).update.changes] == [
        "ChannelChange('x': 1 -> 2)",
        "ChannelChange('log': [] -> ['a'])",
        "ChannelChange('branch:to:b': <empty> -> None)",
        "ChannelChange('branch:to:a': None -> <empty>)",
    ]


def test_channel_change_repr_sorts_a_set():
    """A barrier's value is a set: its repr would follow hash order, which for strings
    changes from one process to the next (the README's join printed either way)."""
    change = ChannelChange("join:a+b:c", EMPTY, {8, 1}, None, 1, ("a", "b"), (8, 1), "barrier")
    assert repr(change) == "ChannelChange('join:a+b:c': <empty> -> {1, 8})"
    names = ChannelChange("j", {"search", "check"}, frozenset({"b", "a"}), 1, 2, (), (), "")
    assert repr(names) == "ChannelChange('j': {'check', 'search'} -> frozenset({'a', 'b'}))"


def test_checkpoint_reprs_of_a_run(run):
    assert [repr(step.checkpoint) for step in run.steps] == [
        "Checkpoint(step=-1, source='input', channels=['__start__'])",
        "Checkpoint(step=0, source='loop', channels=['branch:to:a', 'log', 'x'])",
        "Checkpoint(step=1, source='loop', channels=['branch:to:b', 'log', 'x'])",
        "Checkpoint(step=2, source='loop', channels=['log', 'x'])",
    ]
    assert repr(run.step(-1).checkpoint_before) == (
        "Checkpoint(step=-2, source='empty', channels=[])"
    )


def test_each_step_starts_from_the_previous_steps_checkpoint(run):
    for previous, current in itertools.pairwise(run.steps):
        assert current.checkpoint_before is previous.checkpoint


def test_run_step_finds_a_step_by_number(run):
    assert run.step(-1) is run.steps[0]
    assert run.step(2) is run.steps[3]
    assert run.step(1).plan.nodes == ["a"]


def test_run_step_of_an_unknown_number_says_which_steps_exist(run):
    with pytest.raises(KeyError) as excinfo:
        run.step(7)
    assert excinfo.value.args == ("This run has no step 7; its steps are [-1, 0, 1, 2].",)


def test_task_fields_and_name_alias_in_a_run(run):
    (task,) = run.step(1).plan.tasks
    assert task.name == task.node == "a"
    assert task.kind == "pull"
    assert task.step == 1
    assert task.triggers == ("branch:to:a",)
    assert task.input == {"x": 1, "log": []}
    (input_task,) = run.step(-1).plan.tasks
    assert (input_task.name, input_task.kind) == ("__input__", "input")
    assert input_task.input == {"x": 1, "log": []}


def test_execution_writes_and_update_changes_in_a_run(run):
    step = run.step(1)
    assert step.execution.writes == [
        ("a", "x", 2),
        ("a", "log", ["a"]),
        ("a", "branch:to:b", None),
    ]
    assert step.execution.error is None
    assert all(result.ok for result in step.execution.results)
    assert step.update.changed == ["x", "log", "branch:to:b", "branch:to:a"]
    change = step.update.change("log")
    assert (change.before, change.after) == ([], ["a"])
    assert change.writers == ("a",)
    assert change.values == (["a"],)
    assert step.update.change("branch:to:a").after is EMPTY
    assert step.update.change("branch:to:a").writers == ()
    assert step.update.change("__start__") is None  # a channel that did not change
    assert step.update.change("branch:to:nowhere") is None  # a runtime channel's name
    with pytest.raises(KeyError) as raised:
        step.update.change("lgo")  # a slip, not a key that did not change
    assert raised.value.args[0] == (
        "Update.change('lgo'): 'lgo' is not a state key of this graph (keys: ['log', "
        "'x']); did you mean 'log'?"
    )


def test_update_change_of_a_managed_value_is_none_not_a_slip():
    class Counted(TypedDict):
        x: int
        remaining_steps: RemainingSteps  # a key of the schema that no write reaches

    app = StateGraph(Counted).add_node("a", lambda state: {"x": 2}).add_edge(START, "a")
    step = app.compile().stepper({"x": 1}).run().step(1)
    assert step.update.change("remaining_steps") is None
    with pytest.raises(KeyError):
        step.update.change("remaining_step")


def test_every_step_of_a_finished_run_completed_its_update(run):
    assert [step.phase for step in run.steps] == ["update"] * 4
    assert all(step.checkpoint is step.update.checkpoint for step in run.steps)


def test_a_failed_step_stops_after_execute(failed_run):
    assert failed_run.status == "error"
    assert isinstance(failed_run.error, ValueError)
    step = failed_run.step(2)
    assert step.phase == "execute"
    assert step.update is None
    assert step.checkpoint is None
    assert repr(step) == "Superstep(step=2, tasks=['fail', 'set_five'], changed=None)"
    assert repr(step.execution) == "Execution(step=2, results=['fail!', 'set_five'])"
    assert [repr(result) for result in step.execution.results] == [
        "TaskResult(node='fail', error=ValueError(boom))",
        "TaskResult(node='set_five', writes=['x'])",
    ]
    assert step.execution.error is failed_run.error
    assert step.execution.writes == [("set_five", "x", 5)]
    assert [result.ok for result in step.execution.results] == [False, True]
    assert failed_run.values == {"x": 2, "log": ["a"]}  # step 2 changed nothing


# -- records built directly ---------------------------------------------------------------


def make_task(node, step=2, triggers=None):
    return Task(
        id=f"id-{node}",
        step=step,
        node=node,
        kind="pull",
        path=("__pregel_pull", node),
        triggers=triggers if triggers is not None else (f"branch:to:{node}",),
        input={"city": "Paris"},
    )


WEATHER = make_task("weather")
NEWS = make_task("news")
PLAN = Plan(2, (WEATHER, NEWS))
WEATHER_RESULT = TaskResult(WEATHER, (("weather", "sunny"), ("tokens", 50)))
NEWS_FAILED = TaskResult(NEWS, (), error=KeyError("feed"))
NEWS_RESULT = TaskResult(NEWS, (("news", "market up"),))
EXECUTION = Execution(2, (WEATHER_RESULT, NEWS_RESULT))
FAILED_EXECUTION = Execution(2, (WEATHER_RESULT, NEWS_FAILED))
TOKENS = ChannelChange(
    channel="tokens",
    before=101,
    after=151,
    version_before=3,
    version_after=4,
    writers=("weather",),
    values=(50,),
    reducer="add",
)
WEATHER_CHANGE = ChannelChange("weather", EMPTY, "sunny", None, 4, ("weather",), ("sunny",), "")
CHECKPOINT = Checkpoint.empty()
UPDATE = Update(2, (WEATHER_CHANGE, TOKENS), frozenset({"weather", "tokens"}), CHECKPOINT)
PLANNED = Superstep(2, PLAN, None, None, CHECKPOINT)
EXECUTED = Superstep(2, PLAN, EXECUTION, None, CHECKPOINT)
UPDATED = Superstep(2, PLAN, EXECUTION, UPDATE, CHECKPOINT)
RUN = Run(
    (Superstep(-1, Plan(-1, ()), None, None, CHECKPOINT), UPDATED),
    {"weather": "sunny"},
    "done",
)


def test_task_repr_and_name():
    assert repr(WEATHER) == "Task(step=2, node='weather', triggers=['branch:to:weather'])"
    assert repr(make_task("join", 5, ("join:a+b:c", "branch:to:join"))) == (
        "Task(step=5, node='join', triggers=['join:a+b:c', 'branch:to:join'])"
    )
    assert WEATHER.name == "weather"
    assert WEATHER.trigger_versions == {}


def test_plan_repr_and_nodes():
    assert repr(PLAN) == "Plan(step=2, tasks=['weather', 'news'])"
    assert PLAN.nodes == ["weather", "news"]
    assert repr(Plan(4, ())) == "Plan(step=4, tasks=[])"
    assert Plan(4, ()).nodes == []


def test_task_result_repr_and_ok():
    assert repr(WEATHER_RESULT) == "TaskResult(node='weather', writes=['weather', 'tokens'])"
    assert WEATHER_RESULT.ok is True
    assert repr(TaskResult(WEATHER, ())) == "TaskResult(node='weather', writes=[])"
    assert repr(NEWS_FAILED) == "TaskResult(node='news', error=KeyError('feed'))"
    assert NEWS_FAILED.ok is False
    failed = TaskResult(NEWS, (), error=RuntimeError("rate limited"))
    assert repr(failed) == "TaskResult(node='news', error=RuntimeError(rate limited))"


def test_task_result_defaults():
    assert WEATHER_RESULT.output is None
    assert WEATHER_RESULT.error is None
    assert WEATHER_RESULT.attempts == 1
    assert WEATHER_RESULT.worker == ""


def test_execution_repr_error_and_writes():
    assert repr(EXECUTION) == "Execution(step=2, results=['weather', 'news'])"
    assert EXECUTION.error is None
    assert EXECUTION.writes == [
        ("weather", "weather", "sunny"),
        ("weather", "tokens", 50),
        ("news", "news", "market up"),
    ]
    assert repr(FAILED_EXECUTION) == "Execution(step=2, results=['weather', 'news!'])"
    assert FAILED_EXECUTION.error is NEWS_FAILED.error
    assert FAILED_EXECUTION.writes == [
        ("weather", "weather", "sunny"),
        ("weather", "tokens", 50),
    ]
    assert FAILED_EXECUTION.finish_order == ()


def test_execution_error_is_the_first_in_plan_order():
    first, second = ValueError("first"), ValueError("second")
    execution = Execution(
        3,
        (
            TaskResult(WEATHER, (), error=first),
            TaskResult(NEWS, (), error=second),
        ),
        finish_order=("id-news", "id-weather"),  # news failed earlier in time
    )
    assert execution.error is first
    assert repr(execution) == "Execution(step=3, results=['weather!', 'news!'])"


def test_channel_change_repr():
    assert repr(TOKENS) == "ChannelChange('tokens': 101 -> 151)"
    assert repr(WEATHER_CHANGE) == "ChannelChange('weather': <empty> -> 'sunny')"


def test_update_repr_changed_and_change():
    assert repr(UPDATE) == "Update(step=2, changed=['weather', 'tokens'])"
    assert UPDATE.changed == ["weather", "tokens"]
    assert UPDATE.change("tokens") is TOKENS
    assert UPDATE.change("weather") is WEATHER_CHANGE
    assert UPDATE.change("news") is None
    assert Update(2, (), frozenset(), CHECKPOINT).changed == []


def test_superstep_phase_checkpoint_and_repr():
    assert (PLANNED.phase, EXECUTED.phase, UPDATED.phase) == ("plan", "execute", "update")
    assert PLANNED.checkpoint is None
    assert EXECUTED.checkpoint is None
    assert UPDATED.checkpoint is CHECKPOINT
    assert repr(PLANNED) == "Superstep(step=2, tasks=['weather', 'news'], changed=None)"
    assert repr(EXECUTED) == "Superstep(step=2, tasks=['weather', 'news'], changed=None)"
    assert repr(UPDATED) == (
        "Superstep(step=2, tasks=['weather', 'news'], changed=['weather', 'tokens'])"
    )


def test_run_built_directly():
    assert repr(RUN) == "Run(steps=2, status='done')"
    assert len(RUN) == 2
    assert RUN.step(2) is UPDATED
    assert RUN.error is None
    with pytest.raises(KeyError) as excinfo:
        RUN.step(0)
    assert excinfo.value.args == ("This run has no step 0; its steps are [-1, 2].",)
    empty = Run((), {}, "running")
    assert repr(empty) == "Run(steps=0, status='running')"
    assert len(empty) == 0
    with pytest.raises(KeyError) as excinfo:
        empty.step(-1)
    assert excinfo.value.args == ("This run has no step -1; its steps are [].",)


@pytest.mark.parametrize(
    ("record", "field", "value"),
    [
        (WEATHER, "node", "other"),
        (PLAN, "tasks", ()),
        (WEATHER_RESULT, "error", ValueError()),
        (EXECUTION, "results", ()),
        (TOKENS, "after", 0),
        (UPDATE, "changes", ()),
        (UPDATED, "update", None),
        (RUN, "status", "error"),
    ],
    ids=lambda value: type(value).__name__,
)
def test_records_are_frozen(record, field, value):
    before = getattr(record, field)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(record, field, value)
    assert getattr(record, field) is before
