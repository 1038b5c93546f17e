"""Calls: a task function called from inside a running task becomes a task of the same
superstep (LangGraph's functional API, ``@task``).

The caller gets a ``TaskFuture`` at once. The call is a ``Task`` of kind ``"call"`` whose
id is fixed by its parent task and its place among the parent's calls, so a resumed run
finds the result a call saved before the run stopped and does not run it again. It runs
on the step's workers (``StepWork.submit``) with the retries, timeouts and interrupts of
any task; its one write is its return value, to ``__return__``, which Update ignores.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import functools
import inspect
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any

from graphkit.cache.base import WRITES_NAMESPACE, hash_key
from graphkit.constants import PUSH, RETURN
from graphkit.diagnostics import calls as diagnose
from graphkit.errors import GraphInterrupt
from graphkit.pregel.pool import POOL
from graphkit.pregel.records import Task, TaskResult, task_id
from graphkit.pregel.spec import NodeSpec, injectable_parameters
from graphkit.pregel.task_scope import TaskScope, current_scope

__all__ = [
    "CachedCall",
    "CallSpec",
    "TaskFuture",
    "call",
    "count_calls",
    "identifier",
    "returned",
]


class TaskFuture(concurrent.futures.Future):  # type: ignore[type-arg]
    """What calling a task returns: ``.result()`` waits for its value (or raises its
    error); ``await future`` does the same in async code.

    >>> future = TaskFuture()
    >>> future.set_result(3)
    >>> future.result()
    3
    """

    on_cancel: Callable[[], None] | None = None
    """Stops the call when its caller cancels this future (set for an async call)."""

    def __await__(self) -> Generator[Any, None, Any]:
        return asyncio.wrap_future(self).__await__()

    def cancel(self) -> bool:
        """Cancel the call, as LangGraph's ``future.cancel()`` does: an async call still
        running is cancelled; it streams nothing and saves no result, so a resumed run
        calls it again."""
        cancelled = super().cancel()
        if cancelled and self.on_cancel is not None:
            self.on_cancel()
        return cancelled

    def result(self, timeout: float | None = None) -> Any:
        """The call's value, waiting for it (in async code, ``await`` the future:
        waiting here would stop the event loop the call may need, so an unfinished
        call's ``result()`` raises ``InvalidStateError`` there, as in LangGraph)."""
        if not self.done() and _on_the_runs_loop():
            raise asyncio.InvalidStateError(diagnose.result_in_async_code())
        if timeout is None:  # (a pool thread may run the call meanwhile: see pregel/pool)
            POOL.settle(self)
        return super().result(timeout)


def _on_the_runs_loop() -> bool:
    """True in a coroutine on the event loop of the run this task belongs to (another
    loop running in the thread, e.g. a notebook's or a test tool's, does not count)."""
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        return False
    scope = current_scope()
    return scope is None or running is scope.run.loop


@dataclass(frozen=True)
class CallSpec:
    """A task function as the runtime calls it: its name, the function, and the
    node options each of its calls runs with."""

    name: str
    function: Callable[..., Any]
    retry_policies: tuple[Any, ...] = ()
    cache_policy: Any = None
    timeout: Any = None
    node: NodeSpec = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "node", _node_of(self))


# -- counting a task's calls ------------------------------------------------------------

_counter: contextvars.ContextVar[tuple[Any, list[int]] | None] = contextvars.ContextVar(
    "graphkit_call_counter", default=None
)
"""The running task's calls so far, with what marks that task's run: the list its scope
shares over all its attempts (``TaskScope.subgraph_calls``)."""


def count_calls() -> None:
    """Make sure the calls of the running task are counted from here on, in this
    context and the coroutines it gathers (the functional API calls this before the
    user's function runs). As in LangGraph, the count goes on over the task's attempts
    (a retry's calls are new calls); a resumed run counts from 0 again, and so finds
    the calls it saved."""
    scope = current_scope()
    if scope is not None:
        _counted(scope)


def _counted(scope: TaskScope) -> list[int]:
    held = _counter.get()
    if held is None or held[0] is not scope.subgraph_calls:
        held = (scope.subgraph_calls, [0])
        _counter.set(held)
    return held[1]


def _next_index(scope: TaskScope) -> int:
    """The number of this call among the calls of ``scope``'s task."""
    counter = _counted(scope)
    index = counter[0]
    counter[0] += 1
    return index


# -- calling --------------------------------------------------------------------------


def call(spec: CallSpec, args: tuple[Any, ...], kwargs: dict[str, Any]) -> TaskFuture:
    """Run ``spec``'s function on ``args``/``kwargs`` as a task of the running step; its
    future. Raises ``RuntimeError`` (saying where tasks may be called) outside a task."""
    scope = current_scope()
    if scope is None:
        raise RuntimeError(diagnose.called_outside(spec.name))
    work = getattr(scope, "work", None)
    if work is None:
        raise RuntimeError(diagnose.called_outside_execute(spec.name, scope.task.node))
    if spec.node.is_async and scope.run.loop is None:
        raise RuntimeError(diagnose.async_in_sync_run(spec.name, scope.task.node))
    if scope.timed_out:  # (its caller passed its timeout: cancelled, as in LangGraph)
        raise asyncio.CancelledError()
    parent = scope.task
    index = _next_index(scope)
    path = (PUSH, parent.path, index, True)  # (True: a call, as LangGraph marks one)
    # the name too: a program that calls another task at this place on resume runs it
    # instead of taking the saved result of the one called here before
    id_ = task_id(parent.id, parent.step, (*path, spec.name))
    task = Task(
        *(id_, parent.step, spec.name, "call", path, (PUSH,), (args, kwargs)),
        parent=parent.id,
        caller_namespace=scope.namespace,
    )
    listener = scope.run.options.listener  # (a graphkit.streaming.Listener, when streaming)
    if listener is not None and listener.call_started is not None:
        listener.call_started(task)
    # a call that finished before the run stopped is not run again: its saved result;
    # nor is one whose cache key hits: its cached result
    cached = CachedCall.of(spec, args, kwargs, scope.run.options.cache)
    known = work.saved(task) or (cached.hit(task) if cached is not None else None)
    submitted = work.reuse(known) if known is not None else work.submit(task, spec.node)
    future = TaskFuture()
    if known is None and spec.node.is_async and work.coroutines is not None:
        future.on_cancel = functools.partial(_stop_call, work, id_)

    def finished(done: concurrent.futures.Future[TaskResult]) -> None:
        if listener is not None:  # before the caller goes on: streams keep the order
            listener.finished(id_)
        if cached is not None and known is None:
            cached.keep(done)
        _settle(done, future)

    submitted.add_done_callback(finished)
    return future


# -- caching calls -----------------------------------------------------------------------


@dataclass(frozen=True)
class CachedCall:
    """A call of a task with a cache policy, in a run with a cache: its key, as
    LangGraph makes it (the task function's namespace, a hash of the policy's
    ``key_func(*args, **kwargs)``)."""

    cache: Any
    key: tuple[tuple[str, ...], str]
    ttl: float | None

    @classmethod
    def of(
        cls, spec: CallSpec, args: tuple[Any, ...], kwargs: dict[str, Any], cache: Any
    ) -> CachedCall | None:
        """``cache``: the calling run's (the cache its graph or entrypoint was compiled
        with; a task called from a node uses its graph's, as in LangGraph)."""
        policy = spec.cache_policy
        if cache is None or policy is None:
            return None
        made = policy.key_func(*args, **kwargs)
        return cls(
            cache,
            ((WRITES_NAMESPACE, identifier(spec.function)), hash_key(made, spec.name)),
            policy.ttl,
        )

    def hit(self, task: Task) -> TaskResult | None:
        """The call's result, served from the cache (not run), if the key is there."""
        found = self.cache.get([self.key])
        if self.key not in found:
            return None
        return TaskResult(
            task, tuple(tuple(write) for write in found[self.key]), attempts=0, cached=True
        )

    def keep(self, done: concurrent.futures.Future[TaskResult]) -> None:
        """Cache a call that finished (not one that failed or paused)."""
        try:
            result = done.result()
        except BaseException:  # the runtime failed to run it: nothing to keep
            return
        if result.ok and not result.cached:
            self.cache.set({self.key: (list(result.writes), self.ttl)})


def identifier(function: Any) -> str:
    """``module.qualname`` of a function: the cache namespace of a task (LangGraph's).

    >>> identifier(identifier)
    'graphkit.pregel.calls.identifier'
    """
    module = getattr(function, "__module__", None)
    qualname = getattr(function, "__qualname__", None)
    return f"{module}.{qualname}" if module and qualname else "__dynamic__"


def returned(result: TaskResult) -> Any:
    """The value a finished call returned (its ``__return__`` write; None if none)."""
    return next((value for channel, value in result.writes if channel == RETURN), None)


def _stop_call(work: Any, task_id: str) -> None:
    """Cancel the coroutine of the call ``task_id`` (on the run's event loop, where the
    step's coroutines are kept), if it is running; it then ends as a cancelled call."""

    def stop() -> None:
        work.dropped = {*(work.dropped or ()), task_id}
        running = work.coroutines.get(task_id)
        if running is not None:
            running.cancel()

    loop = work.run.loop
    try:
        on_loop = asyncio.get_running_loop() is loop
    except RuntimeError:
        on_loop = False
    if on_loop:
        stop()
    else:
        loop.call_soon_threadsafe(stop)


def _settle(done: concurrent.futures.Future[TaskResult], future: TaskFuture) -> None:
    """Pass a finished call's outcome to its caller's future: the value, the error, or
    ``GraphInterrupt`` when the call paused (the caller pauses with it)."""
    if future.done():  # cancelled with its caller (the run, or the step, timed out)
        return
    try:
        result = done.result()
    except BaseException as error:  # the runtime itself failed to run the call
        future.set_exception(error)
        return
    if result.interrupts:
        future.set_exception(GraphInterrupt(tuple(result.interrupts)))
    elif result.error is not None:
        future.set_exception(result.error)
    else:
        future.set_result(returned(result))


def _checked(name: str, function: Callable[..., Any]) -> Callable[..., None]:
    """A check that a call's arguments fit ``function`` (run in the task, where
    LangGraph's TypeError shows too), saying which task and its signature."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return lambda args, kwargs, values: None

    def check(args: tuple[Any, ...], kwargs: dict[str, Any], values: dict[str, Any]) -> None:
        try:
            signature.bind(*args, **kwargs, **values)
        except TypeError as error:
            raise TypeError(diagnose.bad_arguments(name, str(signature), error)) from None

    return check


# -- the node a call runs ---------------------------------------------------------------


def _not_given(kwargs: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    """The run's values for the injected parameters the caller left out: a keyword the
    caller passes (``my_task(store=None)``) is the caller's, as in LangGraph."""
    if not kwargs:
        return values
    return {name: value for name, value in values.items() if name not in kwargs}


def _node_of(spec: CallSpec) -> NodeSpec:
    """The ``NodeSpec`` every call of ``spec`` runs: the function applied to the call's
    ``(args, kwargs)`` (plus the run's values it asks for), its result written to
    ``__return__``."""
    function = spec.function
    injected = injectable_parameters(function)
    check = _checked(spec.name, function)
    is_async = inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(
        getattr(function, "__call__", None)  # noqa: B004
    )
    if is_async:

        async def run_async(given: Any, **values: Any) -> Any:
            args, kwargs = given
            values = _not_given(kwargs, values)
            check(args, kwargs, values)
            count_calls()
            return await function(*args, **kwargs, **values)

        run: Callable[..., Any] = run_async
    else:

        def run(given: Any, **values: Any) -> Any:
            args, kwargs = given
            values = _not_given(kwargs, values)
            check(args, kwargs, values)
            count_calls()
            return function(*args, **kwargs, **values)

    run.function = function  # type: ignore[attr-defined]  # (what a tracer shows: pregel/tracing)
    return NodeSpec(
        name=spec.name,
        triggers=(),
        reads=(),
        call=run,
        writers=(_write_return,),
        injected=injected,
        retry_policies=tuple(spec.retry_policies),
        is_async=is_async,
        cache_policy=spec.cache_policy,
        timeout=spec.timeout,
    )


def _write_return(returned: Any, fresh_read: Any, config: Any) -> Sequence[tuple[str, Any]]:
    return ((RETURN, returned),)
