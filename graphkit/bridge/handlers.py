"""The error handlers an imported LangGraph run started (``open_langgraph_thread``).

A node added with ``error_handler=h`` that raises is taken over by ``h`` in the same
step: LangGraph saves the failed task's ``__error__`` and a ``__error_source_node__``
write (the failed node's name), then runs the handler as a task no checkpoint plans,
whose writes (or error) are saved against the same checkpoint under an id of its own.
That id is LangGraph's hash of the checkpoint, the step, the handler's name and the
failed task's id, so it is matched here to the failed task; the handler task is made as
graphkit's own run makes it (``graphkit.pregel.step_work.handler_task``: kind
``error_handler``, ``parent`` the failed task), so every view shows the hand-over.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graphkit.bridge.calls import id_hasher
from graphkit.constants import PUSH
from graphkit.pregel.records import Task
from graphkit.pregel.step_work import handler_task

__all__ = ["HANDLED", "handled_ids", "handler_id", "handler_tasks"]

HANDLED = "__error_source_node__"
"""The write LangGraph saves beside a task's error when the node's error handler took
over (the handler's own writes are saved under its own task id)."""


def handled_ids(saved: Any) -> set[str]:
    """The ids of the tasks whose failure an error handler took over, in the step after
    the checkpoint ``saved``."""
    return {t for t, c, _ in saved.pending_writes if c == HANDLED}


def handler_id(saved: Any, failed: str, failed_id: str, handler: str) -> str | None:
    """The id LangGraph gave the task of ``handler`` that took over node ``failed``'s
    task ``failed_id`` in the step after ``saved``: its own hash when the checkpoint's
    format has one (the handler's namespace nests under the failed task's), else the one
    id planned by no task that writes were saved under, if only one failure was handed
    over (None when it cannot be told)."""
    hashed = id_hasher(saved.checkpoint)
    if hashed is not None:
        saved_in = str((saved.snapshot.config.get("configurable") or {}).get("checkpoint_ns") or "")
        at = "|".join((*([saved_in] if saved_in else []), f"{failed}:{failed_id}", handler))
        return str(hashed(at, str(saved.step + 1), handler, PUSH, "node_error_handler", failed_id))
    planned = {task.id for task in saved.snapshot.tasks}
    unplanned = list(dict.fromkeys(t for t, _, _ in saved.pending_writes if t not in planned))
    return unplanned[0] if len(unplanned) == 1 and len(handled_ids(saved)) == 1 else None


def handler_tasks(
    saved: Any, planned: Sequence[Task], handlers: Mapping[str, str]
) -> tuple[Task, ...]:
    """The error-handler tasks started in the step after ``saved``, one per planned task
    whose failure was handed over (``handlers``: each node's handler, by node name), in
    plan order, with LangGraph's ids."""
    handed = handled_ids(saved)
    found = []
    for failed in planned:
        handler = handlers.get(failed.node)
        if failed.id not in handed or handler is None:
            continue
        task = handler_task(failed, handler)
        id_ = handler_id(saved, failed.node, failed.id, handler)
        found.append(task if id_ is None else _with_id(task, id_))
    return tuple(found)


def _with_id(task: Task, id_: str) -> Task:
    return Task(
        *(id_, task.step, task.node, task.kind, task.path, task.triggers, task.input),
        parent=task.parent,
    )
