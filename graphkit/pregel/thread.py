"""A run's link to its checkpointer: which thread it saves to, and when.

The stepper calls ``save_step`` after each Update and ``save_task`` as each task
finishes; with ``durability="exit"`` both are held back and only the last checkpoint
and its pending writes are saved, when the run stops (as in LangGraph).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from graphkit.checkpoint import Checkpoint
from graphkit.checkpoint.saver import BaseCheckpointSaver, CheckpointTuple, config_key
from graphkit.errors import CheckpointNotFoundError
from graphkit.pregel.persistence import task_writes
from graphkit.pregel.records import TaskResult, Update

__all__ = ["DURABILITY", "ThreadLink", "missing_checkpoint"]

DURABILITY = ("sync", "async", "exit")


class ThreadLink:
    """Saves one run's checkpoints and task writes to one thread of a checkpointer."""

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
        self.saver = saver
        self.durability = durability
        self.thread_id = str(config_key(config, "thread_id"))
        self.namespace = namespace
        self.requested_id: str | None = config_key(config, "checkpoint_id")
        self.metadata = {
            key: value
            for key, value in (config.get("metadata") or {}).items()
            if not key.startswith("langgraph_")
        }
        self._config: dict[str, Any] = {
            "configurable": {"thread_id": self.thread_id, "checkpoint_ns": namespace}
        }
        self._held: tuple[Checkpoint, dict[str, Any], dict[str, int]] | None = None
        self._last_saved: str | None = None
        self.last_metadata: dict[str, Any] = {}
        self._held_writes: list[tuple[str, list[tuple[str, Any]]]] = []

    @property
    def config(self) -> dict[str, Any]:
        """The config of the checkpoint saved last (or loaded)."""
        return self._config

    def load(self) -> CheckpointTuple | None:
        """The checkpoint the run starts from: the one the config names, or the latest."""
        config = dict(self._config)
        config["configurable"] = {**config["configurable"], "checkpoint_id": self.requested_id}
        saved = self.saver.get_tuple(config)
        if saved is None and self.requested_id is not None:
            raise missing_checkpoint(self.saver, config, self.requested_id)
        if saved is not None:
            self._config = dict(saved.config)
            self._last_saved = saved.checkpoint.id
            self.last_metadata = dict(saved.metadata)
        return saved

    def is_latest(self, checkpoint_id: str) -> bool:
        """True when ``checkpoint_id`` is the thread's newest checkpoint."""
        thread = {"configurable": {"thread_id": self.thread_id, "checkpoint_ns": self.namespace}}
        latest = self.saver.get_tuple(thread)
        return latest is not None and latest.checkpoint.id == checkpoint_id

    def save_checkpoint(self, checkpoint: Checkpoint, new_versions: Mapping[str, int]) -> None:
        """Save a checkpoint (held back until ``close`` with durability "exit"); the
        writes saved from now on belong to it."""
        metadata = {
            **self.metadata,
            "source": checkpoint.source,
            "step": checkpoint.step,
            "parents": {},
        }
        self.last_metadata = metadata
        self._held_writes = []
        if self.durability == "exit":
            self._held = (checkpoint, metadata, dict(new_versions))
            return
        self._config = self.saver.put(self._config, checkpoint, metadata, new_versions)
        self._last_saved = checkpoint.id

    def save_step(self, update: Update) -> None:
        """Save the checkpoint an Update made."""
        versions = {change.channel: change.version_after for change in update.changes}
        self.save_checkpoint(update.checkpoint, versions)

    def save_task(self, result: TaskResult) -> None:
        """Save a finished task's writes against the checkpoint its step started from,
        so that a resumed run does not run it again."""
        if result.reused:
            return
        writes = task_writes(result)
        if self.durability == "exit":
            self._held_writes.append((result.task.id, writes))
            return
        self.saver.put_writes(self._config, writes, result.task.id)

    def close(self) -> None:
        """Save what durability "exit" held back."""
        if self._held is not None:
            checkpoint, metadata, versions = self._held
            self._held = None
            # the steps in between were never saved: the parent is the last one that was
            checkpoint = dataclasses.replace(checkpoint, parent_id=self._last_saved)
            self._config = self.saver.put(self._config, checkpoint, metadata, versions)
            self._last_saved = checkpoint.id
        for task_id, writes in self._held_writes:
            self.saver.put_writes(self._config, writes, task_id)
        self._held_writes = []


def missing_checkpoint(
    saver: BaseCheckpointSaver, config: Mapping[str, Any], checkpoint_id: str
) -> CheckpointNotFoundError:
    """The error for a ``checkpoint_id`` that ``config``'s thread does not have, listing
    the thread's newest ids (read only now, on the error path)."""
    configurable = config.get("configurable", {})
    thread_id = configurable.get("thread_id")
    thread = {
        "configurable": {
            "thread_id": thread_id,
            "checkpoint_ns": configurable.get("checkpoint_ns", ""),
        }
    }
    shown = 5
    ids = [saved.checkpoint.id for saved in saver.list(thread, limit=shown + 1)]
    if not ids:
        return CheckpointNotFoundError(
            f"Thread {thread_id!r} has no checkpoint {checkpoint_id!r}: it has no checkpoints "
            "at all. Check the thread_id, or leave checkpoint_id out."
        )
    listed = ", ".join(map(repr, ids[:shown]))
    if len(ids) > shown:
        older = sum(1 for _ in saver.list(thread)) - shown
        listed += f" (and {older} older)"
    return CheckpointNotFoundError(
        f"Thread {thread_id!r} has no checkpoint {checkpoint_id!r}. Its newest checkpoints: "
        f"{listed}. Copy an id from app.get_state_history(config), or leave checkpoint_id "
        "out to use the latest."
    )
