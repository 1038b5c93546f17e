"""Graphs the drawing tests share, built inline (no example module is imported)."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from graphkit import END, START, StateGraph
from graphkit.render import DrawableGraph

HOSTILE = 'say "hi" <script>alert(1)</script> & {x} \\ ünï 中文 👋\nline two  spaced'


class SeedState(TypedDict):
    messages: Annotated[list, operator.add]
    token_count: Annotated[int, operator.add]
    forecast: str
    headlines: str


def seed_app():
    """The seed example: planner routes to weather and news, both lead to summarize."""
    builder = StateGraph(SeedState)
    builder.add_node("planner", lambda state: {"token_count": 100})
    builder.add_node("weather", lambda state: {"forecast": "sunny", "token_count": 50})
    builder.add_node("news", lambda state: {"headlines": "market up", "token_count": 50})
    builder.add_node("summarize", lambda state: {"messages": [("ai", "done")]})
    builder.add_edge(START, "planner")
    builder.add_conditional_edges(
        "planner", lambda state: ["weather", "news"], {"weather": "weather", "news": "news"}
    )
    builder.add_edge("weather", "summarize")
    builder.add_edge("news", "summarize")
    builder.add_edge("summarize", END)
    return builder.compile()


class PlainState(TypedDict):
    n: int


def noop(state):
    return {}


def hostile_app():
    """Node names and path_map keys full of characters every format must escape."""
    builder = StateGraph(PlainState)
    builder.add_node(HOSTILE, noop)
    builder.add_node("a&b", noop)
    builder.add_edge(START, HOSTILE)
    builder.add_conditional_edges(HOSTILE, lambda state: "x", {'<b>"key"</b>\n&': "a&b"})
    builder.add_edge("a&b", END)
    return builder.compile()


@pytest.fixture
def seed():
    return seed_app()


@pytest.fixture
def hostile():
    return hostile_app()


def edges(graph: DrawableGraph) -> list[tuple[str, str, str, str | None]]:
    """(source, target, kind, label) of every drawn edge, in drawing order."""
    return [(e.source, e.target, e.kind, e.label) for e in graph.edges]


def builder_with(*names: str) -> StateGraph:
    """A builder with these nodes, each doing nothing, and no edges yet."""
    builder = StateGraph(PlainState)
    for name in names:
        builder.add_node(name, noop)
    return builder
