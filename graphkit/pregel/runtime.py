"""What a running node can reach besides its state: the run's context, store and
stream writer — passed as parameters (``runtime``, ``writer``, ``store``, ``config``)
or fetched with ``get_runtime()`` / ``get_stream_writer()``, as in LangGraph."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

__all__ = ["INJECTABLE", "Runtime", "get_runtime", "get_stream_writer"]

INJECTABLE = ("config", "writer", "runtime", "store")
"""Parameter names a node function can declare to be handed these (LangGraph's)."""


def _discard(chunk: Any) -> None:
    return None


@dataclass(frozen=True, slots=True)
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


_current: contextvars.ContextVar[Runtime | None] = contextvars.ContextVar(
    "graphkit_runtime", default=None
)


@contextmanager
def running(runtime: Runtime) -> Iterator[None]:
    """Make ``runtime`` what ``get_runtime()`` returns while a node runs."""
    token = _current.set(runtime)
    try:
        yield
    finally:
        _current.reset(token)


def get_runtime() -> Runtime:
    """The runtime of the node running in this thread.

    >>> get_runtime()
    Traceback (most recent call last):
    ...
    RuntimeError: get_runtime() works only inside a running node.
    """
    runtime = _current.get()
    if runtime is None:
        raise RuntimeError("get_runtime() works only inside a running node.")
    return runtime


def get_stream_writer() -> Callable[[Any], None]:
    """A function that sends a chunk to ``stream_mode="custom"`` from inside a node.

    Outside a node, or when nobody streams "custom", it silently discards chunks.

    >>> get_stream_writer()("progress: 50%")  # no run: discarded
    """
    runtime = _current.get()
    return runtime.stream_writer if runtime is not None else _discard


Forward = Callable[[tuple[tuple[str, ...], str, Any]], None]
"""Receives ``(namespace, mode, chunk)`` from a subgraph's stream."""


@dataclass(frozen=True, slots=True)
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


@dataclass(slots=True)
class TaskScope:
    """What a running task offers the graphs it runs itself (its subgraphs): their
    namespace, where their finished runs go, and where to forward stream chunks."""

    namespace: tuple[str, ...]
    run: RunContext
    subruns: list[Any] = field(default_factory=list)


_scope: contextvars.ContextVar[TaskScope | None] = contextvars.ContextVar(
    "graphkit_task_scope", default=None
)


def current_scope() -> TaskScope | None:
    """The scope of the task running in this thread, if a graph runs inside a node."""
    return _scope.get()


@contextmanager
def task_scope(scope: TaskScope) -> Iterator[None]:
    """Make ``scope`` current while a task runs."""
    token = _scope.set(scope)
    try:
        yield
    finally:
        _scope.reset(token)
