"""Threads: everything between a run and its checkpointer, in one place.

* ``open_thread`` — where a run starts: a new input step, or a saved checkpoint it
  resumes (forking a new branch when that checkpoint is not the thread's latest),
  with the answers and task writes saved before it stopped, returned as an ``Opening``.
* ``ThreadLink`` — saving: each Update's checkpoint, each finished task's writes.
* ``get_state``, ``get_state_history``, ``update_state`` — reading and editing a
  thread's saved state, as LangGraph's compiled graphs offer them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from graphkit.channels import EMPTY
from graphkit.checkpoint import Checkpoint
from graphkit.checkpoint.saver import BaseCheckpointSaver, CheckpointTuple, config_key
from graphkit.constants import INTERRUPT, START
from graphkit.errors import CheckpointNotFoundError, EmptyInputError, InvalidUpdateError, warn
from graphkit.pregel import phases
from graphkit.pregel.records import Plan, Task, TaskResult, Update
from graphkit.pregel.runtime import NO_ANSWER, Resume, TaskScope
from graphkit.pregel.spec import GraphSpec
from graphkit.types import Command

if TYPE_CHECKING:
    from graphkit.pregel.app import CompiledGraph

__all__ = [
    "INTERRUPT",
    "Opening",
    "PregelTask",
    "StateSnapshot",
    "ThreadLink",
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
    ) -> None:
        if config_key(config, "thread_id") is None:
            raise ValueError(
                "This graph has a checkpointer, so a run needs a thread: pass "
                "config={'configurable': {'thread_id': 'some-id'}}."
            )
        durability = durability or "async"
        if durability not in DURABILITY:
            raise ValueError(f"durability must be one of {list(DURABILITY)}, got {durability!r}.")
        self.saver, self.durability, self.namespace = saver, durability, namespace
        self.thread_id = str(config_key(config, "thread_id"))
        self.requested_id: str | None = config_key(config, "checkpoint_id")
        self.metadata = {
            key: value
            for key, value in (config.get("metadata") or {}).items()
            if not key.startswith("langgraph_")
        }
        self.config: dict[str, Any] = {
            "configurable": {"thread_id": self.thread_id, "checkpoint_ns": namespace}
        }
        """The config of the checkpoint saved (or loaded) last."""
        self.last_metadata: dict[str, Any] = {}
        self._last_saved: str | None = None
        self._held: tuple[Checkpoint, dict[str, Any], dict[str, int]] | None = None
        self._held_writes: list[tuple[str, list[tuple[str, Any]]]] = []

    def load(self) -> CheckpointTuple | None:
        """The checkpoint the run starts from: the one the config names, or the latest."""
        configurable = {**self.config["configurable"], "checkpoint_id": self.requested_id}
        saved = self.saver.get_tuple({**self.config, "configurable": configurable})
        if saved is None and self.requested_id is not None:
            raise missing_checkpoint(self.saver, self.config, self.requested_id)
        if saved is not None:
            self.config, self._last_saved = dict(saved.config), saved.checkpoint.id
            self.last_metadata = dict(saved.metadata)
        return saved

    def is_latest(self, checkpoint_id: str) -> bool:
        """True when ``checkpoint_id`` is the thread's newest checkpoint."""
        thread = {"configurable": {"thread_id": self.thread_id, "checkpoint_ns": self.namespace}}
        latest = self.saver.get_tuple(thread)
        return latest is not None and latest.checkpoint.id == checkpoint_id

    def save_checkpoint(self, checkpoint: Checkpoint, new_versions: Mapping[str, int]) -> None:
        """Save a checkpoint; the writes saved from now on belong to it."""
        metadata = {**self.metadata, "source": checkpoint.source, "step": checkpoint.step}
        self.last_metadata = metadata = {**metadata, "parents": {}}
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
        """Save a finished task's writes against its step's checkpoint, so that a
        resumed run does not run it again."""
        if result.reused:
            return
        writes = task_writes(result)
        if self.durability == "exit":
            self._held_writes.append((result.task.id, writes))
        else:
            self.saver.put_writes(self.config, writes, result.task.id)

    def close(self) -> None:
        """Save what durability "exit" held back."""
        if self._held is not None:
            checkpoint, metadata, versions = self._held
            self._held = None
            # the steps in between were never saved: the parent is the last one that was
            checkpoint = dataclasses.replace(checkpoint, parent_id=self._last_saved)
            self.config = self.saver.put(self.config, checkpoint, metadata, versions)
            self._last_saved = checkpoint.id
        for task_id, writes in self._held_writes:
            self.saver.put_writes(self.config, writes, task_id)
        self._held_writes = []


def task_writes(result: TaskResult) -> list[tuple[str, Any]]:
    """What the checkpointer keeps of a finished task: its writes, or the interrupt
    (with the answers its ``interrupt()`` calls got so far), or the error's repr."""
    if result.interrupts:
        answers = [(ANSWERS, list(result.answers))] if result.answers else []
        return [(INTERRUPT, list(result.interrupts)), *answers]
    if result.error is not None:
        return [(ERROR, repr(result.error))]
    return list(result.writes) or [(NO_WRITES, None)]


def missing_checkpoint(
    saver: BaseCheckpointSaver, config: Mapping[str, Any], checkpoint_id: str
) -> CheckpointNotFoundError:
    """The error for a ``checkpoint_id`` the thread does not have, listing its newest ids."""
    configurable = config.get("configurable", {})
    thread_id = configurable.get("thread_id")
    ns = configurable.get("checkpoint_ns", "")
    thread = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns}}
    shown = 5
    ids = [saved.checkpoint.id for saved in saver.list(thread, limit=shown + 1)]
    if not ids:
        return CheckpointNotFoundError(
            f"Thread {thread_id!r} has no checkpoint {checkpoint_id!r}: it has no checkpoints "
            "at all. Check the thread_id, or leave checkpoint_id out."
        )
    listed = ", ".join(map(repr, ids[:shown]))
    if len(ids) > shown:
        listed += f" (and {sum(1 for _ in saver.list(thread)) - shown} older)"
    return CheckpointNotFoundError(
        f"Thread {thread_id!r} has no checkpoint {checkpoint_id!r}. Its newest checkpoints: "
        f"{listed}. Copy an id from app.get_state_history(config), or leave checkpoint_id "
        "out to use the latest."
    )


# -- starting a run ----------------------------------------------------------------------


def restore(graph: GraphSpec, checkpoint: Checkpoint) -> phases.StepState:
    """The live state a saved checkpoint describes, ready for the next Plan."""
    channels = {
        key: prototype.from_checkpoint(checkpoint.channel_values.get(key, EMPTY))
        for key, prototype in graph.channels.items()
    }
    versions = dict(checkpoint.channel_versions)
    return phases.StepState(
        channels=channels,
        versions=versions,
        versions_seen={node: dict(seen) for node, seen in checkpoint.versions_seen.items()},
        updated_channels=checkpoint.updated_channels,
        step=checkpoint.step + 1,
        checkpoint=checkpoint,
        max_version=max(versions.values(), default=0),
        live_volatile={k for k, c in channels.items() if c.volatile and c.is_available()},
    )


@dataclass(slots=True)
class Opening:
    """What a run starts from: the state the first Plan reads, the input step's value
    (None when resuming), the tasks a new input replaces (``discarded``: they count as
    having seen their triggers), the writes of tasks that finished before the run
    stopped (``pending``), the answers ``interrupt()`` calls get, and whether the
    subgraphs this run's tasks start resume theirs."""

    state: phases.StepState
    input: Any
    resuming: bool
    pending: list[Any]
    discarded: tuple[Task, ...]
    resume: Resume | None
    answers: dict[str, tuple[Any, ...]]
    resumes_subgraphs: bool


def thread_link(
    checkpointer: BaseCheckpointSaver | None,
    config: Any,
    durability: str | None,
    parent: TaskScope | None,
) -> ThreadLink | None:
    """Where a run saves: its checkpointer's thread, or its parent run's thread (a
    subgraph saves there under its task's namespace, so it can pause and resume, as in
    LangGraph), or nowhere."""
    namespace = "|".join(parent.namespace) if parent is not None else ""
    if checkpointer is not None:
        return ThreadLink(checkpointer, config, namespace, durability)
    outer = parent.run.thread if parent is not None else None
    if outer is None:
        return None
    thread = {"configurable": {"thread_id": outer.thread_id}}
    return ThreadLink(outer.saver, thread, namespace, outer.durability)


def open_thread(
    graph: GraphSpec, thread: ThreadLink | None, parent: TaskScope | None, input: Any
) -> Opening:
    """Load the thread's checkpoint, if any, and decide what the run does with
    ``input``: apply it as a new input step, or resume (None / ``Command(resume=...)``)."""
    answer = NO_ANSWER
    if isinstance(input, Command):
        if input.update is not None or input.goto or input.graph is not None:
            raise NotImplementedError(
                "A Command as input can only resume (Command(resume=...)) so far."
            )
        answer = input.resume
    saved = thread.load() if thread is not None else None
    outer = parent.run if parent is not None else None
    if outer is not None and outer.resuming and saved is not None:
        input = None  # the parent resumes, so this subgraph resumes where it paused
    if saved is None and isinstance(input, Command):
        _warn_nothing_to_resume(thread, outer)
        input, answer = {}, NO_ANSWER  # LangGraph runs the new thread with no input
    resuming = input is None or isinstance(input, Command)
    pending: list[Any] = list(saved.pending_writes) if saved is not None else []
    discarded: tuple[Task, ...] = ()
    if saved is None:
        if resuming:
            raise EmptyInputError(
                "Received no input and there is nothing to resume: a new run needs an "
                "input, e.g. app.invoke({'key': value})."
            )
        state = phases.StepState.fresh(graph)
    else:
        state = restore(graph, saved.checkpoint)
        if resuming:
            state.pass_breakpoints()
            if isinstance(input, Command) and outer is None and not pending:
                _warn_if_finished(graph, thread, state)
            if thread is not None and not thread.is_latest(saved.checkpoint.id):
                thread.save_checkpoint(state.fork(), {})  # replaying starts a new branch
                pending = []
        else:  # a new input replaces what the thread was about to run
            discarded = phases.plan(graph, state).tasks
    _check_answer_fits(answer, pending)
    resume = None  # nothing can answer an interrupt without a thread
    if thread is not None:
        resume = Resume(answer)
        if outer is not None and outer.resume is not None and answer is NO_ANSWER:
            resume = outer.resume  # the answers the whole run was resumed with
    resumes_subgraphs = thread is not None and (resuming or (outer is not None and outer.resuming))
    answers = {task: tuple(value) for task, channel, value in pending if channel == ANSWERS}
    return Opening(state, input, resuming, pending, discarded, resume, answers, resumes_subgraphs)


def _check_answer_fits(answer: Any, pending: Sequence[Any]) -> None:
    if answer is NO_ANSWER or isinstance(answer, dict):
        return
    waiting = [value for _, channel, value in pending if channel == INTERRUPT]
    if sum(len(value) for value in waiting) > 1:
        raise RuntimeError(
            "When there are multiple pending interrupts, you must specify the "
            "interrupt id when resuming: Command(resume={interrupt.id: answer, ...})."
        )


def _warn_nothing_to_resume(thread: ThreadLink | None, outer: Any) -> None:
    if thread is not None and outer is None:
        warn(
            f"Command(resume=...) on thread {thread.thread_id!r}, which has no checkpoint: "
            "there is nothing to resume, so the graph runs from START with no input and "
            "the answer is unused (as in LangGraph). Check the thread_id; to start a "
            "thread, invoke with an input."
        )


def _warn_if_finished(graph: GraphSpec, thread: ThreadLink | None, state: phases.StepState) -> None:
    # LangGraph returns a finished thread's state and drops the answer without a word
    if thread is None or phases.plan(graph, state).tasks:
        return
    warn(
        f"Command(resume=...) on thread {thread.thread_id!r}, whose run has finished: its "
        f"checkpoint {state.checkpoint.id!r} has nothing left to run and no interrupt "
        "waiting, so the answer is ignored and the state is returned as it is (as in "
        "LangGraph). To run the graph again on this thread, invoke it with a new input."
    )


def reusable_results(plan: Plan, pending: Sequence[Any]) -> dict[str, TaskResult]:
    """Results of the plan's tasks that finished before a crash or an interrupt: their
    saved writes are applied again instead of running them again."""
    by_task: dict[str, list[tuple[str, Any]]] = {}
    for task_id, channel, value in pending:
        by_task.setdefault(task_id, []).append((channel, value))
    reused = {}
    for task in plan.tasks:
        # finished = it saved a regular write (an interrupt it was resumed past stays
        # saved beside the writes it made afterwards)
        finished = [(c, v) for c, v in by_task.get(task.id, ()) if c not in SPECIAL]
        if finished:
            writes = tuple((c, v) for c, v in finished if c != NO_WRITES)
            reused[task.id] = TaskResult(task, writes, reused=True)
    return reused


# -- reading and editing a thread --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PregelTask:
    """A task of a saved step: finished (``result``), failed (``error``), paused
    (``interrupts``) or not run yet — LangGraph's fields."""

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
        raise ValueError(
            "This graph has no checkpointer, so it keeps no state between runs; compile it "
            "with one, e.g. builder.compile(checkpointer=InMemorySaver())."
        )
    return app.checkpointer  # type: ignore[no-any-return]


def get_state(app: CompiledGraph, config: Mapping[str, Any]) -> StateSnapshot:
    """The thread's latest state (or the checkpoint ``config`` names)."""
    checkpoint_id = config.get("configurable", {}).get("checkpoint_id")
    saver = _saver(app)
    saved = saver.get_tuple(config)
    if saved is None and checkpoint_id:  # LangGraph returns an empty snapshot here
        raise missing_checkpoint(saver, config, checkpoint_id)
    return snapshot(app.spec, saved, config, apply_pending=not checkpoint_id)


def get_state_history(
    app: CompiledGraph, config: Mapping[str, Any], **options: Any
) -> Iterator[StateSnapshot]:
    """The thread's checkpoints as snapshots, newest first (``filter``, ``before``, ``limit``)."""
    for saved in _saver(app).list(config, **options):
        yield snapshot(app.spec, saved, saved.config, apply_pending=False)


def snapshot(
    graph: GraphSpec, saved: CheckpointTuple | None, config: Mapping[str, Any], apply_pending: bool
) -> StateSnapshot:
    """What ``get_state`` shows for a saved checkpoint (or an empty thread). With
    ``apply_pending`` (the latest checkpoint, as in LangGraph) the writes of tasks that
    finished in the interrupted step are applied and those tasks are no longer ``next``."""
    if saved is None:
        return StateSnapshot({}, (), dict(config), None, None, None, ())
    state = restore(graph, saved.checkpoint)
    plan = phases.plan(graph, state)
    pending: dict[str, dict[str, Any]] = {}
    for task_id, channel, value in saved.pending_writes:
        pending.setdefault(task_id, {}).setdefault(channel, value)
    finished = reusable_results(plan, saved.pending_writes)
    tasks, interrupts = [], []
    for task in plan.tasks:
        writes = pending.get(task.id, {})
        applied = apply_pending and task.id in finished
        paused = () if applied else tuple(writes.get(INTERRUPT, ()))
        interrupts.extend(paused)
        result = finished.get(task.id)
        shown = (
            None if result is None else {c: v for c, v in result.writes if c in graph.stream_keys}
        )
        tasks.append(
            PregelTask(task.id, task.node, task.path, writes.get(ERROR), paused, None, shown)
        )
    next_tasks = plan.tasks
    if apply_pending and finished:
        phases.update(graph, state, list(finished.values()))
        next_tasks = tuple(task for task in plan.tasks if task.id not in finished)
    created = datetime.fromtimestamp(saved.checkpoint.created_at, UTC).isoformat()
    return StateSnapshot(
        state.read(graph.state_keys),
        tuple(task.node for task in next_tasks),
        saved.config,
        saved.metadata,
        created,
        saved.parent_config,
        tuple(tasks),
        tuple(interrupts),
    )


def update_state(
    app: CompiledGraph, config: Mapping[str, Any], values: Any, as_node: str | None = None
) -> dict[str, Any]:
    """Apply ``values`` as if ``as_node`` had returned them (its state updates, Command
    routes, edges and routers, without calling it), as a new checkpoint
    (``source="update"``); on an older checkpoint that starts a new branch of the
    thread. ``as_node=None`` means the node that ran last (START on an empty thread),
    as in LangGraph. Returns the new checkpoint's config."""
    thread = ThreadLink(_saver(app), config)
    saved = thread.load()
    if saved is not None:
        state = restore(app.spec, saved.checkpoint)
    else:  # LangGraph numbers an update of a new thread step 0
        state = phases.StepState.fresh(app.spec, step=0)
    node = as_node or _last_writer(app.spec, state)
    if node not in app.spec.nodes:
        raise InvalidUpdateError(
            f"update_state(as_node={node!r}): there is no such node; use one of "
            f"{sorted(app.spec.nodes)}."
        )
    task = Task("__update__", state.step, node, "update", ("__update__",), (INTERRUPT,), values)
    writes: list[tuple[str, Any]] = []
    fresh_read = phases.fresh_reader(app.spec, state, writes)
    for writer in app.spec.nodes[node].writers:
        writes.extend(writer(values, fresh_read, None))
    thread.save_step(phases.update(app.spec, state, [TaskResult(task, tuple(writes))], "update"))
    return thread.config


def _last_writer(graph: GraphSpec, state: phases.StepState) -> str:
    """The node whose task ran most recently: the one that saw the newest versions."""
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
        raise InvalidUpdateError(
            f"Ambiguous update: nodes {candidates} ran last together; say which one it is "
            "as, e.g. update_state(config, values, as_node=" + repr(candidates[0]) + ")."
        )
    return candidates[0]
