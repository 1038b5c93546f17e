"""Solutions to lesson 25 · What the drawing shows: reading ``get_graph()``, and what only
a run can tell.

>>> from graphkit.course import lesson25
>>> bool(lesson25.check_router(add_router)), bool(lesson25.check_triage(add_triage))
(True, True)
>>> bool(lesson25.check_newsroom(newsroom))
True
"""

from __future__ import annotations

from typing import Any

from graphkit import END, START
from graphkit.course.lesson25 import review, route, triage

__all__ = ["add_router", "add_triage", "newsroom"]


def add_router(builder: Any) -> None:
    """25.1: a path_map from each result of route to its node; its keys are the labels,
    and it tells the graph (and the drawing) where route can go."""
    builder.add_conditional_edges(
        "classify",
        route,
        {"refund": "refunds", "question": "answer", "complaint": "escalate", "spam": END},
    )


def add_triage(builder: Any) -> None:
    """25.2: destinations= names where triage's Command can go (END too); a Command's
    goto is read only at run time, so the graph cannot find them itself."""
    builder.add_node("triage", triage, destinations=("orders", "returns", END))


def newsroom(builder: Any) -> None:
    """25.3: solid edges for the lines, one waiting edge for the join bar, and a router
    with a path_map for the dashed, labelled edges."""
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "research")
    builder.add_edge("plan", "write")
    builder.add_edge(["research", "write"], "edit")
    builder.add_conditional_edges("edit", review, {"again": "plan", "done": END})
