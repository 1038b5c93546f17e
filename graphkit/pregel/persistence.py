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
NO_WRITES = "__no_writes__"
"""Saved for a task that finished without writing, so a resume knows it finished."""
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
        answers = [(ANSWERS, list(result.answers))] if result.answers else []
        return [(INTERRUPT, list(result.interrupts)), *answers]
    if result.error is not None:
        return [(ERROR, repr(result.error))]  # LangGraph shows the error's repr
    return list(result.writes) or [(NO_WRITES, None)]


def reusable_results(plan: Plan, pending: Sequence[PendingWrite]) -> dict[str, TaskResult]:
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


def saved_answers(pending: Sequence[PendingWrite]) -> dict[str, tuple[Any, ...]]:
    """Per task id, the resume values its interrupts already received."""
    return {task_id: tuple(value) for task_id, channel, value in pending if channel == ANSWERS}


def snapshot(
    graph: GraphSpec,
    saved: CheckpointTuple | None,
    config: Mapping[str, Any],
    apply_pending: bool = True,
) -> StateSnapshot:
    """What ``get_state`` shows for a saved checkpoint (or an empty thread).

    With ``apply_pending`` (``get_state`` of a thread's latest checkpoint; not of an
    older one, nor ``get_state_history``, as in LangGraph) the writes of tasks that
    already finished in the interrupted step are applied to ``values``, and those tasks
    are no longer ``next``.
    """
    if saved is None:
        return StateSnapshot({}, (), dict(config), None, None, None, ())
    state = restore(graph, saved.checkpoint)
    plan = phases.plan(graph, state)
    pending: dict[str, dict[str, Any]] = {}
    for task_id, channel, value in saved.pending_writes:
        pending.setdefault(task_id, {}).setdefault(channel, value)
    finished = reusable_results(plan, saved.pending_writes)
    tasks = []
    interrupts: list[Any] = []
    for task in plan.tasks:
        writes = pending.get(task.id, {})
        paused = tuple(writes.get(INTERRUPT, ()))
        if not (apply_pending and task.id in finished):
            interrupts.extend(paused)
        result = finished.get(task.id)
        tasks.append(
            PregelTask(
                task.id,
                task.node,
                task.path,
                error=writes.get(ERROR),
                interrupts=() if apply_pending and task.id in finished else paused,
                result=dict(w for w in result.writes if w[0] in graph.stream_keys)
                if result is not None
                else None,
            )
        )
    next_tasks = plan.tasks
    if apply_pending and finished:
        phases.update(graph, state, list(finished.values()))
        next_tasks = tuple(task for task in plan.tasks if task.id not in finished)
    return StateSnapshot(
        values=state.read(graph.state_keys),
        next=tuple(task.node for task in next_tasks),
        config=saved.config,
        metadata=saved.metadata,
        created_at=datetime.fromtimestamp(saved.checkpoint.created_at, UTC).isoformat(),
        parent_config=saved.parent_config,
        tasks=tuple(tasks),
        interrupts=tuple(interrupts),
    )
