"""A thread's checkpoints and pending writes as tables; a config whose
``checkpoint_ns`` names a subgraph's thread (``{"checkpoint_ns": "node"}`` for a
subgraph compiled with ``checkpointer=True``) shows that thread, with its own columns.
``app`` is a graphkit graph or a compiled LangGraph graph (its thread is read from its
own checkpointer, as ``open_langgraph_thread`` reads it).

Checkpoints form a tree once a thread is forked (``update_state`` on an older
checkpoint, or a replay): each row names its parent and its source, and
``fork_of`` marks the checkpoints that start a new branch, so a debugger can draw the
lineage and compare two branches.

>>> from graphkit.inspect.examples import paused_thread
>>> app, config = paused_thread()
>>> checkpoints_frame(app, config)[["step", "source", "next"]].values.tolist()
[[1, 'loop', ('ask',)], [0, 'loop', ('plan',)], [-1, 'input', ('__start__',)]]
>>> pending_writes_frame(app, config)[["node", "channel"]].values.tolist()
[['ask', '__interrupt__']]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from graphkit.channels import EMPTY
from graphkit.checkpoint.saver import config_key
from graphkit.constants import END, ROOT
from graphkit.extras import require
from graphkit.inspect.tables import data_frame
from graphkit.inspect.values import show

if TYPE_CHECKING:
    import pandas

    from graphkit.pregel.app import CompiledGraph

__all__ = [
    "CHECKPOINT_COLUMNS",
    "WRITE_COLUMNS",
    "checkpoint_rows",
    "checkpoints_frame",
    "pending_write_rows",
    "pending_writes_frame",
]

CHECKPOINT_COLUMNS = (
    "thread",
    "ns",
    "checkpoint_id",
    "parent_id",
    "step",
    "source",
    "fork_of",
    "next",
)
WRITE_COLUMNS = ("thread", "ns", "checkpoint_id", "task_id", "node", "channel", "value")


ONE_VALUE = ((END,), (ROOT,))
"""The state keys of a graph whose state is one value, whatever its type: a functional
program's (what its entrypoint returned) and a ``StateGraph(int)``'s."""


def checkpoint_rows(
    app: CompiledGraph, config: Mapping[str, Any], missing: Any = None
) -> list[dict[str, Any]]:
    """One row per checkpoint of the thread, newest first, then one column per state key
    (``missing`` for a key the checkpoint holds no value for).

    ``fork_of`` is the parent's id when the parent has more than one child (the
    checkpoint starts a branch) and None otherwise.
    """
    snapshots = list(app.get_state_history(config))
    children: dict[str | None, int] = {}
    for snapshot in snapshots:
        parent = config_key(snapshot.parent_config, "checkpoint_id")
        children[parent] = children.get(parent, 0) + 1
    rows = []
    for snapshot in snapshots:
        parent = config_key(snapshot.parent_config, "checkpoint_id")
        row = {
            "thread": config_key(snapshot.config, "thread_id"),
            "ns": config_key(snapshot.config, "checkpoint_ns", ""),
            "checkpoint_id": config_key(snapshot.config, "checkpoint_id"),
            "parent_id": parent,
            "step": (snapshot.metadata or {}).get("step"),
            "source": (snapshot.metadata or {}).get("source"),
            "fork_of": parent if parent is not None and children[parent] > 1 else None,
            "next": snapshot.next,
        }
        values, keys = snapshot.values, _state_keys(app, config)
        if keys in ONE_VALUE or not isinstance(values, Mapping):
            # one value: a functional program's (what it returned), a StateGraph(int)'s
            row.update(dict.fromkeys(keys, values))
        else:
            row.update({key: values.get(key, missing) for key in keys})
        rows.append(row)
    return rows


def _state_keys(app: CompiledGraph, config: Mapping[str, Any]) -> tuple[str, ...]:
    """The state keys of the graph whose thread ``config`` names: ``app``'s, or those
    of the subgraph its ``checkpoint_ns`` leads to (e.g. a subgraph's own thread)."""
    from graphkit.pregel.thread_state import subgraph_at

    if not hasattr(app, "spec"):  # a LangGraph graph: the keys of the graph it converts to
        from graphkit.bridge.convert import as_graphkit

        app = as_graphkit(app)
    namespace = config_key(config, "checkpoint_ns") or ""
    graph = (subgraph_at(app, namespace) if namespace else None) or app
    return graph.spec.state_keys


def pending_write_rows(app: CompiledGraph, config: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per pending write of the checkpoint ``config`` names (or the latest):
    the writes of tasks that finished, paused or failed after it."""
    saved = app.get_state(config)
    if not saved.config.get("configurable", {}).get("checkpoint_id"):
        return []
    checkpointer = app.checkpointer
    assert checkpointer is not None
    found = checkpointer.get_tuple(saved.config)
    names = {task.id: task.name for task in saved.tasks}
    return [
        {
            "thread": config_key(saved.config, "thread_id"),
            "ns": config_key(saved.config, "checkpoint_ns", ""),
            "checkpoint_id": config_key(saved.config, "checkpoint_id"),
            "task_id": task_id,
            "node": names.get(task_id),
            "channel": channel,
            "value": value,
        }
        for task_id, channel, value in (found.pending_writes if found else [])
    ]


def checkpoints_frame(
    app: CompiledGraph, config: Mapping[str, Any], readable: bool = False
) -> pandas.DataFrame:
    """``checkpoint_rows`` as a DataFrame; ``readable=True``: each state value as the
    short text ``run.to_frame(..., readable=True)`` shows (a chat message as
    ``ai: "hello"``, not its whole repr)."""
    require("pandas", extra="notebook", feature="checkpoints_frame()")

    keys = _state_keys(app, config)
    if not readable:
        return data_frame(checkpoint_rows(app, config), [*CHECKPOINT_COLUMNS, *keys])
    from graphkit.inspect.readable_frame import readable_frame

    # a key not written yet reads <empty>, as in run.to_frame("state", readable=True): it
    # read None, as a key that holds None does
    rows = checkpoint_rows(app, config, missing=EMPTY)
    rows = [row | {key: show(row.get(key)) for key in keys} for row in rows]
    return readable_frame(data_frame(rows, [*CHECKPOINT_COLUMNS, *keys]))


def pending_writes_frame(
    app: CompiledGraph, config: Mapping[str, Any], readable: bool = False
) -> pandas.DataFrame:
    """``pending_write_rows`` as a DataFrame; ``readable=True``: each value as short text."""
    require("pandas", extra="notebook", feature="pending_writes_frame()")

    rows = pending_write_rows(app, config)
    if not readable:
        return data_frame(rows, WRITE_COLUMNS)
    from graphkit.inspect.readable_frame import readable_frame

    rows = [row | {"value": show(row["value"])} for row in rows]
    return readable_frame(data_frame(rows, WRITE_COLUMNS))
