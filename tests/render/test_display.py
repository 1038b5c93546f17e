"""render.display: what a compiled graph shows in a notebook."""

from __future__ import annotations

import itertools
import socket
import xml.etree.ElementTree as ElementTree

import pytest

from graphkit import START, StateGraph
from graphkit.pregel.app import CompiledGraph
from graphkit.render.display import mimebundle, plain_text
from graphkit.render.model import DrawableGraph, Edge, Node

from .conftest import PlainState, noop

SEED_TEXT = """\
CompiledGraph 'LangGraph'
  __start__ --> planner
  planner -.-> weather
  planner -.-> news
  weather --> summarize
  news --> summarize
  summarize --> __end__"""


@pytest.fixture
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a repr must not open a socket")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_a_compiled_graph_shows_text_and_svg(seed, no_network):
    bundle = seed._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "image/svg+xml"}
    assert bundle["text/plain"] == SEED_TEXT
    ElementTree.fromstring(bundle["image/svg+xml"])


def test_include_and_exclude_are_honoured_and_text_is_always_there(seed):
    assert set(seed._repr_mimebundle_(include=["text/plain"])) == {"text/plain"}
    assert set(seed._repr_mimebundle_(include=["image/svg+xml"])) == {"text/plain", "image/svg+xml"}
    assert set(seed._repr_mimebundle_(exclude=["image/svg+xml"])) == {"text/plain"}
    assert set(seed._repr_mimebundle_(exclude=["text/plain"])) == {"text/plain", "image/svg+xml"}
    assert set(seed._repr_mimebundle_(include=["text/html"])) == {"text/plain"}


def test_an_excluded_svg_is_never_drawn(seed, monkeypatch):
    monkeypatch.setattr(DrawableGraph, "draw_svg", lambda self: pytest.fail("drew the SVG"))
    seed._repr_mimebundle_(exclude={"image/svg+xml"})


def test_a_graph_without_a_builder_shows_text_only(seed):
    bare = CompiledGraph(seed.spec, name="bare")
    assert bare._repr_mimebundle_() == {
        "text/plain": "CompiledGraph 'bare' (no builder to draw it from)"
    }


def test_plain_text_shows_labels_and_stops_after_forty_edges():
    builder = StateGraph(PlainState)
    names = [f"n{i}" for i in range(45)]
    for name in names:
        builder.add_node(name, noop)
    builder.add_edge(START, "n0")
    for a, b in itertools.pairwise(names):
        builder.add_edge(a, b)
    text = mimebundle(builder.compile(), include=["text/plain"])["text/plain"]
    lines = text.splitlines()
    assert len(lines) == 42 and lines[-1] == "  ... and 6 more edges"
    graph = DrawableGraph("g", (Node("a", "a"), Node("b", "b")), (Edge("a", "b", "command", "go"),))
    assert plain_text(graph, "title") == "title\n  a -.-> b  [go]"


def test_a_drawable_graph_displays_itself_too(seed):
    bundle = seed.get_graph()._repr_mimebundle_(include=["text/plain"])
    assert bundle["text/plain"].splitlines()[0] == "DrawableGraph 'LangGraph'"
