"""Why a node with several plain edges into it ran more than once: each edge wakes it by
itself. Branches of unequal length joined by ``add_edge("b_2", "d")`` and
``add_edge("c", "d")`` run ``d`` once per branch (langgraph#6336), where the author
meant one waiting edge, ``add_edge(["b_2", "c"], "d")``. A loop back into a node (an
agent's ``tools → agent``) is no such case: a source the node itself leads to is left out.
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
    """The reason ``node``, woken at step ``n`` through one of its plain edges, ran once
    per edge: None unless two or more sources it does not lead back to ran."""
    ran_at = history.ran_at(node)
    if len(ran_at) < 2 or not wiring.exact:
        return None
    after = _reachable(wiring, node)
    sources = [
        source
        for source in dict.fromkeys([START, *wiring.node_names()])
        if wiring.static_edge(source, node) and source not in after
    ]
    ran = [source for source in sources if history.ran_at(source)]
    if len(ran) < 2:
        return None
    steps = join_names([str(step) for step in ran_at])
    text = (
        f"{node} has an edge of its own from each of {join_names(ran)}: each wakes "
        f"{node} by itself, in the step after its source ran, so {node} ran once for each "
        f"(at steps {steps}). To run {node} once, after all of them, give it one waiting "
        f"edge instead: add_edge({ran!r}, {node!r})."
    )
    return Reason("separate_edges", text, n, None, tuple(ran))


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
