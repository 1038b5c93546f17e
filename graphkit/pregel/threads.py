"""Threads: everything between a run and its checkpointer, in one place.

``open_thread`` finds where a run starts (a new input step, or a saved checkpoint it
resumes, forking a new branch when that is not the thread's latest); ``ThreadLink``
saves each Update's checkpoint and each finished task's writes; ``get_state``,
``get_state_history`` and ``update_state`` read and edit a thread, as in LangGraph.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from graphkit.checkpoint import Checkpoint, checkpoint_config
from graphkit.checkpoint.base import new_checkpoint_id
from graphkit.checkpoint.saver import BaseCheckpointSaver, CheckpointTuple, config_key
from graphkit.constants import BRANCH_CHANNEL_PREFIX, END, INTERRUPT, START, TASKS
from graphkit.diagnostics import threads as diagnose
from graphkit.errors import EmptyInputError, InvalidUpdateError, warn
from graphkit.pregel import phases
from graphkit.pregel.config import carried_metadata
from graphkit.pregel.records import Plan, Task, TaskResult, Update
from graphkit.pregel.runtime import NO_ANSWER, Resume, TaskScope
from graphkit.pregel.spec import GraphSpec, shown
from graphkit.types import Command, Send, StateUpdate

if TYPE_CHECKING:
    from graphkit.pregel.app import CompiledGraph

__all__ = [
    "INTERRUPT",
    "Opening",
    "PregelTask",
    "StateSnapshot",
    "StateUpdate",
    "ThreadLink",
    "abulk_update_state",
    "aget_state",
    "aget_state_history",
    "aupdate_state",
    "bulk_update_state",
    "get_state",
    "get_state_history",
    "open_thread",
    "restore",
    "update_state",
]

ANSWERS = "__resume__"
ERROR = "__error__"
NO_WRITES = "__no_writes__"
"""Saved for a task that finished without writing, so a resume knows it finished."""
SPECIAL = (INTERRUPT, ANSWERS, ERROR)
DURABILITY = ("sync", "async", "exit")
COPY, INPUT_NODE = "__copy__", "__input__"
"""``as_node`` values of ``bulk_update_state`` that fork the checkpoint, or write an input."""


# -- saving ------------------------------------------------------------------------------


class ThreadLink:
    """Saves one run's checkpoints and task writes to one thread of a checkpointer;
    with ``durability="exit"`` only the last checkpoint and its writes, when the run stops."""

    def __init__(
        self,
        saver: BaseCheckpointSaver,
        config: Mapping[str, Any],
        namespace: str = "",
        durability: str | None = None,
        outer: ThreadLink | None = None,
    ) -> None:
        thread_id = config_key(config, "thread_id")
        if thread_id is None:
            raise ValueError(diagnose.no_thread_id())
        durability = durability or "async"
        if durability not in DURABILITY:
            raise ValueError(diagnose.bad_durability(durability, DURABILITY))
        self.saver, self.durability, self.namespace = saver, durability, namespace
        # a subgraph's own thread ("node", no task id) keeps its state like a root run
        self._nested = any(":" in part for part in namespace.split("|"))
        self.thread_id = str(thread_id)
        self.requested_id: str | None = config_key(config, "checkpoint_id")
        # saved with each checkpoint, after (and never instead of) source, step, parents
        carried = carried_metadata(config).items()
        self.metadata = {k: v for k, v in carried if k not in ("source", "step", "parents")}
        # a subgraph's checkpoints name the checkpoint each enclosing run was at
        self.parents = {**outer.parents, outer.namespace: outer.checkpoint_id} if outer else {}
        self.checkpoint_id: str | None = None
        self.thread_config = {
            "configurable": {"thread_id": self.thread_id, "checkpoint_ns": namespace}
        }
        self.config: dict[str, Any] = self.thread_config
        """The config of the checkpoint saved (or loaded) last."""
        self.last_metadata: dict[str, Any] = {}
        self._last_saved: str | None = None
        self._held: tuple[Checkpoint, dict[str, Any], dict[str, int]] | None = None
        self._held_writes: list[tuple[str, list[tuple[str, Any]]]] = []

    def load(self) -> CheckpointTuple | None:
        """The checkpoint the run starts from: the one the config names, or the latest."""
        wanted = checkpoint_config(self.thread_id, self.namespace, self.requested_id)
        saved = self.saver.get_tuple(wanted)
        if saved is None and self.requested_id is not None:
            raise diagnose.missing_checkpoint(self.saver, self.thread_config, self.requested_id)
        if saved is not None:
            self.config, self._last_saved = dict(saved.config), saved.checkpoint.id
            self.checkpoint_id = saved.checkpoint.id
            self.last_metadata = dict(saved.metadata)
        return saved

    def save_checkpoint(self, checkpoint: Checkpoint, new_versions: Mapping[str, int]) -> None:
        """Save a checkpoint; the writes saved from now on belong to it."""
        own = {"source": checkpoint.source, "step": checkpoint.step, "parents": self.parents}
        self.last_metadata, self.checkpoint_id = own, checkpoint.id
        metadata = {**own, **self.metadata}
        self._held_writes = []
        if self.durability == "exit":
            self._held = (checkpoint, metadata, dict(new_versions))
            return
        self.config = self.saver.put(self.config, checkpoint, metadata, new_versions)
        self._last_saved = checkpoint.id

    def save_step(self, update: Update) -> None:
        """Save the checkpoint an Update made."""
        versions = {change.channel: change.version_after for change in update.changes}
        self.save_checkpoint(update.checkpoint, versions)

    def save_task(self, result: TaskResult) -> None:
        """Save a finished task's writes (or its interrupt, with the answers its
        ``interrupt()`` calls got so far, or its error's repr) against its step's
        checkpoint, so that a resumed run does not run it again."""
        if result.reused:
            return
        if result.interrupts:
            answers = [(ANSWERS, list(result.answers))] if result.answers else []
            writes = [(INTERRUPT, list(result.interrupts)), *answers]
        elif result.error is not None:
            writes = [(ERROR, repr(result.error))]
        else:
            writes = list(result.writes) or [(NO_WRITES, None)]
        if self.durability == "exit":
            self._held_writes.append((result.task.id, writes))
        else:
            self.saver.put_writes(self.config, writes, result.task.id)

    def close(self, status: str = "done") -> None:
        """Save what durability "exit" held back. As in LangGraph, a subgraph run that
        finished saves nothing (its parent's checkpoint has its result); one that stopped
        (interrupted, failed) saves, so that a resumed run finds where it was."""
        if self._nested and status == "done":
            self._held, self._held_writes = None, []
        if self._held is not None:
            checkpoint, metadata, versions = self._held
            self._held = None
            # the steps in between were never saved: the parent is the last one that was
            checkpoint = replace(checkpoint, parent_id=self._last_saved)
            self.config = self.saver.put(self.config, checkpoint, metadata, versions)
            self._last_saved = checkpoint.id
        for task_id, writes in self._held_writes:
            self.saver.put_writes(self.config, writes, task_id)
        self._held_writes = []


# -- starting a run ----------------------------------------------------------------------


def restore(graph: GraphSpec, checkpoint: Checkpoint) -> phases.StepState:
    """The live state a saved checkpoint describes, ready for the next Plan: a fresh
    state given the checkpoint's channel values, versions and versions seen."""
    state = phases.StepState.fresh(graph, checkpoint.step + 1)
    channels, versions = state.channels, dict(checkpoint.channel_versions)
    for key, value in checkpoint.channel_values.items():
        if key in channels:
            channel = channels[key] = channels[key].from_checkpoint(value)
            if channel.volatile and channel.is_available():
                state.live_volatile.add(key)
    state.versions, state.max_version = versions, max(versions.values(), default=0)
    state.versions_seen = {node: dict(seen) for node, seen in checkpoint.versions_seen.items()}
    state.updated_channels, state.checkpoint = checkpoint.updated_channels, checkpoint
    return state


@dataclass(slots=True)
class Opening:
    """Where a run starts: the state, the input step's value, the tasks a new input
    replaces (they count as having seen their triggers), the saved task writes, the
    answers for ``interrupt()``, and whether the subgraphs its tasks start resume theirs."""

    state: phases.StepState
    input: Any
    resuming: bool
    pending: list[Any]
    discarded: tuple[Task, ...]
    resume: Resume | None
    answers: dict[str, tuple[Any, ...]]
    resumes_subgraphs: bool
    command_writes: list[tuple[str, Any]]
    """A ``Command`` input's writes, made before anything runs: on a new thread its
    update (its START task routes its goto), on a saved one its update and goto."""


def thread_link(
    checkpointer: BaseCheckpointSaver | None,
    config: Any,
    durability: str | None,
    parent: TaskScope | None,
) -> ThreadLink | None:
    """Where a run saves: its checkpointer's thread, its parent run's (a subgraph), or nowhere."""
    namespace = "|".join(parent.namespace) if parent is not None else ""
    outer = parent.run.thread if parent is not None else None
    if checkpointer is None and outer is not None:
        checkpointer, durability = outer.saver, outer.durability
        # the parent's thread, and what the task's config carries into metadata
        configurable = {**config.get("configurable", {}), "thread_id": outer.thread_id}
        configurable.pop("checkpoint_id", None)
        config = {**config, "configurable": configurable}
    if checkpointer is None:
        return None
    return ThreadLink(checkpointer, config, namespace, durability, outer)


def open_thread(
    graph: GraphSpec, thread: ThreadLink | None, parent: TaskScope | None, input: Any
) -> Opening:
    """Load the thread's checkpoint, if any, and decide what the run does with
    ``input``: apply it as a new input step, or resume (None / ``Command(resume=...)``)."""
    answer, writes = NO_ANSWER, []
    if isinstance(input, Command):
        if input.graph is not None:
            raise InvalidUpdateError(diagnose.command_input_to_parent(input))
        answer, writes = input.resume, command_input_writes(input)
    saved = thread.load() if thread is not None else None
    outer = parent.run if parent is not None else None
    outer_resumes = outer is not None and outer.resuming
    if outer_resumes and saved is not None:
        input, writes = None, []  # the parent resumes, so this subgraph resumes where it paused
    if saved is None and isinstance(input, Command):
        answer = NO_ANSWER
        if writes:  # a new input step: START reads the Command, as in LangGraph
            writes = [(key, value) for key, value in writes if not _is_route(key)]
        else:
            if thread is not None and outer is None:
                warn(diagnose.nothing_to_resume(thread.thread_id))
            input = {}  # LangGraph runs the new thread with no input
    resuming = input is None or (isinstance(input, Command) and saved is not None)
    pending: list[Any] = list(saved.pending_writes) if saved is not None else []
    discarded: tuple[Task, ...] = ()
    if saved is None:
        if resuming:
            raise EmptyInputError(diagnose.no_input())
        state = phases.StepState.fresh(graph)
    else:
        state = restore(graph, saved.checkpoint)
        if not resuming:  # a new input replaces what the thread was about to run
            discarded = phases.plan(graph, state).tasks
        else:
            state.pass_breakpoints()
            # LangGraph returns a finished thread's state and drops the answer silently
            answered = isinstance(input, Command) and outer is None and not (pending or writes)
            if answered and not phases.plan(graph, state).tasks:
                warn(diagnose.finished_thread(thread.thread_id, state.checkpoint.id))
            latest = thread.saver.get_tuple(thread.thread_config)
            if latest is None or latest.checkpoint.id != saved.checkpoint.id:
                thread.save_checkpoint(state.fork(), {})  # replaying starts a new branch
                pending = []
    waiting = sum(len(value) for _, channel, value in pending if channel == INTERRUPT)
    if waiting > 1 and answer is not NO_ANSWER and not isinstance(answer, dict):
        raise RuntimeError(diagnose.several_interrupts())
    resume = None  # nothing can answer an interrupt without a thread
    if thread is not None:
        resume = Resume(answer)
        if outer is not None and outer.resume is not None and answer is NO_ANSWER:
            resume = outer.resume  # the answers the whole run was resumed with
    answers = {task: tuple(value) for task, channel, value in pending if channel == ANSWERS}
    resumes_subgraphs = thread is not None and (resuming or outer_resumes)
    return Opening(
        state, input, resuming, pending, discarded, resume, answers, resumes_subgraphs, writes
    )


def command_input_writes(command: Command) -> list[tuple[str, Any]]:
    """The writes a ``Command`` given as a run's input makes, as LangGraph's: each goto
    target wakes its node (or sends its packet), then each update key is written.

    >>> command_input_writes(Command(update={"x": 1}, goto="b"))
    [('branch:to:b', '__start__'), ('x', 1)]
    """
    writes: list[tuple[str, Any]] = []
    for target in command.destinations():
        if isinstance(target, Send):
            writes.append((TASKS, target))
        elif isinstance(target, str):
            if target != END:
                writes.append((f"{BRANCH_CHANNEL_PREFIX}{target}", START))
        else:
            raise TypeError(diagnose.bad_input_goto(target))
    update = command.update
    if isinstance(update, dict):
        writes += update.items()
    elif isinstance(update, (list, tuple)):
        writes += update
    elif update is not None:
        writes += vars(update).items()
    return writes


def _is_route(channel: str) -> bool:
    return channel == TASKS or channel.startswith(BRANCH_CHANNEL_PREFIX)


def reusable_results(plan: Plan, pending: Sequence[Any]) -> dict[str, TaskResult]:
    """The plan's tasks that finished before the run stopped, their saved writes to reuse."""
    finished: dict[str, list[tuple[str, Any]]] = {}
    for task_id, channel, value in pending:
        if channel not in SPECIAL:  # a task resumed past an interrupt keeps it saved
            writes = finished.setdefault(task_id, [])
            if channel != NO_WRITES:
                writes.append((channel, value))
    tasks = [task for task in plan.tasks if task.id in finished]
    return {task.id: TaskResult(task, tuple(finished[task.id]), reused=True) for task in tasks}


# -- reading and editing a thread --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PregelTask:
    """A task of a saved step, with LangGraph's fields: finished (``result``), failed
    (``error``), paused (``interrupts``) or not run yet."""

    id: str
    name: str
    path: tuple[Any, ...]
    error: Any = None
    interrupts: tuple[Any, ...] = ()
    state: Any = None
    result: Any = None


@dataclass(frozen=True, slots=True)
class StateSnapshot:
    """The state of a thread at one checkpoint, as ``get_state`` returns it."""

    values: dict[str, Any]
    next: tuple[str, ...]
    config: dict[str, Any]
    metadata: dict[str, Any] | None
    created_at: str | None
    parent_config: dict[str, Any] | None
    tasks: tuple[PregelTask, ...]
    interrupts: tuple[Any, ...] = ()


def _saver(app: CompiledGraph) -> BaseCheckpointSaver:
    if app.checkpointer is None:
        raise ValueError(diagnose.no_checkpointer())
    return app.checkpointer  # type: ignore[no-any-return]


def get_state(app: CompiledGraph, config: Mapping[str, Any]) -> StateSnapshot:
    """The thread's latest state (or the checkpoint ``config`` names)."""
    return _state_of(app, config, _saver(app).get_tuple(config))


async def aget_state(app: CompiledGraph, config: Mapping[str, Any]) -> StateSnapshot:
    """``get_state`` reading through the saver's async ``aget_tuple``."""
    saved = await _saver(app).aget_tuple(config)
    if saved is None and config_key(config, "checkpoint_id"):  # the error lists the thread
        return await asyncio.to_thread(_state_of, app, config, None)
    return _state_of(app, config, saved)


def _state_of(
    app: CompiledGraph, config: Mapping[str, Any], saved: CheckpointTuple | None
) -> StateSnapshot:
    checkpoint_id = config_key(config, "checkpoint_id")
    if saved is None and checkpoint_id:  # LangGraph returns an empty snapshot here
        raise diagnose.missing_checkpoint(_saver(app), config, checkpoint_id)
    if saved is None:
        return StateSnapshot({}, (), dict(config), None, None, None, ())
    return snapshot(app.spec, saved, apply_pending=not checkpoint_id)


def get_state_history(
    app: CompiledGraph, config: Mapping[str, Any], **options: Any
) -> Iterator[StateSnapshot]:
    """The thread's checkpoints as snapshots, newest first (``filter``, ``before``, ``limit``)."""
    for saved in _saver(app).list(config, **options):
        yield snapshot(app.spec, saved, apply_pending=False)


async def aget_state_history(
    app: CompiledGraph, config: Mapping[str, Any], **options: Any
) -> AsyncIterator[StateSnapshot]:
    """``get_state_history`` reading through the saver's async ``alist``."""
    async for saved in _saver(app).alist(config, **options):
        yield snapshot(app.spec, saved, apply_pending=False)


def snapshot(graph: GraphSpec, saved: CheckpointTuple, apply_pending: bool) -> StateSnapshot:
    """A checkpoint as ``get_state`` shows it; ``apply_pending`` applies finished tasks' writes."""
    state = restore(graph, saved.checkpoint)
    plan = phases.plan(graph, state)
    finished = reusable_results(plan, saved.pending_writes)
    applied = finished if apply_pending else {}
    first: dict[tuple[str, str], Any] = {}  # each task's first saved write per channel
    for task_id, channel, value in saved.pending_writes:
        first.setdefault((task_id, channel), value)
    keys, tasks = graph.stream_keys, []
    for task in plan.tasks:
        paused = () if task.id in applied else tuple(first.get((task.id, INTERRUPT), ()))
        result = finished.get(task.id)
        written = {c: v for c, v in result.writes if c in keys} if result is not None else None
        written = shown(keys, written) if written is not None else None
        error = first.get((task.id, ERROR))
        tasks.append(PregelTask(task.id, task.node, task.path, error, paused, result=written))
    if applied:
        phases.update(graph, state, list(applied.values()))
    created = datetime.fromtimestamp(saved.checkpoint.created_at, UTC).isoformat()
    return StateSnapshot(
        shown(graph.state_keys, state.read(graph.state_keys)),
        tuple(task.node for task in plan.tasks if task.id not in applied),
        saved.config,
        saved.metadata,
        created,
        saved.parent_config,
        tuple(tasks),
        tuple(interrupt for task in tasks for interrupt in task.interrupts),
    )


def update_state(
    app: CompiledGraph, config: Mapping[str, Any], values: Any, as_node: str | None = None
) -> dict[str, Any]:
    """Apply ``values`` as if ``as_node`` (default: the node that ran last, as in
    LangGraph) had returned them, without calling it, as a new checkpoint
    (``source="update"``); on an older checkpoint that starts a new branch."""
    return bulk_update_state(app, config, [[StateUpdate(values, as_node)]])


def bulk_update_state(
    app: CompiledGraph, config: Mapping[str, Any], supersteps: Sequence[Sequence[Any]]
) -> dict[str, Any]:
    """Apply each superstep's updates together, as one step and one checkpoint, one
    superstep after the other; returns the config of the last checkpoint. Special
    ``as_node`` values, as in LangGraph: ``END`` with ``None`` ends the pending tasks,
    ``"__input__"`` writes a new input, ``"__copy__"`` forks the checkpoint."""
    saver = _saver(app)
    if not supersteps:
        raise ValueError(diagnose.no_supersteps())
    if any(len(updates) == 0 for updates in supersteps):
        raise ValueError(diagnose.no_updates())
    for updates in supersteps:
        config = _update_superstep(app, saver, config, list(updates))
    return dict(config)


async def aupdate_state(
    app: CompiledGraph, config: Mapping[str, Any], values: Any, as_node: str | None = None
) -> dict[str, Any]:
    """``update_state`` off the event loop (see ``abulk_update_state``)."""
    return await abulk_update_state(app, config, [[StateUpdate(values, as_node)]])


async def abulk_update_state(
    app: CompiledGraph, config: Mapping[str, Any], supersteps: Sequence[Sequence[Any]]
) -> dict[str, Any]:
    """``bulk_update_state`` in a worker thread: an update reads, applies and saves in
    one go, and running that one implementation there (as the saver's async methods run
    theirs) keeps the event loop free without a second, async copy of it."""
    return await asyncio.to_thread(bulk_update_state, app, config, supersteps)


def _special(update: Any) -> tuple[Any, Any]:
    """(values, as_node) of an update: all LangGraph reads of END, input and copy updates."""
    if isinstance(update, Sequence) and not isinstance(update, str) and len(update) >= 2:
        return update[0], update[1]
    return None, None


def _as_update(update: Any) -> StateUpdate:
    if isinstance(update, StateUpdate):
        return update
    if not isinstance(update, Sequence) or len(update) != 3:
        raise ValueError(diagnose.not_a_state_update(update))
    return StateUpdate(*update)


def _update_superstep(
    app: CompiledGraph, saver: BaseCheckpointSaver, config: Mapping[str, Any], updates: list
) -> dict[str, Any]:
    """One superstep of ``bulk_update_state``: load the checkpoint, apply, save."""
    thread = ThreadLink(saver, config)
    saved = thread.load()
    values, as_node = _special(updates[0])
    special = as_node if as_node in (END, COPY, INPUT_NODE) else None
    if special == END and values is not None:
        special = None  # an END with values is refused below, as an unknown node
    if special is not None and len(updates) > 1:
        raise InvalidUpdateError(diagnose.special_update_alone(special))
    if special == COPY:
        return _copy(app, saver, thread, saved, values)
    if saved is not None:
        state = restore(app.spec, saved.checkpoint)
    else:  # LangGraph numbers an update of a new thread step 0, a new input -1
        state = phases.StepState.fresh(app.spec, step=-1 if special == INPUT_NODE else 0)
    if special == END:
        results = _end_tasks(app.spec, state, saved)
    elif special == INPUT_NODE:
        results = [_input_result(app.spec, state, values)]
    else:
        count = len(updates)
        results = [_node_result(app, state, _as_update(u), i, count) for i, u in enumerate(updates)]
    source = "input" if special == INPUT_NODE else "update"
    record = phases.update(app.spec, state, results, source)
    thread.save_step(replace(record, checkpoint=_wakes_all(app.spec, record.checkpoint)))
    return thread.config


def _wakes_all(graph: GraphSpec, checkpoint: Checkpoint) -> Checkpoint:
    """A checkpoint an update made: LangGraph plans from it by checking every node (not
    only those the update's channels wake), so a task pending before stays pending."""
    return replace(checkpoint, updated_channels=frozenset(graph.trigger_to_nodes))


def _node_result(
    app: CompiledGraph, state: phases.StepState, update: StateUpdate, index: int, count: int
) -> TaskResult:
    """The writes ``update.values`` make when ``update.as_node``'s writers take them."""
    node = update.as_node
    if node is None and count > 1:
        raise InvalidUpdateError(diagnose.as_node_required())
    node = node or _last_writer(app.spec, state)
    if node not in app.spec.nodes:
        raise InvalidUpdateError(diagnose.unknown_as_node(node, app.spec.nodes))
    task_id = update.task_id or "__update__"
    path = ("__update__", index)
    task = Task(task_id, state.step, node, "update", path, (INTERRUPT,), update.values)
    writes: list[tuple[str, Any]] = []
    fresh_read = phases.fresh_reader(app.spec, state, writes)
    for writer in app.spec.nodes[node].writers:
        writes.extend(writer(update.values, fresh_read, None))
    return TaskResult(task, tuple(writes))


def _end_tasks(
    graph: GraphSpec, state: phases.StepState, saved: CheckpointTuple | None
) -> list[TaskResult]:
    """``(None, END)``: the pending tasks end, with the writes of those that finished."""
    if saved is None:
        return []
    plan = phases.plan(graph, state)
    finished = reusable_results(plan, saved.pending_writes)
    return [finished.get(task.id) or TaskResult(task, ()) for task in plan.tasks]


def _input_result(graph: GraphSpec, state: phases.StepState, values: Any) -> TaskResult:
    """``(values, "__input__")``: ``values`` become a new input, as if invoked with it."""
    if values is None:
        raise InvalidUpdateError(diagnose.no_input_writes(graph.input_channel))
    task = Task(INPUT_NODE, state.step, INPUT_NODE, "input", (INPUT_NODE,), (), values)
    return TaskResult(task, ((graph.input_channel, values),))


def _copy(
    app: CompiledGraph,
    saver: BaseCheckpointSaver,
    thread: ThreadLink,
    saved: CheckpointTuple | None,
    values: Any,
) -> dict[str, Any]:
    """``(values, "__copy__")``: a copy of the checkpoint beside it (same parent,
    ``source="fork"``); a list of ``(values, as_node)`` is then applied to the copy."""
    if saved is None:
        raise InvalidUpdateError(diagnose.copy_of_nothing(thread.thread_id))
    original = saved.checkpoint
    copy = replace(original, id=new_checkpoint_id(after=original.id), source="fork")
    copy = _wakes_all(app.spec, replace(copy, step=original.step + 1))
    thread.config = dict(saved.parent_config or thread.thread_config)
    thread.parents = dict(saved.metadata.get("parents") or {})
    thread.metadata = {}  # a copy carries no config into its metadata, as in LangGraph
    thread.save_checkpoint(copy, {})
    if isinstance(values, list) and values:
        updates = [StateUpdate(*_copy_item(item)[:2]) for item in values]
        return _update_superstep(app, saver, thread.config, updates)
    return thread.config


def _copy_item(item: Any) -> Sequence[Any]:
    if not isinstance(item, Sequence) or isinstance(item, str):
        raise InvalidUpdateError(diagnose.bad_copy_item(item))
    return item


def _last_writer(graph: GraphSpec, state: phases.StepState) -> str:
    """The node whose task saw the newest versions (START on an empty thread)."""
    latest = {
        node: max(seen.values())
        for node, seen in state.versions_seen.items()
        if node in graph.nodes and node != START and seen
    }
    if not latest:
        return START
    newest = max(latest.values())
    candidates = sorted(node for node, version in latest.items() if version == newest)
    if len(candidates) > 1:
        raise InvalidUpdateError(diagnose.ambiguous_update(candidates))
    return candidates[0]
