"""What the channel writers run for when ``update_state`` runs them outside any
task: the ``as_node`` whose values they read (``editing_as``), and the event loop of an
``aupdate_state`` caller, on which they await an async router (``in_worker_thread``)."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import Callable, Iterator
from typing import Any

from graphkit.pregel.task_scope import _scope

__all__ = ["caller_loop", "edited_as", "editing_as", "editing_loop", "in_worker_thread"]


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
