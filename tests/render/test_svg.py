"""render.svg: SVG with graphviz's dot and without it; the same ids either way."""

from __future__ import annotations

import itertools
import random
import re
import shutil
import xml.etree.ElementTree as ElementTree

import pytest

from graphkit import START, StateGraph
from graphkit.render import DrawableGraph, graph_from_builder
from graphkit.render import dot as dot_module
from graphkit.render import svg as svg_module
from graphkit.render.svg import draw_svg

from .conftest import HOSTILE, PlainState, noop

SVG = "{http://www.w3.org/2000/svg}"
has_dot = shutil.which("dot") is not None
ENGINES = [
    pytest.param("dot", marks=pytest.mark.skipif(not has_dot, reason="graphviz not installed")),
    "no-dot",
]


@pytest.fixture(autouse=True)
def empty_cache():
    svg_module._cache.clear()
    yield
    svg_module._cache.clear()


@pytest.fixture
def hide_dot(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    assert shutil.which("dot") is None


def draw(graph: DrawableGraph, engine: str, monkeypatch) -> str:
    if engine == "no-dot":
        monkeypatch.setenv("PATH", "/nonexistent")
    return graph.draw_svg()


def groups(svg: str, css_class: str) -> dict[str, ElementTree.Element]:
    root = ElementTree.fromstring(svg)
    return {g.get("id"): g for g in root.iter(f"{SVG}g") if css_class in g.get("class", "").split()}


def big_graph(size: int = 200) -> DrawableGraph:
    rng = random.Random(5)
    builder = StateGraph(PlainState)
    names = [f"step_{i}" for i in range(size)]
    for name in names:
        builder.add_node(name, noop)
    builder.add_edge(START, names[0])
    for i in range(1, size):
        builder.add_edge(names[rng.randrange(max(0, i - 8), i)], names[i])
    for i in range(0, size, 9):
        back, ahead = names[max(0, i - 6)], names[min(size - 1, i + 4)]
        builder.add_conditional_edges(names[i], noop, {"back": back, "ahead": ahead})
    return graph_from_builder(builder)


@pytest.mark.parametrize("engine", ENGINES)
def test_svg_is_well_formed_has_no_script_and_names_round_trip(engine, hostile, monkeypatch):
    graph = hostile.get_graph()
    svg = draw(graph, engine, monkeypatch)
    root = ElementTree.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    assert not [e for e in root.iter() if e.tag.rpartition("}")[2].lower() == "script"]
    node = groups(svg, "gk-node")[graph.node(HOSTILE).element_id]
    assert node.find(f"{SVG}title").text == HOSTILE
    assert "\n".join(t.text for t in node.findall(f"{SVG}text")) == HOSTILE
    edge = groups(svg, "gk-edge")[graph.edges[1].element_id]
    assert "\n".join(t.text for t in edge.findall(f"{SVG}text")) == '<b>"key"</b>\n&'
    assert root.find(f"{SVG}style").get("id") == "gk-style"


@pytest.mark.parametrize("engine", ENGINES)
def test_every_node_and_edge_has_its_element(engine, seed, monkeypatch):
    graph = seed.get_graph()
    svg = draw(graph, engine, monkeypatch)
    assert sorted(groups(svg, "gk-node")) == sorted(node.element_id for node in graph.nodes)
    assert sorted(groups(svg, "gk-edge")) == sorted(edge.element_id for edge in graph.edges)
    for edge in graph.edges:
        kind = f"gk-edge-{edge.kind}"
        assert kind in groups(svg, "gk-edge")[edge.element_id].get("class").split()


@pytest.mark.skipif(not has_dot, reason="graphviz not installed")
def test_with_and_without_dot_the_ids_and_classes_are_the_same(monkeypatch):
    builder = StateGraph(PlainState)
    for name in ("a", "b", "c", "my node"):
        builder.add_node(name, noop)
    builder.add_edge(START, "a").add_edge(START, "b").add_edge(["a", "b"], "c")
    builder.add_conditional_edges("c", noop, {"again": "a", "other": "my node"})
    graph = graph_from_builder(builder)
    with_dot = graph.draw_svg(engine="dot")
    monkeypatch.setenv("PATH", "/nonexistent")
    without = graph.draw_svg()

    def tags(svg: str) -> list[tuple[str, str]]:
        root = ElementTree.fromstring(svg)
        return [(g.get("id"), g.get("class")) for g in root.iter(f"{SVG}g")]

    assert sorted(tags(with_dot)) == sorted(tags(without))
    assert ("node-join-3a-a-2b-b-3a-c", "node gk-join gk-node-join") in tags(without)


def test_without_dot_no_two_node_boxes_overlap(hide_dot):
    svg = big_graph(60).draw_svg()
    boxes = []
    for group in groups(svg, "gk-node").values():
        rect = group.find(f"{SVG}rect")
        boxes.append(tuple(float(rect.get(k)) for k in ("x", "y", "width", "height")))
    assert len(boxes) == 62
    for (x1, y1, w1, h1), (x2, y2, w2, h2) in itertools.combinations(boxes, 2):
        assert x1 + w1 <= x2 or x2 + w2 <= x1 or y1 + h1 <= y2 or y2 + h2 <= y1


@pytest.mark.parametrize("engine", ENGINES)
def test_a_graph_of_two_hundred_nodes_draws(engine, monkeypatch):
    graph = big_graph(200)
    svg = draw(graph, engine, monkeypatch)
    assert len(groups(svg, "gk-node")) == 202  # and START and END
    assert len(groups(svg, "gk-edge")) == len(graph.edges)


def test_the_layout_is_cached_per_graph(seed, monkeypatch):
    calls = []
    layout = svg_module.layered_layout
    monkeypatch.setattr(svg_module, "layered_layout", lambda *a: calls.append(1) or layout(*a))
    first = seed.get_graph().draw_svg(engine="python")
    assert seed.get_graph().draw_svg(engine="python") is first
    assert len(calls) == 1


@pytest.mark.skipif(not has_dot, reason="graphviz not installed")
def test_dot_runs_once_per_graph(seed, monkeypatch):
    calls = []
    run = dot_module.subprocess.run
    monkeypatch.setattr(
        dot_module.subprocess, "run", lambda *a, **k: calls.append(1) or run(*a, **k)
    )
    seed.get_graph().draw_svg()
    seed.get_graph().draw_svg()
    assert len(calls) == 1


def test_a_failing_dot_falls_back_to_the_python_layout(seed, monkeypatch):
    def broken(*args, **kwargs):
        raise OSError("dot crashed")

    monkeypatch.setattr(svg_module.shutil, "which", lambda name: "/usr/bin/dot")
    monkeypatch.setattr(svg_module, "svg_from_dot", broken)
    svg = seed.get_graph().draw_svg()
    assert '<g id="node-planner" class="node gk-node gk-node-node">' in svg
    with pytest.raises(OSError, match="dot crashed"):
        svg_module._cache.clear()
        seed.get_graph().draw_svg(engine="dot")


def test_asking_for_dot_without_dot_says_how_to_fix_it(seed, hide_dot):
    with pytest.raises(FileNotFoundError, match="engine='python'"):
        seed.get_graph().draw_svg(engine="dot")


def test_an_unknown_engine_is_refused(seed):
    with pytest.raises(ValueError, match="Unknown engine 'neato'"):
        draw_svg(seed.get_graph(), engine="neato")


def test_text_width_grows_with_wide_characters():
    assert svg_module.text_width("中文", 10) > svg_module.text_width("ab", 10)


def _shape_box(shape: ElementTree.Element) -> tuple[float, float, float, float]:
    """(left, top, right, bottom) of a rect, or of a path's or polygon's points."""
    if shape.tag == f"{SVG}rect":
        x, y = float(shape.get("x")), float(shape.get("y"))
        return x, y, x + float(shape.get("width")), y + float(shape.get("height"))
    pairs = re.findall(r"(-?[\d.]+),(-?[\d.]+)", shape.get("d") or shape.get("points") or "")
    xs, ys = [float(x) for x, _ in pairs], [float(y) for _, y in pairs]
    return min(xs), min(ys), max(xs), max(ys)


@pytest.mark.parametrize("engine", ENGINES)
def test_the_drawing_sits_on_a_rounded_card_with_a_margin(engine, seed, monkeypatch):
    """A drawing is a figure on a white card (JupyterLab shows it as an <img>, which no
    theme reaches): its first shape is the card, rounded and as big as the drawing, and
    no node comes nearer its edge than the card's margin (dot's 4 pt put a node at the
    edge of a white block in a dark notebook; the card and its 12-point margin are what
    docs/drawing.md promises)."""
    root = ElementTree.fromstring(draw(seed.get_graph(), engine, monkeypatch))
    card = root.find(f"{SVG}g").find(f"{SVG}rect")
    assert card is not None and card.get("class") == "gk-card"
    assert (card.get("fill"), card.get("stroke"), card.get("rx")) == ("white", "none", "8")
    left, top, right, bottom = _shape_box(card)
    _, _, width, height = (float(n) for n in root.get("viewBox").split())
    assert (round(right - left), round(bottom - top)) == (round(width), round(height))
    for node in groups(ElementTree.tostring(root, encoding="unicode"), "gk-node").values():
        shape = next(e for e in node if e.tag != f"{SVG}title" and e.tag != f"{SVG}text")
        n_left, n_top, n_right, n_bottom = _shape_box(shape)
        margins = (n_left - left, n_top - top, right - n_right, bottom - n_bottom)
        assert min(margins) >= 11, (node.get("id"), margins)
