"""What a task does with the graph's store: each batch of operations graphkit's
stores run, recorded as ``StoreOp``s on the task that ran it (its ``TaskScope``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graphkit.pregel.task_scope import _scope

__all__ = ["note_store_ops", "watch_stores"]


def note_store_ops(ops: Sequence[Any], results: Sequence[Any]) -> None:
    """Record a store batch for the task that ran it (if a task did): graphkit's stores
    tell this function of every batch (``graphkit.store.base.observer``)."""
    scope = _scope.get()
    if scope is None:
        return
    from graphkit.pregel.records import StoreOp
    from graphkit.store.base import GetOp, ListNamespacesOp, PutOp, SearchOp

    made = scope.store_ops if scope.store_ops is not None else []
    attempt = scope.attempt + 1
    for op, result in zip(ops, results, strict=False):
        if isinstance(op, SearchOp):
            given = {k: v for k, v in (("filter", op.filter), ("query", op.query)) if v}
            if op.limit != 10 or op.offset:
                given.update(limit=op.limit, offset=op.offset)
            keys = [item.key for item in result or ()]
            made.append(StoreOp("search", tuple(op.namespace_prefix), None, given, keys, attempt))
        elif isinstance(op, ListNamespacesOp):
            given = {"max_depth": op.max_depth} if op.max_depth is not None else {}
            found = list(result or ())
            made.append(StoreOp("list_namespaces", (), None, given, found, attempt))
        elif isinstance(op, PutOp):  # (a value of None deletes)
            kind = "put" if op.value is not None else "delete"
            made.append(StoreOp(kind, tuple(op.namespace), op.key, op.value, None, attempt))
        elif isinstance(op, GetOp):
            value = result.value if result is not None else None
            made.append(StoreOp("get", tuple(op.namespace), op.key, None, value, attempt))
    scope.store_ops = made


def watch_stores() -> None:
    from graphkit.store import base

    base.observer = note_store_ops
