"""Between the runtime and a checkpointer: restoring a step's state from a saved
checkpoint, turning saved pending writes back into task results, and the
``StateSnapshot`` that ``get_state`` returns (LangGraph's fields)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from graphkit.channels import EMPTY
from graphkit.checkpoint import Checkpoint
from graphkit.checkpoint.saver import CheckpointTuple, PendingWrite
from graphkit.pregel import phases
from graphkit.pregel.records import Plan, TaskResult
from graphkit.pregel.spec import GraphSpec

__all__ = [
    "ANSWERS",
    "ERROR",
    "INTERRUPT",
    "PregelTask",
    "StateSnapshot",
    "restore",
    "reusable_results",
    "saved_answers",
    "snapshot",
    "task_writes",
]

INTERRUPT = "__interrupt__"
ANSWERS = "__resume__"
ERROR = "__error__"
SPECIAL = (INTERRUPT, ANSWERS, ERROR)


@dataclass(frozen=True, slots=True)
class PregelTask:
    """A task of a saved step: finished (``result``), failed (``error``) or paused
    (``interrupts``), or not run yet — LangGraph's fields."""

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


def restore(graph: GraphSpec, checkpoint: Checkpoint) -> phases.StepState:
    """The live state a saved checkpoint describes, ready for the next Plan."""
    channels = {
        key: prototype.from_checkpoint(checkpoint.channel_values.get(key, EMPTY))
        for key, prototype in graph.channels.items()
    }
    versions = dict(checkpoint.channel_versions)
    state = phases.StepState(
        channels=channels,
        versions=versions,
        versions_seen={node: dict(seen) for node, seen in checkpoint.versions_seen.items()},
        updated_channels=checkpoint.updated_channels,
        step=checkpoint.step + 1,
        checkpoint=checkpoint,
        max_version=max(versions.values(), default=0),
    )
    state.live_volatile = {
        key for key, channel in channels.items() if channel.volatile and channel.is_available()
    }
    return state


def task_writes(result: TaskResult) -> list[tuple[str, Any]]:
    """What the checkpointer keeps of a finished task: its writes, or the interrupt
    (with the answers its ``interrupt()`` calls got so far), or the error."""
    if result.interrupts:
        return [(INTERRUPT, list(result.interrupts)), (ANSWERS, list(result.answers))]
    if result.error is not None:
        return [(ERROR, f"{type(result.error).__name__}: {result.error}")]
    return list(result.writes)


def reusable_results(plan: Plan, pending: Sequence[PendingWrite]) -> dict[str, TaskResult]:
    """Results of the plan's tasks that finished before a crash or an interrupt: their
    saved writes are applied again instead of running them again."""
    by_task: dict[str, list[tuple[str, Any]]] = {}
    for task_id, channel, value in pending:
        by_task.setdefault(task_id, []).append((channel, value))
    reused = {}
    for task in plan.tasks:
        writes = by_task.get(task.id)
        if writes is not None and not any(channel in SPECIAL for channel, _ in writes):
            reused[task.id] = TaskResult(task, tuple(writes), reused=True)
    return reused


def saved_answers(pending: Sequence[PendingWrite]) -> dict[str, tuple[Any, ...]]:
    """Per task id, the resume values its interrupts already received."""
    return {task_id: tuple(value) for task_id, channel, value in pending if channel == ANSWERS}


def snapshot(
    graph: GraphSpec, saved: CheckpointTuple | None, config: Mapping[str, Any]
) -> StateSnapshot:
    """What ``get_state`` shows for a saved checkpoint (or an empty thread)."""
    if saved is None:
        return StateSnapshot({}, (), dict(config), None, None, None, ())
    state = restore(graph, saved.checkpoint)
    plan = phases.plan(graph, state)
    pending: dict[str, dict[str, Any]] = {}
    for task_id, channel, value in saved.pending_writes:
        pending.setdefault(task_id, {}).setdefault(channel, value)
    tasks = []
    interrupts: list[Any] = []
    for task in plan.tasks:
        writes = pending.get(task.id, {})
        paused = tuple(writes.get(INTERRUPT, ()))
        interrupts.extend(paused)
        finished = {k: v for k, v in writes.items() if k in graph.stream_keys}
        tasks.append(
            PregelTask(
                task.id,
                task.node,
                task.path,
                error=writes.get(ERROR),
                interrupts=paused,
                result=finished if writes and not paused and ERROR not in writes else None,
            )
        )
    return StateSnapshot(
        values=state.read(graph.state_keys),
        next=tuple(task.node for task in plan.tasks),
        config=saved.config,
        metadata=saved.metadata,
        created_at=datetime.fromtimestamp(saved.checkpoint.created_at, UTC).isoformat(),
        parent_config=saved.parent_config,
        tasks=tuple(tasks),
        interrupts=tuple(interrupts),
    )
