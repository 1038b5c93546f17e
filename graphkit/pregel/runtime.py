"""What a running node can reach besides its state: the run's context, store and
stream writer — passed as parameters (``runtime``, ``writer``, ``store``, ``config``)
or fetched with ``get_runtime()`` / ``get_stream_writer()``, as in LangGraph.

Also what the runtime keeps to hand them out: ``RunContext``, what Execute gives every
task of a run, and each task's own ``Runtime`` (its ``ExecutionInfo``). The task
running in this thread is ``graphkit.pregel.task_scope``'s, the config it is handed
``graphkit.pregel.task_config``'s; ``interrupt()`` is ``graphkit.pregel.interrupts``'."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from graphkit.frozen import frozen_record
from graphkit.pregel.config import RunOptions
from graphkit.pregel.interrupts import Resume, interrupt
from graphkit.pregel.run_control import RunControl
from graphkit.pregel.store_ops import watch_stores
from graphkit.pregel.task_config import _step_checkpoint, scope_config, task_config
from graphkit.pregel.task_scope import TaskScope, _scope

# (the streaming layer and the bridge import these from here)
from graphkit.pregel.task_scope import current_scope as current_scope
from graphkit.pregel.task_scope import outside_tasks as outside_tasks

if TYPE_CHECKING:
    from graphkit.pregel.records import Task

__all__ = [
    "INJECTABLE",
    "ExecutionInfo",
    "Resume",
    "RunControl",
    "Runtime",
    "ServerInfo",
    "get_config",
    "get_runtime",
    "get_store",
    "get_stream_writer",
    "interrupt",
    "push_writes",
]

INJECTABLE = ("config", "writer", "runtime", "store", "error")
"""Parameter names a node function can declare to be handed these (LangGraph's);
``error`` only when annotated ``NodeError``: what an error handler is given."""


def _discard(chunk: Any) -> None:
    return None


@frozen_record()
class ExecutionInfo:
    """Where a running node is, as LangGraph's ``langgraph.runtime.ExecutionInfo``:
    the checkpoint its step was planned from (``""`` when graphkit has none saved), its
    ``checkpoint_ns`` and ``task_id``, the run's ``thread_id`` and ``run_id`` (None when
    the config has none), and, under a retry policy, ``node_attempt`` (1 for the first
    attempt) and ``node_first_attempt_time`` (``time.time()`` when it started).

    >>> info = ExecutionInfo(checkpoint_id="", checkpoint_ns="a:1", task_id="1")
    >>> info.patch(node_attempt=2).node_attempt
    2
    """

    checkpoint_id: str
    checkpoint_ns: str
    task_id: str
    thread_id: str | None = None
    run_id: str | None = None
    node_attempt: int = 1
    node_first_attempt_time: float | None = None

    def patch(self, **changes: Any) -> ExecutionInfo:
        """A copy with the given fields replaced."""
        return replace(self, **changes)


@frozen_record()
class ServerInfo:
    """Who runs the graph, as LangGraph's ``langgraph.runtime.ServerInfo``: the
    ``assistant_id`` and ``graph_id`` a LangGraph server puts in ``configurable`` and the
    authenticated ``user`` (``configurable["langgraph_auth_user"]``). A run builds one when
    its config names any of them; ``runtime.server_info`` is None otherwise.

    >>> ServerInfo(assistant_id="a1", graph_id="g1")
    ServerInfo(assistant_id='a1', graph_id='g1', user=None)
    """

    assistant_id: str
    graph_id: str
    user: Any = None

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> ServerInfo | None:
        """The server info a run's config names, None when it names none (LangGraph
        takes as the user only an object with an ``identity``, not a plain dict).

        >>> ServerInfo.from_config({"configurable": {"graph_id": 7}})
        ServerInfo(assistant_id='', graph_id='7', user=None)
        >>> ServerInfo.from_config({}) is None
        True
        """
        configurable = config.get("configurable") or {}
        if not isinstance(configurable, Mapping):  # (refused, saying why, by RunConfig)
            return None
        assistant_id, graph_id = configurable.get("assistant_id"), configurable.get("graph_id")
        user = configurable.get("langgraph_auth_user")
        user = user if hasattr(user, "identity") else None
        if assistant_id is None and graph_id is None and user is None:
            return None
        return cls(str(assistant_id or ""), str(graph_id or ""), user)


ContextT = TypeVar("ContextT")


@frozen_record()
class Runtime(Generic[ContextT]):
    """The run-scoped things a node may use: ``context`` from ``invoke(..., context=...)``,
    ``store`` from ``compile(store=...)``, ``stream_writer``, which sends a chunk to
    ``stream_mode="custom"`` (a no-op otherwise), and, inside a running node,
    ``execution_info`` (an ``ExecutionInfo``; None elsewhere), and ``control``, the run's
    ``RunControl`` (None outside a run). Generic in the context's
    type, as LangGraph's: annotate a node's parameter ``runtime: Runtime[MyContext]``.

    >>> Runtime(context={"user": "ada"}).context
    {'user': 'ada'}
    """

    context: ContextT = None  # type: ignore[assignment]
    store: Any = None
    stream_writer: Callable[[Any], None] = field(default=_discard)
    execution_info: ExecutionInfo | None = None
    previous: Any = None
    """LangGraph's functional API's previous return value: None for a graph's nodes."""
    server_info: ServerInfo | None = None
    """Who runs the graph (a ``ServerInfo``), when the run's config names an
    ``assistant_id``, a ``graph_id`` or a ``langgraph_auth_user``; None otherwise."""
    control: RunControl | None = None
    """The run's ``RunControl`` (``runtime.control.request_drain()`` stops the run at the
    next step boundary); None outside a run."""

    @property
    def drain_requested(self) -> bool:
        """Whether the run was asked to drain (``control.drain_requested``; False outside
        a run), as LangGraph's ``runtime.drain_requested``: a long node may stop early."""
        return self.control.drain_requested if self.control is not None else False

    @property
    def drain_reason(self) -> str | None:
        """Why the run was asked to drain (None: it was not, or outside a run)."""
        return self.control.drain_reason if self.control is not None else None

    def heartbeat(self) -> None:
        """Tell the running node's ``TimeoutPolicy`` it is making progress: its idle
        timeout starts over. A no-op outside a node or for a node without one.

        >>> Runtime().heartbeat()
        """
        scope = _scope.get()
        if scope is not None:
            scope.progress(heartbeat=True)

    def override(self, **changes: Any) -> Runtime:
        """A copy with the given fields replaced.

        >>> Runtime(context=1).override(context=2).context
        2
        """
        return replace(self, **changes)

    def merge(self, other: Runtime[ContextT]) -> Runtime[ContextT]:
        """``other``'s fields where it has them (a truthy value, a stream writer that is
        not the no-op one), else this runtime's, as LangGraph merges runtimes.

        >>> Runtime(context=1, store="s").merge(Runtime(context=2)).store
        's'
        """
        writer = other.stream_writer
        return Runtime(
            context=other.context or self.context,
            store=other.store or self.store,
            stream_writer=self.stream_writer if writer is _discard else writer,
            execution_info=other.execution_info or self.execution_info,
            previous=self.previous if other.previous is None else other.previous,
            server_info=other.server_info or self.server_info,
            control=other.control or self.control,
        )

    def patch_execution_info(self, **changes: Any) -> Runtime:
        """A copy whose ``execution_info`` has the given fields replaced."""
        if self.execution_info is None:
            raise RuntimeError(
                "Runtime.patch_execution_info() needs an execution_info to patch: only a "
                "running node's runtime has one (the node's `runtime` parameter or "
                "get_runtime())."
            )
        return replace(self, execution_info=self.execution_info.patch(**changes))


def get_runtime(context_schema: type[ContextT] | None = None) -> Runtime[ContextT]:
    """The runtime of the node running in this thread (``context_schema`` only types the
    result, as in LangGraph: ``get_runtime(MyContext).context`` is a ``MyContext``).

    >>> get_runtime()
    Traceback (most recent call last):
    RuntimeError: get_runtime() works only inside a running node.
    """
    scope = _scope.get()
    if scope is None:
        raise RuntimeError("get_runtime() works only inside a running node.")
    return _task_runtime(scope)


def get_config() -> dict[str, Any]:
    """The config of the node running in this thread, as LangGraph's ``get_config()``:
    what a ``config`` parameter would be given (its metadata names the step, node and
    triggers; ``configurable`` holds the thread). Outside a node it is the config of the
    langchain-core runnable running, if any.

    >>> get_config()
    Traceback (most recent call last):
    RuntimeError: get_config() works only inside a running node or runnable.
    """
    scope = _scope.get()
    if scope is not None and scope.node is not None:
        return scope_config(scope)
    runnable = sys.modules.get("langchain_core.runnables.config")
    if runnable is not None and (config := runnable.var_child_runnable_config.get()):
        return config
    raise RuntimeError("get_config() works only inside a running node or runnable.")


def push_writes(writes: Sequence[tuple[str, Any]]) -> None:
    """Add ``(channel, value)`` writes to the running task's now, before its return
    value's (LangGraph's send, which ``push_message`` uses); Update applies them with
    the task's other writes, and not at all if the task fails or pauses.

    >>> push_writes([("messages", "hi")])
    Traceback (most recent call last):
    RuntimeError: push_writes() works only inside a running node.
    """
    scope = _scope.get()
    if scope is None or scope.writes is None:
        raise RuntimeError("push_writes() works only inside a running node.")
    scope.writes.extend(writes)


def get_store() -> Any:
    """The store of the graph whose node is running (``compile(store=...)``), as
    LangGraph's ``get_store()``; None when the graph has none.

    >>> get_store()
    Traceback (most recent call last):
    RuntimeError: get_store() works only inside a running node.
    """
    scope = _scope.get()
    if scope is None:
        raise RuntimeError("get_store() works only inside a running node.")
    return scope.run.runtime.store


def get_stream_writer() -> Callable[[Any], None]:
    """A function that sends a chunk to ``stream_mode="custom"`` from inside a node; outside
    a node, or when nobody streams "custom", it discards chunks.

    >>> get_stream_writer()("progress: 50%")  # no run: discarded
    """
    scope = _scope.get()
    return _progressing(scope.run.runtime.stream_writer) if scope is not None else _discard


def _progressing(writer: Callable[[Any], None]) -> Callable[[Any], None]:
    """``writer``, noting progress of the task that calls it (``refresh_on="auto"``)."""

    def write(chunk: Any) -> None:
        scope = _scope.get()
        if scope is not None:
            if scope.timed_out:  # (a timed-out attempt that goes on: unheard)
                return
            scope.progress()
        writer(chunk)

    return write


@frozen_record()
class RunContext:
    """Everything Execute needs besides the plan and the channels: ``config`` is what
    tasks are handed; ``runtime`` what nodes see (from the options, or an empty one);
    ``loop`` where async nodes run (the options', or the parent run's); ``namespace`` is
    LangGraph's checkpoint_ns (() for a root run); ``resume`` and ``answers`` (per task id)
    answer ``interrupt()``; ``lends`` is the ``ThreadLink`` the subgraphs its tasks start
    save through (None when nothing saves): the run's own thread, or for a
    ``checkpointer=False`` subgraph run, which has none, the one its parent lends;
    ``resuming``: the subgraphs its tasks start resume where they paused (a resumed run
    with a thread, until its first Update; later steps' subgraphs take their input anew);
    ``task_runtimes`` the runtimes of the tasks whose nodes asked for one, by task id;
    ``options`` the run's ``RunOptions`` as given (its listener, executor, step timeout,
    and whether it records)."""

    config: Mapping[str, Any]
    runtime: Runtime = field(default_factory=Runtime)
    loop: asyncio.AbstractEventLoop | None = None
    namespace: tuple[str, ...] = ()
    resume: Resume | None = None
    answers: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    lends: Any = None
    resuming: bool = False
    task_runtimes: dict[str, TaskRuntime] = field(default_factory=dict)
    options: RunOptions = field(default_factory=RunOptions)


def injected_values(
    node: Any, task: Task, run: RunContext, failure: Any = None, checkpoint_id: str | None = None
) -> tuple[dict[str, Any], Any]:
    """The run-scoped values a task's node declared parameters for, and the task's config
    (None if nobody needs it); ``failure`` is the ``NodeError`` an error handler gets,
    ``checkpoint_id`` the checkpoint the task's step runs from."""
    # (a subgraph's tasks carry the callbacks their caller's config held, too: a model
    # they call reports as theirs)
    listener = run.options.listener
    callbacks = listener.callbacks if listener is not None else ()
    if not node.injected and not callbacks and not run.config.get("callbacks"):
        return {}, None
    config = task_config(run, task, node, checkpoint_id)
    offered = {**_offered(run, config), "error": failure}
    injected = {name: offered.get(name) for name in node.injected}
    if "runtime" in injected:
        injected["runtime"] = _start_task_runtime(task, run, injected).runtime
    return injected, config


def task_values(names: Sequence[str], config: Any) -> dict[str, Any]:
    """The parameters named ``names`` (of ``config``, ``runtime``, ``store``, ``writer``)
    a function a task calls for LangGraph (a conditional edge's router, an agent's prompt)
    declared, as LangGraph hands them: those of the running task; outside a task
    (``update_state``), ``config`` as given and an empty runtime."""
    scope = _scope.get()
    if scope is None:
        offered = {"config": config, "runtime": Runtime(), "store": None, "writer": _discard}
    else:
        run = scope.run
        if config is None and "config" in names:
            config = task_config(run, scope.task, scope.node, _step_checkpoint(scope))
        offered = _offered(run, config)
        offered["runtime"] = _task_runtime(scope) if "runtime" in names else None
    return {name: offered[name] for name in names}


def _offered(run: RunContext, config: Any) -> dict[str, Any]:
    """What a task offers the functions it calls besides its runtime: its config, the
    graph's store and the stream writer."""
    # (its chunks are progress for a timeout: the node's own, or its Send's)
    writer = _progressing(run.runtime.stream_writer)
    return {"config": config, "store": run.runtime.store, "writer": writer}


# -- the runtime of one task: the run's, plus where the task is (its ExecutionInfo) ------


@dataclass(slots=True)
class TaskRuntime:
    """The runtime a task's node sees, kept across its attempts: ``injected`` is the
    keyword arguments its node is called with (None when it asked for no ``runtime``),
    updated on each retry so the parameter shows the attempt as ``get_runtime()`` does."""

    runtime: Runtime
    injected: dict[str, Any] | None = None


def _start_task_runtime(task: Task, run: RunContext, injected: Any = None) -> TaskRuntime:
    """The task's runtime at its first attempt (started now), kept in ``run``."""
    thread_id = run.config.get("configurable", {}).get("thread_id")
    saved = None
    # (a subgraph run inside a node has it here only; a checkpointer=False one, which
    # saves nothing, names its unsaved checkpoint, as LangGraph's, when it lends a saver)
    if run.lends is not None:
        saved, thread_id = run.lends.checkpoint_id, thread_id or run.lends.thread_id
    info = ExecutionInfo(
        checkpoint_id=saved or "",
        checkpoint_ns="|".join(task.namespace(run.namespace)),
        task_id=task.id,
        thread_id=thread_id,
        run_id=str(run_id) if (run_id := run.config.get("run_id")) else None,
        node_first_attempt_time=time.time(),
    )
    writer = _progressing(run.runtime.stream_writer)  # a chunk is progress (TimeoutPolicy)
    current = TaskRuntime(run.runtime.override(execution_info=info, stream_writer=writer), injected)
    run.task_runtimes[task.id] = current
    return current


def _task_runtime(scope: TaskScope) -> Runtime:
    """The runtime of the task ``scope`` runs (made on the first ask when its node took
    no ``runtime`` parameter: then its first attempt is timed from that ask)."""
    current = scope.run.task_runtimes.get(scope.task.id)
    if current is None:
        current = _start_task_runtime(scope.task, scope.run)
        if scope.attempt:  # asked first on a retry: when the first attempt began is unknown
            current.runtime = current.runtime.patch_execution_info(
                node_attempt=scope.attempt + 1, node_first_attempt_time=None
            )
    return current.runtime


watch_stores()  # graphkit's stores tell the running task of each batch
