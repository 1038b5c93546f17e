"""Why a node's writes at a step were not applied: it raised, or a sibling did.

A failing task stops its step before the Update, so no task's writes are applied, the
ones that finished too; a task cancelled with its async run stops it the same way. An
error handler taking over (``error_handler``) lets the step go on without the failed
node's writes or edges, and a functional-API task's error goes back to the task that
called it, which decides. ``why`` adds these reasons to the answer of a node that ran.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphkit.inspect.explanation import Reason
from graphkit.inspect.store_rows import store_op_where, subgraph_ops
from graphkit.inspect.unsaved import not_saved
from graphkit.inspect.values import join_names, show_error, step_failure, was_cancelled

if TYPE_CHECKING:
    from graphkit.pregel.records import Superstep, TaskResult

__all__ = ["failure_reasons"]


def _said(error: BaseException | None) -> str:
    """The error in a reason's sentence: on one line. (A reason is printed with its control
    characters escaped, so an error of several lines, such as LangGraph's with its
    "For troubleshooting" line, read with a literal ``\\n`` in the middle.) A line that
    ends a sentence runs on with a space; any other break (a list's items, a traceback's
    lines, a user's message of several lines) stays visible as `` | ``.

    >>> _said(ValueError("no answer.\\nFor troubleshooting, visit: ..."))
    'ValueError: no answer. For troubleshooting, visit: ...'
    >>> _said(ValueError("Traceback (most recent call last):\\n  File 'x.py', in f\\n    g()\\n"))
    "ValueError: Traceback (most recent call last): File 'x.py', in f | g()"
    """
    lines = [line.strip() for line in show_error(error).splitlines() if line.strip()]
    said = lines[0] if lines else ""
    for line in lines[1:]:
        said += (" " if said.endswith((".", ":", ";", ",", "!", "?")) else " | ") + line
    return said


def failure_reasons(superstep: Superstep, node: str) -> list[Reason]:
    """The step failed: this node raised, or a sibling did."""
    execution, n = superstep.execution, superstep.step
    handled = execution is not None and any(
        r.handled or (r.task.kind == "call" and r.error is not None) for r in execution.results
    )
    if execution is None or (execution.error is None and not handled):
        return []
    results = [result for result in execution.results if result.task.node == node]
    # of several tasks of the node (Sends, calls), the one that failed tells most
    mine = next((r for r in results if r.error is not None), results[0])
    if mine.task.kind == "call" and mine.error is not None:
        caller = next((r.task.node for r in execution.results if r.task.id == mine.task.parent),
                      "its caller")  # fmt: skip
        text = (
            f"{node} raised {_said(mine.error)}; the error went back to {caller}, "
            f"which called it: {caller} decides whether the step fails."
        )
        return [Reason("raised", text, n)]
    if mine.handled:
        handler = next((r.task.node for r in execution.results if r.task.parent == mine.task.id),
                       "its error handler")  # fmt: skip
        went_on = (
            "the step went on"
            if execution.error is None
            else "but another task's error failed the step all the same"
        )
        text = (
            f"{node} raised {_said(mine.error)}, and {handler} took over in the same "
            f"step: {went_on}, without {node}'s writes or edges."
        )
        return [Reason("raised", text, n)]
    if execution.error is None:  # only failures a handler took over
        return []
    failure = step_failure(execution.results)
    by_sibling = failure is not None and not was_cancelled(failure.error)
    if was_cancelled(mine.error) and by_sibling:
        text = (
            f"{node} was cancelled ({_said(mine.error)}): {failure.task.node} raised "
            f"{_said(failure.error)} in the same step while {node} ran, and a failing "
            "task cancels the async tasks still running and stops the step before its "
            f"Update, so none of step {n}'s writes were applied."
        )
        return [Reason("raised", text, n, None, (failure.task.node,))]
    if was_cancelled(mine.error):
        text = (
            f"{node} was cancelled ({_said(mine.error)}): its run was cancelled while "
            f"it ran, which stops the step before its Update, so none of step {n}'s writes "
            "were applied."
        )
        return [Reason("raised", text, n)]
    if mine.error is not None:
        text = (
            f"{node} raised {_said(mine.error)}. A failing task stops the step before "
            f"its Update, so none of step {n}'s writes were applied."
        ) + kept_store_writes(mine)
        return [Reason("raised", text, n)]
    # (the siblings it cancelled did not fail the step: the one that raised did)
    failed = tuple(
        dict.fromkeys(
            r.task.node
            for r in execution.results
            if r.error is not None and not (by_sibling and was_cancelled(r.error))
        )
    )
    how = "raised" if by_sibling else "was cancelled"
    if how != "raised" and len(failed) > 1:
        how = "were cancelled"
    text = (
        f"{node} finished, but {join_names(failed)} {how} in the same step, so step {n}'s "
        f"Update never ran and {node}'s writes were not applied."
    )
    if not_saved(mine) is not None:  # (whether it finished is not known)
        text = (
            f"{join_names(failed)} {how} in the same step, so step {n}'s Update never ran "
            f"and nothing {node} may have written was applied."
        )
    return [Reason("step_failed", text, n, None, failed)]


def kept_store_writes(result: TaskResult) -> str:
    """A sentence on the store writes a failed task made before it raised, its
    subgraph's nodes' too, which stay: a store is written when the node calls it, not
    at the Update (empty if none).

    >>> from graphkit.pregel.records import StoreOp, Task, TaskResult
    >>> task = Task("t1", 2, "save", "pull", (), (), None)
    >>> op = StoreOp("put", ("users", "ada"), "tea", {"likes": "tea"})
    >>> said = kept_store_writes(TaskResult(task, (), error=ValueError(), store_ops=(op,)))
    >>> said.split(":")[0]
    ' Its store write (put users/ada · tea) stays'
    """
    # (its subgraph's nodes write the same store: their writes stay too)
    ops = [(op, "") for op in result.store_ops]
    ops += [(op, ", in its subgraph") for _, op in subgraph_ops(result)]
    made = [(op, where) for op, where in ops if op.kind in ("put", "delete")]
    if not made:
        return ""
    said = ", ".join(f"{op.kind} {store_op_where(op)}{where}" for op, where in made)
    writes = "write" if len(made) == 1 else "writes"
    stay = "stays" if len(made) == 1 else "stay"
    return (
        f" Its store {writes} ({said}) {stay}: a store is written when the node calls it, "
        "not at the Update."
    )
