"""Running one task: call its node with what it asked for, turn the return value into
writes, retry as its policy says, and catch what it raised — the body of Execute.

``graphkit.pregel.phases.execute`` decides where tasks run; this module is what runs
there, in whatever thread (or process) that is.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from graphkit.channels import Channel
from graphkit.errors import GraphInterrupt, ParentCommand
from graphkit.pregel.records import Task, TaskResult
from graphkit.pregel.runtime import RunContext, Runtime, TaskScope, enter_task, leave_task
from graphkit.pregel.spec import FreshRead, GraphSpec, NodeSpec

if TYPE_CHECKING:
    from graphkit.pregel.phases import StepState

__all__ = ["default_pool", "fresh_reader", "read_keys", "run_task", "task_config_of"]


def read_keys(
    graph: GraphSpec, channels: Mapping[str, Channel], keys: Sequence[str], step: int, stop: int
) -> dict[str, Any]:
    """The values of ``keys``: channels that hold one, and managed values."""
    if not graph.managed:
        return {key: channels[key].get() for key in keys if channels[key].is_available()}
    values = {}
    for key in keys:
        manager = graph.managed.get(key)
        if manager is not None:
            values[key] = manager.get(step, stop)
        elif channels[key].is_available():
            values[key] = channels[key].get()
    return values


def run_task(graph: GraphSpec, task: Task, state: StepState, run: RunContext) -> TaskResult:
    """Run one task: call its node, then turn the return value into writes (state
    updates first, then Command routes, edges and routers). A failure is retried as
    the node's retry policy says; the last error is caught into the result."""
    node = graph.nodes[task.node]
    task_config = task_config_of(run, task, node) if node.injected or run.callbacks else None
    injected = _injected(node, task_config, run.runtime) if node.injected else _NOTHING
    started = time.perf_counter()
    failed: list[Exception] = []
    subruns: list[Any] = []
    answers = run.answers.get(task.id, ()) if run.answers else ()
    while True:
        scope = TaskScope(run, task, len(failed), subruns, [*answers])
        writes: list[tuple[str, Any]] = []
        output: Any = None
        error: Exception | None = None
        interrupts: tuple[Any, ...] = ()
        token = enter_task(scope)
        langchain = None
        try:
            if run.callbacks:
                langchain = _enter_callbacks(task_config)
            output = _call(node, task.input, injected, run)
            fresh_read = _FreshRead(graph, state, writes) if node.routes else _NO_READER
            for writer in node.writers:
                writes.extend(writer(output, fresh_read, task_config))
        except GraphInterrupt as paused:  # the step stops before Update; nothing is applied
            interrupts, writes = tuple(paused.args[0] if paused.args else ()), []
        except Exception as exc:  # recorded; the stepper raises it after the step's tasks end
            error = exc  # writes made before the error stay visible, but are never applied
        finally:
            if langchain is not None:
                langchain[0].reset(langchain[1])
            leave_task(token)
        if error is None or not node.retry_policies:
            break
        policy = _retry_policy_for(node, error, attempt=len(failed) + 1)
        if policy is None:
            break
        failed.append(error)
        time.sleep(policy.interval(len(failed) + 1))
    if error is not None:
        _name_the_task(error, task)
    return TaskResult(
        task,
        tuple(writes),
        output,
        error,
        len(failed) + 1,
        started,
        time.perf_counter() - started,
        _worker_name(),
        tuple(failed) if failed else (),
        tuple(subruns) if subruns else (),
        interrupts,
        tuple(scope.answers) if scope.answers else (),
    )


_NOTHING: dict[str, Any] = {}


def _name_the_task(error: Exception, task: Task) -> None:
    """Note on ``error`` which task raised it, in LangGraph's words plus the step; the
    error keeps its class, so ``except KeyError`` still catches it."""
    note = f"During task with name {task.node!r} and id {task.id!r} (step {task.step})"
    if note not in getattr(error, "__notes__", ()):  # one exception raised twice
        error.add_note(note)


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


def _enter_callbacks(config: Any) -> tuple[Any, Any] | None:
    """Make the task's config langchain-core's current one, so that a chat model called
    without a config reports to the run's callbacks (as in LangGraph)."""
    if config is None:
        return None
    from langchain_core.runnables.config import var_child_runnable_config

    return var_child_runnable_config, var_child_runnable_config.set(config)


def _call(node: NodeSpec, value: Any, injected: dict[str, Any], run: RunContext) -> Any:
    try:
        if not node.is_async:
            return node.call(value, **injected)
        return _call_async(node, value, injected, run)
    except ParentCommand as sent_up:  # a subgraph this node ran routes its parent: us
        if sent_up.command is None:
            raise
        return dataclasses.replace(sent_up.command, graph=None)


def _call_async(node: NodeSpec, value: Any, injected: dict[str, Any], run: RunContext) -> Any:
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


def default_pool() -> ThreadPoolExecutor:
    # One process-wide pool: creating threads per run would cost more than most
    # nodes. It is wide so that subgraphs run from inside tasks do not starve it.
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=64, thread_name_prefix="graphkit")
        return _pool
