"""Editing a thread, as LangGraph's state API does: ``update_state`` applies values as
if a node had returned them, ``bulk_update_state`` applies supersteps of such updates,
each as one checkpoint (``source="update"``); the special ``as_node`` values end the
pending tasks, write a new input or fork the checkpoint. A config whose
``checkpoint_ns`` names a subgraph edits that subgraph's thread.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from graphkit.checkpoint import Checkpoint
from graphkit.checkpoint.base import new_checkpoint_id
from graphkit.checkpoint.saver import (
    BaseCheckpointSaver,
    CheckpointTuple,
    checkpoint_config,
    config_key,
    with_checkpoint_map,
)
from graphkit.constants import END, INTERRUPT, START
from graphkit.diagnostics import threads as diagnose
from graphkit.errors import EmptyInputError, InvalidUpdateError
from graphkit.pregel import phases
from graphkit.pregel.editing import editing_as, in_worker_thread
from graphkit.pregel.records import Task, TaskResult, path_text
from graphkit.pregel.saved_writes import reusable_results
from graphkit.pregel.spec import GraphSpec
from graphkit.pregel.task_run import fresh_reader
from graphkit.pregel.thread_saves import ThreadLink
from graphkit.pregel.thread_state import addressed
from graphkit.pregel.threads import COPY, INPUT_NODE
from graphkit.types import StateUpdate

if TYPE_CHECKING:
    from graphkit.pregel.app import CompiledGraph

__all__ = ["abulk_update_state", "bulk_update_state", "last_writers"]


def bulk_update_state(
    app: CompiledGraph, config: Mapping[str, Any], supersteps: Sequence[Sequence[Any]]
) -> dict[str, Any]:
    """Apply each superstep's updates together, as one step and one checkpoint, one
    superstep after the other; returns the config of the last checkpoint. Special
    ``as_node`` values, as in LangGraph: ``END`` with ``None`` ends the pending tasks,
    ``"__input__"`` writes a new input, ``"__copy__"`` forks the checkpoint."""
    app, config, saver = addressed(app, config, for_update=True)
    if not supersteps:
        raise ValueError(diagnose.no_supersteps())
    if any(len(updates) == 0 for updates in supersteps):
        raise ValueError(diagnose.no_updates())
    for updates in supersteps:
        config = _update_superstep(app, saver, config, list(updates))
    return dict(config)


async def abulk_update_state(
    app: CompiledGraph, config: Mapping[str, Any], supersteps: Sequence[Sequence[Any]]
) -> dict[str, Any]:
    """``bulk_update_state`` in a worker thread: an update reads, applies and saves in
    one go, and running that one implementation there (as the saver's async methods run
    theirs) keeps the event loop free without a second, async copy of it. An ``async
    def`` router among the writers is awaited on this event loop, as in LangGraph."""
    return await in_worker_thread(bulk_update_state, app, config, supersteps)  # type: ignore[no-any-return]


def _special(update: Any) -> tuple[Any, Any]:
    """(values, as_node) of an update: all LangGraph reads of END, input and copy updates."""
    if isinstance(update, Sequence) and not isinstance(update, str) and len(update) >= 2:
        return update[0], update[1]
    return None, None


def _as_update(update: Any) -> StateUpdate:
    if isinstance(update, StateUpdate):
        return update
    if not isinstance(update, Sequence):  # (a TypeError, as LangGraph's: a dict, a number)
        raise TypeError(diagnose.not_a_state_update(update))
    if len(update) != 3:
        raise ValueError(diagnose.not_a_state_update(update))
    return StateUpdate(*update)


def _update_superstep(
    app: CompiledGraph, saver: BaseCheckpointSaver, config: Mapping[str, Any], updates: list
) -> dict[str, Any]:
    """One superstep of ``bulk_update_state``: load the checkpoint, apply, save."""
    thread = ThreadLink(saver, config, config_key(config, "checkpoint_ns") or "")
    thread.background = False
    saved = thread.load()
    if saved is not None:  # a subgraph's checkpoint names its parents' (the root's: none)
        thread.parents = dict(saved.metadata.get("parents") or {})
    values, as_node = _special(updates[0])
    special = as_node if as_node in (END, COPY, INPUT_NODE) else None
    if special == END and values is not None:
        special = None  # an END with values is refused below, as an unknown node
    if special is not None and len(updates) > 1:
        raise InvalidUpdateError(diagnose.special_update_alone(special))
    if special == COPY:
        return _copy(app, saver, thread, saved, values)
    if saved is not None:
        state = phases.StepState.restored(app.spec, saved.checkpoint)
    else:  # LangGraph numbers an update of a new thread step 0, a new input -1
        state = phases.StepState.fresh(app.spec, step=-1 if special == INPUT_NODE else 0)
    if special == END:
        results = _end_tasks(app.spec, state, saved)
    elif special == INPUT_NODE:
        results = [_input_result(app.spec, state, values)]
    else:
        results = _node_results(app, state, [_as_update(update) for update in updates])
    if special != END and saved is not None and not _superseded(thread, saved):
        _save_as_pending(thread, results, saved.checkpoint.id)
    source = "input" if special == INPUT_NODE else "update"
    record = phases.update(app.spec, state, results, source)
    thread.save_step(replace(record, checkpoint=_wakes_all(app.spec, record.checkpoint)))
    return with_checkpoint_map(thread.config, thread.last_metadata)


def _superseded(thread: ThreadLink, saved: CheckpointTuple) -> bool:
    """Whether the thread has moved past ``saved`` (an edit of an older checkpoint)."""
    if thread.requested_id is None:
        return False  # (``saved`` is the latest: read as such)
    latest = thread._get_tuple(checkpoint_config(thread.thread_id, thread.namespace, None))
    return latest is not None and latest.checkpoint.id != saved.checkpoint.id


def _save_as_pending(thread: ThreadLink, results: list[TaskResult], checkpoint_id: str) -> None:
    """As LangGraph: an update's writes are saved on the checkpoint it builds on, as the
    writes of the task it answers (that task's snapshot then shows the result) or, for an
    update no task was pending for and a new input, under the id LangGraph gives them
    (what a saver's ``list`` shows). ``Send`` packets are saved there too, as LangGraph
    does (so an interrupted task the update answers shows a result, ``{}``), besides
    going to the new checkpoint."""
    for result in results:
        if writes := list(result.writes):
            task = result.task
            path = "" if task.id == INPUT_NODE else path_text(task.path)  # (LangGraph's)
            thread.save_writes(_saved_task_id(task, checkpoint_id), writes, path)


def _saved_task_id(task: Task, checkpoint_id: str) -> str:
    """The id an update's writes are saved under: its task's, or LangGraph's uuid5 of the
    checkpoint's id and ``"__interrupt__"`` (``"__interrupt__:i"`` for the i-th update of
    a superstep) or ``"__input__"``."""
    if task.id == INPUT_NODE:
        name = INPUT_NODE
    elif task.id == UPDATE_TASK:
        index = task.path[1]
        name = INTERRUPT if index == 0 else f"{INTERRUPT}:{index}"
    else:
        return task.id
    try:
        namespace = uuid.UUID(checkpoint_id)
    except ValueError:  # (an id of another scheme: any fixed namespace keeps it stable)
        namespace = uuid.uuid5(uuid.NAMESPACE_OID, checkpoint_id)
    return str(uuid.uuid5(namespace, name))


def _wakes_all(graph: GraphSpec, checkpoint: Checkpoint) -> Checkpoint:
    """A checkpoint an update made: LangGraph plans from it by checking every node (not
    only those the update's channels wake), so a task pending before stays pending."""
    return replace(checkpoint, updated_channels=frozenset(graph.trigger_to_nodes))


UPDATE_TASK = "__update__"
"""The id of an update's task when its node had no task pending."""


def _node_results(
    app: CompiledGraph, state: phases.StepState, updates: list[StateUpdate]
) -> list[TaskResult]:
    """The tasks of one superstep of updates, each taking the id of a task of its node
    the checkpoint has pending (in plan order), as LangGraph's do."""
    pending: dict[str, list[str]] = {}
    if state.checkpoint.source != "empty":
        for task in phases.plan(app.spec, state).tasks:
            pending.setdefault(task.node, []).append(task.id)
    results = []
    for index, update in enumerate(updates):
        node = update.as_node
        if node is None and len(updates) > 1:
            raise InvalidUpdateError(diagnose.as_node_required())
        node = node or _last_writer(app.spec, state)
        ids = pending.get(node)
        task_id = update.task_id or (ids.pop(0) if ids else UPDATE_TASK)
        results.append(_node_result(app, state, update._replace(as_node=node), index, task_id))
    return results


def _node_result(
    app: CompiledGraph, state: phases.StepState, update: StateUpdate, index: int, task_id: str
) -> TaskResult:
    """The writes ``update.values`` make when ``update.as_node``'s writers take them."""
    node = update.as_node
    if node not in app.spec.nodes:
        raise InvalidUpdateError(diagnose.unknown_as_node(node, app.spec.nodes))
    path = (INTERRUPT, index)  # LangGraph's, which orders the writes saved with it
    task = Task(task_id, state.step, node, "update", path, (INTERRUPT,), update.values)
    writes: list[tuple[str, Any]] = []
    fresh_read = fresh_reader(app.spec, state, writes)
    try:
        for position, writer in enumerate(app.spec.nodes[node].writers):
            # the node's own writer reads the values as the call's; its routers may run
            # graphs, whose nodes' returns are theirs
            with editing_as(node if position == 0 else None):
                writes.extend(writer(update.values, fresh_read, None))
    except InvalidUpdateError as error:  # (its message names the node, not the call)
        error.add_note(diagnose.update_read_as_node(node))
        raise
    return TaskResult(task, app.spec.with_message_ids(writes))


def _end_tasks(
    graph: GraphSpec, state: phases.StepState, saved: CheckpointTuple | None
) -> list[TaskResult]:
    """``(None, END)``: the pending tasks end, with the writes of those that finished."""
    if saved is None:
        return []
    plan = phases.plan(graph, state)
    finished = reusable_results(plan, saved.pending_writes)[0]
    return [
        found if (found := finished.get(task.id)) and found.error is None else TaskResult(task, ())
        for task in plan.tasks
    ]


def _input_result(graph: GraphSpec, state: phases.StepState, values: Any) -> TaskResult:
    """``(values, "__input__")``: ``values`` become a new input, as if invoked with it."""
    if values is None:
        raise InvalidUpdateError(diagnose.no_input_writes(graph.input_channel))
    task = Task(INPUT_NODE, state.step, INPUT_NODE, "input", (INPUT_NODE,), (), values)
    try:
        writes = graph.input_writes(values)
    except EmptyInputError as error:  # an edit, not a run: LangGraph's class for it
        raise InvalidUpdateError(str(error)) from None
    return TaskResult(task, graph.with_message_ids(writes))


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
    return with_checkpoint_map(thread.config, thread.last_metadata)


def _copy_item(item: Any) -> Sequence[Any]:
    if not isinstance(item, Sequence) or isinstance(item, str):
        raise InvalidUpdateError(diagnose.bad_copy_item(item))
    return item


def _last_writer(graph: GraphSpec, state: phases.StepState) -> str:
    """The node an edit without ``as_node`` is made as: the one that ran last
    (``last_writers``), or a graph's only node (an entrypoint, a one-node Pregel), as in
    LangGraph."""
    if len(graph.nodes) == 1:
        return next(iter(graph.nodes))
    candidates = last_writers(state.versions_seen, graph.nodes)
    if not candidates:
        raise InvalidUpdateError(diagnose.update_after_resume_unattributed())
    if len(candidates) > 1:
        raise InvalidUpdateError(diagnose.ambiguous_update(candidates))
    # LangGraph ranks what each node saw channel by channel: one node that saw two
    # channels at the newest version (written in one step, as a join's) is a tie too
    seen = list(state.versions_seen.get(candidates[0], {}).values())
    if len(seen) > 1 and seen.count(max(seen)) > 1:
        raise InvalidUpdateError(diagnose.ambiguous_update(candidates))
    return candidates[0]


def last_writers(versions_seen: Mapping[str, Mapping[str, Any]], nodes: Any) -> list[str]:
    """The nodes of ``nodes`` whose tasks saw the newest channel versions, sorted (START
    too: on a thread's later run, before its first node, the edit is START's; START on
    an empty thread). Two or more: they ran last together. None: no node has run on a
    branch a resumed run started (a replay's fork), which LangGraph attributes to none.

    >>> last_writers({"__start__": {"__start__": 1}, "chat": {"branch:to:chat": 2}}, ["chat"])
    ['chat']
    >>> last_writers({"__interrupt__": {"__start__": 1}}, ["chat"])
    []
    """
    latest = {
        node: max(seen.values()) for node, seen in versions_seen.items() if node in nodes and seen
    }
    if not latest:
        # LangGraph's rule: START only where nothing at all was seen (its bookkeeping of a
        # resume, "__interrupt__", counts, and names no node)
        return [] if any(any(seen.values()) for seen in versions_seen.values()) else [START]
    newest = max(latest.values())
    return sorted(node for node, version in latest.items() if version == newest)
