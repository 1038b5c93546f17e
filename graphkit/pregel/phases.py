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

import asyncio
import contextvars
import dataclasses
import hashlib
import threading
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from graphkit.channels import EMPTY, Channel
from graphkit.checkpoint import Checkpoint, new_checkpoint_id
from graphkit.constants import PULL, PUSH, TASKS
from graphkit.errors import GraphInterrupt, GraphkitWarning, InvalidUpdateError, ParentCommand
from graphkit.pregel.records import ChannelChange, Plan, Task, TaskResult, Update
from graphkit.pregel.runtime import RunContext, Runtime, TaskScope, enter_task, leave_task
from graphkit.pregel.spec import FreshRead, GraphSpec, NodeSpec

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
        """Empty channels, no versions: where a new run starts (before its input)."""
        channels = {key: channel.empty_copy() for key, channel in graph.channels.items()}
        return cls(channels, {}, {}, frozenset(), -1, Checkpoint.empty())

    def read(self, keys: Sequence[str]) -> dict[str, Any]:
        """The values of ``keys`` that hold one, as a dict."""
        channels = self.channels
        return {key: channels[key].get() for key in keys if channels[key].is_available()}


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
    for name in sorted(woken):
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
            warnings.warn(
                f"Step {state.step}: a Send targets {packet.node!r}, which is not a node of "
                f"this graph (nodes: {nodes}); "
                "it is dropped, as in LangGraph. Fix the node name in the Send.",
                GraphkitWarning,
                stacklevel=3,
            )
            continue
        path = (PUSH, index)
        tasks.append(
            Task(
                id=task_id(state.checkpoint.id, state.step, path),
                step=state.step,
                node=packet.node,
                kind="push",
                path=path,
                triggers=(PUSH,),
                input=packet.arg,
            )
        )
    return tasks


def _pull_task(graph: GraphSpec, node: NodeSpec, state: StepState, fired: dict[str, int]) -> Task:
    path = (PULL, node.name)
    return Task(
        id=task_id(state.checkpoint.id, state.step, path),
        step=state.step,
        node=node.name,
        kind="pull",
        path=path,
        triggers=tuple(fired),
        input=read_input(graph, node, state),
        trigger_versions=fired,
    )


def read_input(graph: GraphSpec, node: NodeSpec, state: StepState) -> Any:
    """What ``node`` receives: one channel's value, or a dict (coerced to the node's
    schema class when it has one) of the channels and managed values it reads."""
    if isinstance(node.reads, str):
        return state.channels[node.reads].get()
    values = read_keys(graph, state.channels, node.reads, state.step, state.stop)
    return node.coerce(values) if node.coerce is not None else values


def read_keys(
    graph: GraphSpec, channels: Mapping[str, Channel], keys: Sequence[str], step: int, stop: int
) -> dict[str, Any]:
    """The values of ``keys``: channels that hold one, and managed values."""
    values = {}
    for key in keys:
        manager = graph.managed.get(key)
        if manager is not None:
            values[key] = manager.get(step, stop)
        elif channels[key].is_available():
            values[key] = channels[key].get()
    return values


def task_id(checkpoint_id: str, step: int, path: tuple[Any, ...]) -> str:
    """A deterministic, UUID-shaped id for the task at ``path`` in a step."""
    digest = hashlib.blake2b(f"{checkpoint_id}|{step}|{path}".encode(), digest_size=16)
    hex_ = digest.hexdigest()
    return f"{hex_[:8]}-{hex_[8:12]}-{hex_[12:16]}-{hex_[16:20]}-{hex_[20:]}"


# -- Execute ----------------------------------------------------------------------------


def execute(
    graph: GraphSpec,
    plan: Plan,
    state: StepState,
    run: RunContext,
    executor: Executor | None = None,
) -> Iterator[TaskResult | None]:
    """Run the plan's tasks; yield each result as its task finishes.

    A single task runs inline in the caller's thread; several run concurrently on
    ``executor`` (a shared thread pool by default), the first of them inline. The
    order results arrive in is timing; ``update`` never depends on it.

    When the run streams chunks live (``run.live`` is set: stream modes "messages" or
    "custom"), every task runs on the executor and this yields ``None`` whenever a
    running task sent a chunk, so the caller can pass it on before the task ends.
    """
    tasks = plan.tasks
    live = run.live
    if not tasks:
        return
    if live is None and len(tasks) == 1:
        yield run_task(graph, tasks[0], state, run)
        return
    pool = executor or _default_pool()
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


def run_task(graph: GraphSpec, task: Task, state: StepState, run: RunContext) -> TaskResult:
    """Run one task: call its node, then turn the return value into writes (state
    updates first, then Command routes, edges and routers). A failure is retried as
    the node's retry policy says; the last error is caught into the result."""
    node = graph.nodes[task.node]
    task_config = task_config_of(run, task, node) if node.injected or run.callbacks else None
    injected = _injected(node, task_config, run.runtime)
    started = time.perf_counter()
    failed: list[Exception] = []
    namespace = (*run.namespace, f"{task.node}:{task.id}")
    subruns: list[Any] = []
    while True:
        # a retried attempt's subgraphs get their own namespace, as in LangGraph
        attempt = (str(len(failed)),) if failed else ()
        scope = TaskScope((*namespace, *attempt), run, subruns, list(run.answers.get(task.id, ())))
        writes: list[tuple[str, Any]] = []
        output: Any = None
        error: Exception | None = None
        interrupts: tuple[Any, ...] = ()
        try:
            with _task_context(run, scope, task_config):
                output = _call(node, task.input, injected, run)
                fresh_read = _FreshRead(graph, state, writes)
                for writer in node.writers:
                    writes.extend(writer(output, fresh_read, task_config))
        except GraphInterrupt as paused:  # the step stops before Update; nothing is applied
            interrupts, writes = tuple(paused.args[0] if paused.args else ()), []
        except Exception as exc:  # recorded; the stepper raises it after the step's tasks end
            error = exc  # writes made before the error stay visible, but are never applied
        policy = _retry_policy_for(node, error, attempt=len(failed) + 1)
        if policy is None:
            break
        failed.append(error)  # type: ignore[arg-type]
        time.sleep(policy.interval(len(failed) + 1))
    return TaskResult(
        task=task,
        writes=tuple(writes),
        output=output,
        error=error,
        attempts=len(failed) + 1,
        started=started,
        duration=time.perf_counter() - started,
        worker=threading.current_thread().name,
        failed_attempts=tuple(failed),
        subruns=tuple(subruns),
        interrupts=interrupts,
        answers=tuple(scope.answers),
    )


def _call(node: NodeSpec, value: Any, injected: dict[str, Any], run: RunContext) -> Any:
    try:
        return _call_sync_or_async(node, value, injected, run)
    except ParentCommand as sent_up:  # a subgraph this node ran routes its parent: us
        if sent_up.command is None:
            raise
        return dataclasses.replace(sent_up.command, graph=None)


def _call_sync_or_async(
    node: NodeSpec, value: Any, injected: dict[str, Any], run: RunContext
) -> Any:
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
    future = asyncio.run_coroutine_threadsafe(node.call(value, **injected), run.loop)
    return future.result()


class _task_context:
    """While a task runs: its runtime and scope are current (``get_runtime()``,
    ``interrupt()``, subgraphs), and with callbacks its config is langchain-core's
    current one, so a chat model called without a config reports to the run's
    callbacks (as in LangGraph). Plain token set/reset: this is on the hot path."""

    __slots__ = ("_config", "_langchain", "_run", "_scope", "_tokens")

    def __init__(self, run: RunContext, scope: TaskScope, config: Any) -> None:
        self._run, self._scope, self._config = run, scope, config

    def __enter__(self) -> None:
        self._tokens = enter_task(self._run.runtime, self._scope)
        self._langchain = None
        if self._run.callbacks and self._config is not None:
            from langchain_core.runnables.config import var_child_runnable_config

            self._langchain = (
                var_child_runnable_config,
                var_child_runnable_config.set(self._config),
            )

    def __exit__(self, *exc_info: Any) -> None:
        if self._langchain is not None:
            variable, token = self._langchain
            variable.reset(token)
        leave_task(self._tokens)


def _injected(node: NodeSpec, config: Mapping[str, Any] | None, runtime: Runtime) -> dict[str, Any]:
    values = {"config": config, "writer": runtime.stream_writer, "runtime": runtime}
    values["store"] = runtime.store
    return {name: values[name] for name in node.injected}


def _retry_policy_for(node: NodeSpec, error: Exception | None, attempt: int) -> Any:
    """The first of the node's retry policies that wants another attempt, if any."""
    if error is None or isinstance(error, (ParentCommand, GraphInterrupt)):
        return None
    for policy in node.retry_policies:
        if policy.should_retry(error):
            return policy if attempt < policy.max_attempts else None
    return None


def task_config_of(run: RunContext, task: Task, node: NodeSpec) -> dict[str, Any]:
    """The config a task's node is handed: the run's, with LangGraph's task metadata
    and the run's callback handlers."""
    namespace = "|".join((*run.namespace, f"{task.node}:{task.id}"))
    metadata = {
        **run.config.get("metadata", {}),
        **node.metadata,
        "langgraph_step": task.step,
        "langgraph_node": task.node,
        "langgraph_triggers": tuple(sorted(node.triggers))
        if task.kind == "pull"
        else task.triggers,
        "langgraph_path": task.path,
        "langgraph_checkpoint_ns": namespace,
    }
    configurable = {**run.config.get("configurable", {}), "checkpoint_ns": namespace}
    config = {**run.config, "metadata": metadata, "configurable": configurable}
    if run.callbacks:
        config["callbacks"] = _with_handlers(run.config.get("callbacks"), run.callbacks)
    return config


def _with_handlers(existing: Any, handlers: Sequence[Any]) -> Any:
    """The run's callbacks plus ``handlers``, as a langchain-core CallbackManager: when a
    runnable merges configs, a manager keeps each handler once (a list would not)."""
    from langchain_core.callbacks import CallbackManager

    if isinstance(existing, CallbackManager):
        manager = existing.copy()
    else:
        manager = CallbackManager(handlers=list(existing or ()))
    for handler in handlers:
        manager.add_handler(handler, inherit=True)
    return manager


def fresh_reader(graph: GraphSpec, state: StepState, writes: list[tuple[str, Any]]) -> FreshRead:
    """A reader of ``state`` with ``writes`` applied to copies (what a router sees)."""
    return _FreshRead(graph, state, writes)


class _FreshRead:
    """Reads the step's channels with the running task's own writes applied to
    copies — what a router sees — without touching the real channels."""

    __slots__ = ("_graph", "_state", "_writes")

    def __init__(self, graph: GraphSpec, state: StepState, writes: list[tuple[str, Any]]):
        self._graph = graph
        self._state = state
        self._writes = writes

    def __call__(self, keys: Sequence[str]) -> dict[str, Any]:
        pending: dict[str, list[Any]] = {}
        wanted = set(keys)
        for channel, value in self._writes:
            if channel in wanted:
                pending.setdefault(channel, []).append(value)
        channels: Mapping[str, Channel] = self._state.channels
        if pending:
            channels = dict(channels)
            for key, values in pending.items():
                channels[key] = channels[key].copy()
                channels[key].update(values)
        return read_keys(self._graph, channels, keys, self._state.step, self._state.stop)


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _default_pool() -> ThreadPoolExecutor:
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

    # 1. what each node has now seen
    seen_changes: dict[str, dict[str, int]] = {}
    tasks = [result.task for result in ordered]
    is_loop_step = any(task.triggers for task in tasks)
    for task in (*discarded, *tasks) if discarded else tasks:
        subscribed = _subscribed(graph, task)
        if not subscribed:
            continue
        seen = state.versions_seen.setdefault(task.node, {})
        for channel in subscribed:
            if channel in versions:
                seen[channel] = versions[channel]
        seen_changes[task.node] = dict(seen)

    # 2. group writes by channel, keeping who wrote what
    grouped: dict[str, list[Any]] = {}
    writers: dict[str, list[str]] = {}
    for result in ordered:
        for channel, value in result.writes:
            if channel in channels:
                grouped.setdefault(channel, []).append(value)
                writers.setdefault(channel, []).append(result.task.node)
            else:
                warnings.warn(
                    f"Step {step}: node {result.task.node!r} wrote to {channel!r}, which is "
                    "not a channel of this graph; the write is dropped (as in LangGraph).",
                    GraphkitWarning,
                    stacklevel=2,
                )

    # 3. on copies: let the channels that woke the tasks reset (consume), then apply
    #    the writes; commit only once every channel accepted its writes
    working: dict[str, Channel] = {}
    consumed: dict[str, None] = {}  # ordered sets
    for name in _consumed(graph, ordered, channels):
        if name in graph.consuming_channels:  # the others never change on consume()
            channel = working[name] = channels[name].copy()
            if channel.consume():
                consumed[name] = None
    changed: dict[str, None] = {}
    for name, values in grouped.items():
        channel = working.get(name) or working.setdefault(name, channels[name].copy())
        try:
            if channel.update(values):
                changed[name] = None
        except InvalidUpdateError as error:
            raise _explain(error, name, step, writers[name]) from error
    changed.update(consumed)  # written channels first, in apply order
    for name in changed:
        changes[name] = _change(
            name,
            channels[name].checkpoint(),
            working[name],
            state,
            next_version,
            writers.get(name, ()),
            grouped.get(name, ()),
        )
        channels[name] = working[name]
        if name in grouped and channels[name].is_available():
            updated.add(name)

    # 4. a step passed: volatile channels not written this step may clear themselves
    if is_loop_step and state.live_volatile:
        live = state.live_volatile
        for name in sorted(live) if len(live) > 1 else tuple(live):  # the same in every process
            if name not in grouped:
                _notify(name, channels, state, next_version, changes, updated, "update")

    # 5. if nothing would run next, let channels that wait for the end finish
    if is_loop_step and not any(name in graph.trigger_to_nodes for name in updated):
        for name in graph.finishing_channels:
            _notify(name, channels, state, next_version, changes, updated, "finish")

    # 6. versions and bookkeeping for the next step
    for name in changes:
        state.versions[name] = next_version
        channel = channels[name]
        if channel.volatile and channel.is_available():
            state.live_volatile.add(name)
        else:
            state.live_volatile.discard(name)
    if changes:
        state.max_version = next_version
    source = source or ("loop" if is_loop_step else "input")
    checkpoint = _next_checkpoint(state, changes, seen_changes, updated, source)
    state.checkpoint = checkpoint
    state.updated_channels = checkpoint.updated_channels
    state.step = step + 1
    return Update(step, tuple(changes.values()), checkpoint.updated_channels, checkpoint)


def _notify(
    name: str,
    channels: dict[str, Channel],
    state: StepState,
    version: int,
    changes: dict[str, ChannelChange],
    updated: set[str],
    event: str,
) -> None:
    """Tell a channel a step passed (``update([])``) or the run is ending (``finish()``)."""
    channel = channels[name]
    before = channel.checkpoint()
    if channel.update([]) if event == "update" else channel.finish():
        earlier = changes.get(name)  # written this step, then finished: one change
        if earlier is not None:
            changes[name] = dataclasses.replace(earlier, after=channel.checkpoint())
        else:
            changes[name] = _change(name, before, channel, state, version, (), ())
        if channel.is_available():
            updated.add(name)


def _subscribed(graph: GraphSpec, task: Task) -> tuple[str, ...]:
    """The channels a task counts as having read: all of its node's triggers for a
    pull task (as in LangGraph), none for a push task or the input step."""
    node = graph.nodes.get(task.node)
    return node.triggers if node is not None and task.kind == "pull" else ()


def _consumed(
    graph: GraphSpec, ordered: Sequence[TaskResult], channels: Mapping[str, Channel]
) -> list[str]:
    """The trigger channels of the pull tasks that ran, once each, in task order."""
    names: dict[str, None] = {}
    for result in ordered:
        for name in _subscribed(graph, result.task):
            if name in channels:
                names[name] = None
    return list(names)


def _path_key(path: tuple[Any, ...]) -> tuple[str, ...]:
    # Pull tasks sort by node name before push tasks by send index, as in LangGraph.
    return tuple(f"{part:010d}" if isinstance(part, int) else str(part) for part in path[:3])


def _change(
    name: str,
    before: Any,
    after: Channel,
    state: StepState,
    version: int,
    writers: Sequence[str],
    values: Sequence[Any],
) -> ChannelChange:
    return ChannelChange(
        channel=name,
        before=before,
        after=after.checkpoint(),
        version_before=state.versions.get(name),
        version_after=version,
        writers=tuple(writers),
        values=tuple(values),
        reducer=_reducer_name(after),
    )


def _reducer_name(channel: Channel) -> str:
    operator = getattr(channel, "operator", None)
    if operator is not None:
        return getattr(operator, "__name__", repr(operator))
    return type(channel).__name__


def _explain(
    error: InvalidUpdateError, channel: str, step: int, writers: Sequence[str]
) -> InvalidUpdateError:
    names = " and ".join(repr(w) for w in dict.fromkeys(writers))
    return InvalidUpdateError(f"Step {step}: {names} wrote {channel!r}. {error}")


def _next_checkpoint(
    state: StepState,
    changes: Mapping[str, ChannelChange],
    seen_changes: Mapping[str, dict[str, int]],
    updated: set[str],
    source: str,
) -> Checkpoint:
    previous = state.checkpoint
    saved = {name: change.after for name, change in changes.items() if change.after is not EMPTY}
    removed = [name for name, change in changes.items() if change.after is EMPTY]
    values = previous.channel_values
    versions = previous.channel_versions
    seen = previous.versions_seen
    return Checkpoint(
        id=new_checkpoint_id(),
        step=state.step,
        source=source,
        parent_id=previous.id if previous.source != "empty" else None,
        channel_values=values.with_changes(saved, removed),  # type: ignore[attr-defined]
        channel_versions=versions.with_changes({n: state.versions[n] for n in changes}),  # type: ignore[attr-defined]
        versions_seen=seen.with_changes(seen_changes),  # type: ignore[attr-defined]
        updated_channels=frozenset(updated),
    )
