"""The ``store`` table: what each task did with the graph's store, step by step.

Rows come from the ``StoreOp`` records a task's result keeps (graphkit's stores report
every batch to the runtime; a store of another library is not seen)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphkit.pregel.records import Superstep

__all__ = ["STORE_COLUMNS", "store_rows"]

STORE_COLUMNS = ("step", "node", "op", "namespace", "key", "given", "returned", "task_id")


def store_rows(steps: Iterable[Superstep]) -> list[dict[str, Any]]:
    """One row per store operation, in the order each task made them, tasks in the
    Execution's order; ``namespace`` joined with "/" (a search's prefix).

    >>> from graphkit.pregel.records import Plan, Superstep, Task, TaskResult, StoreOp
    >>> from graphkit.pregel.records import Execution
    >>> task = Task("t1", 0, "remember", "pull", (), (), None)
    >>> op = StoreOp("put", ("users", "ada"), "prefs", {"theme": "dark"})
    >>> done = Execution(0, (TaskResult(task, (), store_ops=(op,)),))
    >>> step = Superstep(0, Plan(0, (task,)), done, None, None)
    >>> [(r["op"], r["namespace"], r["key"], r["given"]) for r in store_rows([step])]
    [('put', 'users/ada', 'prefs', {'theme': 'dark'})]
    """
    rows = []
    for superstep in steps:
        if superstep.execution is None:
            continue
        for result in superstep.execution.results:
            for op in result.store_ops:
                rows.append(
                    {
                        "step": superstep.step,
                        "node": result.task.node,
                        "op": op.kind,
                        "namespace": "/".join(op.namespace),
                        "key": op.key,
                        "given": op.given,
                        "returned": op.returned,
                        "task_id": result.task.id,
                    }
                )
    return rows
