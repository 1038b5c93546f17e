"""The keys a task's node returned that its graph's state does not have.

A ``StateGraph`` keeps only the keys its state has: a node returning another one loses
it (graphkit warns), and a subgraph run as a node loses every key of its output the
parent's state lacks, silently, as in LangGraph. The records keep what was lost: a
node's ``output``, and a subgraph's own run (``TaskResult.subruns``); the views say it
where the task is shown, since the writes alone show nothing missing, and ``why`` ties
a later ``KeyError`` on such a key, read from the state, to the step that dropped it
(``read_dropped``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, NamedTuple

from graphkit.constants import END, PUSH, ROOT, START
from graphkit.diagnostics.run import subscript_read
from graphkit.inspect.explanation import Reason
from graphkit.inspect.values import barrier_parts, branch_target, join_names

if TYPE_CHECKING:
    from graphkit.inspect.history import History
    from graphkit.pregel.records import Superstep, TaskResult

__all__ = ["Dropped", "dropped_keys", "dropped_reasons", "read_dropped"]


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


def read_dropped(history: History, superstep: Superstep, node: str) -> list[Reason]:
    """The node raised ``KeyError`` reading its state for a key an earlier task returned
    and the state dropped (an agent's input key, read by a tool's ``InjectedState``):
    the two lines of the timeline, steps apart, are one story."""
    execution = superstep.execution
    failed = [r for r in execution.results if r.task.node == node] if execution else []
    keys = [key for r in failed if (key := _missing_state_key(r, history.run.state_keys))]
    for m in sorted(step for step in history.steps if step < superstep.step):
        earlier = history.steps[m]
        state_keys = earlier.update.state_keys if earlier.update is not None else ()
        for result in earlier.execution.results if earlier.execution is not None else ():
            dropped = dropped_keys(result, state_keys)
            lost = [key for key in keys if dropped is not None and key in dropped.keys]
            if lost:
                by = "the input" if result.task.node == START else result.task.node
                text = (
                    f"{lost[0]!r} is not a key of the graph's state: {by} gave it, and "
                    f"step {m} dropped it ({result.task.node} wrote only the state's keys), "
                    f"so {node}, which read it (state[{lost[0]!r}], or a tool's "
                    f"InjectedState({lost[0]!r})), found no such key. Add it to the state "
                    "schema (for create_react_agent, a state_schema that subclasses "
                    "AgentState)."
                )
                return [Reason("dropped", text, m, lost[0], (result.task.node,))]
    return []


def _missing_state_key(result: TaskResult, state_keys: Iterable[str]) -> str | None:
    """The key of ``result``'s ``KeyError`` when its node read it from the state it was
    given (``state[key]``, or a tool's ``InjectedState(key)`` raising in a ``ToolNode``)
    and the state has no such key; None for a ``KeyError`` of another dict (the config,
    a table of the node's own). An error whose traceback is gone (a saver kept its text
    alone) cannot tell where it was raised: its key is taken."""
    error = result.error
    if type(error).__name__ != "KeyError" or len(error.args) != 1:  # (a saved one too)
        return None
    key = error.args[0]
    if not isinstance(key, str) or key in state_keys:
        return None
    traceback = error.__traceback__
    if traceback is None:
        return key
    while traceback.tb_next is not None:
        traceback = traceback.tb_next
    module = str(traceback.tb_frame.f_globals.get("__name__", ""))
    if module.startswith(("langgraph.prebuilt.", "graphkit.prebuilt.")):
        return key  # (a tool's injected argument, read from the state by its ToolNode)
    read, given = subscript_read(error), result.task.input
    try:
        state = isinstance(read, Mapping) and (read is given or bool(read == given))
    except Exception:  # (values that refuse to compare: not the state, then)
        state = False
    return key if state else None


def dropped_reasons(superstep: Superstep, node: str) -> list[Reason]:
    """The keys the node returned that the state does not have: lost, which its writes
    alone do not show (a subgraph's output is cut to the parent's keys silently)."""
    results = superstep.execution.results if superstep.execution is not None else ()
    found: dict[tuple[str, ...], list[int]] = {}  # (the tasks of a Send fan-out alike)
    subgraph: dict[tuple[str, ...], bool] = {}
    for index, result in enumerate(results):
        keys = superstep.update.state_keys if superstep.update is not None else ()
        if result.task.node == node and (dropped := dropped_keys(result, keys)) is not None:
            found.setdefault(dropped.keys, []).append(index)
            subgraph[dropped.keys] = dropped.from_subgraph
    reasons = []
    n = superstep.step
    for keys, indexes in found.items():
        names, one = join_names([repr(key) for key in keys]), len(keys) == 1
        who = f"{node} ({len(indexes)} tasks)" if len(indexes) > 1 else node
        if subgraph[keys]:
            text = (
                f"{who} ran a subgraph whose output has {names}, not "
                f"{'a key' if one else 'keys'} of the parent's state: the parent keeps only "
                f"its own keys, so {'it was' if one else 'they were'} dropped, without a "
                f"warning (as in LangGraph). {'Its value is' if one else 'Their values are'} "
                f"in the subgraph's own run: run.step({n}).execution.results[{indexes[0]}]"
                f".subruns[0].values. Add {'it' if one else 'them'} to the parent's state, "
                "or map the subgraph's output in a node that calls it."
            )
        else:
            text = (
                f"{who} returned {names}, not {'a key' if one else 'keys'} of the graph's "
                f"state, so {'it was' if one else 'they were'} dropped (with a warning). "
                f"Add {'it' if one else 'them'} to the state schema, or check the spelling."
            )
        reasons.append(Reason("dropped", text, n, None, (node,)))
    return reasons
