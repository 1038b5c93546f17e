"""Threads: everything between a run and its checkpointer, in one place.

``open_thread`` finds where a run starts (a new input step, or a saved checkpoint it
resumes, forking a new branch when that is not the thread's latest); ``ThreadLink``
saves each Update's checkpoint and each finished task's writes. Reading and editing
a saved thread are ``graphkit.pregel.thread_state`` and ``graphkit.pregel.thread_edits``.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from graphkit.checkpoint import Checkpoint, checkpoint_config
from graphkit.checkpoint.saver import (
    BaseCheckpointSaver,
    CheckpointTuple,
    config_key,
    takes_task_path,
)
from graphkit.constants import BRANCH_CHANNEL_PREFIX, END, INTERRUPT, ROOT, START, TASKS
from graphkit.diagnostics import threads as diagnose
from graphkit.errors import (
    EmptyInputError,
    GraphBubbleUp,
    InvalidUpdateError,
    UnknownInterruptError,
    is_invalid_resume,
    warn,
)
from graphkit.pregel import phases
from graphkit.pregel.config import RunOptions, carried_metadata
from graphkit.pregel.editing import editing_loop
from graphkit.pregel.interrupts import NO_ANSWER, Resume, is_answer_map
from graphkit.pregel.records import Plan, Task, TaskResult, Update, path_text
from graphkit.pregel.replay import ReplayPoint, replay_point
from graphkit.pregel.spec import GraphSpec
from graphkit.pregel.task_scope import TaskScope, without_task_ids
from graphkit.types import Command, Send

__all__ = [
    "INTERRUPT",
    "Opening",
    "ThreadLink",
    "open_thread",
]

ANSWERS = "__resume__"
ERROR = "__error__"
NO_WRITES = "__no_writes__"
"""Saved for a task that finished without writing, so a resume knows it finished."""
ERROR_SOURCE = "__error_source_node__"  # the failed task's error went to its handler
SPECIAL = (INTERRUPT, ANSWERS, ERROR, ERROR_SOURCE)
DURABILITY = ("sync", "async", "exit")
NULL_TASK = "00000000-0000-0000-0000-000000000000"
"""The task id of saved writes no task made (a ``Command`` input's): LangGraph's null
writes, applied again when a run resumes from their checkpoint and by ``get_state``."""
STRICT_RESUME = "__pregel_strict_resume"
"""LangGraph's configurable key (its server sets it): an answer that does not match the
interrupts waiting raises ``UnknownInterruptError`` instead of being let through."""
NULL_STARTED = Task(NULL_TASK, -1, "", "call", (), (), None)
"""The placeholder task of a saved result of a task started while its step ran (a call,
an error handler), until ``StepWork.saved`` puts the task started again in its place."""
COPY, INPUT_NODE = "__copy__", "__input__"
"""``as_node`` values of ``bulk_update_state`` that fork the checkpoint, or write an input."""


# -- saving ------------------------------------------------------------------------------


def saver_call(saver: BaseCheckpointSaver, name: str) -> Callable[..., Any]:
    """The saver's method ``name`` as a run calls it. In an async run (from its worker
    thread) or ``aupdate_state`` that is the async twin ``a<name>``, awaited on the
    caller's event loop, when the saver's class wrote its own, as LangGraph's async runs
    call only the twins (a saver written for them may keep its work there); graphkit's
    own twins just wrap ``name``, which is then called directly. The call is not
    cancelled with the run: what a cancelled run saves, it saves whole (as LangGraph
    shields it)."""
    from graphkit.streaming.aio import current_async_run

    owner, twin = current_async_run(), getattr(type(saver), "a" + name, None)
    # (no async run: an aupdate_state, in a worker thread, awaits on its caller's loop)
    loop = owner.loop if owner is not None else editing_loop()
    own_twin = getattr(twin, "__module__", "graphkit.").startswith("graphkit.")
    # (a sync run in an async node would hang awaiting on the loop that node holds)
    if loop is None or own_twin or (owner is not None and owner.on_its_loop()):
        return getattr(saver, name)  # type: ignore[no-any-return]
    method, plain = getattr(saver, "a" + name), getattr(saver, name)
    if inspect.isasyncgenfunction(twin):  # (alist: its items, collected on the loop)
        method = functools.partial(_collected, method)

    def call(*args: Any, **options: Any) -> Any:
        if owner is not None and owner.held_up:  # (so do its subgraphs, in pool threads)
            return plain(*args, **options)
        return asyncio.run_coroutine_threadsafe(method(*args, **options), loop).result()

    call.__name__ = "a" + name
    return call


async def _collected(method: Callable[..., Any], *args: Any, **options: Any) -> list[Any]:
    return [item async for item in method(*args, **options)]


COORDINATES = ("thread_id", "checkpoint_ns", "checkpoint_id")


def handing(call: Callable[..., Any], config: Mapping[str, Any]) -> Callable[..., Any]:
    """``call`` (a saver's method taking a config first), handed the run's own
    ``configurable`` keys as well (a user, a tenant; not the thread's coordinates, nor
    internal ``"__"`` keys), as LangGraph's runtime hands a saver its run's config: a
    saver may keep its tenants' threads apart by them."""
    configurable = config.get("configurable") or {}
    own = {k: v for k, v in configurable.items() if k not in COORDINATES and k[:2] != "__"}
    if not own:
        return call

    def handed(given: Mapping[str, Any], *args: Any, **options: Any) -> Any:
        return call({**given, "configurable": {**own, **given["configurable"]}}, *args, **options)

    return handed


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
        untracked: frozenset[str] = frozenset(),
    ) -> None:
        thread_id = config_key(config, "thread_id")
        if thread_id is None:
            raise ValueError(diagnose.no_thread_id())
        durability = durability or "async"
        if durability not in DURABILITY:
            raise ValueError(diagnose.bad_durability(durability, DURABILITY))
        self.saver, self.durability, self.namespace = saver, durability, namespace
        calls = [saver_call(saver, name) for name in ("get_tuple", "put", "put_writes", "list")]
        # (an older saver's put_writes takes no task path; one set on the saver: any name)
        twin = getattr(calls[2], "__name__", None) == "aput_writes"
        self._takes_path = takes_task_path(saver, "aput_writes" if twin else "put_writes")
        self._get_tuple, self._put, self._put_writes_call, self._list = (
            handing(c, config) for c in calls
        )
        self.untracked = untracked  # channels whose writes are never saved (UntrackedValue)
        # a subgraph's own thread ("node", no task id) keeps its state like a root run
        self._nested = any(":" in part for part in namespace.split("|"))
        self.thread_id = str(thread_id)
        self.requested_id: str | None = config_key(config, "checkpoint_id")
        self.strict_resume = bool(config_key(config, STRICT_RESUME))
        # saved with each checkpoint, after (and never instead of) source, step, parents
        carried = carried_metadata(config).items()
        self.metadata = {k: v for k, v in carried if k not in ("source", "step", "parents")}
        # a subgraph's checkpoints name the checkpoint each enclosing run was at
        self.parents = {**outer.parents, outer.namespace: outer.checkpoint_id} if outer else {}
        # where the root run time-travels to, for the subgraph threads it reaches
        self.replay: ReplayPoint | None = outer.replay if outer else None
        self.checkpoint_id: str | None = None
        self.thread_config = {
            "configurable": {"thread_id": self.thread_id, "checkpoint_ns": namespace}
        }
        self.config: dict[str, Any] = self.thread_config
        """The config of the checkpoint saved (or loaded) last."""
        self.last_metadata: dict[str, Any] = {}
        self._last_saved: str | None = None
        # the versions changed since the last put (a resumed run's Command writes, the
        # steps "exit" holds): the next put names them all, as LangGraph's does, since a
        # saver may store only the values new_versions names (LangGraph's database savers)
        self._unsaved: dict[str, int] = {}
        self._held: tuple[Checkpoint, dict[str, Any]] | None = None
        self._held_writes: list[tuple[str, list[tuple[str, Any]], str, Task | None]] = []
        self.save_error: Exception | None = None
        """The first failure of a save LangGraph makes in the background (a task's writes;
        a checkpoint unless durability="sync"; what "exit" saves at the end): the run
        goes on, and its driver raises the error once the run is over, unless the run
        failed (its own error then). After a checkpoint failed nothing more is saved, as
        LangGraph saves each checkpoint after the one before."""
        self.background = True
        """Whether such a failure waits for the run's end (a run's saves) or raises at
        once (a state edit's, which LangGraph saves in the call)."""
        self._put_failed = False

    @property
    def has_checkpoint(self) -> bool:
        """Whether a checkpoint was saved or loaded, for writes to belong to."""
        return "checkpoint_id" in self.config["configurable"]

    def load(self, before: str | None = None) -> CheckpointTuple | None:
        """The checkpoint the run starts from: the one the config names, the latest, or
        the latest saved before the checkpoint id ``before`` (of any namespace)."""
        if before is not None:
            bound = {"configurable": {"checkpoint_id": before}}
            saved = next(iter(self._list(self.thread_config, before=bound, limit=1)), None)
        else:
            wanted = checkpoint_config(self.thread_id, self.namespace, self.requested_id)
            saved = self._get_tuple(wanted)
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
        if self.untracked and checkpoint.channel_values.get(TASKS):
            checkpoint = self._without_untracked_sends(checkpoint)
        self._unsaved = {**self._unsaved, **new_versions}
        if self.durability == "exit":
            self._held = (checkpoint, metadata)
            return
        new_versions, self._unsaved = self._unsaved, {}
        self._put_checkpoint(checkpoint, metadata, new_versions)

    def _put_checkpoint(
        self, checkpoint: Checkpoint, metadata: dict[str, Any], new_versions: Mapping[str, int]
    ) -> None:
        """Put a checkpoint; a failure raises at once under durability="sync" (and in a
        state edit), else it is kept in ``save_error`` and nothing more is saved."""
        if self._put_failed:
            return
        try:
            self.config = self._put(self.config, checkpoint, metadata, new_versions)
        except Exception as error:
            if self.durability == "sync" or not self.background:
                if self.save_error is not None:  # a write refused first: it names its node
                    raise self.save_error  # noqa: B904 (it keeps its own cause)
                raise
            self._put_failed, self.save_error = True, self.save_error or error
            return
        self._last_saved = checkpoint.id

    def changed(self, versions: Mapping[str, int]) -> None:
        """Note channels changed with no checkpoint of their own (a resumed run's
        ``Command`` writes): the next checkpoint saved names them in ``new_versions``."""
        self._unsaved = {**self._unsaved, **versions}

    def save_step(self, update: Update) -> None:
        """Save the checkpoint an Update made."""
        versions = {change.channel: change.version_after for change in update.changes}
        self.save_checkpoint(update.checkpoint, versions)

    def save_task(self, result: TaskResult) -> None:
        """Save a finished task's writes (or its interrupt, with the answers its
        ``interrupt()`` calls got so far, or its error's repr) against its step's
        checkpoint, so that a resumed run does not run it again."""
        if result.reused or (result.paused and not result.interrupts):
            return  # (a subgraph's breakpoint: nothing, so that a resume runs it again)
        if isinstance(result.error, GraphBubbleUp):
            return  # (e.g. it routes the parent graph: no error of this thread, as in LangGraph)
        # the answers its interrupt() calls took stay given, as in LangGraph, even when
        # the task then failed on one (run again, it gets them again); not one that did
        # not fit its interrupt's schema: the question is still open
        kept = result.answers and not is_invalid_resume(result.error)
        answers = [(ANSWERS, list(result.answers))] if kept else []
        if result.interrupts:
            writes = [(INTERRUPT, list(result.interrupts)), *answers]
        elif result.error is not None:
            text = getattr(result.error, "saved_text", None) or repr(result.error)
            handled = [(ERROR_SOURCE, result.task.node)] if result.handled else []
            writes = [(ERROR, text), *handled, *answers]
        else:
            writes = self.tracked(result.writes) or [(NO_WRITES, None)]
        self.save_writes(result.task.id, writes, path_text(result.task.shown_path), result.task)

    def tracked(self, writes: Iterable[tuple[str, Any]]) -> list[tuple[str, Any]]:
        """``writes`` as they are saved: none to an untracked channel, and a ``Send``'s
        dict argument without its untracked keys (as LangGraph saves them)."""
        if not self.untracked:
            return list(writes)
        return [
            (channel, self._tracked_send(value))
            for channel, value in writes
            if channel not in self.untracked
        ]

    def _tracked_send(self, value: Any) -> Any:
        """A ``Send`` whose dict argument has untracked keys, without them; else ``value``."""
        if not (isinstance(value, Send) and isinstance(value.arg, dict)):
            return value
        arg = {k: v for k, v in value.arg.items() if k not in self.untracked}
        return value if len(arg) == len(value.arg) else Send(value.node, arg, timeout=value.timeout)

    def _without_untracked_sends(self, checkpoint: Checkpoint) -> Checkpoint:
        """``checkpoint`` as saved: the ``Send``s it holds for the next step without their
        untracked keys, as LangGraph saves them (the run goes on with them whole)."""
        values = dict(checkpoint.channel_values)
        values[TASKS] = [self._tracked_send(value) for value in values[TASKS]]
        return replace(checkpoint, channel_values=values)

    def save_writes(
        self, task_id: str, writes: list[tuple[str, Any]], path: str = "", by: Task | None = None
    ) -> None:
        """Save writes against the checkpoint saved (or loaded) last; ``path``: the task's
        ``path_text``, by which savers list a checkpoint's writes (as LangGraph's: "" for
        writes no task made); ``by``: the task that made them, which a refusal names."""
        if self.durability == "exit":
            self._held_writes.append((task_id, writes, path, by))
        else:
            self._put_task_writes(task_id, writes, path, by)

    def _put_task_writes(
        self, task_id: str, writes: list[tuple[str, Any]], path: str, by: Task | None = None
    ) -> None:
        """Put a task's writes; a failure is kept in ``save_error`` (a state edit's
        raises at once). None are put after a failed checkpoint: they would be its."""
        if self._put_failed:
            return
        try:
            self._put_writes(task_id, writes, path)
        except Exception as error:
            if by is not None and isinstance(error, TypeError):  # (often a value it cannot store)
                refused = TypeError(
                    f"Node {by.node!r} at step {by.step}: saving its writes failed. {error}"
                )
                refused.__cause__, error = error, refused
            if not self.background:
                raise error
            self.save_error = self.save_error or error

    def _put_writes(self, task_id: str, writes: list[tuple[str, Any]], path: str) -> None:
        if self._takes_path:
            self._put_writes_call(self.config, writes, task_id, path)
        else:  # a saver written before put_writes took a path, called as LangGraph calls it
            self._put_writes_call(self.config, writes, task_id)

    def close(self, status: str = "done") -> None:
        """Save what durability "exit" held back. As in LangGraph, a subgraph run that
        finished saves nothing (its parent's checkpoint has its result); one that stopped
        (interrupted, failed) saves, so that a resumed run finds where it was. A failed
        save is kept in ``save_error``, as LangGraph makes these saves in the background:
        a run that failed raises its own error, not the saver's."""
        if self._nested and status == "done":
            self._held, self._held_writes, self._unsaved = None, [], {}
        held_writes, self._held_writes = self._held_writes, []
        if self._held is not None:
            (checkpoint, metadata), versions = self._held, self._unsaved
            self._held, self._unsaved = None, {}
            # the steps in between were never saved: the parent is the last one that was
            checkpoint = replace(checkpoint, parent_id=self._last_saved)
            self._put_checkpoint(checkpoint, metadata, versions)
        for task_id, writes, path, by in held_writes:
            self._put_task_writes(task_id, writes, path, by)


# -- starting a run ----------------------------------------------------------------------


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
    null_writes: list[tuple[str, Any]]
    """The writes an earlier ``Command`` input saved on the checkpoint a run starts
    from (its next step had paused or failed): applied again first, as in LangGraph,
    whether the run resumes, replays that checkpoint or brings a new input."""
    forks: bool
    """The run replays an older checkpoint: it continues on a new branch, from a "fork"
    checkpoint that holds a ``Command`` input's writes."""


def thread_link(
    checkpointer: BaseCheckpointSaver | bool | None,
    config: Any,
    durability: str | None,
    parent: TaskScope | None,
    namespace: tuple[str, ...] = (),
    untracked: frozenset[str] = frozenset(),
) -> ThreadLink | None:
    """Where a run saves. A root run: its own checkpointer, or nowhere. A subgraph run
    (``namespace`` given by its parent task): the parent lends its saver, as in
    LangGraph, whatever saver the subgraph was compiled with; ``checkpointer=False``
    saves nowhere, ``True`` keeps the subgraph's own thread (its namespace without task
    ids), None saves this call under its task's namespace."""
    if parent is None:
        if checkpointer is True:
            raise RuntimeError(diagnose.own_thread_at_root())
        if checkpointer is None or checkpointer is False:
            return None
        link = ThreadLink(checkpointer, _addressed(config, ""), "", durability, untracked=untracked)
        link.parents = dict(config_key(config, "checkpoint_map") or {})  # (as LangGraph's)
        return link
    outer = parent.run.lends
    if outer is None or checkpointer is False:
        return None
    joined = "|".join(namespace)
    if checkpointer is True:
        joined = own_thread_namespace(joined)
    # the parent's thread, and what the task's config carries into metadata
    config = _addressed({**config, "configurable": {**config["configurable"]}}, joined)
    config["configurable"]["thread_id"] = outer.thread_id
    return ThreadLink(outer.saver, config, joined, outer.durability, outer, untracked)


def run_links(
    options: RunOptions,
    config: Any,
    parent: TaskScope | None,
    namespace: tuple[str, ...],
    untracked: frozenset[str],
) -> tuple[ThreadLink | None, ThreadLink | None]:
    """Where a run saves (``thread_link``), and the thread the subgraphs its tasks start
    save through: its own; for a ``checkpointer=False`` subgraph run, which saves
    nothing, its parent's saver under the run's namespace, as LangGraph's passes on the
    saver its parent gave it (so a ``checkpointer=True`` graph inside keeps its state)."""
    checkpointer = options.checkpointer
    thread = thread_link(checkpointer, config, options.durability, parent, namespace, untracked)
    if checkpointer is not False or parent is None or parent.run.lends is None:
        return thread, thread
    return thread, thread_link(None, config, None, parent, namespace)


def _addressed(config: Any, namespace: str) -> Any:
    """``config`` naming the checkpoint a run under ``namespace`` starts from. A
    subgraph's config (from ``get_state(subgraphs=True)`` or ``update_state``) names the
    subgraph's checkpoint and, in its ``checkpoint_map``, the parent's (under ""): given to
    the parent, the parent starts from its own, and each run whose namespace the map
    names from the checkpoint it gives (time travel into a subgraph, as in LangGraph)."""
    configurable = config.get("configurable") or {}
    mapped = configurable.get("checkpoint_map") or {}
    if namespace in mapped:
        wanted = mapped[namespace]
    elif namespace or configurable.get("checkpoint_ns"):
        wanted = None  # (a task's config names no checkpoint of the subgraph's)
    else:
        return config
    return {**config, "configurable": {**configurable, "checkpoint_id": wanted}}


def own_thread_namespace(namespace: str) -> str:
    """Where a ``checkpointer=True`` subgraph keeps its thread: its namespace without
    task ids, so one history per node name (and call number) per parent thread.

    >>> own_thread_namespace("outer:1f2e|inner:9a8b|1")
    'outer|inner|1'
    """
    return "|".join(without_task_ids(tuple(namespace.split("|"))))


def open_thread(
    graph: GraphSpec, thread: ThreadLink | None, parent: TaskScope | None, input: Any
) -> Opening:
    """Load the thread's checkpoint, if any, and decide what the run does with
    ``input``: apply it as a new input step, or resume (None / ``Command(resume=...)``)."""
    answer, writes = _command_input(graph, input, thread, parent)
    forks = False
    outer = parent.run if parent is not None else None
    saved, replayed = _load(thread, outer is None, input, answer)
    outer_resumes = outer is not None and outer.resuming and not replayed
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
    # an earlier Command input's writes are the checkpoint's own state (get_state shows
    # them), so a run applies them first, a replay of the checkpoint too, as LangGraph's
    earlier_command_writes = null_writes(pending)
    discarded: tuple[Task, ...] = ()
    # nothing to resume: no checkpoint or, for a root run, one that holds nothing (after
    # update_state(config, None) on a new thread), as in LangGraph
    empty = saved is None or (outer is None and not saved.checkpoint.channel_versions)
    if resuming and input is None and empty:
        raise EmptyInputError(diagnose.no_input())
    if saved is None:
        state = phases.StepState.fresh(graph)
    else:
        state = phases.StepState.restored(graph, saved.checkpoint)
        if not resuming:  # a new input replaces what the thread was about to run
            discarded = phases.plan(graph, state).tasks
        else:
            state.pass_breakpoints()
            # LangGraph returns a finished thread's state and drops the answer silently
            answered = isinstance(input, Command) and outer is None and not (pending or writes)
            if answered and not phases.plan(graph, state).tasks:
                warn(diagnose.finished_thread(thread.thread_id, state.checkpoint.id))
            forks = _forks(thread, saved, answer)
            if forks:  # replaying starts a new branch (the stepper saves it), its tasks anew
                pending = []
    return Opening(
        state=state,
        input=input,
        resuming=resuming,
        pending=pending,
        discarded=discarded,
        resume=_resume(thread, outer, answer, pending, strict=_strict(thread, outer, forks)),
        answers={task: tuple(value) for task, channel, value in pending if channel == ANSWERS},
        resumes_subgraphs=thread is not None and (resuming or outer_resumes),
        command_writes=writes,
        null_writes=earlier_command_writes,  # (a new input's run applies them too)
        forks=forks,
    )


def _load(
    thread: ThreadLink | None, root: bool, input: Any, answer: Any
) -> tuple[CheckpointTuple | None, bool]:
    """The checkpoint a run starts from, and whether it is a subgraph thread's state at
    the point its root run time-travels to (reached first, it takes its input anew)."""
    if thread is None:
        return None, False
    replay = thread.replay
    pinned = thread.requested_id is not None  # (a subgraph's, by the config's checkpoint_map)
    replayed = replay is not None and not pinned and replay.first_reach(thread.namespace)
    saved = thread.load(replay.checkpoint_id if replay is not None and replayed else None)
    if root:  # where it time-travels to, for the subgraph threads it reaches
        thread.replay = _time_travel(thread, saved, input, answer)
    return saved, replayed


def _command_input(
    graph: GraphSpec, input: Any, thread: ThreadLink | None, parent: TaskScope | None
) -> tuple[Any, list[tuple[str, Any]]]:
    """The answer and the writes a run's input ``Command`` brings (none for other input)."""
    if not isinstance(input, Command):
        return NO_ANSWER, []
    if input.graph is not None:
        raise InvalidUpdateError(diagnose.command_input_to_parent(input))
    if input.resume is not None and thread is None and parent is None:
        raise RuntimeError(diagnose.resume_without_checkpointer())
    answer = NO_ANSWER if input.resume is None else input.resume
    return answer, command_input_writes(input, root=graph.state_keys == (ROOT,))


def _forks(thread: ThreadLink, saved: CheckpointTuple, answer: Any) -> bool:
    """Whether resuming ``saved`` starts a new branch: it is not the thread's latest; or,
    as in LangGraph, a run addressed at it (its id in the config, or a subgraph's in the
    config's ``checkpoint_map``) brings no answer, so it is replayed, unless it is a
    branch already (made by ``update_state``, a fork)."""
    latest = thread._get_tuple(thread.thread_config)
    if latest is None or latest.checkpoint.id != saved.checkpoint.id:
        return True
    source = (saved.metadata or {}).get("source")
    addressed = thread.requested_id is not None  # (a subgraph's: by a checkpoint_map)
    return addressed and answer is NO_ANSWER and source not in ("update", "fork")


def _time_travel(
    thread: ThreadLink, saved: CheckpointTuple | None, input: Any, answer: Any
) -> ReplayPoint | None:
    """Where a root run time-travels to: the checkpoint its config names, unless it
    answers an interrupt there (``Command(resume=...)``) or brings a new input (which
    starts from now: its subgraphs read their latest), as in LangGraph."""
    if saved is None or thread.requested_id is None or answer is not NO_ANSWER:
        return None
    if input is not None and not isinstance(input, Command):
        return None
    return replay_point(saved.checkpoint.id, saved.metadata, saved.parent_config)


def _strict(thread: ThreadLink | None, outer: Any, forks: bool) -> bool:
    """Whether the answer is checked strictly: asked for, by a root run that does not
    replay an older checkpoint (its tasks may ask again), as in LangGraph."""
    return thread is not None and thread.strict_resume and outer is None and not forks


def _resume(
    thread: ThreadLink | None, outer: Any, answer: Any, pending: Sequence[Any], strict: bool
) -> Resume | None:
    """What ``interrupt()`` calls are answered with: this run's answer; or, when it has
    none, the answers the whole run was resumed with (a subgraph saving nothing, with
    ``checkpointer=False``, starts over and takes them, as LangGraph's does); None when
    no thread here or above could answer."""
    # a task resumed past its interrupt keeps it saved beside its writes: not waiting; a
    # called task's interrupt is saved by the call and by its caller: counted once
    finished = {task_id for task_id, channel, _ in pending if channel not in SPECIAL}
    waiting = {  # each interrupt's id: its task and itself (what the error shows)
        getattr(interrupt, "id", None) or (task_id, index): (task_id, interrupt)
        for task_id, channel, value in pending
        if channel == INTERRUPT and task_id not in finished
        for index, interrupt in enumerate(value)
    }
    if strict and answer is not NO_ANSWER:
        _check_answer_strictly(answer, waiting)
    if len(waiting) > 1 and answer is not NO_ANSWER and not is_answer_map(answer):
        raise RuntimeError(diagnose.several_interrupts(answer, waiting))
    if outer is not None and outer.resume is not None and answer is NO_ANSWER:
        return outer.resume  # type: ignore[no-any-return]
    return Resume(answer) if thread is not None else None


def _check_answer_strictly(answer: Any, waiting: Mapping[Any, tuple[str, Any]]) -> None:
    """Raise ``UnknownInterruptError`` for an answer that does not match the interrupts
    ``waiting`` (by id): an empty map, a map naming others, one answer for several.
    One answer with none waiting is a breakpoint's, and passes."""
    pending = sorted(id_ for id_ in waiting if isinstance(id_, str))
    if is_answer_map(answer):
        if not answer:
            raise UnknownInterruptError(
                diagnose.answers_nothing(pending), reason="empty_map", pending_ids=pending
            )
        if unknown := sorted(answer.keys() - waiting):
            raise UnknownInterruptError(
                diagnose.not_waiting(unknown, pending),
                reason="not_pending",
                interrupt_ids=unknown,
                pending_ids=pending,
            )
    elif len(waiting) > 1:
        raise UnknownInterruptError(
            diagnose.several_interrupts(answer, waiting), reason="ambiguous", pending_ids=pending
        )


def null_writes(pending: Sequence[Any]) -> list[tuple[str, Any]]:
    """The saved writes of no task (``NULL_TASK``), in the order they were saved."""
    return [(channel, value) for task_id, channel, value in pending if task_id == NULL_TASK]


def command_input_writes(command: Command, root: bool = False) -> list[tuple[str, Any]]:
    """The writes a ``Command`` given as a run's input makes, as LangGraph's: each goto
    target wakes its node (or sends its packet), then each update key is written; in a
    single-value state (``root``), an update that is not a dict or pairs is the new value.

    >>> command_input_writes(Command(update={"x": 1}, goto="b"))
    [('branch:to:b', '__start__'), ('x', 1)]
    >>> command_input_writes(Command(update=5), root=True)
    [('__root__', 5)]
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
    if not update:  # (LangGraph skips an empty or falsy update)
        return writes
    if not root and isinstance(update, list) and all(_is_list_pair(item) for item in update):
        return writes + [tuple(item) for item in update]  # (graphkit's: LangGraph drops them)
    items = command.update_items(root)
    if items is None:
        raise InvalidUpdateError(diagnose.bad_input_update(update))
    return writes + items


def _is_list_pair(item: Any) -> bool:
    return isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)


def _is_route(channel: str) -> bool:
    return channel == TASKS or channel.startswith(BRANCH_CHANNEL_PREFIX)


def reusable_results(
    plan: Plan, pending: Sequence[Any]
) -> tuple[dict[str, TaskResult], dict[str, TaskResult]]:
    """What the run saved before it stopped: the plan's tasks that finished (their writes
    to reuse; a failure an error handler took over, to hand over again), and the results
    of tasks started while the step ran (by id; their task is filled in when asked)."""
    finished: dict[str, list[tuple[str, Any]]] = {}
    errors: dict[str, str] = {}
    handled: set[str] = set()
    for task_id, channel, value in pending:
        if channel == ERROR:
            errors[task_id] = value
        elif channel == ERROR_SOURCE:
            handled.add(task_id)
        elif channel not in SPECIAL:  # a task resumed past an interrupt keeps it saved
            writes = finished.setdefault(task_id, [])
            if channel != NO_WRITES:
                writes.append((channel, value))
    planned = {task.id: task for task in plan.tasks}
    reused = {
        task_id: TaskResult(task, tuple(finished[task_id]), reused=True)
        for task_id, task in planned.items()
        if task_id in finished
    }
    for task_id in handled & planned.keys():
        error = SavedError(str(errors.get(task_id, "")))
        reused[task_id] = TaskResult(planned[task_id], (), error=error, handled=True, reused=True)
    started = {
        task_id: TaskResult(NULL_STARTED, tuple(writes), reused=True)
        for task_id, writes in finished.items()
        if task_id not in planned
    }
    return reused, started


class SavedError(Exception):
    """A task's error as a saved thread keeps it: its text (``saved_text``), which is
    what LangGraph gives an error handler that resumes."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.saved_text = text
