"""Timeouts. A node's (``TimeoutPolicy``): an async node's attempt runs as a task on the
run's event loop, watched for its run and idle limits, and cancelled past either one.
A step's (``step_timeout``): in an async run, the step's async nodes still running are
cancelled."""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import time
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from graphkit.errors import NodeTimeoutError
from graphkit.pregel.task_config import scope_config
from graphkit.pregel.task_scope import TaskScope
from graphkit.types import TimeoutPolicy

if TYPE_CHECKING:
    from graphkit.pregel.step_work import StepWork

__all__ = ["abandon_step", "cancel_step", "cancellable", "watched_by_callbacks", "within_timeout"]


def _forget(attempt: asyncio.Future[Any]) -> None:
    """Retrieve what a timed-out attempt ended with, so asyncio does not log it."""
    if not attempt.cancelled():
        attempt.exception()


async def within_timeout(
    coroutine: Coroutine[Any, Any, Any], node: str, policy: TimeoutPolicy, scope: TaskScope
) -> Any:
    """Await ``coroutine`` (one attempt of ``node``); past ``policy.run_timeout`` seconds,
    or ``policy.idle_timeout`` seconds after the attempt last showed progress (see
    ``TaskScope.progress``), cancel it and raise ``NodeTimeoutError``."""
    started = time.monotonic()
    scope.last_progress = scope.last_heartbeat = started
    attempt = asyncio.ensure_future(coroutine)
    run_limit, idle_limit = policy.run_timeout, policy.idle_timeout
    try:
        while True:
            now = time.monotonic()
            ends: dict[str, float] = {}
            if run_limit is not None:
                ends["run"] = started + float(run_limit)
            if idle_limit is not None:
                heartbeat_only = policy.refresh_on == "heartbeat"
                last = scope.last_heartbeat if heartbeat_only else scope.last_progress
                ends["idle"] = last + float(idle_limit)
            kind = min(ends, key=ends.__getitem__)
            if now >= ends[kind]:
                break
            done, _ = await asyncio.wait({attempt}, timeout=ends[kind] - now)
            if done:
                return attempt.result()
    except asyncio.CancelledError:  # the run was cancelled: so is the attempt
        attempt.cancel()
        raise
    elapsed = time.monotonic() - started
    scope.timed_out = True
    attempt.cancel()  # and not waited for, as in LangGraph: a slow cleanup delays nothing
    attempt.add_done_callback(_forget)
    raise NodeTimeoutError(
        node,
        elapsed,
        kind=kind,  # type: ignore[arg-type]
        idle_timeout=idle_limit,  # type: ignore[arg-type]
        run_timeout=run_limit,  # type: ignore[arg-type]
    )


async def cancellable(
    start: Callable[[], Coroutine[Any, Any, Any]], work: StepWork, task_id: str, node: bool = True
) -> Any:
    """Await the coroutine ``start()`` makes (an async node's attempt) where its step's
    timeout, or a task failing the step, can cancel it; as it ends, its end is numbered
    (``StepWork.stamp``: results are taken in the loop's order). ``node``: False for a
    wait between attempts. The coroutine is made once its start turn comes: one made
    before and cancelled as it waited would be one Python warns was never awaited."""
    assert work.coroutines is not None
    # started after the step stopped (a retry, a late start), or a call whose caller
    # cancelled its future before it started (LangGraph never starts that one)
    if work.stopped or (work.dropped is not None and task_id in work.dropped):
        raise asyncio.CancelledError()
    work.coroutines[task_id] = asyncio.current_task()  # type: ignore[assignment]
    try:
        if node and work.turns is not None:  # its step's tasks start in plan order
            await work.turns.wait(task_id)
        return await start()
    except Exception:
        if node and work.turns is not None:  # (a retry, if any, comes in this order)
            work.turns.failed(task_id)
        raise
    finally:
        work.coroutines.pop(task_id, None)
        if node:
            work.stamp(task_id)


def cancel_step(work: StepWork) -> set[str]:
    """Cancel the async nodes of ``work``'s step still running, on the run's event loop;
    return their task ids."""
    assert work.run.loop is not None and work.coroutines is not None
    coroutines = work.coroutines

    async def cancel() -> set[str]:
        for running in coroutines.values():
            running.cancel()
        return set(coroutines)

    return asyncio.run_coroutine_threadsafe(cancel(), work.run.loop).result()


ABANDON_WAIT_SECONDS = 2.0
"""How long a caller that stopped waiting for a step (``abandon_step``) waits for its
cancelled async nodes to end: long enough for a ``finally`` to close a connection, short
enough that pressing stop twice is never needed."""


def abandon_step(work: StepWork, seconds: float = ABANDON_WAIT_SECONDS) -> None:
    """The caller stopped waiting for ``work``'s step (a ``KeyboardInterrupt``, the
    notebook's stop button): cancel its async nodes on the run's loop and wait up to
    ``seconds`` for them to end, so that none goes on writing to a store or calling a
    model unseen once the caller's exception propagates; no task starts another attempt.
    A node that outlasts the wait (it swallows its cancellation, or blocks the loop) is
    left to finish."""
    work.stopped = True
    loop, coroutines = work.run.loop, work.coroutines
    if loop is None or coroutines is None or loop.is_closed():
        return

    async def cancel() -> None:
        running = list(coroutines.values())
        for task in running:
            task.cancel()
        if running:
            await asyncio.wait(running, timeout=seconds)

    try:
        on_loop = asyncio.get_running_loop() is loop
    except RuntimeError:  # (no loop runs in this thread: the usual caller)
        on_loop = False
    ending = asyncio.run_coroutine_threadsafe(cancel(), loop)
    if on_loop:  # (its loop cannot run the cancelling while this thread waits)
        return
    try:
        ending.result(timeout=seconds)
    except concurrent.futures.TimeoutError:
        ending.cancel()


def watched_by_callbacks(
    policy: TimeoutPolicy, scope: TaskScope, injected: dict[str, Any], config: Any
) -> tuple[dict[str, Any], Any]:
    """Under an idle timeout refreshed ``"auto"``, the values and config of the attempt in
    ``scope`` with a callback handler for which any LangChain callback event of what the
    node runs (a model's tokens, a tool's start...) is progress, as in LangGraph; else
    ``injected`` and ``config`` as they are."""
    if policy.idle_timeout is None or policy.refresh_on != "auto":
        return injected, config
    try:
        handler = _progress_handler_class()(scope)
    except ImportError:  # (without langchain-core nothing reports to callbacks)
        return injected, config
    from langchain_core.callbacks import BaseCallbackManager

    base = config if config is not None else scope_config(scope)
    callbacks = base.get("callbacks")
    if isinstance(callbacks, BaseCallbackManager):
        callbacks = callbacks.copy()
        callbacks.add_handler(handler, inherit=True)
    else:
        callbacks = [*(callbacks or ()), handler]
    config = {**base, "callbacks": callbacks}
    return ({**injected, "config": config} if "config" in injected else injected), config


@functools.cache
def _progress_handler_class() -> type:
    from langchain_core.callbacks import BaseCallbackHandler

    class IdleProgress(BaseCallbackHandler):
        """Notes progress of the attempt in ``scope`` on every callback event."""

        run_inline = True  # (at once, in the order the events come)

        def __init__(self, scope: TaskScope) -> None:
            self.scope = scope

        def _progress(self, *args: Any, **kwargs: Any) -> None:
            self.scope.progress()

        on_llm_start = on_chat_model_start = on_llm_new_token = _progress
        on_llm_end = on_llm_error = on_chain_start = on_chain_end = _progress
        on_chain_error = on_tool_start = on_tool_end = on_tool_error = _progress
        on_retriever_start = on_retriever_end = on_retriever_error = _progress
        on_agent_action = on_agent_finish = on_text = on_retry = _progress
        on_custom_event = _progress

    return IdleProgress
