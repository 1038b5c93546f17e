"""One superstep in three phases, side by side: they are the whole Pregel algorithm.

* ``plan`` picks the tasks: one per ``Send`` packet written last step, then every
  node woken by a channel the last Update changed (a trigger with a version the node
  has not seen).
* ``execute`` runs them. Each reads the same frozen channels; what a task writes goes
  into its own result, never into a channel, so no task sees another's writes.
* ``update`` applies every write at once, in task-path order (never in the order tasks
  finished), bumps the versions of what changed and makes the next checkpoint. It is
  the only place channels change.

The stepper (``graphkit.pregel.stepper``) calls them in turn; saving and limits happen
there, between phases, never in here.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from graphkit.channels import EMPTY, Channel
from graphkit.checkpoint import Checkpoint, new_checkpoint_id
from graphkit.constants import INTERRUPT, PULL, PUSH, START, TASKS
from graphkit.errors import GraphInterrupt, InvalidUpdateError, ParentCommand, warn
from graphkit.pregel.records import ChannelChange, Plan, Task, TaskResult, Update, task_id
from graphkit.pregel.runtime import RunContext, TaskScope, enter_task, injected_values, leave_task
from graphkit.pregel.spec import FreshRead, GraphSpec, NodeSpec

__all__ = ["StepState", "execute", "fresh_reader", "plan", "run_task", "update"]


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
    live_volatile: set[str] = field(default_factory=set)
    """Volatile channels holding a value: Update tells them each step that passes."""
    stop: int = 0
    """The first step the recursion limit forbids (managed values read it too)."""

    @classmethod
    def fresh(cls, graph: GraphSpec, step: int = -1) -> StepState:
        """Empty channels, no versions: where a new run starts (before its input).
        Empty channels are shared by every run (Update never changes one in place);
        one that starts with a value (a reducer's ``[]``) gets its own copy."""
        channels = {
            key: channel.empty_copy() if channel.is_available() else channel
            for key, channel in graph.empty_channels.items()
        }
        return cls(channels, {}, {}, frozenset(), step, _NO_CHECKPOINT)

    def read(self, keys: Sequence[str]) -> dict[str, Any]:
        """The values of ``keys`` that hold one, as a dict."""
        channels = self.channels
        return {key: channels[key].get() for key in keys if channels[key].is_available()}

    def pass_breakpoints(self) -> None:
        """Resuming: the breakpoint that stopped the run is passed this time (LangGraph
        stops again only once a channel changes after this)."""
        self.versions_seen[INTERRUPT] = dict(self.versions)

    def fork(self) -> Checkpoint:
        """Replaying an older checkpoint: continue from a copy of it, a new branch of
        the thread (LangGraph's "fork" checkpoint); returns that copy, to be saved."""
        checkpoint = self.checkpoint
        self.checkpoint = dataclasses.replace(
            checkpoint,
            id=new_checkpoint_id(after=checkpoint.id),
            source="fork",
            parent_id=checkpoint.id,
            step=checkpoint.step + 1,
        )
        self.step = self.checkpoint.step + 1
        return self.checkpoint


_NO_CHECKPOINT = Checkpoint.empty()
"""Where every new run starts: never saved; the first saved checkpoint has no parent."""


def read_keys(
    graph: GraphSpec, channels: Mapping[str, Channel], keys: Sequence[str], state: StepState
) -> dict[str, Any]:
    """The values of ``keys``: channels that hold one, and managed values."""
    if not graph.managed:
        return {key: channels[key].get() for key in keys if channels[key].is_available()}
    values = {}
    for key in keys:
        if (manager := graph.managed.get(key)) is not None:
            values[key] = manager.get(state.step, state.stop)
        elif channels[key].is_available():
            values[key] = channels[key].get()
    return values


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
            task_input = read_input(graph, node, state)
            path = (PULL, name)
            id_ = task_id(state.checkpoint.id, state.step, path)
            tasks.append(Task(id_, state.step, name, "pull", path, tuple(fired), task_input, fired))
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
        path = (PUSH, index)
        id_ = task_id(state.checkpoint.id, state.step, path)
        tasks.append(Task(id_, state.step, packet.node, "push", path, (PUSH,), packet.arg))
    return tasks


def read_input(graph: GraphSpec, node: NodeSpec, state: StepState) -> Any:
    """What ``node`` receives: one channel's value, or a dict (coerced to the node's
    schema class when it has one) of the channels and managed values it reads."""
    if isinstance(node.reads, str):
        return state.channels[node.reads].get()
    values = read_keys(graph, state.channels, node.reads, state)
    if node.coerce is None:
        return values
    try:
        return node.coerce(values)
    except Exception as error:
        schema = getattr(error, "title", None) or "the node's state schema"  # pydantic's title
        ran = any(name in graph.nodes and name != START for name in state.versions_seen)
        source = (
            "a node or update_state wrote a value it refuses"
            if ran
            else "the values come from the run's input, so fix the input"
        )
        error.add_note(
            f"Before task with name {node.name!r} (step {state.step}): its state could not "
            f"be read as {schema}; {source}."
        )
        raise


# -- Execute ----------------------------------------------------------------------------


def execute(
    graph: GraphSpec,
    plan: Plan,
    state: StepState,
    run: RunContext,
    executor: Executor | None = None,
) -> Iterable[TaskResult | None]:
    """Run the plan's tasks; yield each result as its task finishes.

    A single task runs inline; several run concurrently on ``executor`` (a shared
    thread pool by default) and their results come in the order the tasks finish, as
    in LangGraph; ``update`` never depends on that order. When running tasks' chunks
    are wanted live (the listener has a ``wake`` event), every task runs on the
    executor and this yields ``None`` whenever a running task sent a chunk, so it can
    be passed on at once.
    """
    tasks = plan.tasks
    wake = run.listener.wake if run.listener is not None else None
    if not tasks:
        return ()
    if wake is None and len(tasks) == 1:
        return (run_task(graph, tasks[0], state, run),)
    return _execute_concurrently(graph, tasks, state, run, executor or default_pool(), wake)


def _execute_concurrently(
    graph: GraphSpec,
    tasks: Sequence[Task],
    state: StepState,
    run: RunContext,
    pool: Executor,
    wake: threading.Event | None,
) -> Iterator[TaskResult | None]:
    finished: queue.SimpleQueue[Future[TaskResult]] = queue.SimpleQueue()

    def on_done(future: Future[TaskResult]) -> None:
        finished.put(future)  # in the order the tasks finish
        if wake is not None:
            wake.set()

    # On threads, tasks see the caller's context variables; a process-based executor
    # (dask) cannot carry them.
    in_threads = isinstance(pool, ThreadPoolExecutor)
    for task in tasks:
        if in_threads:
            future = pool.submit(contextvars.copy_context().run, run_task, graph, task, state, run)
        else:
            future = pool.submit(run_task, graph, task, state, run)
        future.add_done_callback(on_done)
    for _ in tasks:
        while wake is not None and finished.empty():
            wake.wait()
            wake.clear()
            if finished.empty():
                yield None  # a chunk is waiting
        yield finished.get().result()


def run_task(graph: GraphSpec, task: Task, state: StepState, run: RunContext) -> TaskResult:
    """Run one task: call its node, then turn the return value into writes (state
    updates first, then Command routes, edges and routers). A failure is retried as
    the node's retry policy says; the last error is caught into the result."""
    node = graph.nodes[task.node]
    injected, task_config = injected_values(node, task, run)
    started = time.perf_counter()
    failed: list[Exception] = []
    subruns: list[Any] = []
    answers = run.answers.get(task.id, ()) if run.answers else ()
    while True:
        scope = TaskScope(run, task, len(failed), subruns, [*answers])
        writes: list[tuple[str, Any]] = []
        output, error, interrupts = None, None, ()
        token = enter_task(scope, task_config)
        try:
            output = _call(node, task.input, injected, run)
            fresh_read = fresh_reader(graph, state, writes) if node.routes else _NO_READER
            for writer in node.writers:
                writes.extend(writer(output, fresh_read, task_config))
        except GraphInterrupt as paused:  # the step stops before Update; nothing is applied
            interrupts, writes = tuple(paused.args[0] if paused.args else ()), []
        except Exception as exc:  # recorded; the stepper raises it after the step's tasks end
            error = exc  # writes made before the error stay visible, but are never applied
        finally:
            leave_task(token)
        if error is None or not node.retry_policies:
            break
        if (policy := _retry_policy_for(node, error, attempt=len(failed) + 1)) is None:
            break
        failed.append(error)  # type: ignore[arg-type]
        time.sleep(policy.interval(len(failed) + 1))
    if error is not None:
        note = f"During task with name {task.node!r} and id {task.id!r} (step {task.step})"
        if note not in getattr(error, "__notes__", ()):  # one exception raised twice
            error.add_note(note)
    return TaskResult(
        task,
        tuple(writes),
        output,
        error,
        len(failed) + 1,
        started,
        time.perf_counter() - started,
        _worker_name(),
        tuple(failed),
        tuple(subruns),
        interrupts,
        tuple(scope.answers),
    )


def _call(node: NodeSpec, value: Any, injected: dict[str, Any], run: RunContext) -> Any:
    try:
        if not node.is_async:
            return node.call(value, **injected)
        if run.loop is None:
            raise TypeError(
                f"Node {node.name!r} is an async function, and this run is synchronous. "
                "Run the graph with `await app.ainvoke(...)` or `app.astream(...)`, or make "
                "the node a plain def."
            )
        # The coroutine runs on the caller's event loop, concurrently with the other
        # async tasks of the step; this worker thread waits for it.
        return asyncio.run_coroutine_threadsafe(node.call(value, **injected), run.loop).result()
    except ParentCommand as sent_up:  # a subgraph this node ran routes its parent: us
        if sent_up.command is None:
            raise
        return dataclasses.replace(sent_up.command, graph=None)


def _retry_policy_for(node: NodeSpec, error: Exception, attempt: int) -> Any:
    """The first of the node's retry policies that wants another attempt, if any."""
    if isinstance(error, (ParentCommand, GraphInterrupt)):
        return None
    for policy in node.retry_policies:
        if policy.should_retry(error):
            return policy if attempt < policy.max_attempts else None
    return None


def _no_reader(keys: Sequence[str]) -> dict[str, Any]:
    raise AssertionError("only a router reads the fresh state, and this node has none")


_NO_READER: FreshRead = _no_reader
_worker = threading.local()


def _worker_name() -> str:
    """The name of the thread running this task, looked up once per thread."""
    try:
        return _worker.name  # type: ignore[no-any-return]
    except AttributeError:
        _worker.name = threading.current_thread().name
        return _worker.name  # type: ignore[no-any-return]


def fresh_reader(graph: GraphSpec, state: StepState, writes: list[tuple[str, Any]]) -> FreshRead:
    """What a router reads: the step's channels with the running task's own writes so
    far applied to copies (the real channels are untouched)."""

    def read(keys: Sequence[str]) -> dict[str, Any]:
        channels: Mapping[str, Channel] = state.channels
        pending: dict[str, list[Any]] = {}
        for channel, value in writes:
            if channel in keys:
                pending.setdefault(channel, []).append(value)
        if pending:
            channels = dict(channels)
            for key, values in pending.items():
                channels[key] = channels[key].copy()
                channels[key].update(values)
        return read_keys(graph, channels, keys, state)

    return read


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def default_pool() -> ThreadPoolExecutor:
    # One process-wide pool: creating threads per run would cost more than most
    # nodes. It is wide so that subgraphs run from inside tasks do not starve it.
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=64, thread_name_prefix="graphkit")
        return _pool


# -- Update -----------------------------------------------------------------------------


def update(
    graph: GraphSpec,
    state: StepState,
    results: Sequence[TaskResult],
    source: str | None = None,
    discarded: Sequence[Task] = (),
) -> Update:
    """Apply a step's writes in task-path order and return the record: mark what each
    node has seen, reset consumed channels, hand each channel all its writes (on copies,
    swapped in only once all accepted them), tell volatile channels a step passed, let
    channels waiting for the end finish, bump versions, make the checkpoint.

    ``source`` is the checkpoint's origin (default "loop", or "input" for the input
    step); ``discarded`` tasks (replaced by a new input) count as having seen their
    triggers, so they do not run, as in LangGraph.
    """
    ordered = sorted(results, key=_task_order) if len(results) > 1 else results
    seen: dict[str, dict[str, int]] = {}
    for task in discarded:
        _mark_seen(graph, state, task, seen)
    runs_nodes = False  # the input step and update_state's steps run no node
    consumed: dict[str, None] = {}  # an ordered set
    grouped: dict[str, list[Any]] = {}  # each channel's writes, in apply order
    writers: dict[str, list[str]] = {}
    for result in ordered:
        if result.task.triggers:
            runs_nodes = True
            for channel in _mark_seen(graph, state, result.task, seen):
                consumed[channel] = None
        for channel, value in result.writes:
            if channel in grouped:
                grouped[channel].append(value)
                writers[channel].append(result.task.node)
            elif channel in graph.channels:
                grouped[channel], writers[channel] = [value], [result.task.node]
            else:  # dropped, as in LangGraph
                warn(_unknown_channel(graph, state.step, result.task.node, channel))
    made = _Changes(graph, state)
    made.consume_and_write(consumed, grouped, writers)
    if runs_nodes:  # a step passed: volatile channels not written may clear themselves
        for name in sorted(state.live_volatile - grouped.keys()):  # the same in every process
            made.change(name, _step_passed)
    if runs_nodes and graph.trigger_to_nodes.keys().isdisjoint(made.updated):
        for name in graph.finishing_channels:  # nothing runs next: let them finish
            made.change(name, _run_ended)
    made.bump_versions()
    source = source or ("loop" if runs_nodes else "input")
    checkpoint = _next_checkpoint(state, made.changes, seen, made.updated, source)
    record = Update(
        state.step, tuple(made.changes.values()), checkpoint.updated_channels, checkpoint
    )
    state.checkpoint, state.updated_channels = checkpoint, checkpoint.updated_channels
    state.step += 1
    return record


def _step_passed(channel: Channel) -> bool:
    return channel.update(())


def _run_ended(channel: Channel) -> bool:
    return channel.finish()


class _Changes:
    """The channel changes of one Update as they are made: each copies a channel,
    applies something to the copy, swaps it in and records the ``ChannelChange``."""

    def __init__(self, graph: GraphSpec, state: StepState) -> None:
        self.graph, self.state, self.version = graph, state, state.max_version + 1
        self.changes: dict[str, ChannelChange] = {}
        self.updated: set[str] = set()
        """Channels changed to a value by a write (or by the runtime): what wakes nodes."""

    def consume_and_write(
        self, consumed: Iterable[str], grouped: dict[str, list[Any]], writers: dict[str, list[str]]
    ) -> None:
        """Let consumed channels reset, then hand each channel all its writes; all on
        copies, swapped in only once every channel accepted its writes."""
        channels, copies, reset, written = self.state.channels, {}, [], []
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
                who = " and ".join(repr(w) for w in dict.fromkeys(writers[name]))
                step = self.state.step
                raise InvalidUpdateError(f"Step {step}: {who} wrote {name!r}. {error}") from error
            except Exception as error:  # a reducer raised: keep its class, say where
                error.add_note(self._reducer_note(name, writers[name]))
                raise
        for name in written:
            self._swap_in(name, copies[name], writers[name], grouped[name])
            if copies[name].is_available():
                self.updated.add(name)
        for name in reset:
            if name not in written:  # (a write that changed nothing keeps its writers)
                self._swap_in(name, copies[name], writers.get(name, ()), grouped.get(name, ()))
                if name in grouped and copies[name].is_available():
                    self.updated.add(name)

    def bump_versions(self) -> None:
        """Give every changed channel the step's new version; keep track of which
        volatile channels hold a value (later steps must tell them one passed)."""
        state = self.state
        for name in self.changes:
            state.versions[name] = self.version
            channel = state.channels[name]
            if channel.volatile and channel.is_available():
                state.live_volatile.add(name)
            else:
                state.live_volatile.discard(name)
        if self.changes:
            state.max_version = self.version

    def change(self, name: str, change: Callable[[Channel], bool]) -> None:
        """A change the runtime makes itself (a volatile channel clears, a channel
        finishes); a channel has one change per step, keeping its first ``before``."""
        channel = self.state.channels[name].copy()
        if change(channel):
            self._swap_in(name, channel, (), ())
            if channel.is_available():
                self.updated.add(name)

    def _reducer_note(self, name: str, writers: list[str]) -> str:
        names = " and ".join(repr(w) for w in dict.fromkeys(writers))
        return (
            f"While step {self.state.step} applied its writes to channel {name!r}: its "
            f"reducer {self.graph.reducers[name]} raised (writers: {names}); the state is "
            "left as it was before the step."
        )

    def _swap_in(
        self, name: str, after: Channel, writers: Sequence[str], values: Sequence[Any]
    ) -> None:
        channels, earlier = self.state.channels, self.changes.get(name)
        if earlier is not None:
            self.changes[name] = dataclasses.replace(earlier, after=after.checkpoint())
        else:
            self.changes[name] = ChannelChange(
                name,
                channels[name].checkpoint(),
                after.checkpoint(),
                self.state.versions.get(name),
                self.version,
                tuple(writers),
                tuple(values),
                self.graph.reducers[name],
            )
        channels[name] = after


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
    graph: GraphSpec, state: StepState, task: Task, seen: dict[str, dict[str, int]]
) -> tuple[str, ...]:
    """Record that a pull task's node has seen its triggers' current versions (as in
    LangGraph, all of them, not only those that fired); return those triggers. Push
    tasks and the input step subscribe to nothing."""
    node = graph.nodes.get(task.node)
    if node is None or task.kind != "pull":
        return ()
    now_seen = dict(state.versions_seen.get(task.node) or {})
    for channel in node.triggers:
        if channel in state.versions:
            now_seen[channel] = state.versions[channel]
    # a new dict each time, never changed after: the checkpoint can keep this one
    state.versions_seen[task.node] = seen[task.node] = now_seen
    return node.triggers


def _task_order(result: TaskResult) -> tuple[str, ...]:
    # Pull tasks sort by node name before push tasks by send index, as in LangGraph.
    path = result.task.path[:3]
    return tuple(f"{part:010d}" if isinstance(part, int) else str(part) for part in path)


def _next_checkpoint(
    state: StepState,
    changes: Mapping[str, ChannelChange],
    seen: Mapping[str, dict[str, int]],
    updated: set[str],
    source: str,
) -> Checkpoint:
    previous = state.checkpoint
    parent = previous.id if previous.source != "empty" else None
    saved: dict[str, Any] = {}
    removed: list[str] = []
    for name, change in changes.items():
        if change.after is EMPTY:
            removed.append(name)
        else:
            saved[name] = change.after
    return Checkpoint(
        new_checkpoint_id(after=parent),
        state.step,
        source,
        parent,
        previous.channel_values.with_changes(saved, removed),  # type: ignore[attr-defined]
        previous.channel_versions.with_changes(dict.fromkeys(changes, state.max_version)),  # type: ignore[attr-defined]
        previous.versions_seen.with_changes(seen),  # type: ignore[attr-defined]
        frozenset(updated),
    )
