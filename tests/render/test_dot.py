"""render.dot: DOT text (exact), and SVG from the real `dot` binary with ids kept."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ElementTree

import pytest

from graphkit.render.dot import svg_from_dot, to_dot

from .conftest import HOSTILE

SVG = "{http://www.w3.org/2000/svg}"
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz is not installed")

SEED_DOT = """\
digraph "LangGraph" {
  graph [rankdir=TB, nodesep=0.35, ranksep=0.4, fontname="Helvetica,Arial,sans-serif"];
  node [shape=box, style="rounded,filled", fillcolor="#f2f0ff", color="#7b6fd0", \
fontcolor="#1f1f29", fontname="Helvetica,Arial,sans-serif", fontsize=14, height=0.4, \
margin="0.18,0.06"];
  edge [color="#52525b", fontcolor="#3f3f46", fontname="Helvetica,Arial,sans-serif", \
fontsize=11, arrowsize=0.7];
  "node-__start__" [id="node-__start__", class="gk-node gk-node-start", label="__start__", \
style="rounded,filled", fillcolor="#ffffff"];
  "node-planner" [id="node-planner", class="gk-node gk-node-node", label="planner"];
  "node-weather" [id="node-weather", class="gk-node gk-node-node", label="weather"];
  "node-news" [id="node-news", class="gk-node gk-node-node", label="news"];
  "node-summarize" [id="node-summarize", class="gk-node gk-node-node", label="summarize"];
  "node-__end__" [id="node-__end__", class="gk-node gk-node-end", label="__end__", \
style="rounded,filled", fillcolor="#d9d3fd"];
  "node-__start__" -> "node-planner" [id="edge-__start__.planner", class="gk-edge gk-edge-edge"];
  "node-planner" -> "node-weather" [id="edge-planner.weather", \
class="gk-edge gk-edge-conditional", style=dashed];
  "node-planner" -> "node-news" [id="edge-planner.news", class="gk-edge gk-edge-conditional", \
style=dashed];
  "node-weather" -> "node-summarize" [id="edge-weather.summarize", class="gk-edge gk-edge-edge"];
  "node-news" -> "node-summarize" [id="edge-news.summarize", class="gk-edge gk-edge-edge"];
  "node-summarize" -> "node-__end__" [id="edge-summarize.__end__", class="gk-edge gk-edge-edge"];
}
"""


def test_seed_dot_exactly(seed):
    assert seed.get_graph().to_dot() == SEED_DOT


def test_labels_styles_and_join_points_in_dot():
    from graphkit.render.model import DrawableGraph, Edge, Node

    graph = DrawableGraph(
        "g",
        (Node("a", "a"), Node("b", "b"), Node("join:a+b:c", "join:a+b:c", "join"), Node("c", "c")),
        (
            Edge("a", "b", "command", "retry"),
            Edge("a", "join:a+b:c", "waiting"),
            Edge("b", "join:a+b:c", "waiting"),
            Edge("join:a+b:c", "c", "waiting"),
            Edge("c", "a", "conditional", "True"),
        ),
    )
    lines = to_dot(graph).splitlines()
    assert lines[6] == (
        '  "node-join-3a-a-2b-b-3a-c" [id="node-join-3a-a-2b-b-3a-c", class="gk-join gk-node-join"'
        ', label="", shape=box, style=filled, fillcolor="#3f3f46", color="#3f3f46", width=0.6, '
        "height=0.07, fixedsize=true];"
    )
    assert lines[8] == (
        '  "node-a" -> "node-b" [id="edge-a.b", class="gk-edge gk-edge-command", label="retry", '
        'style=dashed, color="#7c3aed", fontcolor="#7c3aed", arrowhead=vee];'
    )
    assert lines[12] == (
        '  "node-c" -> "node-a" [id="edge-c.a", class="gk-edge gk-edge-conditional", '
        'label="True", style=dashed];'
    )


def test_hostile_names_are_quoted_in_dot(hostile):
    dot = hostile.get_graph().to_dot()
    assert (
        'label="say \\"hi\\" <script>alert(1)</script> &amp; {x} \\\\ ünï 中文 👋\\nline two  '
        'spaced"' in dot
    )
    assert 'label="<b>\\"key\\"</b>\\n&amp;"' in dot
    assert 'label="a&amp;b"' in dot


@needs_dot
def test_dot_svg_keeps_ids_classes_and_exact_text(hostile):
    graph = hostile.get_graph()
    svg = svg_from_dot(graph, graph.to_dot(), shutil.which("dot"))
    root = ElementTree.fromstring(svg)
    assert root.find(f".//{SVG}script") is None
    groups = {g.get("id"): g for g in root.iter(f"{SVG}g")}
    node = groups[graph.node(HOSTILE).element_id]
    assert node.get("class") == "node gk-node gk-node-node"
    assert node.find(f"{SVG}title").text == HOSTILE
    assert [t.text for t in node.findall(f"{SVG}text")] == HOSTILE.split("\n")
    edge = groups[graph.edges[1].element_id]
    assert edge.get("class") == "edge gk-edge gk-edge-conditional"
    assert [t.text for t in edge.findall(f"{SVG}text")] == ['<b>"key"</b>', "&"]
    assert edge.find(f"{SVG}title").text == f"{HOSTILE} → a&b"
    assert svg.startswith('<svg width="') and "<!--" not in svg and "DOCTYPE" not in svg
    assert f'<g id="{graph.node("a&b").element_id}" class="node gk-node gk-node-node">' in svg


def agent_loop():
    from graphkit import END, START, StateGraph
    from graphkit.prebuilt import MessagesState, ToolNode, tools_condition

    def multiply(a: int, b: int) -> int:
        """Multiply a and b."""
        return a * b

    builder = StateGraph(MessagesState)
    builder.add_node("assistant", lambda state: {})
    builder.add_node("tools", ToolNode([multiply]))
    builder.add_edge(START, "assistant")
    builder.add_conditional_edges("assistant", tools_condition, ["tools", END])
    builder.add_edge("tools", "assistant")
    return builder.compile().get_graph()


def test_the_edge_back_of_an_agent_loop_leaves_and_enters_on_the_east_side():
    lines = to_dot(agent_loop()).splitlines()
    there = next(line for line in lines if '"node-assistant" -> "node-tools"' in line)
    back = next(line for line in lines if '"node-tools" -> "node-assistant"' in line)
    assert "tailport" not in there
    assert back.endswith('class="gk-edge gk-edge-edge", tailport=e, headport=e];')


@needs_dot
def test_an_agent_loops_two_arrows_are_drawn_apart():
    """Lesson 06: dot drew assistant -> tools and tools -> assistant a few pixels apart."""
    graph = agent_loop()
    root = ElementTree.fromstring(svg_from_dot(graph, to_dot(graph), shutil.which("dot")))

    def xs(element_id):
        group = next(g for g in root.iter(f"{SVG}g") if g.get("id") == element_id)
        path = group.find(f"{SVG}path").get("d")
        return [
            float(pair.split(",")[0]) for pair in path.replace("M", " ").replace("C", " ").split()
        ]

    there, back = xs("edge-assistant.tools"), xs("edge-tools.assistant")
    assert max(back) - max(there) >= 25  # the way back arcs beside the way there
