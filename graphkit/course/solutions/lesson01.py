"""Solutions to lesson 01, "Your first graph" (``notebooks/01-first-graph.ipynb``).

>>> from graphkit.course import lesson01
>>> bool(lesson01.check_chain(build_chain))
True
>>> bool(lesson01.check_router(build_router))
True
>>> bool(lesson01.check_read_run(SIGN_STEP, TEXT_AFTER_2))
True
"""

from __future__ import annotations

from typing import Literal, TypedDict

from graphkit import END, START, StateGraph

__all__ = ["SIGN_STEP", "TEXT_AFTER_2", "build_chain", "build_router"]


# -- 1.1 · A three-node chain -----------------------------------------------------------


class Words(TypedDict):
    text: str
    words: list
    count: int


def split_words(state: Words) -> dict:
    return {"words": state["text"].split()}


def count_words(state: Words) -> dict:
    return {"count": len(state["words"])}


def write_report(state: Words) -> dict:
    return {"text": f"{state['count']} words"}


def build_chain() -> StateGraph:
    """START → split_words → count_words → write_report → END."""
    builder = StateGraph(Words)
    builder.add_node("split_words", split_words)
    builder.add_node("count_words", count_words)
    builder.add_node("write_report", write_report)
    builder.add_edge(START, "split_words")
    builder.add_edge("split_words", "count_words")
    builder.add_edge("count_words", "write_report")
    builder.add_edge("write_report", END)
    return builder


# -- 1.2 · Route by temperature ------------------------------------------------------------


class Weather(TypedDict):
    temperature: int
    reading: str
    advice: str


def measure(state: Weather) -> dict:
    return {"reading": f"{state['temperature']} °C"}


def hot(state: Weather) -> dict:
    return {"advice": "shorts"}


def cold(state: Weather) -> dict:
    return {"advice": "coat"}


def hot_or_cold(state: Weather) -> Literal["hot", "cold"]:
    return "hot" if state["temperature"] >= 25 else "cold"


def build_router() -> StateGraph:
    """measure, then hot or cold, chosen by a conditional edge."""
    builder = StateGraph(Weather)
    builder.add_node("measure", measure)
    builder.add_node("hot", hot)
    builder.add_node("cold", cold)
    builder.add_edge(START, "measure")
    builder.add_conditional_edges("measure", hot_or_cold)
    builder.add_edge("hot", END)
    builder.add_edge("cold", END)
    return builder


# -- 1.3 · Read a run ----------------------------------------------------------------------

SIGN_STEP = 3
TEXT_AFTER_2 = "HELLO ADA!"
