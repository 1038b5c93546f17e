"""``open_langgraph_thread``: a thread LangGraph saved, read into graphkit's records.

The oracle is graphkit's own ``trace`` of the same graph (built with graphkit's library)
on the same input with a graphkit saver: per step, the tasks (node names, sorted), their
writes and the state after the step must agree. LangGraph writes each thread twice: in
this process with its ``InMemorySaver``, and in a separate process with its
``SqliteSaver`` on a file this process then opens. The differences that cannot be
recovered (listed in the docs) are normalised here, and each has a test of its own.
"""

from __future__ import annotations

import contextlib
import copy
import math
import operator
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

from graphkit.bridge.threads import (
    UNKNOWN,
    SavedError,
    open_langgraph_thread,
    save_thread,
    saved_error,
)
from graphkit.pregel.records import path_text
from tests.conformance import (
    cases_control,
    cases_errors,
    cases_flow,
    cases_nodes,
    cases_runtime,
    cases_state,
    cases_subgraphs,
)
from tests.conformance.harness import appender, canonical, load_graphkit, load_langgraph

pytest.importorskip("langgraph")

ROOT = Path(__file__).resolve().parents[2]
MODULES = {
    module.__name__.rsplit(".", 1)[-1]: module
    for module in (
        cases_control,
        cases_errors,
        cases_flow,
        cases_nodes,
        cases_runtime,
        cases_state,
        cases_subgraphs,
    )
}

# (module, case, input index): graphs whose imported threads agree with graphkit's runs.
CORPUS = [
    ("cases_flow", "waiting-edge-same-step", 0),
    ("cases_flow", "waiting-edge-late-branch", 0),
    ("cases_flow", "plain-fan-in-runs-twice", 0),
    ("cases_flow", "diamond-with-reducer", 0),
    ("cases_flow", "conditional-returns-name", 1),
    ("cases_flow", "conditional-fan-out-list", 0),
    ("cases_flow", "path-map-dict-to-end", 0),
    ("cases_flow", "counter-loop", 1),
    ("cases_flow", "loop-past-old-default-limit", 0),
    ("cases_control", "send-map-reduce", 0),
    ("cases_control", "send-into-waiting-edge", 0),
    ("cases_control", "send-node-returns-none", 0),
    ("cases_control", "command-update-and-goto", 0),
    ("cases_control", "command-goto-send", 0),
    ("cases_control", "command-ping-pong-annotated", 1),
    ("cases_control", "command-dataclass-state", 0),
    ("cases_state", "int-add-reducer", 0),
    ("cases_state", "custom-function-and-lambda-reducers", 1),
    ("cases_state", "pydantic-state-defaults", 0),
    ("cases_state", "ephemeral-and-topic-classes", 0),
    ("cases_state", "topic-accumulate-or-not", 0),
    ("cases_nodes", "add-sequence", 0),
    ("cases_nodes", "node-input-schema", 0),
    ("cases_nodes", "last-node-returns-none", 0),
    ("cases_nodes", "graph-input-and-output-schema", 0),
    ("cases_runtime", "defer-after-sends", 0),
    ("cases_runtime", "retry-beside-a-steady-node", 0),
    ("cases_flow", "conditional-to-end", 1),
    ("cases_subgraphs", "subgraph-shared-reducer", 0),
    ("cases_subgraphs", "subgraph-private-keys", 0),
    ("cases_errors", "node-raises-own-exception", 0),
    ("cases_errors", "node-raises-key-error", 0),
    ("persistence_graphs", "chain", 0),
    ("persistence_graphs", "chain-interrupt-before-b", 0),
    ("persistence_graphs", "chain-interrupt-after-a", 0),
    ("cases_persistence_breakpoints", "subgraph-breakpoint", 0),
    ("cases_persistence_breakpoints", "invoked-subgraph-breakpoint", 0),
]
IDS = [f"{name}-{index}" for _, name, index in CORPUS]


# -- building and running one corpus graph on either library ----------------------------


def build(lib: Any, module: str, name: str) -> tuple[Any, Any]:
    """The graph and its input list: a conformance case, or a persistence graph."""
    if module == "persistence_graphs":
        from tests.conformance.persistence_graphs import chain
        from tests.conformance.scenarios import Tools

        options = {
            "chain": {},
            "chain-interrupt-before-b": {"interrupt_before": ["b"]},
            "chain-interrupt-after-a": {"interrupt_after": ["a"]},
        }[name]
        return chain(Tools(lib, None, None), **options), ({"log": []},)
    if module == "cases_persistence_breakpoints":  # a subgraph paused at its own breakpoint
        from tests.conformance import cases_persistence_breakpoints as breakpoints
        from tests.conformance.scenarios import Tools

        make = {
            "subgraph-breakpoint": breakpoints.subgraph_paused_before,
            "invoked-subgraph-breakpoint": breakpoints.subgraph_invoked_paused_after,
        }[name]
        return make(Tools(lib, None, None)), ({"log": []},)
    case = next(case for case in MODULES[module].CASES if case.name == name)
    return case.build(lib), case.inputs


def thread_config(module: str, name: str, index: int) -> dict[str, Any]:
    """The config to run on: the case's own (recursion limit, configurable) and a thread."""
    config: dict[str, Any] = {}
    if module in MODULES:
        case = next(case for case in MODULES[module].CASES if case.name == name)
        config = copy.deepcopy(dict(case.config or {}))
    configurable = {**config.get("configurable", {}), "thread_id": f"{name}-{index}"}
    return {**config, "configurable": configurable}


def run_langgraph(app: Any, given: Any, config: dict[str, Any], **options: Any) -> None:
    with contextlib.suppress(Exception):  # the thread keeps what happened up to the error
        app.invoke(copy.deepcopy(given), config, **options)


def graphkit_run(module: str, name: str, index: int) -> Any:
    from graphkit import InMemorySaver

    app, inputs = build(load_graphkit(), module, name)
    app.checkpointer = InMemorySaver()
    try:
        return app.trace(copy.deepcopy(inputs[index]), thread_config(module, name, index))
    except Exception as error:
        return error.run


# The SQLite threads, written by a separate process running LangGraph alone.
WRITER = textwrap.dedent(
    """
    import sqlite3, sys
    sys.path.insert(0, {root!r})
    from langgraph.checkpoint.sqlite import SqliteSaver
    from tests.bridge.test_open_thread import CORPUS, build, run_langgraph, thread_config
    from tests.conformance.harness import load_langgraph

    saver = SqliteSaver(sqlite3.connect({path!r}, check_same_thread=False))
    for module, name, index in CORPUS:
        app, inputs = build(load_langgraph(), module, name)
        app.checkpointer = saver
        config = thread_config(module, name, index)
        run_langgraph(app, inputs[index], config, durability="sync")
    print("wrote", len(CORPUS))
    """
)


@pytest.fixture(scope="module")
def sqlite_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("threads") / "langgraph.sqlite"
    script = WRITER.format(root=str(ROOT), path=str(path))
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"wrote {len(CORPUS)}" in done.stdout
    return path


def imported(saver: str, module: str, name: str, index: int, sqlite_file: Path | None) -> Any:
    app, inputs = build(load_langgraph(), module, name)
    config = thread_config(module, name, index)
    if saver == "memory":
        from langgraph.checkpoint.memory import InMemorySaver

        app.checkpointer = InMemorySaver()
        run_langgraph(app, inputs[index], config, durability="sync")
    else:
        from langgraph.checkpoint.sqlite import SqliteSaver

        assert sqlite_file is not None
        app.checkpointer = SqliteSaver(sqlite3.connect(str(sqlite_file), check_same_thread=False))
    return open_langgraph_thread(app, config)


# -- what must agree -----------------------------------------------------------------------


def as_lists(value: Any) -> Any:
    """Tuples as lists: LangGraph's savers give tuples back as lists (see the docs)."""
    if isinstance(value, tuple | list):
        return [as_lists(item) for item in value]
    if isinstance(value, dict):
        return {key: as_lists(item) for key, item in value.items()}
    return value


def task_writes(result: Any) -> str:
    """One task's writes: per channel in order, channels sorted (LangGraph saves the
    writes of a task's edges in an order of its own)."""
    by_channel: dict[str, list[Any]] = {}
    for channel, value in result.writes:
        by_channel.setdefault(channel, []).append(as_lists(value))
    return canonical((result.task.node, by_channel))


def steps_of(run: Any) -> list[tuple[Any, ...]]:
    """Per step: the step number, its tasks, their writes and errors, the state after and
    each state key's change (a reducer's key holds its ``[]`` or ``0`` before anything
    writes it, though no saver keeps that value)."""
    rows = []
    for superstep in run.steps:
        results = superstep.execution.results if superstep.execution is not None else ()
        state = changes = None
        if superstep.update is not None:
            values = superstep.update.checkpoint.channel_values
            state = {
                key: canonical(as_lists(values[key])) for key in run.state_keys if key in values
            }
            changes = sorted(
                canonical(as_lists((change.channel, change.before, change.after)))
                for change in superstep.update.changes
                if change.channel in run.state_keys
            )
        rows.append(
            (
                superstep.step,
                sorted(superstep.plan.nodes),
                sorted(task_writes(result) for result in results),
                sorted(f"{r.task.node}: {type(r.error).__name__}" for r in results if r.error),
                state,
                changes,
            )
        )
    return rows


def states_read(run: Any, expected: Any) -> tuple[list[Any], list[Any]]:
    """What each pull task read, per step, in both runs: ``__start__`` the run's input,
    a node the state as its input schema gives it (a dataclass or pydantic state as an
    instance of the class, with its defaults)."""
    ours, theirs = [], []
    for mine, saved in zip(expected.steps, run.steps, strict=False):
        pairs = zip(
            sorted(mine.plan.tasks, key=lambda t: path_text(t.path)),
            sorted(saved.plan.tasks, key=lambda t: path_text(t.path)),
            strict=False,
        )
        for own, imported in pairs:
            if own.kind == "pull":
                ours.append((own.node, canonical(as_lists(own.input))))
                theirs.append((imported.node, canonical(as_lists(imported.input))))
    return theirs, ours


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
@pytest.mark.parametrize(("module", "name", "index"), CORPUS, ids=IDS)
def test_imported_thread_agrees_with_graphkit_run(
    saver: str, module: str, name: str, index: int, request: pytest.FixtureRequest
) -> None:
    sqlite = request.getfixturevalue("sqlite_file") if saver == "sqlite" else None
    run = imported(saver, module, name, index, sqlite)
    expected = graphkit_run(module, name, index)
    assert steps_of(run) == steps_of(expected)
    theirs, ours = states_read(run, expected)
    assert theirs == ours
    assert run.status == expected.status
    assert canonical(as_lists(dict(run.values))) == canonical(as_lists(dict(expected.values)))
    assert run.state_keys == expected.state_keys


def test_the_corpus_is_large_enough() -> None:
    assert len({(module, name) for module, name, _ in CORPUS}) >= 20


# -- what an imported run holds ------------------------------------------------------------


def langgraph_thread(module: str, name: str, index: int = 0, **options: Any) -> tuple[Any, Any]:
    from langgraph.checkpoint.memory import InMemorySaver

    app, inputs = build(load_langgraph(), module, name)
    app.checkpointer = InMemorySaver()
    config = thread_config(module, name, index)
    run_langgraph(app, inputs[index], config, **options)
    return app, config


def test_what_langgraph_does_not_save_is_unknown() -> None:
    run = open_langgraph_thread(*langgraph_thread("cases_flow", "diamond-with-reducer"))
    ran = [r for s in run.steps[1:] for r in s.execution.results]
    assert ran and all(r.attempts is UNKNOWN and r.duration is UNKNOWN for r in ran)
    assert all(r.started is UNKNOWN and r.worker is UNKNOWN for r in ran)
    tasks = run.to_frame("tasks")
    unknown = tasks[tasks["step"] >= 0][["attempts", "duration", "worker"]]
    assert (unknown == "unknown").all().all()  # the table says so, not a blank or a zero


def test_each_checkpoint_is_one_superstep_with_langgraph_ids() -> None:
    app, config = langgraph_thread("cases_flow", "counter-loop", 1)
    snapshots = list(app.get_state_history(config))[::-1]
    run = open_langgraph_thread(app, config)
    assert [s.step for s in run.steps] == [s.metadata["step"] for s in snapshots]
    ids = [s.config["configurable"]["checkpoint_id"] for s in snapshots]
    assert [s.update.checkpoint.id for s in run.steps] == ids
    assert [s.checkpoint_before.id for s in run.steps[1:]] == ids[:-1]
    for superstep, snapshot in zip(run.steps, snapshots, strict=True):  # the state shown
        values = superstep.update.checkpoint.channel_values
        shown = {k: v for k, v in snapshot.values.items() if k in values}
        assert {k: values[k] for k in shown} == shown


class Triage(TypedDict, total=False):
    question: str
    answers: Annotated[list, operator.add]


def _triage(lib: Any) -> Any:
    builder = lib.StateGraph(Triage)
    builder.add_node("billing", lambda state: {"answers": ["refund on its way"]})
    return builder.add_edge(lib.START, "billing")


@pytest.mark.parametrize("given", [{"question": "refund?", "answers": []}, {"question": "refund?"}])
def test_a_reducer_key_holds_its_default_before_anything_writes_it(given: dict) -> None:
    """LangGraph's channel for ``Annotated[list, operator.add]`` starts as ``[]`` (its
    nodes and ``get_state`` read it) though no checkpoint saves it until it is written:
    the import reads it as graphkit's own run does, ``[] -> []``, not ``<empty> -> []``."""
    from langgraph.checkpoint.memory import InMemorySaver

    from graphkit import InMemorySaver as OwnSaver

    config = {"configurable": {"thread_id": "t"}}
    app = _triage(load_langgraph()).compile(checkpointer=InMemorySaver())
    app.invoke(copy.deepcopy(given), config)
    first = list(app.get_state_history(config))[-1]
    assert first.metadata["step"] == -1 and first.values == {"answers": []}  # the oracle
    own_app = _triage(load_graphkit()).compile(checkpointer=OwnSaver())
    own = own_app.trace(copy.deepcopy(given), config)
    run = open_langgraph_thread(app, config)
    lines = [[" ".join(line.split()) for line in str(r).splitlines()] for r in (run, own)]
    changed = "UPDATE answers [] -> [] (from __start__)"
    assert (changed in lines[0], changed in lines[1]) == ("answers" in given,) * 2
    assert "UPDATE answers [] -> ['refund on its way'] (from billing)" in lines[0]
    assert lines[0][-6:] == lines[1][-6:]
    assert run.step(1).plan.tasks[0].input == own.step(1).plan.tasks[0].input
    assert run.step(1).plan.tasks[0].input == {"question": "refund?", "answers": []}
    assert run.to_frame("state").to_dict() == own.to_frame("state").to_dict()


def test_values_saved_after_an_in_place_change_are_shown_as_saved() -> None:
    """With LangGraph's default durability ("async") a checkpoint is written while the
    next step runs; a value changed in place is saved changed. The import shows what
    LangGraph saved, as its own get_state_history does."""
    app, config = langgraph_thread("cases_state", "topic-accumulate-or-not")
    run = open_langgraph_thread(app, config)
    for superstep, snapshot in zip(
        run.steps, list(app.get_state_history(config))[::-1], strict=True
    ):
        values = superstep.update.checkpoint.channel_values
        assert {k: values.get(k) for k in snapshot.values if k in values} == {
            k: v for k, v in snapshot.values.items() if k in values
        }


@pytest.mark.parametrize("name", ["node-raises-own-exception", "node-raises-key-error"])
def test_a_failed_step_keeps_its_error_and_has_no_update(name: str) -> None:
    """A saved error reads as Python and graphkit's own run print it: a KeyError's key in
    quotes (``KeyError: 'missing'``), as ``str(KeyError('missing'))`` has it."""
    run = open_langgraph_thread(*langgraph_thread("cases_errors", name))
    expected = graphkit_run("cases_errors", name, 0)
    last = run.steps[-1]
    assert run.status == "error" and last.update is None
    assert isinstance(run.error, SavedError)
    assert type(run.error).__name__ == type(expected.error).__name__
    assert str(run.error) == str(expected.error)
    ending = expected.timeline(width=None).splitlines()[-1]
    assert run.timeline(width=None).splitlines()[-1] == ending


@pytest.mark.parametrize("name", ["two-writes-to-last-value", "two-writes-to-ephemeral-value"])
def test_a_failed_update_is_found_from_the_saved_writes(name: str) -> None:
    """LangGraph saves no error raised in a step's Update; the import applies the step's
    saved writes again and fails as graphkit's own run of the graph does."""
    index = 0
    inputs = build(load_langgraph(), "cases_errors", name)[1]
    run = open_langgraph_thread(*langgraph_thread("cases_errors", name, index))
    expected = graphkit_run("cases_errors", name, index)
    assert inputs and steps_of(run) == steps_of(expected)
    assert (run.status, str(run.error)) == ("error", str(expected.error))
    assert type(run.error).__name__ == "InvalidUpdateError"
    ending = run.timeline(width=None).splitlines()[-1]
    assert ending.startswith("the run failed in step 1's Update:")


def test_a_reducer_that_raised_in_the_update_is_the_error() -> None:
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, StateGraph

    builder = StateGraph(Picky).add_node("a", lambda state: {"log": ["a"]})
    app = builder.add_edge(START, "a").compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    run_langgraph(app, {}, config)
    run = open_langgraph_thread(app, config)
    assert run.status == "error" and run.steps[-1].update is None
    assert str(run.error) == "picky refuses ['a']"
    assert "its reducer picky raised" in run.error.__notes__[0]


def test_a_thread_stopped_after_its_tasks_with_valid_writes_is_still_running() -> None:
    """A process that ended between a step's tasks and its Update left no error to find."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, StateGraph

    builder = StateGraph(Log).add_node("a", lambda state: {"log": ["a"]})
    app = builder.add_edge(START, "a").compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"log": []}, config)
    last = app.checkpointer.get_tuple(config)
    # the writes of a saved, as if the process stopped before step 1's checkpoint
    app.checkpointer.storage["t"][""].pop(last.checkpoint["id"])
    run = open_langgraph_thread(app, config)
    assert (run.status, run.error) == ("running", None)


def test_an_interrupted_thread_ends_with_its_paused_task() -> None:
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, StateGraph
    from langgraph.types import interrupt

    class State(TypedDict):
        log: Annotated[list, operator.add]

    def ask(state: State) -> State:
        return {"log": [interrupt("name?")]}

    builder = StateGraph(State).add_node("ask", ask).add_edge(START, "ask")
    app = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"log": []}, config)
    run = open_langgraph_thread(app, config)
    paused = run.steps[-1].execution.results[0]
    assert run.status == "interrupted" and run.steps[-1].update is None
    assert [i.value for i in paused.interrupts] == ["name?"]


def test_a_fork_is_read_along_the_lineage_of_the_named_checkpoint() -> None:
    app, config = langgraph_thread("cases_flow", "counter-loop", 1)
    history = list(app.get_state_history(config))
    older = history[2].config  # replay from an older checkpoint: the thread forks
    app.invoke(None, older)
    latest = open_langgraph_thread(app, config)
    original = open_langgraph_thread(app, history[0].config)
    assert [s.step for s in original.steps] == [s.metadata["step"] for s in history[::-1]]
    assert latest.steps[-1].update.checkpoint.id != original.steps[-1].update.checkpoint.id
    shared = len(history) - 2
    assert [s.update.checkpoint.id for s in latest.steps[:shared]] == [
        s.update.checkpoint.id for s in original.steps[:shared]
    ]


def test_saved_errors_keep_their_class_name_and_message() -> None:
    error = saved_error("KeyError('missing')")
    assert type(error).__name__ == "KeyError" and error.args == ("missing",)
    assert str(error) == str(KeyError("missing")) == "'missing'"
    assert str(saved_error("KeyError()")) == "" and str(saved_error("KeyError(1, 2)")) == "(1, 2)"
    assert type(saved_error("not a repr")).__name__ == "SavedError"


class MissingSetting(KeyError):
    """A node's own KeyError: loaded where the thread is read, beside the graph's code."""


def test_a_saved_key_error_of_a_subclass_prints_its_key_quoted() -> None:
    # LangGraph saves the repr, MissingSetting('user_id'), naming no base: it printed
    # "MissingSetting: user_id" where Python prints the key quoted
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, StateGraph

    class State(TypedDict):
        n: int

    def read(state: State) -> dict:
        raise MissingSetting("user_id")

    app = StateGraph(State).add_node("read", read).add_edge(START, "read")
    app = app.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    with pytest.raises(MissingSetting) as raised:
        app.invoke({"n": 1}, config)
    run = open_langgraph_thread(app, config)
    assert isinstance(run.error, SavedError) and isinstance(run.error, KeyError)
    assert str(run.error) == str(raised.value) == "'user_id'"
    assert run.timeline(width=None).splitlines()[-1] == (
        "the run failed at step 1: read raised MissingSetting: 'user_id'"
    )
    # a class of a name no loaded KeyError has reads as any other
    assert str(saved_error("UnknownKeyError('user_id')")) == "user_id"


def test_wrong_arguments_are_refused_with_a_fix() -> None:
    from langgraph.graph import START, StateGraph

    with pytest.raises(TypeError, match="compiled LangGraph graph"):
        open_langgraph_thread(object(), {"configurable": {"thread_id": "t"}})
    app, config = langgraph_thread("cases_flow", "counter-loop", 1)
    with pytest.raises(ValueError, match="thread_id"):
        open_langgraph_thread(app, {})
    with pytest.raises(ValueError, match="no checkpoints"):
        open_langgraph_thread(app, {"configurable": {"thread_id": "nobody"}})
    bare = StateGraph(dict).add_node("a", lambda s: s).add_edge(START, "a").compile()
    with pytest.raises(ValueError, match="checkpointer="):
        open_langgraph_thread(bare, config)
    for config in (None, "t"):  # (was AttributeError: "... has no attribute 'get'")
        with pytest.raises(TypeError, match="thread_id"):
            open_langgraph_thread(app, config)


# -- the views work on an imported run -----------------------------------------------------


@pytest.fixture(scope="module")
def fan_out() -> tuple[Any, Any]:
    """An imported fan-out thread, and the same graph built with graphkit (to draw)."""
    pytest.importorskip("pandas")
    app, config = langgraph_thread("cases_control", "send-map-reduce", durability="sync")
    graph, _ = build(load_graphkit(), "cases_control", "send-map-reduce")
    return open_langgraph_thread(app, config), graph


@pytest.mark.parametrize("kind", ["tasks", "writes", "changes", "state", "subgraphs"])
def test_every_table(fan_out: tuple[Any, Any], kind: str) -> None:
    run, _ = fan_out
    expected = graphkit_run("cases_control", "send-map-reduce", 0)
    frame, reference = run.to_frame(kind), expected.to_frame(kind)
    assert list(frame.columns) == list(reference.columns)
    assert len(frame) == len(reference)


VIEWS_OF_TIME = {
    "timeline table": lambda run: run.to_frame("timeline"),
    "timeline svg": lambda run: run.timeline_svg(),
    "timeline text with durations": lambda run: run.timeline(durations=True),
    "notebook html": lambda run: run._repr_html_(),
}


@pytest.mark.parametrize("view", list(VIEWS_OF_TIME))
def test_views_of_time_show_unknown_times(fan_out: tuple[Any, Any], view: str) -> None:
    run, _ = fan_out
    assert VIEWS_OF_TIME[view](run) is not None


def test_why_and_diff(fan_out: tuple[Any, Any]) -> None:
    run, _ = fan_out
    expected = graphkit_run("cases_control", "send-map-reduce", 0)
    assert str(run.why("join")) == str(expected.why("join"))
    assert str(run.diff(0, 3)) == str(expected.diff(0, 3))


def test_drawing_marks_the_path_taken(fan_out: tuple[Any, Any]) -> None:
    from graphkit.render.highlight import highlight, overlay_path

    run, graph = fan_out
    expected = graphkit_run("cases_control", "send-map-reduce", 0)
    svg = graph.get_graph().draw_svg()
    assert overlay_path(svg, run) == overlay_path(svg, expected)
    for mine, theirs in zip(run.steps, expected.steps, strict=True):
        assert highlight(svg, mine, "update") == highlight(svg, theirs, "update")


def test_the_debugger_can_show_and_export_an_imported_run(
    fan_out: tuple[Any, Any], tmp_path: Path
) -> None:
    """``DebugSession.from_run`` keeps the imported supersteps as the ones applied."""
    from graphkit.widgets import DebugSession

    run, graph = fan_out
    session = DebugSession.from_run(graph, run)
    assert [s.step for s in session.supersteps] == [s.step for s in run.steps]
    session.goto(2)
    assert session.view().step_label
    page = session.to_html()
    assert page.startswith("<!DOCTYPE html>") and "double" in page
    session.export_html(tmp_path / "thread.html")
    assert (tmp_path / "thread.html").stat().st_size > 1000


def test_no_duration_is_made_up() -> None:
    run = open_langgraph_thread(*langgraph_thread("cases_flow", "waiting-edge-same-step"))
    durations = [r.duration for s in run.steps for r in s.execution.results if r.task.step >= 0]
    assert durations and not any(isinstance(d, float) and not math.isnan(d) for d in durations)


# -- stepping on from the thread's last checkpoint -----------------------------------------


@pytest.mark.parametrize("name", ["chain-interrupt-before-b", "chain-interrupt-after-a"])
def test_graphkit_steps_on_from_an_imported_thread(name: str) -> None:
    from graphkit import InMemorySaver

    app, config = langgraph_thread("persistence_graphs", name)
    saver = InMemorySaver()
    resumed_config = save_thread(open_langgraph_thread(app, config), saver, "imported")
    graph, inputs = build(load_graphkit(), "persistence_graphs", name)
    graph.checkpointer = saver
    stepped_on = graph.trace(None, {"configurable": {"thread_id": "imported"}})
    assert resumed_config["configurable"]["thread_id"] == "imported"
    own, _ = build(load_graphkit(), "persistence_graphs", name)  # graphkit's own thread
    own.checkpointer = InMemorySaver()
    own_config = {"configurable": {"thread_id": "own"}}
    own.invoke(copy.deepcopy(inputs[0]), own_config)
    expected = own.trace(None, own_config)
    assert steps_of(stepped_on) == steps_of(expected)
    assert dict(stepped_on.values) == app.invoke(None, config)


def test_the_converted_graph_steps_on_from_an_imported_thread() -> None:
    from graphkit import InMemorySaver

    convert = pytest.importorskip("graphkit.bridge.convert")
    app, config = langgraph_thread("persistence_graphs", "chain-interrupt-before-b")
    saver = InMemorySaver()
    save_thread(open_langgraph_thread(app, config), saver, "imported")
    converted = convert.from_langgraph(app, checkpointer=saver)
    result = converted.invoke(None, {"configurable": {"thread_id": "imported"}})
    assert result == app.invoke(None, config)


def test_a_resumed_interrupt_shows_the_answer_and_no_pause() -> None:
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, StateGraph
    from langgraph.types import Command, interrupt

    class State(TypedDict):
        log: Annotated[list, operator.add]

    def ask(state: State) -> State:
        return {"log": [interrupt("name?")]}

    builder = StateGraph(State).add_node("ask", ask).add_node("other", appender("other"))
    builder.add_edge(START, "ask").add_edge(START, "other")
    app = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"log": []}, config)
    paused = open_langgraph_thread(app, config)
    app.invoke(Command(resume="bob"), config)
    resumed = open_langgraph_thread(app, config)
    asked = {r.task.node: r for r in paused.steps[-1].execution.results}
    assert paused.status == "interrupted" and asked["ask"].interrupts
    assert asked["other"].writes == (("log", ["other"]),)  # finished before the pause
    answered = {r.task.node: r for r in resumed.steps[-1].execution.results}["ask"]
    assert resumed.status == "done" and answered.ok and answered.answers == ("bob",)
    assert resumed.values == app.get_state(config).values


def subruns_of(run: Any) -> list[Any]:
    """Each subgraph run of ``run``, depth first, as its steps (see ``steps_of``) after
    the input step: LangGraph saves the parent's whole state as a subgraph's input,
    graphkit only the subgraph's keys (see the docs)."""
    found = []
    for superstep in run.steps:
        for result in superstep.execution.results if superstep.execution is not None else ():
            for subrun in result.subruns:
                found.append((result.task.node, subrun.status, steps_of(subrun)[1:]))
                found.extend(subruns_of(subrun))
    return found


@pytest.mark.parametrize(
    "name",
    [
        "subgraph-shared-reducer",
        "subgraph-private-keys",
        "subgraph-two-levels",
        "subgraph-invoked-in-node",
    ],
)
def test_subgraph_runs_are_read_from_their_namespaces(name: str) -> None:
    pytest.importorskip("pandas")
    app, config = langgraph_thread("cases_subgraphs", name, durability="sync")
    run = open_langgraph_thread(app, config)
    expected = graphkit_run("cases_subgraphs", name, 0)
    assert subruns_of(run) and subruns_of(run) == subruns_of(expected)
    columns = ["step", "node", "call", "kept", "status", "steps"]
    table, reference = run.to_frame("subgraphs"), expected.to_frame("subgraphs")
    assert table[columns].to_dict("records") == reference[columns].to_dict("records")


def picky(old: list, new: list) -> list:
    raise ValueError(f"picky refuses {new!r}")


class Picky(TypedDict):
    log: Annotated[list, picky]


class Log(TypedDict):
    log: Annotated[list, operator.add]


def test_update_and_fork_steps_say_what_happened() -> None:
    """An update_state step shows the update's writes (saved by LangGraph against the
    checkpoint before it) as the __update__ task's; a replay's fork step runs nothing."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, StateGraph

    builder = StateGraph(Log).add_node("a", lambda s: {"log": ["a"]})
    builder = builder.add_node("b", lambda s: {"log": ["b"]}).add_edge(START, "a")
    app = builder.add_edge("a", "b").compile(checkpointer=InMemorySaver(), interrupt_before=["b"])
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"log": []}, config)
    app.update_state(config, {"log": ["u"]}, as_node="a")
    updated = open_langgraph_thread(app, config).steps[-1]
    assert [task.node for task in updated.plan.tasks] == ["__update__"]
    log = next(change for change in updated.update.changes if change.channel == "log")
    assert (log.writers, log.after) == (("__update__",), ["a", "u"])
    older = next(s for s in app.get_state_history(config) if s.metadata["step"] == 1)
    app.invoke(None, older.config)  # a replay: LangGraph saves a fork checkpoint first
    run = open_langgraph_thread(app, config)
    fork = next(s for s in run.steps if s.update.checkpoint.source == "fork")
    assert fork.plan.tasks == () and fork.execution.results == ()
    assert [s.step for s in run.steps if any(t.node == "b" for t in s.plan.tasks)] == [3]


def test_a_delta_channel_field_is_read_as_langgraph_rebuilt_it():
    """LangGraph saves a DeltaChannel field as its writes, not as a channel value: the
    imported thread holds the value LangGraph rebuilds, and a resume continues from it."""
    from langgraph.channels import DeltaChannel
    from langgraph.checkpoint.memory import InMemorySaver as TheirSaver
    from langgraph.graph import START, StateGraph

    from graphkit.bridge import from_langgraph, open_langgraph_thread, save_thread
    from graphkit.checkpoint import InMemorySaver

    def extend(value: list, writes: list) -> list:
        return [*value, *writes]

    fields = {"items": Annotated[list, DeltaChannel(extend)], "n": int}
    builder = StateGraph(TypedDict("State", fields))
    builder.add_node("a", lambda state: {"items": "a", "n": 1})
    builder.add_node("b", lambda state: {"items": "b", "n": 2})
    builder.add_edge(START, "a").add_edge("a", "b")
    app = builder.compile(checkpointer=TheirSaver(), interrupt_before=["b"])
    config = {"configurable": {"thread_id": "1"}}
    app.invoke({"items": ["in"], "n": 0}, config)
    saver = InMemorySaver()
    save_thread(open_langgraph_thread(app, config), saver, "t")
    ours = from_langgraph(app, checkpointer=saver)
    copied = {"configurable": {"thread_id": "t"}}
    assert ours.get_state(copied).values == app.get_state(config).values
    assert ours.invoke(None, copied) == app.invoke(None, config)


def test_a_subgraph_that_hands_off_to_its_parent_ends_before_the_handoff() -> None:
    """Difference 11 of the docs: LangGraph saves nothing for the subgraph step whose
    task returned ``Command(graph=Command.PARENT)``, so the imported subrun stops before
    it (``running``); graphkit's own run shows the step and its ``ParentCommand``."""
    import uuid

    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, StateGraph
    from langgraph.types import Command

    from graphkit import from_langgraph

    class State(TypedDict):
        log: Annotated[list, operator.add]

    def hand_off(state: State) -> Command:
        return Command(graph=Command.PARENT, goto="billing", update={"log": ["handed off"]})

    inner = StateGraph(State).add_node("think", lambda state: {"log": ["think"]})
    inner.add_node("hand_off", hand_off).add_edge(START, "think").add_edge("think", "hand_off")
    builder = StateGraph(State).add_node("triage", inner.compile(), destinations=("billing",))
    builder.add_node("billing", lambda state: {"log": ["billing"]}).add_edge(START, "triage")
    app = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": str(uuid.uuid4())}}
    app.invoke({"log": []}, config, durability="sync")

    imported = open_langgraph_thread(app, config).step(1).execution.results[0].subruns[0]
    own_run = from_langgraph(app).trace({"log": []}, {"configurable": {"thread_id": "own"}})
    own = own_run.step(1).execution.results[0].subruns[0]
    assert (imported.status, [step.plan.nodes for step in imported.steps][-1]) == (
        "running",
        ["think"],
    )
    assert (own.status, type(own.error).__name__, own.steps[-1].plan.nodes) == (
        "error",
        "ParentCommand",
        ["hand_off"],
    )
    # (the parent gets the command's update only: the subgraph's own "think" stays in it)
    assert own_run.values == app.get_state(config).values == {"log": ["handed off", "billing"]}


def test_why_on_a_thread_forked_by_update_state_names_the_edit() -> None:
    # open_langgraph_thread reads the fork's lineage with its __update__ step
    from typing import TypedDict as Typed

    from langgraph.checkpoint.memory import InMemorySaver as Saver
    from langgraph.graph import START as BEGIN
    from langgraph.graph import StateGraph as Graph

    from graphkit import open_langgraph_thread

    class N(Typed):
        n: int

    builder = Graph(N).add_node("a", lambda s: {"n": s["n"] + 1})
    builder.add_node("tools", lambda s: {"n": s["n"] * 10})
    app = builder.add_edge(BEGIN, "a").add_edge("a", "tools").compile(checkpointer=Saver())
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"n": 1}, config)
    before_a = [s for s in app.get_state_history(config) if s.next == ("a",)][-1]
    app.invoke(None, app.update_state(before_a.config, None))
    answer = open_langgraph_thread(app, config).why("tools").answers[0]
    assert answer.summary == (
        "tools ran at step 3 because a wrote branch:to:tools in step 2, after update_state "
        "edited the state in step 1."
    )
