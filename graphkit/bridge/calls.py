"""The ``@task`` calls an imported functional-API run made (``open_langgraph_thread``).

LangGraph plans no called task: a checkpoint's snapshot names the entrypoint's task
only, while each task it called saves its writes (``__return__``, or its error) against
the same checkpoint under an id of its own. That id is LangGraph's hash of the
checkpoint, the step, the task's name, its caller's namespace and path and the call's
index, so it is matched here against the ``@task`` functions the graph's code names; an
id no name matches stays out of the records, as before.
"""

from __future__ import annotations

import binascii
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from graphkit.constants import PUSH
from graphkit.pregel.records import Task, path_text

__all__ = ["callable_tasks", "called_tasks", "id_hasher"]


def callable_tasks(compiled: Any) -> dict[str, Any]:
    """The ``@task`` functions the compiled graph's node functions name (in their globals
    or closures, and the tasks those name in turn), by name: each one's cache policy."""
    found: dict[str, Any] = {}
    seen: set[int] = set()
    todo = [
        getattr(getattr(node, "bound", None), "func", None)
        for node in (getattr(compiled, "nodes", {}) or {}).values()
    ]
    while todo:
        function = todo.pop()
        if function is None or id(function) in seen:
            continue
        seen.add(id(function))
        for value in _named(function):
            if type(value).__name__ != "_TaskFunction":
                continue
            inner = getattr(value, "func", None)
            name = getattr(inner, "__name__", None)
            if isinstance(name, str):
                found.setdefault(name, getattr(value, "cache_policy", None))
                todo.append(inner)
    return found


def _named(function: Any) -> Iterator[Any]:
    code = getattr(function, "__code__", None)
    if code is None:
        return
    scope = getattr(function, "__globals__", {}) or {}
    yield from (scope[name] for name in code.co_names if name in scope)
    for cell in getattr(function, "__closure__", None) or ():
        try:
            yield cell.cell_contents
        except ValueError:  # (an empty cell)
            continue


def called_tasks(saved: Any, planned: Sequence[Task], names: Sequence[str]) -> tuple[Task, ...]:
    """The tasks ``planned`` (and the tasks they called) called in the step after the
    checkpoint ``saved``, named among ``names``: one per id whose writes were saved
    against it that no planned task has, in the order their writes were saved."""
    known = {task.id for task in planned}
    unplanned = list(dict.fromkeys(t for t, _, _ in saved.pending_writes if t not in known))
    hashed = id_hasher(saved.checkpoint)
    if not unplanned or not names or hashed is None:
        return ()
    saved_in = str((saved.snapshot.config.get("configurable") or {}).get("checkpoint_ns") or "")
    run_namespace = tuple(saved_in.split("|")) if saved_in else ()
    step = saved.step + 1
    found: dict[str, Task] = {}
    callers = list(planned)
    while callers and len(found) < len(unplanned):
        caller = callers.pop(0)
        # (LangGraph nests a call's namespace under its caller's task)
        above = caller.namespace(run_namespace)
        # a caller's calls are numbered from 0; one whose writes were lost leaves a gap
        for index in range(len(unplanned) + 2):
            for name in names:
                at = "|".join((*above, name))
                id_ = hashed(at, str(step), name, PUSH, path_text(caller.path), str(index))
                if id_ in unplanned and id_ not in found:
                    path = (PUSH, caller.path, index, True)
                    found[id_] = Task(
                        *(id_, step, name, "call", path, (PUSH,), None),
                        parent=caller.id,
                        caller_namespace=above,
                    )
                    callers.append(found[id_])
    return tuple(found[id_] for id_ in unplanned if id_ in found)


def id_hasher(checkpoint: Mapping[str, Any]) -> Any:
    """LangGraph's task-id function for ``checkpoint`` (its own, so the ids match), or
    None for a checkpoint of the first format (ids of another kind) or a LangGraph that
    has no such function."""
    try:
        from langgraph.pregel._algo import _xxhash_str
    except ImportError:
        return None
    if not isinstance(checkpoint.get("v"), int) or checkpoint["v"] < 2:
        return None
    try:
        key = binascii.unhexlify(str(checkpoint["id"]).replace("-", ""))
    except (KeyError, ValueError):
        return None
    return lambda *parts: _xxhash_str(key, *parts)
