"""What a running node can reach besides its state: the run's context, store and
stream writer — passed as parameters (``runtime``, ``writer``, ``store``, ``config``)
or fetched with ``get_runtime()`` / ``get_stream_writer()``, as in LangGraph.

Also what the runtime keeps to hand them out: ``RunContext``, what Execute gives every
task of a run; ``TaskScope``, the task running in this thread (``current_scope()``),
where ``interrupt()`` finds its answers (``Resume``) and a subgraph its namespace; the
config a task is handed (``task_config``); and the store operations a task made."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from graphkit.diagnostics import runtime as diagnose
from graphkit.errors import GraphInterrupt, mark_invalid_resume, warn
from graphkit.extras import require
from graphkit.frozen import frozen_record
from graphkit.pregel.config import RunOptions
from graphkit.pregel.run_control import RunControl
from graphkit.pregel.tracing import manager_like, node_callbacks
from graphkit.types import Interrupt, interrupt_id

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

NO_ANSWER: Any = object()
"""No resume value was given (distinct from ``None``, a valid answer)."""


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


_HEX = frozenset("0123456789abcdef")


def is_answer_map(value: Any) -> bool:
    """True for ``{interrupt_id: answer}``: a dict whose keys all look like interrupt
    ids (32 hex digits), as LangGraph tells them apart; any other dict is one answer.
    An empty dict is a map that answers nothing (the interrupts ask again), as in LangGraph.

    >>> is_answer_map({"0f" * 16: "yes"}), is_answer_map({"ok": True}), is_answer_map({})
    (True, False, True)
    """
    return isinstance(value, dict) and all(
        isinstance(k, str) and len(k) == 32 and set(k) <= _HEX for k in value
    )


class Resume:
    """The answers a run was resumed with: ``Command(resume=value)`` (one answer,
    taken by the first ``interrupt()`` that needs one) or ``{interrupt_id: value}``."""

    __slots__ = ("_lock", "_mapped", "_value", "by_id")

    def __init__(self, value: Any = NO_ANSWER) -> None:
        self._lock = threading.Lock()
        is_map = is_answer_map(value)
        self.by_id: dict[str, Any] = dict(value) if is_map else {}
        self._value = NO_ANSWER if is_map else value
        self._mapped: set[tuple[str, ...]] = set()  # the tasks a map answered, by namespace

    def take(self, namespace: tuple[str, ...], index: int) -> Any:
        """The answer for the task's interrupt that would be its answer ``index`` (it has
        ``index`` answers already), or the single answer if still unused. As in
        LangGraph, a map answers one interrupt per task and run: its own id's answer, else
        the task's first interrupt id's (LangGraph reads that id so for the ids its older
        versions gave all of a task's interrupts)."""
        if self.by_id and namespace not in self._mapped:
            for key in (interrupt_id(namespace, index), interrupt_id(namespace, 0)):
                if key in self.by_id:
                    self._mapped.add(namespace)
                    return self.by_id[key]
        with self._lock:
            value, self._value = self._value, NO_ANSWER
        return value

    def expire(self) -> None:
        """The step this run resumed is over: as in LangGraph, the single answer (a saved
        "null" resume write) answers no later ``interrupt()``; a map stays."""
        self._value = NO_ANSWER


@dataclass(slots=True)
class TaskScope:
    """What a running task offers the code it runs: subgraphs get their namespace and
    leave their runs here; ``interrupt()`` finds its answers here. ``attempt`` is 0 for
    the first attempt; ``subgraph_calls`` counts the subgraph runs the task started, over
    all its attempts (each call gets its own namespace, as in LangGraph)."""

    run: RunContext
    task: Task
    attempt: int = 0
    subruns: list[Any] = field(default_factory=list)
    answers: list[Any] = field(default_factory=list)
    interrupts_seen: int = 0
    subgraph_calls: list[int] = field(default_factory=lambda: [0])
    work: Any = None
    """The step's ``graphkit.pregel.step_work.StepWork``: where the task can start others."""
    last_progress: float = 0.0
    """When the attempt last showed progress (for ``TimeoutPolicy.idle_timeout``, which
    sets both when the attempt starts)."""
    last_heartbeat: float = 0.0
    """When it last called ``runtime.heartbeat()``."""
    timed_out: bool = False
    """The attempt passed its ``TimeoutPolicy``'s limit: what it streams or calls while
    it is being cancelled is dropped (a call raises ``CancelledError``), as in LangGraph."""
    store_ops: list[Any] | None = None
    """What the attempt did with the graph's store (``StoreOp``), once it did anything."""
    node: Any = None
    """The ``NodeSpec`` the task runs (``get_config()`` builds the task's config from it)."""
    drained: str | None = None
    """Why a graph the attempt ran drained (``GraphDrained``), if one did."""
    writes: list[Any] | None = None
    """The attempt's writes so far: those it pushed as it ran (``push_writes``), then
    its return value's."""
    trace: Any = None
    """The attempt's chain run (a langchain-core run manager) when the run is traced."""
    routed_up: BaseException | None = None
    """The ``ParentCommand`` a subgraph the attempt ran raised to route its parent
    (``Command.PARENT``): its command is the attempt's output."""

    def progress(self, heartbeat: bool = False) -> None:
        """Note that the attempt made progress: it streamed a chunk, a subgraph it runs
        finished a step, what it runs sent a LangChain callback event (under an idle
        timeout), or (``heartbeat``) it called ``runtime.heartbeat()``."""
        self.last_progress = now = time.monotonic()
        if heartbeat:
            self.last_heartbeat = now

    @property
    def namespace(self) -> tuple[str, ...]:
        """The run's namespace (a called task's: its caller's), then ``"node:task_id"``
        (every attempt's: a retry answers the same ``interrupt()`` ids)."""
        return self.task.namespace(self.run.namespace)

    def subgraph_namespace(self, own_thread: bool = False) -> tuple[str, ...]:
        """The namespace of the next subgraph run this task starts: the task's, then the
        call's number from the second call on (counted over all attempts); without task
        ids for a subgraph that keeps its own thread (``checkpointer=True``)."""
        calls = self.subgraph_calls[0]
        namespace = (*self.namespace, str(calls)) if calls else self.namespace
        return without_task_ids(namespace) if own_thread else namespace

    def start_subgraph(self, own_thread: bool = False) -> tuple[str, ...]:
        """Count a subgraph run this task starts; its namespace."""
        namespace = self.subgraph_namespace(own_thread)
        self.subgraph_calls[0] += 1
        return namespace


def without_task_ids(namespace: tuple[str, ...]) -> tuple[str, ...]:
    """A namespace's node names (and call numbers), as a ``checkpointer=True`` subgraph
    keeps one thread per node name (and call number) per parent thread.

    >>> without_task_ids(("outer:1f2e", "inner:9a8b", "1"))
    ('outer', 'inner', '1')
    """
    return tuple(part.split(":")[0] for part in namespace)


def interrupt(value: Any, *, response_schema: Any = None) -> Any:
    """Pause the run and show ``value`` to a human; return their answer on resume.

    The first time, this raises ``GraphInterrupt``: the run stops (the step's other writes
    are saved) until ``invoke(Command(resume=answer), config)``; then the node runs again
    from its start and this call returns ``answer``. Several calls are answered in order.
    Without a checkpointer the run stops and returns the interrupt, with a warning.

    ``response_schema``, as in LangGraph: a dict (JSON Schema) is shown with the interrupt
    as it is; a type (pydantic model, dataclass, ``TypedDict``, ``int``...) is shown as
    its JSON Schema, and the answer is validated against it (and returned validated). An
    answer that does not fit raises pydantic's ``ValidationError`` (``is_invalid_resume``
    says so) and fails the task, so the interrupt still waits to be answered again.
    """
    scope = _scope.get()
    if scope is None:
        raise diagnose.interrupt_outside_node()
    adapter = answer_adapter(response_schema)
    if scope.run.resume is None:  # no thread here nor above: nothing can answer
        warn(diagnose.interrupt_without_checkpointer(scope.task.node, scope.task.step))
    index = scope.interrupts_seen
    scope.interrupts_seen += 1
    if index < len(scope.answers):
        return _fitting(adapter, scope.answers[index], scope, value)
    # The id names the answer slot this call would fill (the task's answers so far), not
    # the call's number, as LangGraph keys it: calls made at once (a ToolNode's tools)
    # are numbered in no stable order, and all of them wait for the same next answer.
    namespace, slot = scope.namespace, len(scope.answers)
    answer = scope.run.resume.take(namespace, slot) if scope.run.resume is not None else NO_ANSWER
    if answer is not NO_ANSWER:
        fitting = _fitting(adapter, answer, scope, value)
        scope.answers.append(answer)  # (kept as given: it is checked again on a rerun)
        return fitting
    shown = adapter.json_schema() if adapter is not None else response_schema
    asked = Interrupt(value=value, id=interrupt_id(namespace, slot), response_schema=shown)
    raise GraphInterrupt((asked,))


def answer_adapter(response_schema: Any) -> Any:
    """A pydantic ``TypeAdapter`` checking answers against ``response_schema``; None when
    there is nothing to check (no schema, or a JSON Schema dict, shown as it is)."""
    if response_schema is None or isinstance(response_schema, dict):
        return None
    feature = "interrupt(response_schema=...) with a type"
    pydantic = require("pydantic", extra="agents", feature=feature)
    return pydantic.TypeAdapter(response_schema)


def _fitting(adapter: Any, answer: Any, scope: TaskScope, value: Any) -> Any:
    """``answer`` validated by ``adapter`` (as it is without one)."""
    if adapter is None:
        return answer
    from pydantic import ValidationError

    try:
        return adapter.validate_python(answer)
    except ValidationError as error:
        mark_invalid_resume(error)
        error.add_note(diagnose.answer_does_not_fit(scope.task.node, scope.task.step, value))
        raise


_scope: contextvars.ContextVar[TaskScope | None] = contextvars.ContextVar(
    "graphkit_task_scope", default=None
)


def enter_task(scope: TaskScope, config: Any = None) -> tuple[Any, ...]:
    """Make ``scope`` current and, when langchain-core is in use, the task's ``config``
    its current config (as in LangGraph: a runnable or chat model called without a config
    inherits the task's metadata, tags and callbacks); ``leave_task`` undoes it."""
    token = _scope.set(scope)
    if scope.attempt:  # a retry: the node's runtime parameter shows the new attempt
        _next_attempt(scope)
    langchain = sys.modules.get("langchain_core.runnables.config")
    # (nothing could read it: graphkit never imports langchain-core, and START without
    # routers runs no code of the user's)
    if langchain is None or not scope.node.runs_user_code:
        return (token,)
    if config is None:
        config = scope_config(scope)
    variable = langchain.var_child_runnable_config
    # langchain-core's own setter also makes the task's LangSmith run the parent of a
    # `@traceable` function the node calls, as LangGraph's nodes run (None: unchanged);
    # only a config with callbacks has a run to parent (the setter imports twice a call)
    set_context = getattr(langchain, "_set_config_context", None)
    if set_context is None or not config.get("callbacks"):
        return token, variable, variable.set(config), None
    return token, variable, *set_context(config)


def leave_task(tokens: tuple[Any, ...]) -> None:
    if len(tokens) > 1:
        tokens[1].reset(tokens[2])
        if tokens[3] is not None:  # the LangSmith tracing context before the task
            from langsmith.run_helpers import _set_tracing_context

            _set_tracing_context(tokens[3])
    _scope.reset(tokens[0])


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


def task_config(
    run: RunContext, task: Task, node: Any, checkpoint_id: str | None = None
) -> dict[str, Any]:
    """The run's config with LangGraph's task metadata and the run's callback handlers
    (``node``: the task's ``NodeSpec``; None for a called task, which has no metadata).
    Given the ``checkpoint_id`` the task's step runs from, its ``configurable`` also has
    LangGraph's ``checkpoint_map`` (the checkpoint of each graph run it is in, by
    namespace) and no ``checkpoint_id`` of its own."""
    namespace = "|".join(task.namespace(run.namespace))
    triggers = node.sorted_triggers if task.kind == "pull" else task.triggers
    metadata = {
        **run.config.get("metadata", {}),
        **(node.metadata if node is not None else {}),
        "langgraph_step": task.step,
        "langgraph_node": task.node,
        "langgraph_triggers": triggers,
        "langgraph_path": task.shown_path,
        "langgraph_checkpoint_ns": namespace,
    }
    configurable = {**run.config.get("configurable", {}), "checkpoint_ns": namespace}
    if checkpoint_id is not None:
        mapped = {**(configurable.get("checkpoint_map") or {})}
        # the run's own checkpoint, under its namespace and (a called task's) under each
        # caller's it is nested in, as LangGraph maps them
        nested = task.caller_namespace or run.namespace
        for depth in range(len(run.namespace), len(nested) + 1):
            mapped["|".join(nested[:depth])] = checkpoint_id
        configurable["checkpoint_id"], configurable["checkpoint_map"] = None, mapped
    # the run's own name and id are not the task's (LangChain drops them for a child run)
    inherited = run.config
    if not _RUN_OWN.isdisjoint(inherited):
        inherited = {k: v for k, v in inherited.items() if k not in _RUN_OWN}
    return {
        **inherited,
        "metadata": metadata,
        "configurable": configurable,
        "callbacks": task_callbacks(run, metadata),
    }


_RUN_OWN = frozenset(("run_name", "run_id"))


def _step_checkpoint(scope: TaskScope) -> str | None:
    """The id of the checkpoint the step of the task in ``scope`` runs from."""
    return scope.work.state.checkpoint.id if scope.work is not None else None


def scope_config(scope: TaskScope) -> dict[str, Any]:
    """The config of the task running in ``scope``, as its node is given it."""
    config = task_config(scope.run, scope.task, scope.node, _step_checkpoint(scope))
    if scope.trace is not None:
        config["callbacks"] = node_callbacks(scope.trace, _listening(scope.run))
    return config


def traced_task(
    trace: Any, scope: TaskScope, injected: dict[str, Any], config: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Start the chain run of the attempt in ``scope`` (``trace``: the run's
    ``RunTrace``); the values and config its node gets, reporting inside that run."""
    base = config if config is not None else scope_config(scope)
    if scope.node.hidden:  # (START, run for its routers: hidden from tracers)
        base = {**base, "tags": [*base.get("tags", ()), "langsmith:hidden"]}
    # a called task reports inside its caller (whose scope this thread still sees)
    caller = current_scope() if scope.task.kind == "call" else None
    scope.trace = trace.start_task(scope.task, base, scope.node, getattr(caller, "trace", None))
    config = {**base, "callbacks": node_callbacks(scope.trace, _listening(scope.run))}
    return ({**injected, "config": config} if "config" in injected else injected), config


def _listening(run: RunContext) -> tuple[Any, ...]:
    """The callback handlers the run's listener adds to its tasks ("messages")."""
    listener = run.options.listener
    return listener.callbacks if listener is not None else ()


def task_callbacks(run: RunContext, metadata: Mapping[str, Any] | None = None) -> Any:
    """The langchain-core callbacks ``run``'s tasks report to: the run's config's and its
    listener's handlers, in a CallbackManager (None if there are none) that hands down the
    task's ``metadata``."""
    listener = run.options.listener
    handlers = listener.callbacks if listener is not None else ()
    if handlers or run.config.get("callbacks"):
        return _with_handlers(run.config, handlers, metadata)
    return None


def _with_handlers(
    config: Mapping[str, Any], handlers: Sequence[Any], metadata: Mapping[str, Any] | None
) -> Any:
    """The config's callbacks plus ``handlers`` in a CallbackManager, which keeps each
    handler once when a runnable merges configs (a list would not), and hands the run's
    tags and the task's metadata down to what the task calls, as LangGraph's does (so a
    model called with ``{"metadata": ...}`` of its own still streams as the task's)."""
    from langchain_core.callbacks import BaseCallbackManager, CallbackManager

    existing = config.get("callbacks")
    if isinstance(existing, BaseCallbackManager):  # (an async one too: an async caller's)
        manager = manager_like(existing, CallbackManager)
    else:
        given = list(existing or ())  # (inherited: a runnable the task calls reports too)
        manager = CallbackManager(handlers=given, inheritable_handlers=given)
    for handler in handlers:
        manager.add_handler(handler, inherit=True)
    if tags := config.get("tags"):
        manager.add_tags(list(tags), inherit=True)
    if metadata:
        manager.add_metadata(dict(metadata), inherit=True)
    return manager


def current_scope() -> TaskScope | None:
    """The scope of the task running in this thread, if a graph runs inside a node."""
    return _scope.get()


@contextlib.contextmanager
def outside_tasks() -> Iterator[None]:
    """Run code as no task's: a graph run inside a node that names its own thread is a
    run of its own, not the task's subgraph."""
    token = _scope.set(None)
    try:
        yield
    finally:
        _scope.reset(token)


_editing_loop: contextvars.ContextVar[asyncio.AbstractEventLoop | None] = contextvars.ContextVar(
    "graphkit_editing_loop", default=None
)


def editing_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop of an ``aupdate_state`` caller this worker thread serves, if any."""
    return _editing_loop.get()


def caller_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop of the async code the running writers serve: the async run of the
    current task, or the caller of ``aupdate_state`` (None for sync callers)."""
    scope = _scope.get()
    return scope.run.loop if scope is not None else _editing_loop.get()


_edited_as: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "graphkit_edited_as", default=None
)


@contextlib.contextmanager
def editing_as(node: str | None) -> Iterator[None]:
    """While ``update_state(..., as_node=node)`` runs ``node``'s writer on its values,
    so that what it says about the values names that call, not the node (None: code
    run meanwhile that is no such writer)."""
    token = _edited_as.set(node)
    try:
        yield
    finally:
        _edited_as.reset(token)


def edited_as() -> str | None:
    """The ``as_node`` of the ``update_state`` whose values the writers are reading."""
    return _edited_as.get()


async def in_worker_thread(function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)`` in a worker thread that may await a coroutine (an async
    router) on this event loop, as the writers of an async run do."""
    token = _editing_loop.set(asyncio.get_running_loop())
    try:
        return await asyncio.to_thread(function, *args)
    finally:
        _editing_loop.reset(token)


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


def _next_attempt(scope: TaskScope) -> None:
    """Count a retry in the task's runtime, if anyone asked for it."""
    current = scope.run.task_runtimes.get(scope.task.id)
    if current is None:
        return
    current.runtime = current.runtime.patch_execution_info(node_attempt=scope.attempt + 1)
    if current.injected is not None:
        current.injected["runtime"] = current.runtime


# -- what tasks do with the store ---------------------------------------------------------


def note_store_ops(ops: Sequence[Any], results: Sequence[Any]) -> None:
    """Record a store batch for the task that ran it (if a task did): graphkit's stores
    tell this function of every batch (``graphkit.store.base.observer``)."""
    scope = _scope.get()
    if scope is None:
        return
    from graphkit.pregel.records import StoreOp
    from graphkit.store.base import GetOp, ListNamespacesOp, PutOp, SearchOp

    made = scope.store_ops if scope.store_ops is not None else []
    for op, result in zip(ops, results, strict=False):
        if isinstance(op, SearchOp):
            given = {k: v for k, v in (("filter", op.filter), ("query", op.query)) if v}
            if op.limit != 10 or op.offset:
                given.update(limit=op.limit, offset=op.offset)
            keys = [item.key for item in result or ()]
            made.append(StoreOp("search", tuple(op.namespace_prefix), None, given, keys))
        elif isinstance(op, ListNamespacesOp):
            given = {"max_depth": op.max_depth} if op.max_depth is not None else {}
            made.append(StoreOp("list_namespaces", (), None, given, list(result or ())))
        elif isinstance(op, PutOp):  # (a value of None deletes)
            kind = "put" if op.value is not None else "delete"
            made.append(StoreOp(kind, tuple(op.namespace), op.key, op.value))
        elif isinstance(op, GetOp):
            value = result.value if result is not None else None
            made.append(StoreOp("get", tuple(op.namespace), op.key, None, value))
    scope.store_ops = made


def _watch_stores() -> None:
    from graphkit.store import base

    base.observer = note_store_ops


_watch_stores()
