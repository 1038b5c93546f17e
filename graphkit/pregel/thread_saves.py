"""Saving a run to its thread: ``ThreadLink`` saves each Update's checkpoint and
each finished task's writes to one thread of a checkpointer (held back until the run
stops under ``durability="exit"``), calling the saver as LangGraph does
(``saver_call``: an async run calls its async twins)."""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from graphkit.checkpoint import Checkpoint, checkpoint_config
from graphkit.checkpoint.saver import (
    BaseCheckpointSaver,
    CheckpointTuple,
    config_key,
    takes_task_path,
)
from graphkit.constants import INTERRUPT, TASKS
from graphkit.diagnostics import threads as diagnose
from graphkit.errors import GraphBubbleUp, is_invalid_resume
from graphkit.pregel.config import carried_metadata
from graphkit.pregel.editing import editing_loop
from graphkit.pregel.records import Task, TaskResult, Update, path_text
from graphkit.pregel.replay import ReplayPoint
from graphkit.pregel.saved_writes import ANSWERS, ERROR, ERROR_SOURCE, NO_WRITES, NULL_TASK
from graphkit.types import Send

__all__ = ["ThreadLink", "saver_call"]

DURABILITY = ("sync", "async", "exit")
STRICT_RESUME = "__pregel_strict_resume"
"""LangGraph's configurable key (its server sets it): an answer that does not match the
interrupts waiting raises ``UnknownInterruptError`` instead of being let through."""


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

    answers_kept = False
    """Whether this run saved its ``Command(resume=...)`` answer before it went on
    (``saved_writes.kept_answers``): the first task to record its answers clears it."""

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
            raise ValueError(diagnose.no_thread_id(config))
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
        took = self.answers_kept and (result.answers or is_invalid_resume(result.error))
        if took and self.save_error is None:
            self.answers_kept = False  # (what this run saved first is taken: recorded or refused)
            self.save_writes(NULL_TASK, [(ANSWERS, {})])

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
