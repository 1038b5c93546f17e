"""The rows of a run's tables: records → plain rows, one dict per row.

Pure functions that import nothing heavy: ``run_rows(run, kind)`` gives table ``kind``'s
rows, ``superstep_rows`` one step's, and ``COLUMNS`` names each table's columns.
``graphkit.inspect.tables`` puts them into pandas DataFrames (and says what each
table holds).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from graphkit.channels import EMPTY
from graphkit.diagnostics.names import near_miss
from graphkit.inspect.store_rows import STORE_COLUMNS, store_rows
from graphkit.inspect.unsaved import not_saved, writers_text
from graphkit.inspect.values import handoff, is_internal

if TYPE_CHECKING:
    from graphkit.pregel.records import Run, Superstep, TaskResult

__all__ = [
    "COLUMNS",
    "KINDS",
    "change_rows",
    "run_rows",
    "state_columns",
    "state_rows",
    "subgraph_rows",
    "superstep_rows",
    "task_rows",
    "write_rows",
]

COLUMNS: dict[str, tuple[str, ...]] = {
    "tasks": (
        "step",
        "node",
        "kind",
        "triggers",
        "packet",
        "attempts",
        "duration",
        "cached",
        "reused",
        "error",
        "worker",
        "started_by",
        "task_id",
    ),
    "writes": ("step", "task_id", "node", "channel", "value"),
    "changes": (
        "step",
        "channel",
        "before",
        "after",
        "version_before",
        "version_after",
        "writers",
        "values",
        "reducer",
    ),
    "subgraphs": (
        "step",
        "node",
        "call",
        "kept",
        "saved_in",
        "status",
        "steps",
        "namespace",
        "task_id",
    ),
    "superstep": ("phase", "node", "channel", "before", "value", "detail"),
    "store": STORE_COLUMNS,
}
"""The columns of each table (``state`` and ``timeline`` are built elsewhere)."""

KINDS = ("tasks", "writes", "changes", "state", "timeline", "subgraphs", "store")
"""The kinds ``Run.to_frame(kind)`` accepts."""


def task_rows(steps: Iterable[Superstep]) -> list[dict[str, Any]]:
    """One row per planned task, then per task started while its step ran (an error
    handler, whose ``started_by`` is the failed node; a task a functional-API entrypoint
    called, ``started_by`` its caller); ``packet`` is what a ``Send`` gave a push task
    (the rows of a map-reduce's tasks differ by it); a task that never executed has no
    attempts or duration; ``cached`` is True for a task served from the node cache
    (``"unknown"`` in a thread read from LangGraph, which does not save it, for a task
    the cache may have served), ``reused`` for one that finished before the run paused or
    crashed and whose saved writes a resumed run applied (neither ran; a task that paused
    in ``interrupt()`` is not reused: resumed, it runs again from its start).

    >>> from graphkit.inspect.examples import counter_run
    >>> rows = task_rows(counter_run().steps)
    >>> [(row["step"], row["node"], row["triggers"]) for row in rows]
    [(-1, '__input__', ()), (0, '__start__', ('__start__',)), (1, 'inc', ('branch:to:inc',))]
    """
    rows = []
    for superstep in steps:
        execution = superstep.execution
        results = {r.task.id: r for r in execution.results} if execution is not None else {}
        started = [r.task for r in results.values() if r.task.parent]  # while it ran
        for task in (*superstep.plan.tasks, *started):
            result = results.get(task.id)
            by = results.get(task.parent) if task.parent else None
            rows.append(
                {
                    "step": task.step,
                    "node": task.node,
                    "kind": task.kind,
                    "triggers": task.triggers,
                    "packet": task.input if task.kind == "push" else None,
                    "attempts": _known(result, "attempts"),
                    "duration": _known(result, "duration"),
                    "cached": _known(result, "cached"),
                    "reused": result.reused if result is not None else None,
                    "error": result.error if result is not None else None,
                    "worker": _known(result, "worker"),
                    "started_by": by.task.node if by is not None else None,
                    "task_id": task.id,
                }
            )
    return rows


def _known(result: TaskResult | None, field: str) -> Any:
    """A task's ``field``: None when it never ran, ``"unknown"`` when it ran but nothing
    recorded it (a thread read from LangGraph's saver keeps no times or attempts, nor
    whether the node cache served a task)."""
    if result is None:
        return None
    value = getattr(result, field)
    return "unknown" if value is None else value


def write_rows(steps: Iterable[Superstep]) -> list[dict[str, Any]]:
    """One row per write a task made, in plan order (writes of a failed step included,
    though they were never applied).

    >>> from graphkit.inspect.examples import counter_run
    >>> rows = write_rows(counter_run().steps[2:])  # step 1, where inc ran
    >>> [(row["node"], row["channel"], row["value"]) for row in rows]
    [('inc', 'n', 2)]
    """
    rows = []
    for superstep in steps:
        if superstep.execution is None:
            continue
        for result in superstep.execution.results:
            task = result.task
            for channel, value in result.writes:
                rows.append(
                    {
                        "step": task.step,
                        "task_id": task.id,
                        "node": task.node,
                        "channel": channel,
                        "value": value,
                    }
                )
    return rows


def change_rows(steps: Iterable[Superstep]) -> list[dict[str, Any]]:
    """One row per channel change of each Update (``writers`` is empty for a change
    the runtime made itself, such as a cleared branch channel; it and ``values`` are
    ``"unknown"`` for one made in steps LangGraph did not save: ``ChannelChange.unsaved``).

    >>> from graphkit.inspect.examples import counter_run
    >>> rows = change_rows(counter_run().steps[2:])
    >>> [(row["channel"], row["before"], row["after"]) for row in rows]
    [('n', 1, 2), ('branch:to:inc', None, <empty>)]
    """
    rows = []
    for superstep in steps:
        if superstep.update is None:
            continue
        for change in superstep.update.changes:
            rows.append(
                {
                    "step": superstep.step,
                    "channel": change.channel,
                    "before": change.before,
                    "after": change.after,
                    "version_before": change.version_before,
                    "version_after": change.version_after,
                    "writers": "unknown" if change.unsaved else change.writers,
                    "values": "unknown" if change.unsaved else change.values,
                    "reducer": change.reducer,
                }
            )
    return rows


def state_columns(run: Run, internal: bool = False) -> list[str]:
    """The channels the ``state`` table shows: every state key of the graph in schema
    order, written or not (then any other key that ever held a value), plus the
    runtime's own channels when ``internal`` is true.

    >>> from graphkit.inspect.examples import counter_run
    >>> state_columns(counter_run())
    ['n']
    """
    names = dict.fromkeys(run.state_keys)
    names.update(dict.fromkeys(run.values))
    for superstep in run.steps:
        if superstep.update is not None:
            names.update(dict.fromkeys(superstep.update.changed))
    return [name for name in names if internal or not is_internal(name)]


def state_rows(run: Run, internal: bool = False) -> list[dict[str, Any]]:
    """One row per step that ran its Update: each state key's value after it
    (``<empty>`` for a key that holds nothing yet).

    >>> from graphkit.inspect.examples import counter_run
    >>> state_rows(counter_run())
    [{'step': -1, 'n': <empty>}, {'step': 0, 'n': 1}, {'step': 1, 'n': 2}]
    """
    columns = state_columns(run, internal)
    held = _held_values(run, columns)
    rows = []
    for superstep, unsaved in zip(run.steps, held, strict=True):
        checkpoint = superstep.checkpoint
        if checkpoint is None:
            continue
        values = checkpoint.channel_values
        row: dict[str, Any] = {"step": superstep.step}
        for name in columns:
            row[name] = values[name] if name in values else unsaved[name]
        rows.append(row)
    return rows


def _held_values(run: Run, columns: Sequence[str]) -> list[dict[str, Any]]:
    """Per step, what each key held after it when no checkpoint saved it: the value it
    starts with (a reducer's ``0`` or ``[]``, saved by neither library), seen as the
    ``before`` of its next change, or its value at the end if nothing changed it since
    (``<empty>`` if it holds nothing). Walked from the end, once."""
    final = run.values if isinstance(run.values, Mapping) else {}
    held = {name: final.get(name, EMPTY) for name in columns}
    per_step = []
    for superstep in reversed(run.steps):
        per_step.append(dict(held))
        for change in superstep.update.changes if superstep.update is not None else ():
            if change.channel in held:
                held[change.channel] = change.before
    return per_step[::-1]


def superstep_rows(superstep: Superstep) -> list[dict[str, Any]]:
    """One step as one table: Plan rows (a task and a trigger), Execute rows (a write
    or an error), Update rows (a channel change), in that order.

    >>> from graphkit.inspect.examples import counter_run
    >>> for row in superstep_rows(counter_run().steps[2]):
    ...     print(row["phase"], row["node"] or "-", row["channel"], row["detail"] or "-")
    plan inc branch:to:inc woken by version 2 (pull task)
    execute inc n -
    update inc n v2 → v3, LastValue
    update - branch:to:inc v2 → v3, cleared by the runtime
    """
    rows = []
    for task in superstep.plan.tasks:
        for channel in task.triggers or (None,):
            version = task.trigger_versions.get(channel) if channel else None
            woke = f"woken by version {version} " if version is not None else ""
            rows.append(_row("plan", task.node, channel, None, None, f"{woke}({task.kind} task)"))
    if superstep.execution is not None:
        for result in superstep.execution.results:
            node = result.task.node
            served = "from the cache (not run)" if result.cached else ""
            served = "saved before the run stopped (not run again)" if result.reused else served
            for channel, value in result.writes:
                rows.append(_row("execute", node, channel, None, value, served))
            if result.error is not None:
                rows.append(_row("execute", node, None, None, result.error, "raised"))
            elif not result.writes:
                did = unsaved.text() if (unsaved := not_saved(result)) else "wrote nothing"
                rows.append(_row("execute", node, None, None, None, did))
    if superstep.update is not None:
        for change in superstep.update.changes:
            how = change.reducer if change.writers else "cleared by the runtime"
            if not change.writers and change.after is not EMPTY:
                how = "changed by the runtime"
                if change.unsaved:  # (the state a thread whose beginning was not saved starts from)
                    how = f"{change.reducer}, written in steps LangGraph did not save"
            detail = f"v{change.version_before or 0} → v{change.version_after}, {how}"
            writers = writers_text(change)
            rows.append(
                _row("update", writers, change.channel, change.before, change.after, detail)
            )
    elif superstep.execution is not None and superstep.execution.error is not None:
        rows.append(_row("update", "", None, None, None, "skipped: a task failed"))
    return rows


def _row(phase: str, node: str, channel: str | None, before: Any, value: Any, detail: str):
    return {
        "phase": phase,
        "node": node,
        "channel": channel,
        "before": before,
        "value": value,
        "detail": detail,
    }


def subgraph_rows(steps: Iterable[Superstep]) -> list[dict[str, Any]]:
    """One row per subgraph run a task started (a retry's too), and where its state is
    ``kept``: in the subgraph's own thread, across calls (``compile(checkpointer=True)``),
    for this call only (the default: it saves under its task's namespace), or nowhere
    (``checkpointer=False``, or no checkpointer above it). ``call`` numbers the runs one
    task started. ``status`` is the subgraph run's, or ``handed off`` for one a node ended
    with ``Command(graph=Command.PARENT)`` (its record reads ``error``).

    >>> from graphkit.inspect.examples import subgraph_run
    >>> [(row["node"], row["kept"], row["saved_in"]) for row in subgraph_rows(subgraph_run().steps)]
    [('sub', 'own thread', 'sub')]
    """
    rows = []
    for superstep in steps:
        if superstep.execution is None:
            continue
        for result in superstep.execution.results:
            for subrun in result.subruns:
                last = subrun.namespace[-1] if subrun.namespace else ""
                rows.append(
                    {
                        "step": result.task.step,
                        "node": result.task.node,
                        "call": int(last) if last.isdigit() else 0,
                        "kept": _kept(subrun.saved_in),
                        "saved_in": subrun.saved_in,
                        # (a handoff, Command.PARENT, ends the subgraph's run by raising)
                        "status": "handed off" if handoff(subrun) is not None else subrun.status,
                        "steps": len(subrun.steps),
                        "namespace": "|".join(subrun.namespace),
                        "task_id": result.task.id,
                    }
                )
    return rows


def _kept(saved_in: str | None) -> str:
    if saved_in is None:
        return "not saved"
    return "this call" if ":" in saved_in else "own thread"


_ROWS: dict[str, Callable[[Iterable[Superstep]], list[dict[str, Any]]]] = {
    "tasks": task_rows,
    "writes": write_rows,
    "changes": change_rows,
    "subgraphs": subgraph_rows,
    "store": store_rows,
}


def run_rows(run: Run, kind: str = "tasks", *, internal: bool = False) -> list[dict[str, Any]]:
    """The rows of table ``kind`` (one of ``KINDS``) for a whole run; the ``state``
    and ``changes`` tables leave out the runtime's own channels unless ``internal``.

    >>> from graphkit.inspect.examples import counter_run
    >>> len(run_rows(counter_run(), "writes"))
    4
    >>> run_rows(counter_run(), "task")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: Unknown table 'task'; use one of 'tasks', 'writes', 'changes', 'state', ...
    """
    if not isinstance(kind, str):  # (a list met the lookup below as "unhashable type")
        raise ValueError(_unknown_kind(kind))
    if kind == "changes" and not internal:
        return [row for row in change_rows(run.steps) if not is_internal(row["channel"])]
    if kind in _ROWS:
        return _ROWS[kind](run.steps)
    if kind == "state":
        return state_rows(run, internal)
    if kind == "timeline":
        from graphkit.inspect.timeline import timeline_rows

        return timeline_rows(run)
    raise ValueError(_unknown_kind(kind))


def _unknown_kind(kind: Any) -> str:
    known = ", ".join(repr(k) for k in KINDS)
    slip = near_miss(kind, KINDS) or near_miss(f"{kind}s", KINDS) if isinstance(kind, str) else ""
    meant = f" Did you mean {slip!r}?" if slip else ""
    return f"Unknown table {kind!r}; use one of {known}.{meant}"
