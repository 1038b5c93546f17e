"""Solutions to lesson 02, "Supersteps: Plan / Execute / Update"
(``notebooks/02-supersteps.ipynb``).

>>> from graphkit.course import lesson02
>>> bool(lesson02.check_predict_steps(STEPS))
True
>>> bool(lesson02.check_old_value(build_old_value))
True
>>> bool(lesson02.check_total_after(TOTAL_AFTER))
True
"""

from __future__ import annotations

from typing import TypedDict

from graphkit import END, START, StateGraph

__all__ = ["STEPS", "TOTAL_AFTER", "build_old_value"]

# -- 2.1 · Predict the steps --------------------------------------------------------------
# merge runs twice: left's edge wakes it in step 2, slow's in step 3.

STEPS = {1: ["left", "right"], 2: ["merge", "slow"], 3: ["merge"]}


# -- 2.2 · See the old value ----------------------------------------------------------------


class Counter(TypedDict):
    count: int
    seen: int


def bump(state: Counter) -> dict:
    return {"count": state["count"] + 1}


def double(state: Counter) -> dict:
    return {"count": state["count"] * 2}


def peek(state: Counter) -> dict:
    return {"seen": state["count"]}


def build_old_value() -> StateGraph:
    """bump in step 1; double and peek side by side in step 2."""
    builder = StateGraph(Counter)
    builder.add_node("bump", bump)
    builder.add_node("double", double)
    builder.add_node("peek", peek)
    builder.add_edge(START, "bump")
    builder.add_edge("bump", "double")
    builder.add_edge("bump", "peek")
    builder.add_edge("double", END)
    builder.add_edge("peek", END)
    return builder


# -- 2.3 · What does the reducer hold? -------------------------------------------------------
# step 1: 5 + 1 = 6; step 2: left adds the 6 it read, right adds 10: 6 + 6 + 10 = 22;
# step 3: finish (woken once by both edges) adds the 22 it read: 44.

TOTAL_AFTER = {2: 22, 3: 44}
