"""One superstep in three phases: plan, execute, update.

Read them side by side; they are the whole Pregel algorithm.

* ``plan`` looks at which channels the last Update changed and picks the nodes they
  wake: a node runs when one of its trigger channels has a version it has not seen.
* ``execute`` runs those tasks. Each reads the same frozen channels; what a task
  writes goes into its own result, never into a channel, so no task sees another's
  writes from the same step.
* ``update`` applies every write at once, in task-path order (never in the order
  tasks finished), bumps the versions of what changed, and returns the channels the
  next Plan will look at. It is the only place channels change.

The stepper (``graphkit.pregel.stepper``) calls these in turn; checkpointing,
streaming and limits happen there, between phases, never in here.
"""

from __future__ import annotations

import contextvars
import dataclasses
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from graphkit.channels import EMPTY, Channel
from graphkit.checkpoint import Checkpoint, new_checkpoint_id
from graphkit.constants import PULL, PUSH, START, TASKS
from graphkit.errors import InvalidUpdateError, warn
from graphkit.pregel.records import (
    ChannelChange,
    Plan,
    Task,
    TaskResult,
    Update,
    derived_id,
)
from graphkit.pregel.runtime import RunContext
from graphkit.pregel.spec import GraphSpec, NodeSpec
from graphkit.pregel.tasks import default_pool, read_keys, run_task

__all__ = ["StepState", "execute", "plan", "run_task", "update"]


@dataclass(slots=True)
class StepState:
    """The live state between phases: channels, their versions, and which versions
    each node has seen. Only ``update`` changes it."""

    channels: dict[str, Channel]
    versions: dict[str, int]
    versions_seen: dict[str, dict[str, int]]
    updated_channels: frozenset[str]
    step: int
    checkpoint: Checkpoint
    max_version: int = 0
    live_volatile: set[str] = field(default_factory=set)
    stop: int = 0  # the last step the recursion limit allows, plus one

    @classmethod
    def fresh(cls, graph: GraphSpec) -> StepState:
        """Empty channels, no versions: where a new run starts (before its input).

        Channels that hold nothing are shared with every run (Update never changes a
        channel in place); one that starts with a value, such as a reducer's ``[]``,
        gets its own copy, since a reducer or a node may change that value in place.
        """
        channels = {
            key: channel.empty_copy() if channel.is_available() else channel
            for key, channel in graph.empty_channels.items()
        }
        return cls(channels, {}, {}, frozenset(), -1, _NO_CHECKPOINT)

    def read(self, keys: Sequence[str]) -> dict[str, Any]:
        """The values of ``keys`` that hold one, as a dict."""
        channels = self.channels
        return {key: channels[key].get() for key in keys if channels[key].is_available()}


_NO_CHECKPOINT = Checkpoint.empty()
"""Where every new run starts: one shared value, as it holds nothing (it is never
saved, and the first saved checkpoint has no parent, as in LangGraph)."""


# -- Plan -------------------------------------------------------------------------------


def plan(graph: GraphSpec, state: StepState) -> Plan:
    """Pick the tasks of step ``state.step``: one PUSH task per ``Send`` packet written
    last step (in send order), then every node woken by a channel the last Update
    changed (in node-name order), each with its input read from the channels."""
    tasks = _push_tasks(graph, state)
    woken = {
        node
        for channel in state.updated_channels
        for node in graph.trigger_to_nodes.get(channel, ())
    }
    for name in sorted(woken) if len(woken) > 1 else woken:
        node = graph.nodes[name]
        seen = state.versions_seen.get(name, {})
        fired = {
            channel: state.versions[channel]
            for channel in node.triggers
            if state.channels[channel].is_available()
            and state.versions.get(channel, 0) > seen.get(channel, 0)
        }
        if fired:
            tasks.append(_pull_task(graph, node, state, fired))
    return Plan(state.step, tuple(tasks))


def _push_tasks(graph: GraphSpec, state: StepState) -> list[Task]:
    packets = state.channels.get(TASKS)
    if packets is None or not packets.is_available():
        return []
    tasks = []
    for index, packet in enumerate(packets.get()):
        if packet.node not in graph.nodes:  # Send(START, ...) re-enters the graph, as in LangGraph
            nodes = sorted(n for n in graph.nodes if n != graph.input_channel)
            warn(
                f"Step {state.step}: a Send targets {packet.node!r}, which is not a node of "
                f"this graph (nodes: {nodes}); "
                "it is dropped, as in LangGraph. Fix the node name in the Send."
            )
            continue
        tasks.append(
            Task(
                derived_id(state.checkpoint.id),
                state.step,
                packet.node,
                "push",
                (PUSH, index),
                (PUSH,),
                packet.arg,
            )
        )
    return tasks


def _pull_task(graph: GraphSpec, node: NodeSpec, state: StepState, fired: dict[str, int]) -> Task:
    path = (PULL, node.name)
    step = state.step
    return Task(
        derived_id(state.checkpoint.id),
        step,
        node.name,
        "pull",
        path,
        tuple(fired),
        read_input(graph, node, state),
        fired,
    )


def read_input(graph: GraphSpec, node: NodeSpec, state: StepState) -> Any:
    """What ``node`` receives: one channel's value, or a dict (coerced to the node's
    schema class when it has one) of the channels and managed values it reads."""
    if isinstance(node.reads, str):
        return state.channels[node.reads].get()
    values = read_keys(graph, state.channels, node.reads, state.step, state.stop)
    if node.coerce is None:
        return values
    try:
        return node.coerce(values)
    except Exception as error:
        error.add_note(_unreadable_state(graph, node, state, error))
        raise


def _unreadable_state(graph: GraphSpec, node: NodeSpec, state: StepState, error: Exception) -> str:
    """The note on an error raised while reading a node's state into its schema class,
    saying whether the values can only have come from the run's input."""
    schema = getattr(error, "title", None) or "the node's state schema"  # pydantic's title
    ran = any(name in graph.nodes and name != START for name in state.versions_seen)
    source = (
        "a node or update_state wrote a value it refuses"
        if ran
        else "the values come from the run's input, so fix the input"
    )
    return (
        f"Before task with name {node.name!r} (step {state.step}): its state could not be "
        f"read as {schema}; {source}."
    )


# -- Execute ----------------------------------------------------------------------------


def execute(
    graph: GraphSpec,
    plan: Plan,
    state: StepState,
    run: RunContext,
    executor: Executor | None = None,
) -> Iterable[TaskResult | None]:
    """Run the plan's tasks; yield each result as its task finishes.

    A single task runs inline in the caller's thread; several run concurrently on
    ``executor`` (a shared thread pool by default), the first of them inline. The
    order results arrive in is timing; ``update`` never depends on it.

    When the run streams chunks live (``run.live`` is set: stream modes "messages" or
    "custom"), every task runs on the executor and this yields ``None`` whenever a
    running task sent a chunk, so the caller can pass it on before the task ends.
    """
    tasks = plan.tasks
    if not tasks:
        return ()
    if run.live is None and len(tasks) == 1:
        return (run_task(graph, tasks[0], state, run),)
    return _execute_concurrently(graph, tasks, state, run, executor)


def _execute_concurrently(
    graph: GraphSpec,
    tasks: Sequence[Task],
    state: StepState,
    run: RunContext,
    executor: Executor | None,
) -> Iterator[TaskResult | None]:
    live = run.live
    pool = executor or default_pool()
    # On threads, tasks see the caller's context variables; a process-based executor
    # (dask) cannot carry them.
    in_threads = isinstance(pool, ThreadPoolExecutor)
    futures: set[Future[TaskResult]] = {
        pool.submit(contextvars.copy_context().run, run_task, graph, task, state, run)
        if in_threads
        else pool.submit(run_task, graph, task, state, run)
        for task in (tasks if live is not None else tasks[1:])
    }
    if live is None:
        yield run_task(graph, tasks[0], state, run)
    else:
        for future in futures:
            future.add_done_callback(lambda _: live.set())
    while futures:
        if live is None:
            finished, futures = wait(futures, return_when=FIRST_COMPLETED)
        else:
            live.wait()
            live.clear()
            finished = {future for future in futures if future.done()}
            futures -= finished
            if not finished:
                yield None  # a chunk is waiting
        for future in finished:
            yield future.result()


# -- Update -----------------------------------------------------------------------------


def update(
    graph: GraphSpec,
    state: StepState,
    results: Sequence[TaskResult],
    source: str | None = None,
    discarded: Sequence[Task] = (),
) -> Update:
    """Apply a step's writes to the channels, in task-path order; return the record.

    Steps: sort by task path; mark the trigger versions each node has now seen; let
    consumed channels reset; group writes by channel and hand each channel all of
    its writes at once (its reducer runs here); tell volatile channels a step
    passed; bump the version of everything that changed; save a checkpoint.
    Channels that receive writes are updated on copies and swapped in only when all
    succeed, so a failing reducer leaves the state as it was.

    ``source`` names the checkpoint's origin (default: "loop" for a step that ran
    nodes, "input" for the input step); ``discarded`` are tasks a new input replaces:
    they count as having seen their triggers, so they do not run (as in LangGraph).
    """
    ordered = (
        sorted(results, key=lambda result: _path_key(result.task.path))
        if len(results) > 1
        else results
    )
    step = state.step
    channels = state.channels
    next_version = state.max_version + 1
    changes: dict[str, ChannelChange] = {}
    updated: set[str] = set()
    versions = state.versions

    # 1. what each node has now seen (discarded tasks too), which channels the pull
    #    tasks consumed, and the writes grouped by channel with who wrote them
    seen_changes: dict[str, dict[str, int]] = {}
    consumable: dict[str, None] = {}  # an ordered set
    grouped: dict[str, list[Any]] = {}
    writers: dict[str, list[str]] = {}
    is_loop_step = False  # the input step and update_state's steps run no node
    for task in discarded:
        _mark_seen(graph, state, task, seen_changes)
    for result in ordered:
        task = result.task
        if task.triggers:
            is_loop_step = True
            for channel in _mark_seen(graph, state, task, seen_changes):
                consumable[channel] = None
        for channel, value in result.writes:
            if channel in grouped:
                grouped[channel].append(value)
                writers[channel].append(task.node)
            elif channel in channels:
                grouped[channel] = [value]
                writers[channel] = [task.node]
            else:
                message = _unknown_channel(graph, step, task.node, channel)
                warn(message)

    # 2. on copies: let the channels that woke the tasks reset (consume), then apply
    #    the writes; commit only once every channel accepted its writes
    working: dict[str, Channel] = {}
    consumed: list[str] = []
    consuming = graph.consuming_channels
    for name in consumable:
        if name in consuming:  # the others never change on consume()
            channel = working[name] = channels[name].copy()
            if channel.consume():
                consumed.append(name)
    changed: list[str] = []
    for name, values in grouped.items():
        channel = working.get(name)
        if channel is None:
            channel = working[name] = channels[name].copy()
        try:
            if channel.update(values):
                changed.append(name)
        except InvalidUpdateError as error:
            raise _explain(error, name, step, writers[name]) from error
        except Exception as error:  # a reducer raised: keep its class, say where
            error.add_note(_reducer_note(graph, name, step, writers[name]))
            raise
    changed.extend(name for name in consumed if name not in changed)

    # 3. commit, recording each change
    reducers = graph.reducers
    for name in changed:
        after = working[name]
        written = grouped.get(name)
        changes[name] = ChannelChange(
            name,
            channels[name].checkpoint(),
            after.checkpoint(),
            versions.get(name),
            next_version,
            tuple(writers[name]) if written is not None else (),
            tuple(written) if written is not None else (),
            reducers[name],
        )
        channels[name] = after
        if written is not None and after.is_available():
            updated.add(name)

    # 4. a step passed: volatile channels not written this step may clear themselves
    if is_loop_step and state.live_volatile:
        live = state.live_volatile
        for name in sorted(live) if len(live) > 1 else tuple(live):  # the same in every process
            if name in grouped:
                continue
            channel = channels[name].copy()
            if channel.update([]):
                _commit_runtime_change(graph, state, name, channel, next_version, changes, updated)

    # 5. if nothing would run next, let channels that wait for the end finish
    if is_loop_step and graph.trigger_to_nodes.keys().isdisjoint(updated):
        for name in graph.finishing_channels:
            channel = channels[name].copy()
            if channel.finish():
                _commit_runtime_change(graph, state, name, channel, next_version, changes, updated)

    # 6. versions and bookkeeping for the next step
    live_volatile = state.live_volatile
    for name in changes:
        versions[name] = next_version
        channel = channels[name]
        if channel.volatile and channel.is_available():
            live_volatile.add(name)
        elif name in live_volatile:
            live_volatile.remove(name)
    if changes:
        state.max_version = next_version
    source = source or ("loop" if is_loop_step else "input")
    checkpoint = _next_checkpoint(state, changes, seen_changes, updated, source, next_version)
    state.checkpoint = checkpoint
    state.updated_channels = checkpoint.updated_channels
    state.step = step + 1
    return Update(step, tuple(changes.values()), checkpoint.updated_channels, checkpoint)


def _unknown_channel(graph: GraphSpec, step: int, node: str, channel: str) -> str:
    """The warning for a write to a channel the graph does not have."""
    if not channel.startswith("branch:to:"):
        return (
            f"Step {step}: node {node!r} wrote to {channel!r}, which is not a channel of this "
            "graph; the write is dropped (as in LangGraph)."
        )
    nodes = sorted(name for name in graph.nodes if name != START)
    return (
        f"Step {step}: the router or Command(goto=...) of {node!r} returned "
        f"{channel[len('branch:to:') :]!r}, which is not a node (nodes: {nodes}); nothing runs "
        "for it, as in LangGraph. Return a node name or END, or give add_conditional_edges "
        "a path_map."
    )


def _mark_seen(
    graph: GraphSpec, state: StepState, task: Task, seen_changes: dict[str, dict[str, int]]
) -> tuple[str, ...]:
    """Record that a pull task's node has seen its triggers' current versions (as in
    LangGraph, all of them, not only those that fired); return those triggers. Push
    tasks and the input step subscribe to nothing."""
    node = graph.nodes.get(task.node)
    if node is None or task.kind != "pull":
        return ()
    versions = state.versions
    earlier = state.versions_seen.get(task.node)
    seen = dict(earlier) if earlier else {}
    for channel in node.triggers:
        if channel in versions:
            seen[channel] = versions[channel]
    # a new dict each time, never changed after: the checkpoint can keep this one
    state.versions_seen[task.node] = seen_changes[task.node] = seen
    return node.triggers


def _commit_runtime_change(
    graph: GraphSpec,
    state: StepState,
    name: str,
    channel: Channel,
    version: int,
    changes: dict[str, ChannelChange],
    updated: set[str],
) -> None:
    """Swap in a copy the runtime itself changed (a volatile channel cleared a step
    after it was written, or a channel finished) and record the change. A channel
    has one change per step: one already written or consumed keeps its change, with
    the new value after."""
    before = state.channels[name]
    state.channels[name] = channel
    earlier = changes.get(name)
    if earlier is not None:
        changes[name] = dataclasses.replace(earlier, after=channel.checkpoint())
    else:
        changes[name] = ChannelChange(
            name,
            before.checkpoint(),
            channel.checkpoint(),
            state.versions.get(name),
            version,
            (),
            (),
            graph.reducers[name],
        )
    if channel.is_available():
        updated.add(name)


def _path_key(path: tuple[Any, ...]) -> tuple[str, ...]:
    # Pull tasks sort by node name before push tasks by send index, as in LangGraph.
    return tuple(f"{part:010d}" if isinstance(part, int) else str(part) for part in path[:3])


def _explain(
    error: InvalidUpdateError, channel: str, step: int, writers: Sequence[str]
) -> InvalidUpdateError:
    names = " and ".join(repr(w) for w in dict.fromkeys(writers))
    return InvalidUpdateError(f"Step {step}: {names} wrote {channel!r}. {error}")


def _reducer_note(graph: GraphSpec, channel: str, step: int, writers: Sequence[str]) -> str:
    names = " and ".join(repr(w) for w in dict.fromkeys(writers))
    return (
        f"While step {step} applied its writes to channel {channel!r}: its reducer "
        f"{graph.reducers[channel]} raised (writers: {names}); the state is left as it was "
        "before the step."
    )


def _next_checkpoint(
    state: StepState,
    changes: Mapping[str, ChannelChange],
    seen_changes: Mapping[str, dict[str, int]],
    updated: set[str],
    source: str,
    version: int,
) -> Checkpoint:
    previous = state.checkpoint
    saved: dict[str, Any] = {}
    removed: list[str] = []
    for name, change in changes.items():
        if change.after is EMPTY:
            removed.append(name)
        else:
            saved[name] = change.after
    return Checkpoint(
        new_checkpoint_id(after=previous.id if previous.source != "empty" else None),
        state.step,
        source,
        previous.id if previous.source != "empty" else None,
        previous.channel_values.with_changes(saved, removed),  # type: ignore[attr-defined]
        previous.channel_versions.with_changes(dict.fromkeys(changes, version)),  # type: ignore[attr-defined]
        previous.versions_seen.with_changes(seen_changes),  # type: ignore[attr-defined]
        frozenset(updated),
    )
