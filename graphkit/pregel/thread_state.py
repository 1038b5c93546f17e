"""Reading a thread, as LangGraph's state API does: ``get_state`` (with
``subgraphs=True``, each subgraph task's own state) and ``get_state_history``, and
their async twins. A config whose ``checkpoint_ns`` names a subgraph reads that
subgraph's thread (``graphkit.pregel.thread_edits`` edits one).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from graphkit.checkpoint.saver import (
    BaseCheckpointSaver,
    CheckpointTuple,
    config_key,
    thread_id_of,
    with_checkpoint_map,
)
from graphkit.constants import INTERRUPT
from graphkit.diagnostics import threads as diagnose
from graphkit.pregel import phases
from graphkit.pregel.editing import in_worker_thread
from graphkit.pregel.records import Plan, Task, TaskResult
from graphkit.pregel.runnable import graph_in
from graphkit.pregel.saved_writes import ERROR, null_writes, reusable_results
from graphkit.pregel.spec import GraphSpec, fold_writes, shown
from graphkit.pregel.thread_saves import saver_call
from graphkit.pregel.threads import INPUT_NODE, own_thread_namespace

if TYPE_CHECKING:
    from graphkit.pregel.app import CompiledGraph

__all__ = [
    "PregelTask",
    "StateSnapshot",
    "addressed",
    "aget_state",
    "aget_state_history",
    "get_state",
    "get_state_history",
    "subgraph_at",
    "subgraph_of",
    "subgraph_thread",
]


class PregelTask(NamedTuple):
    """A task of a saved step, with LangGraph's fields: finished (``result``), failed
    (``error``), paused (``interrupts``) or not run yet. A named tuple, as LangGraph's."""

    id: str
    name: str
    path: tuple[Any, ...]
    error: Any = None
    interrupts: tuple[Any, ...] = ()
    state: Any = None
    result: Any = None


class StateSnapshot(NamedTuple):
    """The state of a thread at one checkpoint, as ``get_state`` returns it: a named
    tuple, as LangGraph's (``values, next, *_ = app.get_state(config)`` works)."""

    values: dict[str, Any]
    next: tuple[str, ...]
    config: dict[str, Any]
    metadata: dict[str, Any] | None
    created_at: str | None
    parent_config: dict[str, Any] | None
    tasks: tuple[PregelTask, ...]
    interrupts: tuple[Any, ...] = ()


def _saver(app: CompiledGraph) -> BaseCheckpointSaver:
    if app.checkpointer is True:
        raise RuntimeError(diagnose.own_thread_at_root())
    if app.checkpointer is None or app.checkpointer is False:
        raise ValueError(diagnose.no_checkpointer())
    return app.checkpointer  # type: ignore[no-any-return]


def addressed(
    app: CompiledGraph, config: Mapping[str, Any], for_update: bool = False
) -> tuple[CompiledGraph, Mapping[str, Any], BaseCheckpointSaver]:
    """The graph a config's ``checkpoint_ns`` names (this one, or one of its subgraphs,
    found by node names as in LangGraph), the config to read it with, and the saver."""
    saver = _saver(app)
    namespace = config_key(config, "checkpoint_ns") or ""
    target = subgraph_at(app, namespace) if namespace else None
    if target is None:
        if namespace and for_update:
            raise ValueError(diagnose.no_subgraph_at(namespace))
        return app, config, saver
    return target, _own_thread_config(target, config), saver


def _in_namespace(config: Mapping[str, Any]) -> Mapping[str, Any]:
    """``config`` naming a namespace: the root's ("") when it names none, as LangGraph
    lists a thread's history (a saver's ``list`` alone lists every namespace)."""
    thread_id_of(config)  # (LangGraph raises too: a saver's list alone lists every thread)
    if config_key(config, "checkpoint_ns") is not None:
        return config
    return {**config, "configurable": {**config.get("configurable", {}), "checkpoint_ns": ""}}


def _own_thread_config(app: CompiledGraph, config: Mapping[str, Any]) -> Mapping[str, Any]:
    """A ``checkpointer=True`` subgraph keeps one thread per node name (and call number)."""
    if app.checkpointer is not True:
        return config
    own = own_thread_namespace(config_key(config, "checkpoint_ns") or "")
    return {**config, "configurable": {**config.get("configurable", {}), "checkpoint_ns": own}}


def subgraph_at(app: CompiledGraph, namespace: str) -> CompiledGraph | None:
    """The subgraph a namespace (``"outer:id|inner:id"``) leads to from ``app``, or None."""
    graph: CompiledGraph | None = app
    for part in namespace.split("|"):
        name = part.split(":")[0]
        if graph is None or name.isdigit():
            continue
        graph = subgraph_of(graph, name)
    return graph if graph is not app else None


def subgraph_of(app: CompiledGraph, node: str) -> CompiledGraph | None:
    """The graph node ``node`` runs as a subgraph: the node itself, or one its function
    reaches (a closure variable, a global, an attribute path: see ``graph_in``), as
    LangGraph finds them. A subgraph compiled with ``checkpointer=False`` keeps no
    state, so it is not one here."""
    declaration = app.builder.nodes.get(node) if app.builder is not None else None
    return graph_in(declaration.action) if declaration is not None else None


def get_state(
    app: CompiledGraph, config: Mapping[str, Any], subgraphs: bool = False
) -> StateSnapshot:
    """The thread's latest state (or the checkpoint ``config`` names); with
    ``subgraphs``, each task running a subgraph holds that subgraph's state."""
    app, config, saver = addressed(app, config)
    return _with_subgraph_states(app, _read(app, saver, config), saver, subgraphs)


def _read(
    app: CompiledGraph, saver: BaseCheckpointSaver, config: Mapping[str, Any]
) -> StateSnapshot:
    # (in aget_state's worker thread: the saver's aget_tuple, awaited on the caller's loop)
    return _state_of(app, saver, config, saver_call(saver, "get_tuple")(config))


async def aget_state(
    app: CompiledGraph, config: Mapping[str, Any], subgraphs: bool = False
) -> StateSnapshot:
    """``get_state`` reading through the saver's async ``aget_tuple``."""
    app, config, saver = addressed(app, config)
    saved = await saver.aget_tuple(config)
    if saved is None and config_key(config, "checkpoint_id"):  # the error lists the thread
        return await asyncio.to_thread(_state_of, app, saver, config, None)
    state = _state_of(app, saver, config, saved)
    if not any(subgraph_of(app, task.name) for task in state.tasks):
        return state
    return await in_worker_thread(_with_subgraph_states, app, state, saver, subgraphs)


def _state_of(
    app: CompiledGraph,
    saver: BaseCheckpointSaver,
    config: Mapping[str, Any],
    saved: CheckpointTuple | None,
) -> StateSnapshot:
    checkpoint_id = config_key(config, "checkpoint_id")
    if saved is None and checkpoint_id:  # LangGraph returns an empty snapshot here
        raise diagnose.missing_checkpoint(saver, config, checkpoint_id)
    if saved is None:
        return StateSnapshot({}, (), dict(config), None, None, None, ())
    return snapshot(app.spec, saved, apply_pending=not checkpoint_id)


def subgraph_thread(thread_id: str, namespace: str, task: PregelTask) -> dict[str, Any]:
    """The config of the thread ``task`` runs its subgraph in (in the run's thread, under
    the run's ``namespace``): LangGraph's signal that the subgraph has checkpoints."""
    own = f"{namespace}|{task.name}:{task.id}" if namespace else f"{task.name}:{task.id}"
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": own}}


def _with_subgraph_states(
    app: CompiledGraph,
    state: StateSnapshot,
    saver: BaseCheckpointSaver,
    recurse: bool,
    found: Callable[[str], CompiledGraph | None] | None = None,
) -> StateSnapshot:
    """``state`` whose tasks that run a subgraph say where its thread is (LangGraph's
    signal that it has checkpoints) or, with ``recurse``, hold the subgraph's state;
    ``found`` tells a node's subgraph (by default, ``subgraph_of``)."""
    tasks, namespace = [], config_key(state.config, "checkpoint_ns") or ""
    for task in state.tasks:
        subgraph = found(task.name) if found else subgraph_of(app, task.name)
        if subgraph is None:
            tasks.append(task)
            continue
        where = subgraph_thread(config_key(state.config, "thread_id"), namespace, task)
        if recurse:
            config = _own_thread_config(subgraph, where)
            inner = _read(subgraph, saver, config)
            tasks.append(task._replace(state=_with_subgraph_states(subgraph, inner, saver, True)))
        else:
            tasks.append(task._replace(state=where))
    return state._replace(tasks=tuple(tasks)) if tasks else state


def get_state_history(
    app: CompiledGraph, config: Mapping[str, Any], **options: Any
) -> Iterator[StateSnapshot]:
    """The thread's checkpoints as snapshots, newest first (``filter``, ``before``, ``limit``);
    the root graph's only, unless ``config`` names a subgraph's namespace."""
    diagnose.check_history_options(options.get("limit"), options.get("before"))
    app, config, saver = addressed(app, _in_namespace(config))
    # (each node's subgraph searched for once a read, not at each checkpoint: the search
    # reads the node function's bytecode)
    found = functools.cache(functools.partial(subgraph_of, app))
    for saved in saver.list(config, **options):
        yield _with_subgraph_states(app, snapshot(app.spec, saved, False), saver, False, found)


async def aget_state_history(
    app: CompiledGraph, config: Mapping[str, Any], **options: Any
) -> AsyncIterator[StateSnapshot]:
    """``get_state_history`` reading through the saver's async ``alist``."""
    diagnose.check_history_options(options.get("limit"), options.get("before"))
    app, config, saver = addressed(app, _in_namespace(config))
    found = functools.cache(functools.partial(subgraph_of, app))
    async for saved in saver.alist(config, **options):
        yield _with_subgraph_states(app, snapshot(app.spec, saved, False), saver, False, found)


def tasks_with_writes(
    graph: GraphSpec, plan: Plan, pending_writes: Sequence[Any]
) -> tuple[list[PregelTask], dict[str, TaskResult]]:
    """The ``plan``'s tasks as LangGraph lists them from a checkpoint's ``pending_writes``:
    each with the error, interrupts and (finished) result its saved writes hold; and the
    results of the finished ones, by task id."""
    reused = reusable_results(plan, pending_writes)[0]
    finished = {key: result for key, result in reused.items() if result.error is None}
    first: dict[tuple[str, str], Any] = {}  # each task's first saved write per channel
    for task_id, channel, value in pending_writes:
        first.setdefault((task_id, channel), value)
    keys, tasks = graph.stream_keys, []
    for task in plan.tasks:
        paused = tuple(first.get((task.id, INTERRUPT), ()))
        result = finished.get(task.id)
        written = fold_writes(w for w in result.writes if w[0] in keys) if result else None
        written = shown(keys, written) if written is not None else None
        error = first.get((task.id, ERROR))
        tasks.append(PregelTask(task.id, task.node, task.shown_path, error, paused, result=written))
    return tasks, finished


def _apply_saved_writes(
    graph: GraphSpec, state: phases.StepState, finished: dict[str, TaskResult], saved: Any
) -> None:
    """Apply a step's finished tasks' saved writes, as LangGraph's ``get_state`` does: a
    step that failed in its Update fails here again (a reducer's error, two writes to a
    plain key), and the error's note says why ``get_state`` raised it and the way on."""
    try:
        phases.update(graph, state, list(finished.values()))
    except Exception as error:  # (a reducer's own error: any class)
        step = (saved.metadata or {}).get("step", -1) + 1
        error.add_note(diagnose.saved_writes_refused(step))
        raise


def snapshot(graph: GraphSpec, saved: CheckpointTuple, apply_pending: bool) -> StateSnapshot:
    """A checkpoint as ``get_state`` shows it; ``apply_pending`` applies finished tasks' writes."""
    state = phases.StepState.restored(graph, saved.checkpoint)
    plan = phases.plan(graph, state)
    # as LangGraph lists them: the Send tasks in send order (as planned), then the nodes
    # in the order they were added (a running step plans woken nodes by name)
    position = {name: index for index, name in enumerate(graph.nodes)}
    listed = sorted(
        plan.tasks, key=lambda task: (1, position[task.node]) if task.kind == "pull" else (0, 0)
    )
    plan = replace(plan, tasks=tuple(listed))
    tasks, finished = tasks_with_writes(graph, plan, saved.pending_writes)
    applied = finished if apply_pending else {}
    tasks = [task._replace(interrupts=()) if task.id in applied else task for task in tasks]
    if loaded := null_writes(saved.pending_writes):  # a Command input's, as LangGraph
        task = Task(INPUT_NODE, state.step, INPUT_NODE, "input", (INPUT_NODE,), (), None)
        phases.update(graph, state, [TaskResult(task, tuple(loaded))])
    if applied:
        _apply_saved_writes(graph, state, applied, saved)
    created = datetime.fromtimestamp(saved.checkpoint.created_at, UTC).isoformat()
    return StateSnapshot(
        shown(graph.state_keys, state.read(graph.state_keys)),
        tuple(task.node for task in plan.tasks if task.id not in applied),
        with_checkpoint_map(saved.config, saved.metadata),
        saved.metadata,
        created,
        with_checkpoint_map(saved.parent_config, saved.metadata),
        tuple(tasks),
        tuple(interrupt for task in tasks for interrupt in task.interrupts),
    )
