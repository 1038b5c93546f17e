"""The config a running task is handed, as LangGraph builds it (the task's metadata,
the run's callback handlers, its chain run when the run is traced), and entering a task:
making its scope, and its config for langchain-core, current while it runs."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from graphkit.pregel.langgraph_slots import with_langgraph_slots
from graphkit.pregel.task_scope import TaskScope, _scope, current_scope
from graphkit.pregel.tracing import manager_like, node_callbacks

if TYPE_CHECKING:
    from graphkit.pregel.records import Task
    from graphkit.pregel.runtime import RunContext

__all__ = ["enter_task", "leave_task", "scope_config", "task_config", "traced_task"]


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
    # LangGraph's own get_store(), interrupt() etc. may be called (langgraph.types imports
    # langgraph.config only once interrupt() is called: its first call needs the slots too)
    if "langgraph" in sys.modules:
        config = with_langgraph_slots(config, scope)
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


def _next_attempt(scope: TaskScope) -> None:
    """Count a retry in the task's runtime, if anyone asked for it."""
    current = scope.run.task_runtimes.get(scope.task.id)
    if current is None:
        return
    current.runtime = current.runtime.patch_execution_info(node_attempt=scope.attempt + 1)
    if current.injected is not None:
        current.injected["runtime"] = current.runtime
