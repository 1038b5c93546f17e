"""Where a graph run starts and the config it inherits there: inside a running task
(then it is that task's subgraph, unless its config names a thread of its own), or at
the root, under the langchain-core runnable it is called from, if any, as LangGraph's
``ensure_config`` reads them."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from graphkit.pregel.config import merged_callbacks, merged_metadata
from graphkit.pregel.runtime import current_scope, scope_config
from graphkit.pregel.tracing import with_ambient_tracer

__all__: list[str] = []  # (private to the streaming layer: run.py's helpers)


def _placed(config: Any) -> tuple[Any, Any, bool]:
    """Where a run starts: the task it runs inside (a ``TaskScope``; None at the root,
    and for a run inside a node that names its own thread: a run of its own, with its
    own thread, saver and store, as in LangGraph), its config as inherited there (with
    LangSmith's tracer when tracing is on: ``with_ambient_tracer``), and whether it names
    its own thread."""
    parent = current_scope()
    own_thread = parent is not None and _names_own_thread(parent, config)
    config = with_ambient_tracer(_inherited(parent, config))
    return (None if own_thread else parent), config, own_thread


def _inherited(parent: Any, config: Any) -> Any:
    """``config``, for a graph run inside the task ``parent`` (a ``TaskScope``), as
    LangGraph's ``ensure_config`` makes it there: the task's config (its thread and
    ``configurable`` keys, tags, metadata, callbacks, recursion limit) under what
    ``config`` gives, ``configurable``, ``metadata`` and ``callbacks`` merged, the tags
    the task has not added again. A config naming its own thread starts a
    ``configurable`` of its own. (A config that is not a dict is left for ``RunConfig``
    to refuse.)"""
    if not (config is None or isinstance(config, Mapping)):
        return config
    if parent is None:
        return _under_runnable(config)
    task = scope_config(parent)
    given = {key: value for key, value in (config or {}).items() if value is not None}
    inherited = {} if _names_own_thread(parent, config) else task.get("configurable") or {}
    merged = {**task, **given}
    merged["configurable"] = {**inherited, **(given.get("configurable") or {})}
    merged["metadata"] = merged_metadata(task.get("metadata"), given.get("metadata"))
    return _under_caller(merged, given, _ambient_callbacks(task), task.get("tags"))


def _ambient_callbacks(task: Mapping[str, Any]) -> Any:
    """The callbacks of the langchain-core runnable running inside the task, if any (a
    ``RunnableSequence`` or ``RunnableLambda`` the graph is called from: its run is the
    graph's parent, as LangGraph's ``ensure_config`` reads it), else the task's."""
    return (_running_config() or task).get("callbacks")


def _running_config() -> Any:
    """The config of the langchain-core runnable running here, or None (graphkit never
    imports langchain-core: if nobody did, nothing runs)."""
    langchain = sys.modules.get("langchain_core.runnables.config")
    return langchain.var_child_runnable_config.get() if langchain is not None else None


def _under_runnable(config: Any) -> Any:
    """``config``, for a graph run outside any graph but called from a langchain-core
    runnable (a ``RunnableLambda``, a tool, a LangGraph node): that runnable's callbacks,
    tags and metadata under what ``config`` gives, as LangGraph's ``ensure_config`` reads
    them, so tracing and ``astream_events`` show the graph as its child; its recursion
    limit and ``max_concurrency`` too, unless ``config`` sets them (langchain-core gives
    every runnable's config a limit of 25, which LangGraph's graph then runs under). (Its
    ``configurable`` is not taken: a thread stays the caller's to name.)"""
    if not (running := _running_config()):
        return config
    given = {key: value for key, value in (config or {}).items() if value is not None}
    limits = ("recursion_limit", "max_concurrency")
    merged = {key: running[key] for key in limits if running.get(key) is not None} | given
    if running.get("metadata"):
        merged["metadata"] = merged_metadata(running["metadata"], given.get("metadata"))
    return _under_caller(merged, given, running.get("callbacks"), running.get("tags"))


def _under_caller(
    merged: dict[str, Any], given: Mapping[str, Any], callbacks: Any, tags: Any
) -> Any:
    """``merged`` with the caller's ``callbacks`` (its handlers, tracing and
    ``astream_events``, hear the graph's run too) and ``tags`` (first, none twice) under
    what the run was ``given``."""
    if callbacks is not None:
        own = given.get("callbacks")
        merged["callbacks"] = callbacks if own is None else merged_callbacks(callbacks, own)
    first = list(tags or ())
    if joined := [*first, *(tag for tag in given.get("tags", ()) if tag not in first)]:
        merged["tags"] = joined
    return merged


def _names_own_thread(parent: Any, config: Any) -> bool:
    """Whether ``config``, given to a graph run inside the task ``parent``, addresses a
    checkpoint lineage of its own (a ``thread_id``, ``checkpoint_ns``, ``checkpoint_id``
    or ``checkpoint_map``), other than the task's: the task's own config (a node handing
    its ``config`` on, a subgraph node) keeps the run the task's subgraph."""
    configurable = (config or {}).get("configurable") if isinstance(config, Mapping) else None
    if not configurable or not any(configurable.get(key) for key in _OWN_THREAD_KEYS):
        return False
    return configurable.get("checkpoint_ns") != "|".join(parent.namespace)


_OWN_THREAD_KEYS = ("thread_id", "checkpoint_ns", "checkpoint_id", "checkpoint_map")
