"""Why a node with several edges into it ran more than once: each edge wakes it by itself.
Branches of unequal length joined by ``add_edge("b_2", "d")`` and ``add_edge("c", "d")``
run ``d`` once per branch (langgraph#6336), where the author meant one waiting edge,
``add_edge(["b_2", "c"], "d")``; a plain edge and a router into ``d`` do the same, and
there LangGraph's deferred node (``defer=True``) runs it once. A loop back into a node (an
agent's ``tools → agent``) is no such case: a source the node itself leads to is left
out. Nor are runs that routers alone woke (two routers choosing a node may mean it), runs
a Send started, runs that two edges woke together (branches of equal length), or runs of
another invoke on the thread.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphkit.constants import START
from graphkit.inspect.explanation import Reason
from graphkit.inspect.values import join_names

if TYPE_CHECKING:
    from graphkit.inspect.history import History
    from graphkit.inspect.wiring import Wiring

__all__ = ["separate_edges"]


def separate_edges(history: History, wiring: Wiring, node: str, n: int) -> Reason | None:
    """The reason ``node``, woken at step ``n`` through one of its edges, ran once per
    edge: None unless, in this invoke, runs at different steps were woken by different
    edges (a plain one among them) from sources it does not lead back to."""
    if len(history.ran_at(node)) < 2 or not wiring.exact:
        return None
    after = _reachable(wiring, node)
    candidates = [s for s in dict.fromkeys([START, *wiring.node_names()]) if s not in after]
    plain = [source for source in candidates if wiring.static_edge(source, node)]
    routed = [s for s in candidates if s not in plain and wiring.may_route(s, node)]
    woken = {
        step: by
        for step in _same_invoke(history, history.ran_at(node), n)
        if (by := _woken_by(history, node, step, plain + routed))
    }
    if n not in woken or len(set(woken.values())) < 2:
        return None
    ran_plain = [source for source in plain if any(source in by for by in woken.values())]
    ran_routed = [source for source in routed if any(source in by for by in woken.values())]
    if not ran_plain:
        return None
    steps = join_names([str(step) for step in woken])
    if ran_routed:
        edges = [f"the edge {_name(source)} → {node}" for source in ran_plain]
        edges += [f"{_name(source)}'s {wiring.router_words(source, node)}" for source in ran_routed]
        text = (
            f"{node} is woken by {join_names(edges)}, each by itself, in the step after its "
            f"source ran, so {node} ran once for each (at steps {steps}). To run {node} once, "
            f"after all of them, add it with defer=True (add_node({node!r}, ..., "
            f"defer=True)): a deferred node waits until no other node is left to run, then "
            f"runs once."
        )
        return Reason("separate_edges", text, n, None, (*ran_plain, *ran_routed))
    text = (
        f"{node} has an edge of its own from each of {join_names(map(_name, ran_plain))}: "
        f"each wakes {node} by itself, in the step after its source ran, so {node} ran once "
        f"for each (at steps {steps}). To run {node} once, after all of them, "
        f"{_fix(node, ran_plain)}."
    )
    return Reason("separate_edges", text, n, None, tuple(ran_plain))


def _name(source: str) -> str:
    return "START" if source == START else source


def _fix(node: str, ran: list[str]) -> str:
    """The waiting edge that runs ``node`` once; START cannot be one of its sources
    (LangGraph refuses it), and needs none: every other source runs after it."""
    if START not in ran:
        return f"give it one waiting edge instead: add_edge({ran!r}, {node!r})"
    others = [source for source in ran if source != START]
    if len(others) == 1:
        return (
            f"remove the edge START → {node}: {others[0]} runs after START anyway, and the "
            f"edge {others[0]} → {node} runs {node} after it"
        )
    return (
        f"remove the edge START → {node} ({join_names(others)} run after START anyway) and "
        f"give it one waiting edge from the others: add_edge({others!r}, {node!r})"
    )


def _woken_by(history: History, node: str, step: int, sources: list[str]) -> frozenset[str]:
    """The sources whose plain edge woke ``node``'s task planned at ``step``."""
    superstep = history.steps[step]
    by: set[str] = set()
    for task in superstep.plan.tasks:
        if task.node != node or task.kind != "pull":
            continue
        for channel in task.triggers:
            origin = history.written(channel, task.trigger_versions.get(channel), before=step)
            if origin is not None:
                by.update(writer for writer in origin[1].writers if writer in sources)
    return frozenset(by)


def _same_invoke(history: History, steps: list[int], n: int) -> list[int]:
    """Those of ``steps`` that no input step separates from ``n`` (on a thread, each
    invoke given an input starts with one)."""
    inputs = [
        step
        for step, superstep in history.steps.items()
        if superstep.plan.tasks and all(task.kind == "input" for task in superstep.plan.tasks)
    ]
    begin = max((step for step in inputs if step <= n), default=None)
    end = min((step for step in inputs if step > n), default=None)
    return [
        step for step in steps if (begin is None or step > begin) and (end is None or step < end)
    ]


def _reachable(wiring: Wiring, node: str) -> set[str]:
    """The nodes ``node`` leads to, through plain edges and routers (any router that may
    choose them)."""
    names = wiring.node_names()
    seen: set[str] = set()
    todo = [node]
    while todo:
        here = todo.pop()
        for there in names:
            if there not in seen and (
                wiring.static_edge(here, there) or wiring.may_route(here, there)
            ):
                seen.add(there)
                todo.append(there)
    return seen
