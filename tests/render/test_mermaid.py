"""render.mermaid: flowchart text (exact), safe ids, quoted and escaped labels."""

from __future__ import annotations

import re

import pytest

from graphkit import END, START, StateGraph
from graphkit.render import graph_from_builder
from graphkit.render.mermaid import mermaid_ids

from .conftest import HOSTILE, PlainState, noop

SEED_MERMAID = """\
flowchart TD
    __start__(["__start__"]):::gk_start
    planner("planner")
    weather("weather")
    news("news")
    summarize("summarize")
    __end__(["__end__"]):::gk_end
    __start__ --> planner
    planner -.-> weather
    planner -.-> news
    weather --> summarize
    news --> summarize
    summarize --> __end__
    classDef default fill:#f2f0ff,stroke:#7b6fd0
    classDef gk_start fill:#ffffff,stroke:#7b6fd0
    classDef gk_end fill:#d9d3fd,stroke:#7b6fd0
    classDef gk_join fill:#3f3f46,stroke:#3f3f46,color:#ffffff
"""

NODE_LINE = re.compile(r'    (\w+)(\(\["|\("|\(\(")(.*)("\]\)|"\)|"\)\))(:::gk_\w+)?')
EDGE_LINE = re.compile(r'    (\w+) (-->|-\.->)(\|"[^"]*"\|)? (\w+)')


def test_seed_mermaid_exactly(seed):
    assert seed.get_graph().draw_mermaid() == SEED_MERMAID


def test_without_styles_the_flowchart_has_no_colours(seed):
    """LangGraph's ``with_styles=False``: the same nodes and arrows, no classes; its
    other options are taken and change nothing, and a misspelt one is refused."""
    plain = "".join(
        line.replace(":::gk_start", "").replace(":::gk_end", "") + "\n"
        for line in SEED_MERMAID.splitlines()
        if "classDef" not in line
    )
    graph = seed.get_graph()
    assert graph.draw_mermaid(with_styles=False) == plain
    assert graph.draw_mermaid(wrap_label_n_words=3, frontmatter_config={}) == SEED_MERMAID
    with pytest.raises(TypeError, match="with_style"):
        graph.draw_mermaid(with_style=False)


def test_every_line_is_a_node_an_edge_or_a_style(hostile):
    for line in hostile.get_graph().draw_mermaid().splitlines()[1:]:
        assert (
            NODE_LINE.fullmatch(line)
            or EDGE_LINE.fullmatch(line)
            or line.startswith(("    classDef ", "    linkStyle "))
        ), line


def test_hostile_labels_are_quoted_and_escaped(hostile):
    text = hostile.get_graph().draw_mermaid()
    assert "<script" not in text and "</b>" not in text
    labels = [NODE_LINE.fullmatch(line).group(3) for line in text.splitlines()[1:5]]
    assert labels[1] == (
        "say #34;hi#34; #60;script#62;alert(1)#60;/script#62; #38; {x} \\ ünï 中文 👋"
        "<br>line two  spaced"
    )
    assert labels[2] == "a#38;b"
    assert '-.->|"#60;b#62;#34;key#34;#60;/b#62;<br>#38;"|' in text
    assert HOSTILE not in text


def test_a_label_holding_a_mermaid_directive_stays_text():
    # Mermaid reads '%%{init: ...}%%' anywhere in the source, inside a quoted label too,
    # as its config: this path_map key hid every node's label (themeCSS) and darkened
    # the theme, and the label lost the directive's text.
    label = "x %%{init: {'themeCSS': '.nodeLabel {display:none}'}}%% 50%"
    builder = StateGraph(PlainState).add_node("a", noop).add_node("b", noop)
    builder.add_edge(START, "a").add_conditional_edges("a", lambda state: label, {label: "b"})
    text = builder.compile().get_graph().draw_mermaid()
    assert "%" not in text
    assert (
        "a -.->|\"x #37;#37;{init: {'themeCSS': '.nodeLabel {display:none}'}}#37;#37; 50#37;\"| b"
        in text
    )


def test_ids_are_identifiers_and_never_keywords():
    builder = StateGraph(PlainState)
    for name in ("end", "graph", "node_2", "my node", "ok_1", "Style"):
        builder.add_node(name, noop)
    builder.add_edge(START, "end")
    ids = mermaid_ids(graph_from_builder(builder))
    assert ids == {
        "__start__": "__start__",
        "end": "node_1",
        "graph": "node_2_",  # node_2 is a real node's name
        "node_2": "node_2",
        "my node": "node_4",
        "ok_1": "ok_1",
        "Style": "node_6",
        "__end__": "__end__",
    }


def test_waiting_edges_join_in_a_circle_and_command_edges_are_purple():
    builder = StateGraph(PlainState)
    builder.add_node("a", noop).add_node("b", noop).add_node("c", noop)
    builder.add_node("d", noop, destinations={"a": "again", END: "stop"})
    builder.add_edge(START, "a").add_edge(START, "b").add_edge(["a", "b"], "c")
    builder.add_edge("c", "d")
    lines = graph_from_builder(builder).draw_mermaid().splitlines()
    assert '    join_5(("#38;")):::gk_join' in lines
    assert "    a --> join_5" in lines and "    join_5 --> c" in lines
    assert '    d -.->|"again"| a' in lines and '    d -.->|"stop"| __end__' in lines
    assert "    linkStyle 5,6 stroke:#7c3aed,color:#7c3aed" in lines
