"""get_state, get_state_history and update_state: reading and editing a thread's
checkpoints, as LangGraph's compiled graphs offer them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from graphkit.checkpoint.saver import BaseCheckpointSaver
from graphkit.constants import START
from graphkit.errors import InvalidUpdateError
from graphkit.pregel import phases
from graphkit.pregel.persistence import StateSnapshot, restore, snapshot
from graphkit.pregel.records import Task, TaskResult
from graphkit.pregel.tasks import fresh_reader
from graphkit.pregel.thread import ThreadLink, missing_checkpoint

if TYPE_CHECKING:
    from graphkit.pregel.app import CompiledGraph

__all__ = ["get_state", "get_state_history", "update_state"]

UPDATE_TASK = "__update__"
UPDATE_TRIGGER = "__interrupt__"  # what LangGraph's update_state task is triggered by


def _saver(app: CompiledGraph) -> BaseCheckpointSaver:
    if app.checkpointer is None:
        raise ValueError(
            "This graph has no checkpointer, so it keeps no state between runs; compile it "
            "with one, e.g. builder.compile(checkpointer=InMemorySaver())."
        )
    return app.checkpointer


def get_state(app: CompiledGraph, config: Mapping[str, Any]) -> StateSnapshot:
    """The thread's latest state (or the checkpoint ``config`` names)."""
    checkpoint_id = config.get("configurable", {}).get("checkpoint_id")
    saver = _saver(app)
    saved = saver.get_tuple(config)
    if saved is None and checkpoint_id:  # LangGraph returns an empty snapshot here
        raise missing_checkpoint(saver, config, checkpoint_id)
    return snapshot(app.spec, saved, config, apply_pending=not checkpoint_id)


def get_state_history(
    app: CompiledGraph,
    config: Mapping[str, Any],
    *,
    filter: Mapping[str, Any] | None = None,
    before: Mapping[str, Any] | None = None,
    limit: int | None = None,
) -> Iterator[StateSnapshot]:
    """The thread's checkpoints as snapshots, newest first."""
    for saved in _saver(app).list(config, filter=filter, before=before, limit=limit):
        yield snapshot(app.spec, saved, saved.config, apply_pending=False)


def update_state(
    app: CompiledGraph, config: Mapping[str, Any], values: Any, as_node: str | None = None
) -> dict[str, Any]:
    """Apply ``values`` as if node ``as_node`` had returned them, as a new checkpoint
    (``source="update"``) on top of the one ``config`` names — on an older checkpoint
    that starts a new branch of the thread. Returns the new checkpoint's config.

    With ``as_node=None`` the update is attributed to the node that ran last (or to
    START on an empty thread), as in LangGraph.
    """
    thread = ThreadLink(_saver(app), config)
    saved = thread.load()
    if saved is not None:
        state = restore(app.spec, saved.checkpoint)
    else:  # LangGraph numbers an update of a new thread step 0
        state = phases.StepState.fresh(app.spec)
        state.step = 0
    node = as_node or _last_writer(app, state)
    if node not in app.spec.nodes:
        raise InvalidUpdateError(
            f"update_state(as_node={node!r}): there is no such node; use one of "
            f"{sorted(app.spec.nodes)}."
        )
    task = Task(UPDATE_TASK, state.step, node, "update", (UPDATE_TASK,), (UPDATE_TRIGGER,), values)
    result = _as_if_node_ran(app, task, state)
    if result.error is not None:
        raise result.error
    record = phases.update(app.spec, state, [result], source="update")
    thread.save_step(record)
    return thread.config


def _last_writer(app: CompiledGraph, state: phases.StepState) -> str:
    """The node whose task ran most recently: the one that saw the newest versions."""
    latest: dict[str, int] = {}
    for node, seen in state.versions_seen.items():
        if node in app.spec.nodes and node != START and seen:
            latest[node] = max(seen.values())
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


def _as_if_node_ran(app: CompiledGraph, task: Task, state: phases.StepState) -> TaskResult:
    """The writes ``task.node`` would make had it returned ``task.input``: state
    updates, Command routes, edges and routers — without calling the node."""
    node = app.spec.nodes[task.node]
    writes: list[tuple[str, Any]] = []
    fresh_read = fresh_reader(app.spec, state, writes)
    try:
        for writer in node.writers:
            writes.extend(writer(task.input, fresh_read, None))
    except Exception as error:
        return TaskResult(task, tuple(writes), error=error)
    return TaskResult(task, tuple(writes))
