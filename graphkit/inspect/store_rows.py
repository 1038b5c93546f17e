"""The ``store`` table: what each task did with the graph's store, step by step; and the
same operations in brief, for a task's line in ``print(run)``, its card and ``why``.

Rows come from the ``StoreOp`` records a task's result keeps (graphkit's stores report
every batch to the runtime; a store of another library is not seen)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphkit.pregel.records import StoreOp, Superstep, TaskResult

__all__ = [
    "STORE_COLUMNS",
    "namespace_text",
    "store_op_where",
    "store_ops_groups",
    "store_ops_text",
    "store_rows",
    "subgraph_ops",
]

STORE_COLUMNS = (
    "step", "node", "op", "namespace", "key", "given", "returned", "attempt", "task_id"
)  # fmt: skip


def store_rows(steps: Iterable[Superstep]) -> list[dict[str, Any]]:
    """One row per store operation, in the order each task made them, tasks in the
    Execution's order; ``namespace`` joined with "/" (a search's prefix); ``attempt``
    the task's attempt that made it (a retried task's failed attempts' stay in the store).
    A task that ran a subgraph is followed by its subgraph's operations, ``node`` naming
    the subgraph's node after the task's (``"sub → inner"``): they are the task's too.

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
            ops = [(result.task.node, op) for op in result.store_ops]
            ops += [(f"{result.task.node} → {node}", op) for node, op in subgraph_ops(result)]
            for node, op in ops:
                rows.append(
                    {
                        "step": superstep.step,
                        "node": node,
                        "op": op.kind,
                        "namespace": "/".join(op.namespace),
                        "key": op.key,
                        "given": op.given,
                        "returned": op.returned,
                        "attempt": op.attempt,
                        "task_id": result.task.id,
                    }
                )
    return rows


def subgraph_ops(result: TaskResult) -> list[tuple[str, StoreOp]]:
    """The store operations of the subgraphs ``result``'s task ran (nested ones too),
    each with the subgraph's node that made it (``"inner"``, ``"inner → deeper"``)."""
    found = []
    for subrun in result.subruns:
        for superstep in subrun.steps:
            for inner in superstep.execution.results if superstep.execution else ():
                found += [(inner.task.node, op) for op in inner.store_ops]
                found += [(f"{inner.task.node} → {n}", op) for n, op in subgraph_ops(inner)]
    return found


SHOWN_GROUPS = 3
"""How many groups of store operations one task's line names; the rest are counted, and
the ``store`` table has them all."""
SHOWN_KEYS = 3


def store_op_where(op: StoreOp) -> str:
    """Where ``op`` went: its namespace joined with "/", then " · " and its key; a part
    or key holding a separator is quoted (``namespace_text``).

    >>> from graphkit.pregel.records import StoreOp
    >>> store_op_where(StoreOp("put", ("users", "ada"), "prefs", {"n": 1}))
    'users/ada · prefs'
    >>> store_op_where(StoreOp("put", ("a/b", "c · d"), "k · e", {"n": 1}))
    "'a/b'/'c · d' · 'k · e'"
    """
    key = f" · {_part(op.key)}" if op.key is not None else ""
    return namespace_text(op.namespace) + key


_SEPARATORS = ("/", " · ", ", ")
"""What the brief texts put between a namespace's parts, before a key and between keys."""


def namespace_text(namespace: Sequence[str]) -> str:
    """``namespace`` joined with "/", each part that holds a separator (or is empty, or
    looks quoted) quoted as Python would, so that ``("a/b", "c")`` and ``("a", "b",
    "c")`` read apart; the common case reads as before.

    >>> namespace_text(("users", "ada")), namespace_text(("a/b", "c")), namespace_text(())
    ('users/ada', "'a/b'/c", '')
    """
    return "/".join(_part(part) for part in namespace)


def _part(text: str) -> str:
    plain = text and not text.startswith(("'", '"')) and not text.endswith(("'", '"'))
    return text if plain and not any(sep in text for sep in _SEPARATORS) else repr(text)


def store_ops_groups(ops: Sequence[StoreOp]) -> list[str]:
    """A task's store operations, briefly: one group per kind and namespace, in the order
    first made, with the keys it touched or how many times (a search); past
    ``SHOWN_GROUPS`` groups, one more saying how many operations are left out (none:
    no store operation, no group).

    >>> from graphkit.pregel.records import StoreOp
    >>> ada = ("users", "ada", "memories")
    >>> ops = [StoreOp("put", ada, "tea"), StoreOp("put", ada, "nuts")]
    >>> store_ops_groups(ops + [StoreOp("search", ada, None)] * 2)
    ['put users/ada/memories · tea, nuts', 'search users/ada/memories ×2']
    """
    groups: dict[tuple[str, tuple[str, ...]], list[StoreOp]] = {}
    for op in ops:
        groups.setdefault((op.kind, op.namespace), []).append(op)
    said = []
    for (kind, namespace), made in list(groups.items())[:SHOWN_GROUPS]:
        keys = list(dict.fromkeys(_part(op.key) for op in made if op.key is not None))
        text = f"{kind} {namespace_text(namespace)}".rstrip()
        if keys:
            more = f" +{len(keys) - SHOWN_KEYS}" if len(keys) > SHOWN_KEYS else ""
            text += f" · {', '.join(keys[:SHOWN_KEYS])}{more}"
        elif len(made) > 1:
            text += f" ×{len(made)}"
        said.append(text)
    if len(groups) > SHOWN_GROUPS:
        left = sum(len(made) for made in list(groups.values())[SHOWN_GROUPS:])
        said.append(f"{left} more (the store table)")
    return said


def store_ops_text(result: TaskResult) -> str | None:
    """What ``result``'s task did with the store, briefly (None: nothing), for its
    line in ``print(run)`` and its card: the store is no channel, so no write or change
    shows it. A failed task's store writes are not undone with its step; it says so.

    >>> from graphkit.pregel.records import StoreOp, Task, TaskResult
    >>> task = Task("t1", 1, "welcome", "pull", (), (), None)
    >>> op = StoreOp("put", ("users", "dee"), "profile", {"name": "Dee"})
    >>> store_ops_text(TaskResult(task, (), error=ValueError(), store_ops=(op,)))
    'store: put users/dee · profile (not undone)'
    >>> store_ops_text(TaskResult(task, ())) is None
    True

    A retried task's failed attempts made theirs too (their writes stay in the store):

    >>> again = StoreOp("put", ("users", "dee"), "profile", {"name": "Dee"}, attempt=2)
    >>> store_ops_text(TaskResult(task, (), attempts=2, store_ops=(op, again)))
    'store: put users/dee · profile (1 by a failed attempt, not undone)'
    """
    inner = [op for _, op in subgraph_ops(result)]  # (the store is shared: name them too)
    groups = store_ops_groups(result.store_ops)
    groups += [f"{group} (in its subgraph)" for group in store_ops_groups(inner)]
    if not groups:
        return None
    wrote = any(op.kind in ("put", "delete") for op in (*result.store_ops, *inner))
    kept = " (not undone)" if wrote and result.error is not None else ""
    last = result.attempts if isinstance(result.attempts, int) else 1
    earlier = sum(op.attempt < last and op.kind in ("put", "delete") for op in result.store_ops)
    if earlier and not kept:
        attempts = "a failed attempt" if earlier == 1 else "failed attempts"
        kept = f" ({earlier} by {attempts}, not undone)"
    return f"store: {'; '.join(groups)}{kept}"
