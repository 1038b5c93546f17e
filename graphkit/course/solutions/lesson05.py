"""Solutions to lesson 05's exercises (``notebooks/05-send-command-subgraphs.ipynb``).

>>> from graphkit.course import lesson05
>>> bool(lesson05.check_fan_out(fan_out)), bool(lesson05.check_triage(triage))
(True, True)
>>> bool(lesson05.check_call_subgraph(count_words))
True
"""

from __future__ import annotations

from typing import Literal

from graphkit import Command, Send
from graphkit.course.lesson05 import word_count_graph

__all__ = ["count_words", "fan_out", "triage"]


def fan_out(state: dict) -> list[Send]:
    """5.1: one packet per item; each becomes its own PUSH task of ``work``."""
    return [Send("work", {"item": item}) for item in state["items"]]


def triage(state: dict) -> Command[Literal["approve", "review", "reject"]]:
    """5.2: update ``level`` and route in one return."""
    amount = state["amount"]
    if amount <= 100:
        return Command(update={"level": "low"}, goto="approve")
    if amount <= 1000:
        return Command(update={"level": "medium"}, goto="review")
    return Command(update={"level": "high"}, goto="reject")


word_counter = word_count_graph()


def count_words(state: dict) -> dict:
    """5.3: translate the parent's state into the child's schema and back."""
    result = word_counter.invoke({"doc": state["text"]})
    return {"words": result["count"]}
