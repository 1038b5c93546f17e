"""Solutions to lesson 26 · Workflows and agents, superstep by superstep.

>>> from graphkit.course import lesson26
>>> bool(lesson26.check_fan_out(add_edges)), bool(lesson26.check_report(build_report))
(True, True)
>>> bool(lesson26.check_loop(add_loop))
True
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from graphkit import END, START, Send, StateGraph

__all__ = ["add_edges", "add_loop", "build_report"]


def add_edges(builder: Any) -> None:
    """26.1: the three calls start together; one waiting edge makes aggregate run once,
    in the step after the last of the three calls (three plain edges would
    wake it in step 2, before the draft, and again in step 3)."""
    for call in ("find_facts", "write_headline", "make_outline"):
        builder.add_edge(START, call)
    builder.add_edge("make_outline", "write_draft")
    builder.add_edge(["find_facts", "write_headline", "write_draft"], "aggregate")
    builder.add_edge("aggregate", END)


class Report(TypedDict, total=False):
    topic: str
    plan: list[str]
    sections: Annotated[list[str], operator.add]  # the workers' writes, in task order
    report: str


def build_report(plan, write_section):
    """26.2: one Send per section makes the workers tasks of one step; the reducer
    appends their writes in task order (the plan's), not in the order they finish."""

    def orchestrator(state: Report) -> dict:
        return {"plan": plan(state["topic"])}

    def assign_workers(state: Report) -> list[Send]:
        return [Send("worker", {"section": section}) for section in state["plan"]]

    def worker(state: dict) -> dict:
        return {"sections": [write_section(state["section"])]}

    def synthesizer(state: Report) -> dict:
        return {"report": "\n\n".join(state["sections"])}

    builder = StateGraph(Report)
    builder.add_node("orchestrator", orchestrator)
    builder.add_node("worker", worker)
    builder.add_node("synthesizer", synthesizer)
    builder.add_edge(START, "orchestrator")
    builder.add_conditional_edges("orchestrator", assign_workers, ["worker"])
    builder.add_edge("worker", "synthesizer")
    builder.add_edge("synthesizer", END)
    return builder.compile()


def add_loop(builder: Any, max_rounds: int) -> None:
    """26.3: a round is two steps; the router after evaluate ends the run on acceptance
    or once max_rounds rounds have run, long before any recursion limit."""

    def next_round(state) -> str:
        if state["grade"] == "accepted" or state["rounds"] >= max_rounds:
            return END
        return "generate"

    builder.add_edge(START, "generate")
    builder.add_edge("generate", "evaluate")
    builder.add_conditional_edges("evaluate", next_round, ["generate", END])
