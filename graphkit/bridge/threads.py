"""Read a thread LangGraph saved into graphkit's records: ``open_langgraph_thread``.

Everything is read through LangGraph's public API: ``get_state_history`` for the
snapshots (what each checkpoint planned next, and the tasks' errors and interrupts),
and the checkpointer's ``get_tuple`` for each checkpoint's channels, versions and the
writes its next tasks saved. Each pair of consecutive checkpoints (parent → child)
becomes one ``Superstep``:

- **Plan**: the tasks the parent checkpoint named (``next`` / ``tasks``);
- **Execution**: per task the writes saved against the parent checkpoint, and its error
  or interrupts; its attempts, start, duration and worker were not saved, so they are
  ``None`` (unknown), never made up;
- **Update**: one ``ChannelChange`` per channel whose version changed, from the
  parent's value to the child's.

The checkpoint with ``source == "input"`` becomes the input step. A thread that stopped
in the middle of a step (an error, an ``interrupt()``) ends with that step, without its
Update, as graphkit's own runs do. Only the lineage of the checkpoint the config names
(or the thread's latest) is read: forks made by replaying older checkpoints are left out.
A task that ran a subgraph gets that subgraph's run, read from the namespace LangGraph
saved it under, in ``TaskResult.subruns``. How the thread ended (its status, an error its
last Update raised) is read by ``graphkit.bridge.status``; ``save_thread`` (from
``graphkit.bridge.handover``, where it lives) copies an imported thread into a graphkit
saver, so the converted graph steps on from its last checkpoint.
LangGraph is imported only to turn its control-flow objects into graphkit's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from graphkit.bridge.calls import called_tasks
from graphkit.bridge.edits import edit_writes
from graphkit.bridge.handlers import handled_ids, handler_tasks
from graphkit.bridge.handover import interrupt_ids, save_thread
from graphkit.bridge.interop import to_graphkit
from graphkit.bridge.saved import (
    ERROR,
    INTERRUPT,
    RESUME,
    RETURN,
    SPECIAL,
    GraphInfo,
    SavedCheckpoint,
    SavedError,
    checkpointer_of,
    lineage,
    saved_error,
    version_number,
)
from graphkit.bridge.status import task_error, thread_status, update_error
from graphkit.bridge.unsaved import unsaved_writers
from graphkit.channels import EMPTY
from graphkit.checkpoint import Checkpoint
from graphkit.checkpoint.delta_map import DeltaMap
from graphkit.constants import PUSH, START, TASKS
from graphkit.errors import warn
from graphkit.pregel.config import loose_keys_configurable
from graphkit.pregel.records import (
    ChannelChange,
    Execution,
    Plan,
    Run,
    Superstep,
    Task,
    TaskResult,
    Update,
    path_text,
)
from graphkit.pregel.stepper import INPUT_TASK
from graphkit.unsaved import NotSaved

__all__ = [
    "UNKNOWN",
    "SavedError",
    "interrupt_ids",
    "open_langgraph_thread",
    "save_thread",
]

UPDATE_TASK = "__update__"
"""The task an imported ``update_state`` step shows (LangGraph does not save which node
the update was made as)."""

UNKNOWN: Any = None
"""What an imported task's ``attempts``, ``started``, ``duration`` and ``worker`` hold,
and its ``cached`` where a node cache may have served it: LangGraph does not save them,
so the records say nothing rather than invent them."""


def open_langgraph_thread(compiled: Any, config: Mapping[str, Any]) -> Run:
    """Read the thread ``config`` names from ``compiled``'s checkpointer (any LangGraph
    saver) and return it as a graphkit ``Run``: one superstep per checkpoint, oldest
    first, from the checkpoint ``config`` names (the thread's latest without one).

    >>> from typing import TypedDict
    >>> from langgraph.graph import StateGraph, START
    >>> from langgraph.checkpoint.memory import InMemorySaver
    >>> class State(TypedDict):
    ...     n: int
    >>> builder = StateGraph(State)
    >>> builder = builder.add_node("double", lambda state: {"n": state["n"] * 2})
    >>> app = builder.add_edge(START, "double").compile(checkpointer=InMemorySaver())
    >>> config = {"configurable": {"thread_id": "1"}}
    >>> app.invoke({"n": 3}, config)
    {'n': 6}
    >>> run = open_langgraph_thread(app, config)
    >>> run
    Run(steps=3, status='done')
    >>> [superstep.plan.nodes for superstep in run.steps]
    [['__input__'], ['__start__'], ['double']]
    >>> print(run.step(1).execution.results[0].duration)  # LangGraph saves no timing
    None
    """
    checkpointer_of(compiled)
    if not isinstance(config, Mapping):
        raise TypeError(
            f"open_langgraph_thread(app, config) reads the thread config names, got "
            f"{type(config).__name__}: pass {{'configurable': {{'thread_id': ...}}}}"
        )
    from graphkit.bridge.convert import check_langgraph_version

    check_langgraph_version()
    config = loose_keys_configurable(config)  # a top-level thread_id, as LangGraph's runs take it
    return read_run(compiled, GraphInfo.of(compiled, compiled), config)


def read_run(root: Any, info: GraphInfo, config: Mapping[str, Any]) -> Run:
    """The run of the graph ``info`` describes, saved under ``config``'s namespace
    (``""``: the root graph; ``"node:<task id>"``: a subgraph a task ran)."""
    chain = lineage(root, root.checkpointer, config, info)
    saved_in = str(config.get("configurable", {}).get("checkpoint_ns") or "")
    if chain[0].source not in ("input", "fork", "update"):  # its beginning was not saved
        warn(_history_starts_late(chain[0], saved_in))
    steps: list[Superstep] = []
    parent: SavedCheckpoint | None = None
    for child in chain:
        steps.append(_superstep(parent, child, info))
        parent = child
    last = chain[-1]
    ran_last = {task.name for task in chain[-2].snapshot.tasks} if len(chain) > 1 else set()
    status, error = thread_status(last, ran_last, info, lambda: _paused(last, info))
    trailing = _stopped_step(last, info)
    if trailing is not None:
        steps.append(trailing)
        if status == "running":  # every task finished: did the Update fail?
            error = update_error(last, trailing, info)
            status = "running" if error is None else "error"
    values = last.snapshot.values  # LangGraph's own reading (a reducer's initial [] too)
    if not isinstance(values, Mapping):
        values = {key: last.values[key] for key in info.state_keys if key in last.values}
    # (a subgraph compiled checkpointer=True is kept in its own thread, across calls:
    # LangGraph saves it under its node's name, not the task's namespace it was asked by)
    saved_in = str((last.snapshot.config.get("configurable") or {}).get("checkpoint_ns") or "")
    namespace = tuple(saved_in.split("|")) if saved_in else ()
    return Run(tuple(steps), values, status, error, namespace, info.state_keys, saved_in)


def _paused(last: SavedCheckpoint, info: GraphInfo) -> bool:
    """Whether a task of the step after ``last`` paused (an ``interrupt()``)."""
    return any(r.paused for r in _results(last, _started(last, _tasks(last, info), info), info))


def _history_starts_late(first: SavedCheckpoint, saved_in: str) -> str:
    where = f"The thread's namespace {saved_in!r}" if saved_in else "The thread"
    return (
        f"{where} begins with a checkpoint of step {first.step} (source "
        f"{first.source!r}), not with its input: the steps before it were not saved "
        "(a run with durability='exit' saves only its last checkpoint), so the Run starts "
        "from that state and cannot show which node wrote it. Run with durability='sync' "
        "(or the default) to keep every step."
    )


# -- building the records -----------------------------------------------------------------


def _checkpoint(saved: SavedCheckpoint | None) -> Checkpoint:
    if saved is None:
        return Checkpoint.empty()
    parent = saved.snapshot.parent_config
    seen = saved.checkpoint.get("versions_seen") or {}
    created = saved.snapshot.created_at
    # the values as saved, a consumed barrier's set() and topic's [] too, as graphkit
    # saves them (``saved.values`` leaves those out: the changes read them as empty)
    raw = saved.checkpoint.get("channel_values") or {}
    emptied = {
        key: to_graphkit(value)
        for key, value in raw.items()
        if key not in saved.values and _emptied(value)
    }
    return Checkpoint(
        saved.id,
        saved.step,
        saved.source,
        parent["configurable"].get("checkpoint_id") if parent else None,
        DeltaMap({**saved.values, **emptied}),
        DeltaMap({k: v for k, v in saved.versions().items() if v is not None}),
        DeltaMap(
            {node: {k: version_number(v) or 0 for k, v in by.items()} for node, by in seen.items()}
        ),
        frozenset(saved.checkpoint.get("updated_channels") or ()),
        datetime.fromisoformat(created).timestamp() if created else 0.0,
    )


def _emptied(value: Any) -> bool:
    """A consumed barrier's or topic's saved state: ``set()``, ``[]``, or a deferred
    barrier's ``(set(), False)`` (a list, as LangGraph's serializer gives it back). A
    barrier part-way is left out: under ``durability="async"`` LangGraph may save it
    after the next step has added to it."""
    if isinstance(value, list | tuple) and len(value) == 2 and value[1] is False:
        value = value[0]
    return isinstance(value, set | frozenset | list) and not value


def _input_task(child: SavedCheckpoint, step: int) -> Task:
    given = child.values.get(START, EMPTY)
    return Task(INPUT_TASK, step, INPUT_TASK, "input", (INPUT_TASK,), (), given)


def _tasks(saved: SavedCheckpoint, info: GraphInfo) -> tuple[Task, ...]:
    """The tasks ``saved`` planned for the next step, with why each was planned."""
    step = saved.step + 1
    values, versions = saved.values, saved.versions()
    seen = saved.checkpoint.get("versions_seen") or {}
    sends = values.get(TASKS) or ()
    tasks = []
    for planned in saved.snapshot.tasks:
        path = tuple(planned.path)
        if path and path[0] == PUSH:
            index = path[1] if len(path) > 1 and isinstance(path[1], int) else None
            arg = (
                getattr(sends[index], "arg", EMPTY)
                if index is not None and index < len(sends)
                else EMPTY
            )
            tasks.append(Task(planned.id, step, planned.name, "push", path, (PUSH,), arg))
            continue
        node_seen = seen.get(planned.name) or {}
        fired = {
            channel: versions[channel] or 0
            for channel in info.triggers.get(planned.name, ())
            if channel in values
            and (version_number(versions.get(channel)) or 0)
            > (version_number(node_seen.get(channel)) or 0)
        }
        given = info.node_input(planned.name, values)
        tasks.append(Task(planned.id, step, planned.name, "pull", path, tuple(fired), given, fired))
    return tuple(tasks)


def _results(
    saved: SavedCheckpoint, tasks: Sequence[Task], info: GraphInfo, completed: bool = False
) -> tuple[TaskResult, ...]:
    """What each planned task did, from the writes saved against ``saved`` (``completed``:
    the step's Update was saved, so each of its tasks had finished)."""
    by_id = {planned.id: planned for planned in saved.snapshot.tasks}
    handed = {t.parent for t in tasks if t.kind == "error_handler"}
    root = not (saved.snapshot.config.get("configurable") or {}).get("checkpoint_ns")
    # a sibling with nothing saved beside a task that raised need not have been killed:
    # durability="exit" saves, when a task fails, only the writes of those that finished
    failed = tuple(
        dict.fromkeys(
            task.node
            for task in tasks
            if task.id not in handed
            and (
                any(t == task.id and c == ERROR for t, c, _ in saved.pending_writes)
                or getattr(by_id.get(task.id), "error", None) is not None
            )
        )
    )
    results = []
    for task in tasks:
        writes = [(c, v) for t, c, v in saved.pending_writes if t == task.id]
        planned = by_id.get(task.id)
        # a called task's error may be its caller's to catch, so its step goes on
        error, earlier = task_error(writes, planned, completed and task.kind != "call")
        if earlier is not None:  # a failed run's error, the task ran again after it
            writes = [(c, v) for c, v in writes if c != ERROR]
        # A task resumed past its interrupt() keeps the interrupt saved; it paused only
        # while it has no other outcome. Each resume write holds a list of answers.
        finished = any(c not in (INTERRUPT, RESUME) for c, _ in writes)
        interrupts = () if finished else tuple(getattr(planned, "interrupts", ()) or ())
        answers = [a for c, v in writes if c == RESUME for a in (v if isinstance(v, list) else [v])]
        subruns = info.subruns(planned) if planned is not None else ()
        # a subgraph that stopped at its own breakpoint pauses its task with no interrupt
        stopped = not writes and any(run.status == "interrupted" for run in subruns)
        # the cache may have served a task that finished (it holds no error, no interrupt)
        ran = error is not None or interrupts or answers or stopped
        cached = UNKNOWN if task.node in info.cached and not ran else False
        # paused, yet its step's Update was saved: a run with durability="exit" resumed it
        # and saved neither its answer nor its writes
        resumed = completed and bool(interrupts) and not answers
        interrupts = () if resumed else interrupts
        # a finished task saves a write at least (a marker when it wrote none): none was
        # saved when the process ended first (still running, or a background save pending)
        unsaved = not writes and error is None and not interrupts and not stopped
        if resumed:
            output: Any = NotSaved(True, resumed=True)
        elif unsaved:
            output = NotSaved(completed, failed)
        else:
            output = _output(task, planned, root, writes)
        results.append(
            TaskResult(
                task,
                tuple((c, v) for c, v in writes if _shown(task, c, info)),
                output=output,
                error=saved_error(error) if error is not None else None,
                attempts=UNKNOWN,
                failed_attempts=(saved_error(earlier),) if earlier is not None else (),
                started=UNKNOWN,
                duration=UNKNOWN,
                worker=UNKNOWN,
                subruns=subruns,
                interrupts=interrupts,
                answers=tuple(answers),
                paused=bool(interrupts) or stopped,
                cached=cached,
                handled=error is not None and task.id in handed,
            )
        )
    return tuple(results)


def _shown(task: Task, channel: str, info: GraphInfo) -> bool:
    """Whether a task's saved write is one the records show: a write to the graph's
    channels, and a called task's ``__return__`` (its result, as graphkit's own run
    shows it)."""
    if task.kind == "call" and channel == RETURN:
        return True
    return channel not in SPECIAL and info.known(channel)


def _output(task: Task, planned: Any, root: bool, writes: Sequence[tuple[str, Any]]) -> Any:
    """What the task's node returned. LangGraph saves what a task wrote to the state's
    keys (``PregelTask.result``); a root run's ``__start__`` returns the run's input
    whole, so an input key the state lacks, dropped on the way, shows as in graphkit's
    own run. A subgraph's is given its parent's whole state, whose other keys it leaves
    out as graphkit's subrun does: no word of them. A called task's is its
    ``__return__`` write."""
    if task.node == START and task.kind == "pull" and root and isinstance(task.input, Mapping):
        return task.input
    if task.kind == "call":
        return next((v for c, v in writes if c == RETURN), None)
    if task.kind == "error_handler":  # (no snapshot plans it: its writes to the state)
        return {c: v for c, v in writes if c not in SPECIAL and not c.startswith("branch:")}
    return getattr(planned, "result", None)


def _changes(
    parent: SavedCheckpoint | None,
    child: SavedCheckpoint,
    results: tuple[TaskResult, ...],
    info: GraphInfo,
    editor: str | None = None,
) -> tuple[ChannelChange, ...]:
    """Each channel whose version changed from ``parent`` to ``child``: written ones in
    the order their writes apply (task path order), then the runtime's, by name (or,
    for a state edit, ``editor``'s, whose write's value is not known, but for the
    channels the edit left empty: cleared by the runtime)."""
    before_values = parent.values if parent is not None else {}
    before_versions = parent.versions() if parent is not None else {}
    after_values, after_versions = child.values, child.versions()
    written: dict[str, tuple[list[str], list[Any]]] = {}
    for result in sorted(results, key=lambda r: path_text(r.task.path)):
        for channel, value in result.writes:
            writers, values = written.setdefault(channel, ([], []))
            writers.append(result.task.node)
            values.append(value)
    changed = [c for c in after_versions if after_versions[c] != before_versions.get(c)]
    order = [c for c in written if c in changed] + sorted(c for c in changed if c not in written)
    # the tasks whose writes were not saved made what no saved write explains
    unsaved = [
        r.task.node
        for r in results
        if isinstance(r.output, NotSaved) and r.output.start is None  # (not a stand-in)
    ]
    # the __input__ task that stands in for steps LangGraph did not save: what they wrote
    # has no known writer (not the runtime's), and each change says so
    stand_in = next(
        (
            r.output
            for r in results
            if isinstance(r.output, NotSaved) and r.output.start is not None
        ),
        None,
    )
    changes = []
    for channel in order:
        writers, values = written.get(channel, ([], []))
        if unsaved and editor is None and channel in after_values:
            writers, values = unsaved_writers(channel, (writers, values), unsaved, info.writes)
        # (a channel left empty was consumed, as a step's triggers are: the runtime's)
        if (
            editor is not None
            and not writers
            and channel not in SPECIAL
            and channel in after_values
        ):
            writers = [editor]
        changes.append(
            ChannelChange(
                channel,
                before_values[channel] if channel in before_values else info.initial(channel),
                after_values.get(channel, EMPTY),
                before_versions.get(channel),
                after_versions[channel] or 0,
                tuple(writers),
                tuple(values),
                info.reducers.get(channel, "unknown"),
                stand_in if not writers and channel in after_values else None,
            )
        )
    return tuple(changes)


def _superstep(
    parent: SavedCheckpoint | None, child: SavedCheckpoint, info: GraphInfo
) -> Superstep:
    """The step that led from ``parent`` to ``child``."""
    step = child.step
    if parent is None and child.source not in ("input", "fork", "update"):
        # (its beginning was not saved: the input task stands in for the steps up to it)
        task = _input_task(child, step)
        results: tuple[TaskResult, ...] = (_unsaved_start(task, step, _ran(child)),)
        tasks: tuple[Task, ...] = (task,)
    elif parent is None or child.source == "input":
        task = _input_task(child, step)
        writes = ((START, task.input),) if task.input is not EMPTY else ()
        results, tasks = (TaskResult(task, writes),), (task,)
    elif child.source == "update":
        tasks, results = _update_task(parent, child, step, info)
    elif child.source == "fork":  # a replay copied its parent: nothing ran
        tasks, results = (), ()
    elif child.step > parent.step + 1:
        # (a later run, with durability="exit", saved only its last checkpoint: the input
        # task stands in for its steps, as for a thread whose beginning was not saved)
        task = _input_task(child, step)
        ran = _ran(child, parent)
        results, tasks = (_unsaved_start(task, step, ran, after=parent.step),), (task,)
    else:
        tasks = _tasks(parent, info)
        results = _results(parent, _started(parent, tasks, info), info, completed=True)
    # (every channel an edit changed is the edit's, its written value known or not)
    editor = UPDATE_TASK if child.source == "update" and parent is not None else None
    changes = _changes(parent, child, results, info, editor)
    checkpoint = _checkpoint(child)
    updated = checkpoint.updated_channels or frozenset(change.channel for change in changes)
    update = Update(step, changes, updated, checkpoint)
    execution = Execution(step, results, tuple(r.task.id for r in results))
    return Superstep(step, Plan(step, tasks), execution, update, _checkpoint(parent))


def _unsaved_start(
    task: Task, step: int, ran: tuple[str, ...], after: int | None = None
) -> TaskResult:
    """The input task of a thread whose first saved checkpoint is step ``step``'s (or
    whose step ``after`` was saved, then none until ``step``): it ran nothing; what the
    steps before did is not saved (not "wrote nothing"), only which nodes ran in them
    (``ran``)."""
    unknown: Any = UNKNOWN
    return TaskResult(
        task,
        (),
        output=NotSaved(True, start=step, ran=ran, after=after),
        attempts=unknown,
        started=unknown,
        duration=unknown,
        worker=unknown,
    )


def _ran(saved: SavedCheckpoint, since: SavedCheckpoint | None = None) -> tuple[str, ...]:
    """The nodes ``saved`` says ran before it (after ``since``: those that have seen
    other versions since): each has seen a version of its triggers (the runtime's own
    entries, the input's and interrupts' bookkeeping, left out)."""
    seen = saved.checkpoint.get("versions_seen") or {}
    before = (since.checkpoint.get("versions_seen") or {}) if since is not None else {}
    return tuple(
        n
        for n, by in seen.items()
        if by and by != before.get(n) and (n == START or not n.startswith("__"))
    )


def _update_task(
    parent: SavedCheckpoint | None, child: SavedCheckpoint, step: int, info: GraphInfo
) -> tuple[tuple[Task, ...], tuple[TaskResult, ...]]:
    """An ``update_state`` step: the writes saved against the parent checkpoint under a
    task id no planned task has, else the writes that made each channel it changed
    (``edit_writes``: LangGraph saves none for an edit of an older checkpoint); which
    node it was made as is not saved."""
    saved = parent.pending_writes if parent is not None else ()
    planned = {task.id for task in parent.snapshot.tasks} if parent is not None else set()
    writes = tuple(
        (channel, value)
        for task_id, channel, value in saved
        if task_id not in planned and channel not in SPECIAL and info.known(channel)
    )
    if not writes:
        before = parent.values if parent is not None else {}
        before_versions = parent.versions() if parent is not None else {}
        versions = child.versions()
        changed = [c for c in versions if versions[c] != before_versions.get(c)]
        changed = [c for c in changed if c not in SPECIAL and info.known(c)]
        writes = edit_writes(before, child.values, changed, info.channels)
    values = dict(writes)
    task = Task(UPDATE_TASK, step, UPDATE_TASK, "update", (UPDATE_TASK,), (), values)
    return (task,), (TaskResult(task, writes),)


def _stopped_step(last: SavedCheckpoint, info: GraphInfo) -> Superstep | None:
    """The step the thread stopped in (a task failed or paused), without an Update; None
    when no task of the next step ran (finished, or paused before the step)."""
    tasks = _tasks(last, info)
    if not tasks:
        return None
    results = _results(last, _started(last, tasks, info), info)
    if not any(r.writes or r.error is not None or r.paused for r in results):
        return None
    step = last.step + 1
    execution = Execution(step, results, ())
    return Superstep(step, Plan(step, tasks), execution, None, _checkpoint(last))


def _started(saved: SavedCheckpoint, tasks: tuple[Task, ...], info: GraphInfo) -> tuple[Task, ...]:
    """The planned ``tasks``, then those started while their step ran: each error
    handler that took over a failure, and each ``@task`` call (functional API)."""
    handlers = handler_tasks(saved, tasks, info.handlers) if handled_ids(saved) else ()
    return (*tasks, *handlers, *called_tasks(saved, tasks, info.calls))
