"""The keys a task's node returned that its graph's state does not have.

A ``StateGraph`` keeps only the keys its state has: a node returning another one loses
it (graphkit warns), and a subgraph run as a node loses every key of its output the
parent's state lacks, silently, as in LangGraph. The records keep what was lost: a
node's ``output``, and a subgraph's own run (``TaskResult.subruns``); the views say it
where the task is shown, since the writes alone show nothing missing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

from graphkit.constants import END, PUSH, ROOT, START
from graphkit.inspect.values import barrier_parts, branch_target, join_names

if TYPE_CHECKING:
    from graphkit.pregel.records import TaskResult

__all__ = ["Dropped", "dropped_keys"]


class Dropped(NamedTuple):
    """The keys a task's output lost, and whether they came from a subgraph's output."""

    keys: tuple[str, ...]
    from_subgraph: bool

    def text(self) -> str:
        """``dropped summary (its subgraph's output): not a key of the parent's state``."""
        if self.from_subgraph:
            return (
                f"dropped {join_names(self.keys)} (its subgraph's output): not "
                f"{_a_key(self.keys)} of the parent's state"
            )
        return f"dropped {join_names(self.keys)}: not {_a_key(self.keys)} of the graph's state"


def _a_key(keys: tuple[str, ...]) -> str:
    return "a key" if len(keys) == 1 else "keys"


def dropped_keys(result: TaskResult, state_keys: Iterable[str] = ()) -> Dropped | None:
    """What ``result``'s node returned that no state key took, or None. ``state_keys``:
    the graph's (``Update.state_keys``), to tell a subgraph run as the node from one a
    node called (a parent's key missing from the output: the node chose what to return).

    >>> from graphkit.pregel.records import Task, TaskResult
    >>> task = Task("t1", 1, "n", "pull", ("n",), ("branch:to:n",), {})
    >>> dropped_keys(TaskResult(task, (("a", 1),), output={"a": 1, "b": 2})).text()
    "dropped b: not a key of the graph's state"
    >>> print(dropped_keys(TaskResult(task, (("a", 1),), output={"a": 1})))
    None
    """
    if result.error is not None or result.task.kind not in ("pull", "push"):
        return None
    if not _state_graph_task(result):
        return None
    written = {channel for channel, _ in result.writes}
    output = result.output
    if not isinstance(output, dict) or written & {END, ROOT}:  # functional, one-value
        return None
    lost = tuple(key for key in output if isinstance(key, str) and key not in written)
    if lost:
        return Dropped(lost, False)
    subrun = result.subruns[0] if len(result.subruns) == 1 else None
    if subrun is None or subrun.status != "done" or not isinstance(subrun.values, dict):
        return None
    # a subgraph run as the node: its output is the subgraph's, cut to the parent's keys
    if any(subrun.values.get(key, output) is not value for key, value in output.items()):
        return None  # (a node that called a subgraph and returned values of its own)
    if any(key in state_keys and key not in output for key in subrun.values):
        return None  # (... or returned fewer: a subgraph as the node gives every one)
    lost = tuple(key for key in subrun.values if key not in written and key not in output)
    return Dropped(lost, True) if lost else None


def _state_graph_task(result: TaskResult) -> bool:
    """True for a task a StateGraph's wiring woke (a low-level Pregel's node subscribes
    to channels of any name, and what it returns need not be a state update)."""
    task = result.task
    if task.kind == "push":
        return True
    return all(
        channel in (START, PUSH) or branch_target(channel) or barrier_parts(channel)
        for channel in task.triggers
    )
