"""What a running node can reach besides its state: the run's context, store and
stream writer — passed as parameters (``runtime``, ``writer``, ``store``, ``config``)
or fetched with ``get_runtime()`` / ``get_stream_writer()``, as in LangGraph."""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from graphkit.frozen import frozen_record

if TYPE_CHECKING:
    from graphkit.pregel.records import Task

__all__ = ["INJECTABLE", "Resume", "Runtime", "get_runtime", "get_stream_writer", "interrupt"]

INJECTABLE = ("config", "writer", "runtime", "store")
"""Parameter names a node function can declare to be handed these (LangGraph's)."""


def _discard(chunk: Any) -> None:
    return None


_NO_VALUE: Any = object()


@frozen_record()
class Runtime:
    """The run-scoped things a node may use.

    ``context`` is what ``invoke(..., context=...)`` passed (shaped by the graph's
    ``context_schema``); ``store`` what ``compile(store=...)`` passed;
    ``stream_writer`` sends a chunk to ``stream_mode="custom"`` (a no-op otherwise).

    >>> Runtime(context={"user": "ada"}).context
    {'user': 'ada'}
    """

    context: Any = None
    store: Any = None
    stream_writer: Callable[[Any], None] = field(default=_discard)


def get_runtime() -> Runtime:
    """The runtime of the node running in this thread.

    >>> get_runtime()
    Traceback (most recent call last):
    ...
    RuntimeError: get_runtime() works only inside a running node.
    """
    scope = _scope.get()
    if scope is None:
        raise RuntimeError("get_runtime() works only inside a running node.")
    return scope.run.runtime


def get_stream_writer() -> Callable[[Any], None]:
    """A function that sends a chunk to ``stream_mode="custom"`` from inside a node.

    Outside a node, or when nobody streams "custom", it silently discards chunks.

    >>> get_stream_writer()("progress: 50%")  # no run: discarded
    """
    scope = _scope.get()
    return scope.run.runtime.stream_writer if scope is not None else _discard


Forward = Callable[[tuple[tuple[str, ...], str, Any]], None]
"""Receives ``(namespace, mode, chunk)`` from a subgraph's stream."""


@frozen_record()
class RunContext:
    """Everything Execute needs besides the plan and the channels.

    ``namespace`` is empty for a root run and names the task that runs a subgraph
    otherwise (``("node:task_id", ...)``, LangGraph's checkpoint_ns); ``forward`` and
    ``stream_modes`` say where subgraphs started by this run's tasks send which chunks.
    """

    config: Mapping[str, Any]
    runtime: Runtime = field(default_factory=Runtime)
    loop: asyncio.AbstractEventLoop | None = None
    namespace: tuple[str, ...] = ()
    forward: Forward | None = None
    stream_modes: tuple[str, ...] = ()
    resume: Resume | None = None
    """Answers for ``interrupt()`` (None when the graph has no checkpointer)."""
    answers: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    """Per task id, the answers its interrupts got on earlier resumes."""
    thread: Any = None
    """The run's ``ThreadLink`` (None without a checkpointer); subgraphs save under it."""
    resuming: bool = False
    """True when this run resumes its thread (subgraphs then resume theirs)."""
    live: threading.Event | None = None
    """Set by whatever collects chunks that running tasks send (stream modes "custom"
    and "messages"); Execute then wakes up to let them through before tasks end."""
    callbacks: tuple[Any, ...] = ()
    """langchain-core callback handlers added to every task's config."""


class Resume:
    """The answers a run was resumed with: ``Command(resume=value)`` (one answer,
    taken by the first ``interrupt()`` that needs one) or ``{interrupt_id: value}``."""

    __slots__ = ("_lock", "_value", "by_id")

    def __init__(self, value: Any = _NO_VALUE) -> None:
        self._lock = threading.Lock()
        is_map = isinstance(value, dict) and value and all(isinstance(k, str) for k in value)
        self.by_id: dict[str, Any] = dict(value) if is_map else {}
        self._value = _NO_VALUE if is_map else value

    def take(self, interrupt_id: str) -> Any:
        """The answer for ``interrupt_id``, or the single answer if still unused."""
        if interrupt_id in self.by_id:
            return self.by_id[interrupt_id]
        with self._lock:
            value, self._value = self._value, _NO_VALUE
        return value


@dataclass(slots=True)
class TaskScope:
    """What a running task offers the code it runs: the graphs it starts (its
    subgraphs) get their namespace here, leave their finished runs here and forward
    stream chunks through it; ``interrupt()`` finds its answers here."""

    run: RunContext
    task: Task
    """The running task."""
    attempt: int = 0
    """0 for the first attempt; a retry's subgraphs get their own namespace."""
    subruns: list[Any] = field(default_factory=list)
    answers: list[Any] = field(default_factory=list)
    interrupts_seen: int = 0

    @property
    def namespace(self) -> tuple[str, ...]:
        """LangGraph's checkpoint namespace of the task: the run's, then the task's
        ``"node:task_id"`` (and a retry's attempt number). Made when asked: only
        subgraphs and ``interrupt()`` need it, and it needs the task's id."""
        label = f"{self.task.node}:{self.task.id}"
        if self.attempt:
            return (*self.run.namespace, label, str(self.attempt))
        return (*self.run.namespace, label)


def interrupt(value: Any) -> Any:
    """Pause the run and show ``value`` to a human; return their answer on resume.

    The first time, this raises ``GraphInterrupt``: the run stops (the step's other
    writes are saved) until ``invoke(Command(resume=answer), config)``. Then the node
    runs again from its start, and this call returns ``answer``. Several calls in one
    node are answered in order. Needs a checkpointer.
    """
    from graphkit.errors import GraphInterrupt
    from graphkit.types import Interrupt

    scope = _scope.get()
    if scope is None or scope.run.resume is None:
        raise RuntimeError(
            "interrupt() needs a running node of a graph compiled with a checkpointer, "
            "e.g. builder.compile(checkpointer=InMemorySaver())."
        )
    index = scope.interrupts_seen
    scope.interrupts_seen += 1
    if index < len(scope.answers):
        return scope.answers[index]
    interrupt_id = hashlib.blake2b(
        "|".join((*scope.namespace, str(index))).encode(), digest_size=16
    ).hexdigest()
    answer = scope.run.resume.take(interrupt_id)
    if answer is not _NO_VALUE:
        scope.answers.append(answer)
        return answer
    raise GraphInterrupt((Interrupt(value=value, id=interrupt_id),))


_scope: contextvars.ContextVar[TaskScope | None] = contextvars.ContextVar(
    "graphkit_task_scope", default=None
)


def enter_task(scope: TaskScope) -> contextvars.Token[TaskScope | None]:
    """Make ``scope`` (and its run's runtime) current; returns what ``leave_task`` needs."""
    return _scope.set(scope)


def leave_task(token: contextvars.Token[TaskScope | None]) -> None:
    """Undo ``enter_task``."""
    _scope.reset(token)


def current_scope() -> TaskScope | None:
    """The scope of the task running in this thread, if a graph runs inside a node."""
    return _scope.get()
