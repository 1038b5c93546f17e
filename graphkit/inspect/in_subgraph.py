"""Where a node ``why`` does not know lives, when it is a subgraph's node.

``run.why("a")`` answers about the run's own graph; a subgraph's run has its own records,
kept in the task that ran it (``TaskResult.subruns``), each with its own ``why``. Asked
about a node inside a subgraph, ``why`` said "Node 'a' is not in this graph; its nodes are
['sub']", while ``why("sub")`` said "sub ran": the learner was left to guess that the
subgraph's answer was one level down, and where.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from graphkit.constants import INPUT, INTERRUPT
from graphkit.inspect.values import join_names

if TYPE_CHECKING:
    from graphkit.pregel.records import Run

__all__ = ["in_subgraph"]


def in_subgraph(run: Run, node: str, graph: Any = None) -> str:
    """A sentence saying which subgraph has a node named ``node`` and how to ask about
    it, or "" when none of the run's subgraph runs (nor, with ``graph``, its subgraphs)
    has one.

    >>> from graphkit.inspect.examples import subgraph_run
    >>> print(in_subgraph(subgraph_run(), "inc"))  # doctest: +NORMALIZE_WHITESPACE
    'inc' is a node of subgraph sub, whose run has its own records: ask them with
    run.step(1).execution.results[0].subruns[0].why('inc').
    """
    # (the first run of each subgraph that has it: a supervisor's agents each have a
    # 'tools' node, and naming the first agent's only sent the user to the wrong one)
    found: dict[str, str] = {}
    for path, names, subrun in _subruns(run, "run", ()):
        if node in _nodes(subrun):
            found.setdefault(" → ".join(names), path)
    if len(found) == 1:
        [(where, path)] = found.items()
        return (
            f"{node!r} is a node of subgraph {where}, whose run has its own records: ask "
            f"them with {path}.why({node!r})."
        )
    if found:
        asks = [f"{path}.why({node!r}) ({where})" for where, path in found.items()]
        return (
            f"{node!r} is a node of subgraphs {join_names(found)}, whose runs have their "
            f"own records: ask them with {join_names(asks, 'or')}."
        )
    for name, subgraph in _subgraphs(graph):
        if node in (getattr(getattr(subgraph, "builder", None), "nodes", None) or ()):
            where = " → ".join(name.split("|"))
            return (
                f"{node!r} is a node of subgraph {where}, which this run did not run; its "
                "runs keep their own records, in the task that ran them "
                "(run.to_frame('subgraphs') lists them; TaskResult.subruns[i].why(...))."
            )
    return ""


def _subruns(run: Run, path: str, names: tuple[str, ...]) -> Iterator[tuple[str, tuple, Run]]:
    """Every subgraph run under ``run``, nested ones too, with the Python expression
    that reaches it from ``path`` and the nodes that ran it."""
    for superstep in run.steps:
        if superstep.execution is None:
            continue
        for i, result in enumerate(superstep.execution.results):
            for j, subrun in enumerate(result.subruns):
                here = f"{path}.step({superstep.step}).execution.results[{i}].subruns[{j}]"
                chain = (*names, result.task.node)
                yield here, chain, subrun
                yield from _subruns(subrun, here, chain)


def _nodes(run: Run) -> set[str]:
    """The nodes ``run``'s records name: planned, started, or seen in the state they
    begin from (a resumed subgraph's node whose saved writes were reused)."""
    names = {task.node for superstep in run.steps for task in superstep.plan.tasks}
    names |= {
        result.task.node
        for superstep in run.steps
        for result in (superstep.execution.results if superstep.execution else ())
    }
    if run.steps:
        names |= set(run.steps[0].checkpoint_before.versions_seen) - {INTERRUPT, INPUT}
    return names


def _subgraphs(graph: Any) -> list[tuple[str, Any]]:
    """``graph``'s subgraphs, nested ones too, as ``get_subgraphs`` names them."""
    get = getattr(graph, "get_subgraphs", None)
    if get is None:
        return []
    try:
        return list(get(recurse=True))
    except TypeError:  # (a graph whose get_subgraphs takes no recurse)
        return list(get())
