"""LangChain callbacks for a run, reported as LangGraph reports them, so that a tracer
(LangSmith) and ``astream_events`` see the same tree: the graph's run, one chain run
per task (tagged ``graph:step:N``) and, inside it, one per router (tagged ``seq:step:K``,
K being the router's place after the node and its edge writes in LangGraph's node
sequence). A run is traced only when its config carries callbacks, or LangSmith tracing
is turned on without them (``LANGSMITH_TRACING=true``, ``tracing_context``), so a run
without them pays nothing; langchain-core is imported only then.

As LangGraph's, a run started asynchronously reports through async callback managers,
awaited on its event loop (``RunTrace.loop``) while the stepper's thread waits: an async
handler runs on that loop and its ``raise_error`` raises in the run, a sync handler runs
on the loop's thread (``run_inline``) or in its executor."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any

from graphkit.pregel.config import coordinates_in_metadata

__all__ = ["RunTrace", "open_trace", "traced_route", "with_ambient_tracer"]

SEQ_STEP = "seq:step:"
"""The tag of a step of LangGraph's node sequence (the node itself is ``seq:step:1``)."""


class RunTrace:
    """The chain run of one graph run: ``run`` is its langchain-core run manager;
    ``streams``: each task's output goes to the streaming handlers too (``on_chain_stream``
    in ``astream_events``), which LangGraph does only for a run streamed asynchronously;
    ``loop``: the event loop its async managers report on (None: its managers are sync)."""

    __slots__ = ("async_run", "loop", "output_keys", "run", "streams")

    def __init__(
        self, run: Any, streams: bool, async_run: Any, output_keys: Any, loop: Any = None
    ) -> None:
        self.run, self.streams, self.async_run = run, streams, async_run
        self.output_keys = output_keys  # (LangGraph's form: one name alone, or a list)
        self.loop = loop

    def __repr__(self) -> str:
        return f"RunTrace({self.run.run_id}, streams={self.streams})"

    def start_task(
        self, task: Any, config: Mapping[str, Any], node: Any, caller: Any = None
    ) -> Any:
        """Start ``task``'s chain run, named for its node and given its input; ``config``
        is the task's (its tags and metadata); ``caller``: the run manager of the task
        that called this one (a functional-API call), inside whose node it reports, as in
        LangGraph. Returns the task's run manager."""
        if caller is not None:
            child = caller.get_child(f"{SEQ_STEP}1")
        else:
            child = self.run.get_child(f"graph:step:{task.step}")
        manager = tagged(child, config)
        started = manager.on_chain_start(None, _shown_input(task, node), name=task.node)
        return reported(started, self.loop)

    def end_task(self, task_run: Any, output: Any, error: BaseException | None) -> None:
        """End a task's chain run with its node's output, or with the error it raised
        (an interrupt too, as in LangGraph)."""
        if error is not None:
            reported(task_run.on_chain_error(error), self.loop)
            return
        if self.streams:
            for handler in task_run.handlers:
                tap = getattr(handler, "tap_output_iter", None)
                if tap is not None and not _streams_messages(handler):
                    for _ in tap(task_run.run_id, iter((output,))):
                        pass
        reported(task_run.on_chain_end(output), self.loop)

    def end(self, ended: Any) -> None:
        """End the run's chain run with what ``invoke`` returns: the output keys' values
        (one key named alone: its value) in ``ended``, the run's stepper, or what a paused
        run shows (its finished tasks' writes applied, as LangGraph's run reports too)."""
        keys = self.output_keys
        if isinstance(keys, str):
            values = ended.output((keys,))
            output = values.get(keys) if isinstance(values, dict) else values
        else:
            output = ended.output(tuple(keys))
        reported(self.run.on_chain_end(output), self.loop)

    def fail(self, error: BaseException) -> None:
        """End the run's chain run with the error it raised."""
        reported(self.run.on_chain_error(error), self.loop)


def reported(outcome: Any, loop: Any) -> Any:
    """What a callback manager's call gives: a sync manager's as it is; an async
    manager's coroutine awaited on the run's ``loop``, this (stepper or pool) thread
    waiting for it, so that what a handler raises with ``raise_error`` raises here."""
    if loop is None:
        return outcome
    return asyncio.run_coroutine_threadsafe(outcome, loop).result()


def open_trace(
    config: Any, input: Any, app: Any, async_run: Any, parent: Any, output_keys: Any = None
) -> RunTrace | None:
    """Start the chain run of ``app``'s run configured with ``config`` (None when the
    config has no callbacks other than graphkit's own "messages" handler). ``async_run``:
    the async run this run works for, if any; ``parent``: the task running it, if any;
    ``output_keys``: the keys asked for (None: the graph's).

    As in LangGraph, task outputs are streamed to streaming handlers when the run was
    started asynchronously, or is a subgraph node of a run that streams them."""
    # (a config that is not a dict is refused later, by RunConfig)
    if not isinstance(config, dict) or not _has_handlers(config.get("callbacks")):
        return None
    above = parent.run.options.trace if parent is not None else None
    if above is None:
        streams = async_run is not None
    elif above.async_run is not async_run:  # awaited by the task: started asynchronously
        streams = True
    else:  # a subgraph node streams as its parent does; a graph a node invokes does not
        streams = above.streams and getattr(parent.node.call, "subgraph", None) is not None
    # reported as it was started: asynchronously on its loop (not from the loop's own
    # thread, where a sync run inside an async node holds the loop up)
    on_loop = streams and async_run is not None and not async_run.on_its_loop()
    loop = async_run.loop if on_loop else None
    from langchain_core.runnables import config as configs

    if loop is None:
        manager = configs.get_callback_manager_for_config(config)
    else:
        manager = configs.get_async_callback_manager_for_config(config)
    # as LangGraph's: the graph's run names its thread (thread_id, checkpoint_ns...)
    missing = coordinates_in_metadata(manager.metadata, config.get("configurable"))
    if "ls_integration" not in manager.metadata:
        missing["ls_integration"] = "langgraph"
    manager.add_metadata({k: v for k, v in missing.items() if k not in manager.metadata})
    name = config.get("run_name", app.get_name())
    run = manager.on_chain_start(None, input, name=name, run_id=config.get("run_id"))
    keys = app.output_channels if output_keys is None else output_keys
    return RunTrace(reported(run, loop), streams, async_run, keys, loop)


_TRACING_VARIABLES = (
    "LANGSMITH_TRACING_V2",
    "LANGCHAIN_TRACING_V2",
    "LANGSMITH_TRACING",
    "LANGCHAIN_TRACING",
)
"""The environment variables that turn LangSmith tracing on (set to "true")."""


def with_ambient_tracer(config: Any) -> Any:
    """``config`` with LangSmith's tracer as its callbacks when tracing is turned on but
    the config has no handlers (the environment, ``tracing_context``,
    ``langsmith.configure``), as LangChain adds it to every runnable's callbacks: the
    graph's run, its tasks and what they call are then one trace, under the
    ``@traceable`` the run is inside, if any."""
    given = {} if config is None else config
    if not isinstance(given, dict) or _has_handlers(given.get("callbacks")):
        return config
    if not _tracing_on():
        return config
    try:
        from langchain_core.callbacks import CallbackManager
    except ImportError:  # (nothing to trace with: nodes call no LangChain code)
        return config
    # LangChain's own choice of handlers: its tracer when tracing is on, else none
    manager = CallbackManager.configure(given.get("callbacks"))
    return {**given, "callbacks": manager} if _has_handlers(manager) else config


def _tracing_on() -> bool:
    """Whether LangChain would give a run with no callbacks any handler, asked without
    building a callback manager, which cost every run of a 3-node graph about 5% of its
    time wherever langsmith is imported (it is, with langchain-core): LangSmith tracing
    (``tracing_v2_enabled()``, a ``tracing_context``, a run tree the run is inside,
    ``langsmith.configure``, the environment), LangChain's ``set_debug(True)``, or a
    handler a configure hook put in context (``collect_runs()``,
    ``get_openai_callback()``)."""
    if "langsmith" not in sys.modules:  # (nothing can have turned it on in code)
        return any(os.environ.get(name, "").lower() == "true" for name in _TRACING_VARIABLES)
    context = sys.modules.get("langchain_core.tracers.context")
    if context is not None and (
        context.tracing_v2_callback_var.get() is not None or _hooked_handler(context)
    ):
        return True
    settings = sys.modules.get("langchain_core.globals")
    if settings is not None and settings.get_debug():
        return True
    # (read from the module: an import statement here cost every run about 0.7%)
    utils = sys.modules.get("langsmith.utils") or importlib.import_module("langsmith.utils")
    return bool(utils.tracing_is_enabled())


def _hooked_handler(context: Any) -> bool:
    """Whether a configure hook (``register_configure_hook``: LangChain's run collector,
    a library's own) has a handler in context or turned on by its
    environment variable, as ``CallbackManager.configure`` reads them."""
    registered = getattr(context, "_configure_hooks", None)
    if registered is None:  # (a langchain-core that keeps them elsewhere: ask it whole)
        return True
    from langchain_core.utils.env import env_var_is_set

    for variable, _, handler_class, env_var in registered:
        if variable.get() is not None:
            return True
        if env_var is not None and handler_class is not None and env_var_is_set(env_var):
            return True
    return False


def node_callbacks(task_run: Any, handlers: tuple[Any, ...]) -> Any:
    """The callbacks a traced task's node is given: children of the task's run (the
    node is step 1 of LangGraph's sequence), with the run's own ``handlers`` added."""
    manager = task_run.get_child(f"{SEQ_STEP}1")
    for handler in handlers:
        manager.add_handler(handler, inherit=True)
    return manager


def traced_route(
    scope: Any,
    position: int,
    name: str | None,
    route: Callable[[Any, Any], Any],
    state: Any,
    config: Any,
) -> Any:
    """``route(state, config)`` as a chain run of its own, named ``name`` (None: unnamed),
    inside the traced task of ``scope`` (step ``position`` of the node's sequence);
    untraced outside a traced task."""
    task_run = scope.trace if scope is not None else None
    if task_run is None:
        return route(state, config)
    loop = scope.run.options.trace.loop
    manager = tagged(task_run.get_child(f"{SEQ_STEP}{position}"), config or {})
    run = reported(manager.on_chain_start(None, state, name=name), loop)
    try:
        result = route(state, {**(config or {}), "callbacks": run.get_child()})
    except BaseException as error:
        reported(run.on_chain_error(error), loop)
        raise
    reported(run.on_chain_end(result), loop)
    return result


def traced_runnable_route(
    scope: Any, position: int, route: Callable[[Any, Any], Any], state: Any, config: Any
) -> Any:
    """A LangChain Runnable as a router: its own chain run is the router's (LangGraph
    wraps it in none), at step ``position`` of the node's sequence."""
    task_run = scope.trace if scope is not None else None
    if task_run is None:
        return route(state, config)
    return route(
        state, {**(config or {}), "callbacks": task_run.get_child(f"{SEQ_STEP}{position}")}
    )


def tagged(child: Any, config: Mapping[str, Any]) -> Any:
    """A child callback manager with ``config``'s tags and metadata, used as it is, as
    LangGraph's nodes and routers take theirs: configuring it anew would add LangChain's
    handlers from context again (one ``collect_runs()`` keeps for the graph's run alone)."""
    if tags := config.get("tags"):
        child.add_tags(list(tags))
    if metadata := config.get("metadata"):
        child.add_metadata(metadata)
    return child


def manager_like(manager: Any, kind: type[Any]) -> Any:
    """A callback manager of ``kind`` (sync or async) with ``manager``'s handlers, parent,
    tags and metadata, each copied: a task's own, or an async one for a sync manager."""
    return kind(
        handlers=list(manager.handlers),
        inheritable_handlers=list(manager.inheritable_handlers),
        parent_run_id=manager.parent_run_id,
        tags=list(manager.tags),
        inheritable_tags=list(manager.inheritable_tags),
        metadata=dict(manager.metadata),
        inheritable_metadata=dict(manager.inheritable_metadata),
    )


def _shown_input(task: Any, node: Any) -> Any:
    """A task's input as LangGraph shows it: a call's arguments by parameter name."""
    function = getattr(getattr(node, "call", None), "function", None)
    if task.kind != "call" or function is None:
        return task.input
    args, kwargs = task.input
    try:
        return dict(inspect.signature(function).bind_partial(*args, **kwargs).arguments)
    except (TypeError, ValueError):  # (a call that does not fit fails in the node, said so)
        return task.input


def _has_handlers(callbacks: Any) -> bool:
    """Whether ``callbacks`` (a list or a manager) holds a handler besides graphkit's
    "messages" sink, which needs no chain runs."""
    if not callbacks:  # (most runs)
        return False
    handlers = callbacks if isinstance(callbacks, (list, tuple)) else callbacks.handlers
    return any(not _streams_messages(handler) for handler in handlers)


def _streams_messages(handler: Any) -> bool:
    return getattr(handler, "graphkit_messages", False)
