"""Solutions to lesson 03, "State, channels and reducers".

>>> from graphkit.course import lesson03
>>> bool(lesson03.check_fix_conflict(build_fan_out))
True
>>> bool(lesson03.check_output_schema(build_report))
True
"""

import operator
from typing import Annotated, TypedDict

from graphkit import START, StateGraph

__all__ = ["best_scores", "build_fan_out", "build_report"]


# 3.1 · Fix the conflict: give `results` a reducer, so both writes of step 1 are kept.
class FanOut(TypedDict):
    results: Annotated[list, operator.add]


def build_fan_out() -> StateGraph:
    """START → a and START → b, both writing `results` in step 1."""
    builder = StateGraph(FanOut)
    builder.add_node("a", lambda state: {"results": ["apple"]})
    builder.add_node("b", lambda state: {"results": ["banana"]})
    builder.add_edge(START, "a")
    builder.add_edge(START, "b")
    return builder


# 3.2 · A reducer that keeps the best score per player.
def best_scores(current: dict, update: dict) -> dict:
    """Merge two score dicts, keeping the higher score of each player."""
    merged = dict(current)
    for player, score in update.items():
        merged[player] = max(score, merged.get(player, score))
    return merged


# 3.3 · Return only the report: an output schema.
class ReportState(TypedDict):
    topic: str
    notes: str
    report: str


class ReportOutput(TypedDict):
    report: str


def research(state: ReportState) -> dict:
    return {"notes": f"3 facts about {state['topic']}"}


def write(state: ReportState) -> dict:
    return {"report": f"Report on {state['topic']}: {state['notes']}."}


def build_report() -> StateGraph:
    """research → write; invoke returns only `report`."""
    builder = StateGraph(ReportState, output_schema=ReportOutput)
    builder.add_node("research", research)
    builder.add_node("write", write)
    builder.add_edge(START, "research")
    builder.add_edge("research", "write")
    return builder
