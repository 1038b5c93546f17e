"""The agent's own steps as callbacks hear them: a run named after the step.

LangGraph wraps the agent's node functions and its prompt in a traced ``RunnableCallable``,
so a handler (LangSmith's tracer, ``astream_events``) sees a ``call_model`` run in the
``agent`` task and a ``Prompt`` run before each model call. ``traced`` and ``atraced``
make those runs: they start a chain run under the config's callbacks, call the function
with the config as given, and end the run with its output or its error. As in LangGraph,
the run is the function's current one (``get_config()``, and LangSmith's parent of the
runs it makes), while a handler without LangSmith's context hears the calls it makes
with the given config as the caller's.

>>> traced("double", lambda value, config: value * 2, 21, {})
42
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from langchain_core.callbacks import AsyncCallbackManager, CallbackManager
from langchain_core.runnables.config import (
    get_async_callback_manager_for_config,
    get_callback_manager_for_config,
    patch_config,
    set_config_context,
)

from graphkit.pregel.tracing import manager_like, tagged

__all__ = ["atraced", "traced"]


def traced(name: str, function: Callable[[Any, Any], Any], value: Any, config: Any) -> Any:
    """``function(value, config)``, heard by the config's callbacks as a run ``name``."""
    if not (config or {}).get("callbacks"):  # nobody listens: no run to make
        return function(value, config)
    run = _manager(config, CallbackManager).on_chain_start(None, value, name=name)
    try:
        with set_config_context(patch_config(config, callbacks=run.get_child())) as context:
            output = context.run(function, value, config)
    except BaseException as error:
        run.on_chain_error(error)
        raise
    run.on_chain_end(output)
    return output


async def atraced(
    name: str, function: Callable[[Any, Any], Coroutine[Any, Any, Any]], value: Any, config: Any
) -> Any:
    """``await function(value, config)``, heard by the config's callbacks as a run."""
    if not (config or {}).get("callbacks"):
        return await function(value, config)
    manager = _manager(config, AsyncCallbackManager)
    run = await manager.on_chain_start(None, value, name=name)
    try:
        with set_config_context(patch_config(config, callbacks=run.get_child())) as context:
            output = await asyncio.create_task(function(value, config), context=context)
    except BaseException as error:
        await run.on_chain_error(error)
        raise
    await run.on_chain_end(output)
    return output


def _manager(config: Any, kind: type[Any]) -> Any:
    """The callback manager the run starts under: the config's own, when it is one of
    ``kind`` (the task's, with its tags and metadata), as LangGraph's steps take it;
    otherwise one configured from the config. (Configuring a manager anew would add
    LangChain's handlers from context once more, as a ``collect_runs()`` that keeps
    only the graph's run.)"""
    callbacks = config.get("callbacks")
    if kind is AsyncCallbackManager and isinstance(callbacks, CallbackManager):
        # an async graphkit run that only streams "messages" (no chain runs to report)
        # gives its tasks a sync manager, where LangGraph's gives an async one: the same
        # manager, made async (configured anew, it would add a handler meant for the
        # graph's run alone once more)
        callbacks = manager_like(callbacks, AsyncCallbackManager)
    if not isinstance(callbacks, kind):
        if kind is CallbackManager:
            return get_callback_manager_for_config(config)
        return get_async_callback_manager_for_config(config)
    return tagged(callbacks, config)
