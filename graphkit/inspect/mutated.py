"""The state keys a node changed in the state it was given, and did not return.

A node's input is its own dict of the state's values: ``state["revisions"] += 1`` or
``state["approved"] = True`` changes that dict, not the state, and is lost unless the
node returns it, in LangGraph as in graphkit (a loop whose exit flag is set so never
ends). The records keep the dict the node was given (``Task.input``), so it shows the
change, while the checkpoint the step planned from (``Superstep.checkpoint_before``)
has the value the node read. Only a key given a new value is seen: a list or dict
changed in place is the channel's own object, changed in the state as well, and an
imported LangGraph thread's inputs are read from its checkpoints, so they show none.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from graphkit.channels import EMPTY
from graphkit.inspect.values import join_names, show

if TYPE_CHECKING:
    from graphkit.pregel.records import Superstep, TaskResult

__all__ = ["Mutated", "lost_in_loop", "mutated_in", "mutated_keys"]


class Mutated(NamedTuple):
    """The keys a task set in its input and did not return: ``(key, read, set)`` each."""

    changes: tuple[tuple[str, Any, Any], ...]

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(key for key, _, _ in self.changes)

    def text(self) -> str:
        """``set revisions to 1 in the state it was given (it read 0), not returned: lost``."""
        sets = [
            f"{key} to {show(now, 20)} (it read {show(was, 20)})" for key, was, now in self.changes
        ]
        one = len(self.changes) == 1
        return (
            f"set {join_names(sets)} in the state it was given, and did not return "
            f"{'it' if one else 'them'}: lost"
        )


def mutated_keys(result: TaskResult, read: Mapping[str, Any]) -> Mutated | None:
    """The keys ``result``'s node set to a new value in its input dict and did not
    write, against ``read``, the values of the checkpoint its step planned from; None
    when there are none (or the task is not a node that read the state as a dict).

    >>> from graphkit.pregel.records import Task, TaskResult
    >>> given = {"draft": "d1", "revisions": 1}  # the node did state["revisions"] += 1
    >>> task = Task("t1", 1, "write", "pull", ("write",), ("branch:to:write",), given)
    >>> found = mutated_keys(TaskResult(task, (("draft", "d2"),)), {"draft": "d1", "revisions": 0})
    >>> found.text()
    'set revisions to 1 (it read 0) in the state it was given, and did not return it: lost'
    >>> print(mutated_keys(TaskResult(task, (("revisions", 1),)), {"revisions": 0}))
    None
    """
    task = result.task
    # (a failed or paused task's writes were not applied anyway: it runs again)
    if task.kind != "pull" or result.error is not None or result.interrupts or result.cached:
        return None
    if type(task.input) is not dict or result.reused:
        return None
    written = {channel for channel, _ in result.writes}
    changes = []
    for key, now in task.input.items():
        was = read.get(key, EMPTY) if isinstance(key, str) else EMPTY
        if was is EMPTY or now is was or key in written:  # (EMPTY: a managed value too)
            continue
        try:
            same = bool(now == was)
        except Exception:  # (an array compares item by item: no answer to trust)
            continue
        if not same:
            changes.append((key, was, now))
    return Mutated(tuple(changes)) if changes else None


def mutated_in(superstep: Superstep) -> list[tuple[TaskResult, Mutated]]:
    """Each task of ``superstep`` that set keys of its input and did not return them."""
    if superstep.execution is None:
        return []
    read = superstep.checkpoint_before.channel_values
    found = ((r, mutated_keys(r, read)) for r in superstep.execution.results)
    return [(result, mutated) for result, mutated in found if mutated is not None]


def lost_in_loop(steps: Iterable[Superstep]) -> str:
    """Why a run may have looped to its recursion limit: the keys its nodes set in the
    state they were given and did not return (a loop's exit flag, its counter), which so
    never changed; empty when there are none."""
    keys: dict[str, None] = {}
    nodes: dict[str, None] = {}
    for superstep in steps:
        for result, mutated in mutated_in(superstep):
            keys.update(dict.fromkeys(mutated.keys))
            nodes[result.task.node] = None
    if not keys:
        return ""
    they = "it was" if len(nodes) == 1 else "they were"
    them, named = "it" if len(keys) == 1 else "them", join_names(list(keys))
    returned = ", ".join(f"{key!r}: ..." for key in keys)
    return (
        f"{join_names(list(nodes))} set {named} in the state {they} given without "
        f"returning {them}, so {named} never changed: a node changes the state only by "
        f"what it returns ({{{returned}}})"
    )
