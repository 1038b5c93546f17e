"""Why a node with several edges into it ran more than once: each edge wakes it by itself.
Branches of unequal length joined by ``add_edge("b_2", "d")`` and ``add_edge("c", "d")``
run ``d`` once per branch (langgraph#6336), where the author meant one waiting edge,
``add_edge(["b_2", "c"], "d")``; a plain edge and a router into ``d`` do the same, and
there LangGraph's deferred node (``defer=True``) runs it once. A waiting edge is one edge
among them: ``add_edge(["a", "b"], "c")`` beside ``add_edge("a", "c")`` runs ``c`` after
``a`` and again after ``b`` (drop the plain edge), beside a router (defer it), beside
another waiting edge (make them one). A loop back into a node (an agent's ``tools →
agent``) is no such case: a source the node itself leads to is left out. Nor are runs
that routers alone woke (two routers choosing a node may mean it), runs a Send started,
runs that two edges woke together (branches of equal length), or runs of another invoke
on the thread.
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
    edges (a plain one or a waiting one among them) from sources it does not lead back to."""
    if len(history.ran_at(node)) < 2 or not wiring.exact:
        return None
    after = _reachable(wiring, node)
    candidates = [s for s in dict.fromkeys([START, *wiring.node_names()]) if s not in after]
    plain = [source for source in candidates if wiring.static_edge(source, node)]
    routed = [s for s in candidates if s not in plain and wiring.may_route(s, node)]
    waits = [starts for starts in wiring.waiting_edges(node) if not set(starts) & after]
    woken = {
        step: by
        for step in _same_invoke(history, history.ran_at(node), n)
        if (by := _woken_by(history, wiring, node, step, plain + routed, waits))
    }
    if n not in woken or len(set(woken.values())) < 2:
        return None
    ran_plain = [source for source in plain if any(source in by for by in woken.values())]
    ran_routed = [source for source in routed if any(source in by for by in woken.values())]
    ran_waits = [starts for starts in waits if any(starts in by for by in woken.values())]
    if not ran_plain and not ran_waits:
        return None
    steps = join_names([str(step) for step in woken])
    if ran_waits:
        text = _with_waiting(wiring, node, steps, ran_plain, ran_routed, ran_waits)
        return Reason("separate_edges", text, n, None, (*ran_plain, *ran_routed))
    if ran_routed:
        text = (
            f"{node} is woken by {join_names(_ways(wiring, node, ran_plain, ran_routed))}, "
            f"each by itself, in the step after its source ran, so {node} ran once for each "
            f"(at steps {steps}). To run {node} once, after all of them, {_defer(node)}."
        )
        return Reason("separate_edges", text, n, None, (*ran_plain, *ran_routed))
    text = (
        f"{node} has an edge of its own from each of {join_names(map(_name, ran_plain))}: "
        f"each wakes {node} by itself, in the step after its source ran, so {node} ran once "
        f"for each (at steps {steps}). To run {node} once, after all of them, "
        f"{_fix(node, ran_plain)}."
    )
    return Reason("separate_edges", text, n, None, tuple(ran_plain))


def _with_waiting(
    wiring: Wiring,
    node: str,
    steps: str,
    plain: list[str],
    routed: list[str],
    waits: list[tuple[str, ...]],
) -> str:
    """A waiting edge wakes ``node`` once all its sources ran, a plain edge or a router
    the step after its one source: when they finish at different steps, once each."""
    ways = [_waiting_words(starts, node) for starts in waits]
    ways += _ways(wiring, node, plain, routed)
    # (a node's Command(goto=...) is no router)
    commands = [source for source in routed if not wiring.routers(source, node)]
    turn = "Command" if len(commands) == len(routed) else "router" if not commands else ""
    turn = turn or "router or Command"
    others = f"each edge and {turn}" if plain and routed else ""
    others = others or ("the edge" if len(plain) == 1 else "each edge") * bool(plain)
    others = others or (f"the {turn}" if len(routed) == 1 else f"each {turn}") * bool(routed)
    when = [f"{others} in the step after its source ran"] if others else []
    when.append(f"{'the' if len(waits) == 1 else 'each'} waiting edge once all its sources had run")
    # (a router may choose END: no waiting edge can wait for it)
    fix = _defer(node) if routed else _fix_waiting(node, plain, waits)
    return (
        f"{node} is woken by {join_names(ways)}, each by itself: {', '.join(when)}, so {node} "
        f"ran once for each (at steps {steps}). To run {node} once, after all of them, {fix}."
    )


def _fix_waiting(node: str, plain: list[str], waits: list[tuple[str, ...]]) -> str:
    """Drop the plain edges from sources a single waiting edge already waits for (and
    from START, which runs first anyway); else one waiting edge from all the sources
    (LangGraph refuses START in one)."""
    waited = [source for starts in waits for source in starts]
    rest = [source for source in plain if source not in waited and source != START]
    if len(waits) == 1 and not rest:
        edges = join_names([f"the edge {_name(source)} → {node}" for source in plain])
        waited_for = [source for source in plain if source != START]
        parts = [f"already waits for {join_names(waited_for)}"] if waited_for else []
        parts += [f"runs {node} after START anyway"] if START in plain else []
        why = f"{_waiting_words(waits[0], node)} {' and '.join(parts)}"
        return f"remove {edges}: {why}"
    sources = list(dict.fromkeys([*waited, *rest]))
    fix = "give it one waiting edge from all their sources instead: "
    fix += f"add_edge({sources!r}, {node!r})"
    return fix + (f", and remove the edge START → {node}" if START in plain else "")


def _waiting_words(starts: tuple[str, ...], node: str) -> str:
    return f"the waiting edge [{', '.join(starts)}] → {node}"


def _ways(wiring: Wiring, node: str, plain: list[str], routed: list[str]) -> list[str]:
    ways = [f"the edge {_name(source)} → {node}" for source in plain]
    return ways + [f"{_name(source)}'s {wiring.router_words(source, node)}" for source in routed]


def _defer(node: str) -> str:
    return (
        f"add it with defer=True (add_node({node!r}, ..., defer=True)): a deferred node "
        "waits until no other node is left to run, then runs once"
    )


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


def _woken_by(
    history: History,
    wiring: Wiring,
    node: str,
    step: int,
    sources: list[str],
    waits: list[tuple[str, ...]],
) -> frozenset[str | tuple[str, ...]]:
    """What woke ``node``'s task planned at ``step``: the sources whose plain edge or
    router did, and the sources of the waiting edge that did (as one tuple)."""
    superstep = history.steps[step]
    by: set[str | tuple[str, ...]] = set()
    for task in superstep.plan.tasks:
        if task.node != node or task.kind != "pull":
            continue
        for channel in task.triggers:
            origin = history.written(channel, task.trigger_versions.get(channel), before=step)
            if origin is None:
                continue
            parts = wiring.barrier(channel)
            if parts is not None and parts[1] == node and parts[0] in waits:
                by.add(parts[0])
            else:
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
