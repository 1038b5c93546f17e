"""Stream chunks built from the records, with LangGraph's shapes and field names.

Pure functions: a record in, a chunk out. ``CompiledGraph.stream`` decides when to
emit them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from graphkit.pregel.records import Task, TaskResult
from graphkit.pregel.spec import GraphSpec

__all__ = [
    "STREAM_MODES",
    "debug_event",
    "subscribed_triggers",
    "task_payload",
    "task_result_payload",
    "update_chunk",
    "wrote_any",
]

STREAM_MODES = ("values", "updates", "debug", "tasks", "checkpoints", "custom", "messages")


def update_chunk(graph: GraphSpec, result: TaskResult) -> dict[str, Any] | None:
    """``{node: update}`` for the updates stream; None for hidden or failed tasks.

    A node that wrote the same key twice (e.g. two Commands) gets a list of dicts.
    """
    node = graph.nodes.get(result.task.node)
    if node is None or node.hidden or result.interrupts:
        return None
    if result.error is not None and not result.writes:
        return None
    keys = graph.stream_keys
    writes = [(channel, value) for channel, value in result.writes if channel in keys]
    if not writes:
        return {node.name: None}
    channels = [channel for channel, _ in writes]
    if len(set(channels)) < len(channels):
        return {node.name: [{channel: value} for channel, value in writes]}
    return {node.name: dict(writes)}


def subscribed_triggers(graph: GraphSpec, task: Task) -> tuple[str, ...]:
    """LangGraph's ``triggers`` of a task: every trigger channel of a pull task's node,
    sorted (not only the ones that fired), or ``("__pregel_push",)``."""
    node = graph.nodes.get(task.node)
    if node is None or task.kind != "pull":
        return task.triggers
    return tuple(sorted(node.triggers))


def task_payload(
    graph: GraphSpec, task: Task, config: Mapping[str, Any] | None = None
) -> dict[str, Any] | None:
    """The "task" payload of the tasks and debug streams (None for hidden tasks).

    ``metadata`` carries the run's and the node's own metadata and the run's tags,
    without the runtime's ``langgraph_*`` keys, as in LangGraph.
    """
    node = graph.nodes.get(task.node)
    if node is None or node.hidden:
        return None
    payload: dict[str, Any] = {
        "id": task.id,
        "name": task.node,
        "input": task.input,
        "triggers": subscribed_triggers(graph, task),
    }
    config = config or {}
    metadata = {
        key: value
        for key, value in {**(config.get("metadata") or {}), **node.metadata}.items()
        if not key.startswith("langgraph_")
    }
    if tags := [tag for tag in config.get("tags") or () if not _internal_tag(tag)]:
        metadata["tags"] = tags
    if metadata:
        payload["metadata"] = metadata
    return payload


def _internal_tag(tag: str) -> bool:
    return tag.startswith(("seq:", "langsmith:", "graph:step:"))


def task_result_payload(graph: GraphSpec, result: TaskResult) -> dict[str, Any] | None:
    """The "task_result" payload: the task's state writes, or its error."""
    node = graph.nodes.get(result.task.node)
    if node is None or node.hidden:
        return None
    keys = graph.stream_keys
    folded: dict[str, Any] = {}
    for channel, value in result.writes:
        if channel not in keys:
            continue
        if channel in folded:  # several writes to one key: {"$writes": [...]}
            previous = folded[channel]
            is_many = isinstance(previous, dict) and set(previous) == {"$writes"}
            folded[channel] = {
                "$writes": [*(previous["$writes"] if is_many else [previous]), value]
            }
        else:
            folded[channel] = value
    return {
        "id": result.task.id,
        "name": result.task.node,
        "error": result.error,
        "result": folded,
        "interrupts": [dataclasses.asdict(interrupt) for interrupt in result.interrupts],
    }


def debug_event(step: int, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    """A debug-stream event: ``{"step", "timestamp", "type", "payload"}``."""
    return {
        "step": step,
        "timestamp": datetime.now(UTC).isoformat(),
        "type": kind,
        "payload": payload,
    }


def wrote_any(results: list[TaskResult], keys: tuple[str, ...]) -> bool:
    """True when a task of the step wrote one of ``keys`` (LangGraph's rule for
    emitting a values chunk: written, changed or not)."""
    for result in results:
        for channel, _ in result.writes:
            if channel in keys:
                return True
    return False
