"""``@task``: a function whose every call, inside a running entrypoint, is a task of
the superstep that calls it (see ``graphkit.pregel.calls``)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

from graphkit.cache.base import WRITES_NAMESPACE
from graphkit.diagnostics import calls as diagnose
from graphkit.diagnostics.building import retry_policies
from graphkit.diagnostics.parameters import warn_config_type
from graphkit.pregel.calls import CallSpec, TaskFuture, call, identifier
from graphkit.types import CachePolicy, RetryPolicy, TimeoutPolicy

__all__ = ["TaskFunction", "task"]


class TaskFunction:
    """A function decorated with ``@task``: calling it inside an entrypoint (or a
    task, or a graph's node) starts a task and returns its ``TaskFuture``; ``func`` is
    the plain function."""

    def __init__(
        self,
        func: Callable[..., Any],
        *,
        name: str | None = None,
        retry_policy: RetryPolicy | Sequence[RetryPolicy] | None = (),
        cache_policy: CachePolicy | None = None,
        timeout: TimeoutPolicy | None = None,
    ) -> None:
        self.func = func
        named = func
        while isinstance(named, functools.partial):  # (LangGraph names it by its function)
            named = named.func
        self.name = name or getattr(named, "__name__", type(named).__name__)
        self.retry_policy = retry_policies(f"Task {self.name!r}", retry_policy)
        self.cache_policy = cache_policy
        self.timeout = timeout
        functools.update_wrapper(self, func)
        self.__name__ = self.name
        self.spec = CallSpec(self.name, func, self.retry_policy, cache_policy, timeout)

    def __call__(self, *args: Any, **kwargs: Any) -> TaskFuture:
        return call(self.spec, args, kwargs)

    def clear_cache(self, cache: Any) -> None:
        """Forget this task's cached results in ``cache``."""
        if self.cache_policy is not None:
            cache.clear([(WRITES_NAMESPACE, identifier(self.func))])

    async def aclear_cache(self, cache: Any) -> None:
        """``clear_cache`` for async code."""
        if self.cache_policy is not None:
            await cache.aclear([(WRITES_NAMESPACE, identifier(self.func))])

    def __repr__(self) -> str:
        return f"task({self.name!r})"


def task(
    __func_or_none__: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    retry_policy: RetryPolicy | Sequence[RetryPolicy] | None = None,
    cache_policy: CachePolicy | None = None,
    timeout: float | timedelta | TimeoutPolicy | None = None,
    **deprecated: Any,
) -> Any:
    """Make a function a task, as LangGraph's ``@task``: called inside an entrypoint, it
    runs as a task of the running superstep (in parallel with the caller and the other
    calls) and returns a future; ``future.result()`` (or ``await future``) is its value.
    ``retry_policy`` retries a failed call, ``timeout`` (async tasks only) limits each
    attempt; with a checkpointer, a finished call is not run again when the run resumes.

    >>> from graphkit.func import entrypoint, task
    >>> @task
    ... def square(n: int) -> int:
    ...     return n * n
    >>> @entrypoint()
    ... def total(numbers: list[int]) -> int:
    ...     futures = [square(n) for n in numbers]  # all start at once
    ...     return sum(future.result() for future in futures)
    >>> total.invoke([1, 2, 3])
    14
    """
    old = diagnose.renamed_arguments("task", deprecated)  # as LangGraph: the new name wins
    if retry_policy is None:
        retry_policy = old.get("retry_policy")
    timeout_policy = TimeoutPolicy.coerce(timeout)

    def decorate(func: Callable[..., Any]) -> TaskFunction:
        if not callable(func):
            raise TypeError(diagnose.not_callable("task", func))
        made = TaskFunction(
            func, name=name, retry_policy=retry_policy, cache_policy=cache_policy,
            timeout=timeout_policy,
        )  # fmt: skip
        if timeout_policy is not None and not made.spec.node.is_async:
            raise ValueError(diagnose.sync_timeout(made.name))
        warn_config_type(f"The task {made.name!r}", func)
        return made

    if __func_or_none__ is not None:
        return decorate(__func_or_none__)
    return decorate


def is_generator(function: Any) -> bool:
    """True for a generator function, sync or async (the functional API refuses them)."""
    return inspect.isgeneratorfunction(function) or inspect.isasyncgenfunction(function)
