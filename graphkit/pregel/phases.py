"""One superstep in three phases, side by side: they are the whole Pregel algorithm.

``plan`` picks the tasks: one per ``Send`` packet, then every node a changed channel woke.
``execute`` runs them on the same frozen channels; each task's writes go into its result.
``update`` applies all writes at once in task-path order and makes the checkpoint: the
only place channels change. The stepper calls them in turn and saves between them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from graphkit.channels import EMPTY, Channel
from graphkit.checkpoint import Checkpoint, new_checkpoint_id
from graphkit.constants import INTERRUPT, PUSH, RETURN, START, TASKS
from graphkit.diagnostics import run as diagnose
from graphkit.errors import InvalidUpdateError, warn
from graphkit.pregel.records import (
    ChannelChange,
    Plan,
    Task,
    TaskResult,
    Update,
    path_text,
    task_id,
)
from graphkit.pregel.runtime import RunContext
from graphkit.pregel.spec import GraphSpec, NodeSpec
from graphkit.pregel.step_work import StepWork
from graphkit.pregel.task_scope import current_scope

__all__ = ["StepState", "execute", "plan", "task_state", "update"]


@dataclass(slots=True)
class StepState:
    """The live state between phases: channels, their versions, which versions each
    node has seen. Only ``update`` changes it, and the named operations below."""

    channels: dict[str, Channel]
    versions: dict[str, int]
    versions_seen: dict[str, dict[str, int]]
    updated_channels: frozenset[str]
    step: int
    checkpoint: Checkpoint
    max_version: int = 0
    live_volatile: set[str] = field(default_factory=set)  # volatile channels holding a value
    last_step: int = 0  # LangGraph's stop: planning a step past it is over the limit

    @classmethod
    def fresh(cls, graph: GraphSpec, step: int = -1) -> StepState:
        """Where a new run starts: empty channels, shared (Update never changes one in
        place) except those that start with a value (a reducer's ``[]``)."""
        channels = dict(graph.empty_channels)
        for key in graph.filled_channels:
            channels[key] = channels[key].empty_copy()
        return cls(channels, {}, {}, frozenset(), step, _NO_CHECKPOINT)

    @classmethod
    def restored(cls, graph: GraphSpec, checkpoint: Checkpoint) -> StepState:
        """The state a saved checkpoint describes, ready for the next Plan: a fresh
        state given the checkpoint's channel values, versions and versions seen."""
        state = cls.fresh(graph, checkpoint.step + 1)
        channels, versions = state.channels, dict(checkpoint.channel_versions.items())
        for key, value in checkpoint.channel_values.items():
            if key in channels:
                channel = channels[key] = channels[key].from_checkpoint(value)
                if channel.volatile and channel.is_available():
                    state.live_volatile.add(key)
        state.versions, state.max_version = versions, max(versions.values(), default=0)
        state.versions_seen = {node: dict(seen) for node, seen in checkpoint.versions_seen.items()}
        state.updated_channels, state.checkpoint = checkpoint.updated_channels, checkpoint
        return state

    def limit_steps(self, recursion_limit: int) -> None:
        """Set the last step this run may take, as LangGraph sets its ``stop``: the
        step it starts at, plus ``recursion_limit``, plus one."""
        self.last_step = self.step + recursion_limit + 1

    def read(
        self,
        keys: Sequence[str],
        managed: Mapping[str, Any] | None = None,
        channels: Mapping[str, Channel] | None = None,
    ) -> dict[str, Any]:
        """The values of ``keys`` that hold one: those from ``channels`` (by default the
        state's own), then the ``managed`` values."""
        channels = self.channels if channels is None else channels
        values = {}
        for key in keys:  # (a loop: in Python 3.11 a comprehension is a call of its own)
            if managed and key in managed:
                continue
            channel = channels[key]
            if channel.is_available():
                values[key] = channel.get()
        if not managed:
            return values
        # Managed values come last, whatever their place in the schema, as in LangGraph
        # (a node printing its state shows the keys in the same order).
        for key in keys:
            if (manager := managed.get(key)) is not None:
                values[key] = manager.get(self.step, self.last_step)
        return values

    def copy(self) -> StepState:
        """A copy that an Update can change without changing this state (the channels
        themselves are shared: Update swaps in copies, never changes one in place)."""
        return dataclasses.replace(
            self,
            channels=dict(self.channels),
            versions=dict(self.versions),
            versions_seen=dict(self.versions_seen),
            live_volatile=set(self.live_volatile),
        )

    def pass_breakpoints(self) -> None:
        """Resuming: the breakpoint that stopped the run is passed this time."""
        self.versions_seen[INTERRUPT] = dict(self.versions)

    def hold_at(self, loaded: Checkpoint) -> Checkpoint:
        """After an Update that applied a ``Command``'s writes to the ``loaded``
        checkpoint of a resumed run: stay at its step and id, with the written values,
        and keep planned what it was about to run along with what the writes woke."""
        self.step -= 1
        self.updated_channels = loaded.updated_channels | self.updated_channels
        self.checkpoint = dataclasses.replace(
            self.checkpoint,
            id=loaded.id,
            step=loaded.step,
            source=loaded.source,
            parent_id=loaded.parent_id,
            updated_channels=self.updated_channels,
        )
        return self.checkpoint

    def fork(self) -> Checkpoint:
        """Replaying an older checkpoint: continue from (and return) a copy of it, a new
        branch of the thread (LangGraph's "fork" checkpoint)."""
        checkpoint = self.checkpoint
        self.checkpoint = dataclasses.replace(
            checkpoint,
            id=new_checkpoint_id(after=checkpoint.id),
            source="fork",
            parent_id=checkpoint.id,
            step=checkpoint.step + 1,
            versions_seen=checkpoint.versions_seen.with_changes(  # type: ignore[attr-defined]
                _resumed(checkpoint.versions_seen, self.versions_seen)
            ),
        )
        self.step = self.checkpoint.step + 1
        return self.checkpoint


_NONE_SEEN: Mapping[str, int] = {}  # what a node that never ran has seen (never changed)
_NO_CHECKPOINT = Checkpoint.empty()  # never saved: the first saved checkpoint has no parent


# -- Plan -------------------------------------------------------------------------------


def plan(graph: GraphSpec, state: StepState) -> Plan:
    """Pick the tasks of step ``state.step``: one per ``Send`` packet written last step
    (in send order), then every node a channel changed by the last Update woke (by name)."""
    step, checkpoint_id = state.step, state.checkpoint.id
    tasks = []
    packets = state.channels.get(TASKS)
    sends = packets.get() if packets is not None and packets.is_available() else ()
    for index, packet in enumerate(sends):
        if packet.node not in graph.nodes:  # Send(START, ...) re-enters the graph, as in LangGraph
            warn(diagnose.unknown_send_target(step, packet.node, graph.nodes, graph.input_channel))
            continue
        path = (PUSH, index)
        id_ = task_id(checkpoint_id, step, path)
        tasks.append(
            Task(id_, step, packet.node, "push", path, (PUSH,), packet.arg, timeout=packet.timeout)
        )
    woken: set[str] = set()
    for channel in state.updated_channels:
        woken.update(graph.trigger_to_nodes.get(channel, ()))
    for name in sorted(woken) if len(woken) > 1 else woken:
        node = graph.nodes[name]
        seen = state.versions_seen.get(name, _NONE_SEEN)
        fired = {}
        for channel in node.triggers:
            version = state.versions.get(channel, 0)
            if version > seen.get(channel, 0) and state.channels[channel].is_available():
                fired[channel] = version
        if fired:
            task_input = read_input(graph, node, state)
            path, text = graph.pull_paths[name]
            id_ = task_id(checkpoint_id, step, path, text)
            tasks.append(Task(id_, step, name, "pull", path, tuple(fired), task_input, fired))
    return Plan(step, tuple(tasks))


def task_state() -> Any:
    """The graph's state as the running task sees it; None outside a graph. A task sent
    with ``Send`` gets what its node reads when an edge triggers it (managed values too,
    coerced to its schema); any other task, the state's channels as they are. (A
    ``ToolNode`` given bare tool calls hands its tools this state, as LangGraph's does.)"""
    scope = current_scope()
    if scope is None or scope.work is None or scope.node is None:
        return None
    graph, state = scope.work.graph, scope.work.state
    if scope.task.kind != "push":
        return state.read(graph.state_keys)
    return read_input(graph, scope.node, state)


def read_input(graph: GraphSpec, node: NodeSpec, state: StepState) -> Any:
    """What ``node`` receives: one channel's value, or a dict (coerced to the node's
    schema class when it has one) of the channels and managed values it reads."""
    if isinstance(node.reads, str):
        return state.channels[node.reads].get()
    values = state.read(node.reads, graph.managed)
    if node.coerce is None:
        return values
    try:
        return node.coerce(values)
    except Exception as error:
        ran = any(name in graph.nodes and name != START for name in state.versions_seen)
        error.add_note(diagnose.unreadable_state(node.name, state.step, error, ran))
        raise


# -- Execute ----------------------------------------------------------------------------


def execute(
    graph: GraphSpec,
    plan: Plan,
    state: StepState,
    run: RunContext,
    saved: Mapping[str, TaskResult] | None = None,
    known: Sequence[TaskResult] = (),
) -> Iterable[TaskResult | None]:
    """Run the plan's tasks (one inline, several on ``run.options.executor``, a thread pool
    by default), and the tasks added while they run (``StepWork``); yield each result as
    its task finishes. When the listener wants live chunks (it has a ``wake`` event),
    tasks run on the executor and ``None`` means a chunk came. ``saved``: results of tasks
    added while running that finished before the run stopped (by task id), reused on
    resume; ``known``: results of the step that are not run (the input step's, reused on
    resume, cached), yielded first. Past the step timeout of ``run.options``,
    ``TimeoutError``."""
    if not plan.tasks and not any(result.error is not None for result in known):
        return known  # nothing to run (the input step; all reused), nothing to hand over
    work = StepWork(graph, state, run, saved or {})
    return work.execute(plan.tasks, known)


# -- Update -----------------------------------------------------------------------------


def update(
    graph: GraphSpec,
    state: StepState,
    results: Sequence[TaskResult],
    source: str | None = None,
    discarded: Sequence[Task] = (),
    recorded: bool = True,
) -> Update | None:
    """Apply a step's writes in task-path order and return the record. ``source`` is
    the checkpoint's origin (default "loop", or "input" for the input step);
    ``discarded`` tasks (replaced by a new input) pass with the step as if they had run,
    as in LangGraph: they see their triggers and the step clears what it would clear (the
    ``Send``s they were). Not ``recorded`` (``invoke`` and ``stream`` keeping no records
    and saving nothing): no record (None), and the new checkpoint holds no values
    (``Checkpoint.unsaved``)."""
    # 1. sort by task path; mark what each node has seen, and the channels it consumes
    ordered = sorted(results, key=_task_order) if len(results) > 1 else results
    seen: dict[str, dict[str, int]] = {}
    consumed: dict[str, None] = {}  # an ordered set
    for task in discarded:
        for channel in _mark_seen(graph, state, task, seen):
            consumed[channel] = None
    runs_nodes = False  # the input step and update_state's steps run no node
    grouped: dict[str, list[Any]] = {}  # each channel's writes, in apply order
    for result in ordered:
        if result.task.triggers:
            runs_nodes = True
            for channel in _mark_seen(graph, state, result.task, seen):
                consumed[channel] = None
        elif result.task.kind == "input":
            _mark_seen(graph, state, result.task, seen)
        # 2. group the writes by channel
        for channel, value in result.writes:
            if channel in grouped:
                grouped[channel].append(value)
            elif channel in graph.channels:
                grouped[channel] = [value]
            elif channel == RETURN:  # a called task's return value: recorded, not a channel
                continue
            else:  # dropped, as in LangGraph
                warn(diagnose.unknown_channel(state.step, result.task.node, channel, graph.nodes))
    # 3. reset consumed channels and hand each channel all its writes
    made = _Changes(graph, state, recorded, ordered)
    made.consume_and_write(consumed, grouped)
    if runs_nodes or discarded:
        # 4. a step passed: volatile channels not written may clear themselves
        made.change(sorted(state.live_volatile - grouped.keys()), finish=False)
        # 5. nothing runs next: let channels waiting for the end (if any) finish
        if graph.finishing_channels and graph.trigger_to_nodes.keys().isdisjoint(made.updated):
            made.change(graph.finishing_channels, finish=True)
    # 6. bump versions, make the checkpoint
    checkpoint = made.commit(seen, source or ("loop" if runs_nodes else "input"))
    state.checkpoint, state.updated_channels = checkpoint, checkpoint.updated_channels
    state.step += 1
    if not recorded:
        return None
    changes = tuple(made.changes.values())
    return Update(
        checkpoint.step, changes, checkpoint.updated_channels, checkpoint, graph.update_keys
    )


class _Changes:
    """The channel changes of one Update as they are made: each copies a channel,
    applies something to the copy, swaps it in and (when ``recorded``) records the
    ``ChannelChange``. A run nobody reads skips the records and its checkpoints' values:
    together 20% of a 3-node ``invoke`` (benchmarks/README.md, "After the core redesign")."""

    def __init__(
        self,
        graph: GraphSpec,
        state: StepState,
        recorded: bool = True,
        results: Sequence[TaskResult] = (),
    ) -> None:
        self.graph, self.state, self.version = graph, state, state.max_version + 1
        self.recorded, self.results = recorded, results  # (results: for error messages)
        self.changed: dict[str, None] = {}  # an ordered set: the channels swapped
        self.changes: dict[str, ChannelChange] = {}
        self.updated: set[str] = set()  # changed to a value (by a write or the runtime)
        self.writers: dict[str, list[str]] | None = None  # by channel, once one is asked

    def consume_and_write(self, consumed: Iterable[str], grouped: dict[str, list[Any]]) -> None:
        """Reset consumed channels, then hand each channel all its writes, on copies
        swapped in only once every channel accepted its writes."""
        channels, copies, reset, written = self.state.channels, {}, [], []
        step = self.state.step
        for name in consumed:
            if name in self.graph.consuming_channels:  # the others never change on consume()
                copy = copies[name] = channels[name].copy()
                if copy.consume():
                    reset.append(name)
        for name, values in grouped.items():
            copy = copies.get(name)
            if copy is None:
                copy = copies[name] = channels[name].copy()
            try:
                if copy.update(values):
                    written.append(name)
            except InvalidUpdateError as error:
                tasks = [r.task for r in self.results if any(c == name for c, _ in r.writes)]
                message = diagnose.invalid_update(
                    step, self._writers(name), name, error, tasks, self.graph.low_level
                )
                raise InvalidUpdateError(message) from error
            except Exception as error:  # a reducer raised: keep its class, say where
                reducer = self.graph.reducer_names[name]
                held_none = getattr(channels[name], "value", EMPTY) is None
                note = diagnose.reducer_raised(step, name, reducer, self._writers(name), held_none)
                error.add_note(note)
                raise
        for name in written:
            self._swap_in(name, copies[name], grouped[name])
        for name in reset:
            if name not in written:  # (a write that changed nothing keeps its writers)
                self._swap_in(name, copies[name], grouped.get(name, ()), name in grouped)

    def change(self, names: Iterable[str], finish: bool) -> None:
        """Tell channels a step passed (``update(())``) or that the run ends (``finish()``)."""
        for name in names:
            channel = self.state.channels[name].copy()
            if channel.finish() if finish else channel.update(()):
                self._swap_in(name, channel, ())

    def _swap_in(
        self, name: str, after: Channel, values: Sequence[Any], updates: bool = True
    ) -> None:
        """Swap ``after`` in for channel ``name``, at the step's new version, once it took
        ``values`` (the step's writes to it, none for the runtime's own change); one that
        holds a value then counts as ``updated`` unless told otherwise."""
        state = self.state
        if self.recorded:
            self._record(name, after, values)
        self.changed[name] = None
        state.channels[name], state.versions[name] = after, self.version
        holds_value = after.is_available()
        if holds_value and updates:
            self.updated.add(name)
        if holds_value and after.volatile:
            state.live_volatile.add(name)
        else:
            state.live_volatile.discard(name)

    def _writers(self, name: str) -> list[str]:
        """The nodes whose writes to channel ``name`` the step applies, in apply order.
        Found for every channel in one pass when first asked: a record asks per channel,
        and a pass each made a recorded step quadratic in the channels written."""
        if self.writers is None:
            self.writers = {}
            for result in self.results:
                for channel, _ in result.writes:
                    self.writers.setdefault(channel, []).append(result.task.node)
        return self.writers.get(name, [])

    def _record(self, name: str, after: Channel, values: Sequence[Any]) -> None:
        # a channel has one change per step, keeping its first ``before``
        earlier = self.changes.get(name)
        if earlier is not None:
            self.changes[name] = dataclasses.replace(earlier, after=after.checkpoint())
            return
        self.changes[name] = ChannelChange(
            name,
            self.state.channels[name].checkpoint(),
            after.checkpoint(),
            self.state.versions.get(name),
            self.version,
            tuple(self._writers(name) if values else ()),
            tuple(values),
            self.graph.reducer_names[name],
        )

    def commit(self, seen: Mapping[str, dict[str, int]], source: str) -> Checkpoint:
        """Make the checkpoint of the changes swapped in (at the step's new version)."""
        state, changed, changes = self.state, self.changed, self.changes
        if changed:
            state.max_version = self.version
        previous = state.checkpoint
        parent = previous.id if previous.source != "empty" else None
        if not self.recorded:
            return Checkpoint.unsaved(state.step, source, parent, self.updated)
        if resumed := _resumed(previous.versions_seen, state.versions_seen):
            seen = {**seen, **resumed}
        saved: dict[str, Any] = {}
        removed: list[str] = []
        for name in changed:  # (a record's ``after`` is the value saved: one object, not two)
            after = changes[name].after
            if after is EMPTY:  # (a consumed barrier or topic saves its empty state)
                after = state.channels[name].saved_empty()
            if after is EMPTY:
                removed.append(name)
            else:
                saved[name] = after
        return Checkpoint(
            new_checkpoint_id(after=parent),
            state.step,
            source,
            parent,
            previous.channel_values.with_changes(saved, removed),  # type: ignore[attr-defined]
            previous.channel_versions.with_changes(dict.fromkeys(changed, state.max_version)),  # type: ignore[attr-defined]
            previous.versions_seen.with_changes(seen),  # type: ignore[attr-defined]
            frozenset(self.updated),
        )


def _resumed(
    saved: Mapping[str, Mapping[str, int]], live: Mapping[str, Mapping[str, int]]
) -> dict[str, Mapping[str, int]]:
    """The change to ``saved`` versions seen that keeps the versions a resumed run passed
    its breakpoints at (LangGraph's "__interrupt__" entry, saved as there: an edit
    without ``as_node`` on a branch no node has run on since is ambiguous, not START's)."""
    resumed = live.get(INTERRUPT)
    if resumed is None or resumed == saved.get(INTERRUPT):
        return {}
    return {INTERRUPT: resumed}


def _mark_seen(
    graph: GraphSpec, state: StepState, task: Task, seen: dict[str, dict[str, int]]
) -> tuple[str, ...]:
    """Record that a pull task's node saw all its triggers (as in LangGraph, not only
    those that fired) at their current versions; return those triggers. A push task's
    node and the input (``"__input__"``) subscribe to nothing: each gets an empty entry,
    as LangGraph saves them."""
    node = graph.nodes.get(task.node)
    if task.kind != "pull":
        if task.node not in state.versions_seen and (node is not None or task.kind == "input"):
            state.versions_seen[task.node] = seen[task.node] = {}
        return ()
    if node is None:
        return ()
    now_seen = dict(state.versions_seen.get(task.node) or {})
    for channel in node.triggers:
        if channel in state.versions:
            now_seen[channel] = state.versions[channel]
    # a new dict each time, never changed after: the checkpoint can keep this one
    state.versions_seen[task.node] = seen[task.node] = now_seen
    return node.triggers


def _task_order(result: TaskResult) -> str:
    # LangGraph's key, compared as one string: pull tasks by node name, then push tasks
    # by send index; so an error handler (its failed task's path, extended) of node "a"
    # comes after node "a b", as there. (The False a Send's shown path ends with would
    # change no order: its index, of fixed width, decides first.)
    return path_text(result.task.path)
