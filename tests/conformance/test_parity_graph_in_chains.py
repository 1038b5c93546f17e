"""A compiled graph inside LangChain's compositions, on both libraries: what LangChain
reads of it there (its drawable graph, joined with the other steps' when the chain is
drawn)."""

from __future__ import annotations

import operator
import re
from typing import Annotated, Any

import pytest
from typing_extensions import TypedDict

from .harness import Lib, load_graphkit, load_langgraph

pytest.importorskip("langchain_core")

from langchain_core.runnables import RunnableLambda


class State(TypedDict):
    value: int
    log: Annotated[list, operator.add]


def _graph(lib: Lib) -> Any:
    def route(state: State) -> str:
        return "check" if state["value"] else lib.END

    graph = lib.StateGraph(State)
    graph.add_node("step", lambda state: {"log": ["step"]}, metadata={"kind": "first"})
    graph.add_node("check", lambda state: {"log": ["check"]})
    graph.add_node("join", lambda state: {"log": ["join"]})
    graph.add_edge(lib.START, "step")
    graph.add_conditional_edges("step", route, {"check": "check", lib.END: lib.END})
    graph.add_edge(["step", "check"], "join")
    graph.add_edge("join", lib.END)
    return graph.compile()


def _drawn_chain(lib: Lib) -> tuple[Any, ...]:
    """The chain ``graph | lambda`` as LangChain draws it; the lambda's nodes are named
    by random ids, replaced here."""
    drawn = (_graph(lib) | RunnableLambda(lambda output: output["log"])).get_graph()
    ids = {node.id: node.name for node in drawn.nodes.values()}
    edges = sorted((ids[e.source], ids[e.target], e.data, e.conditional) for e in drawn.edges)
    mermaid = re.sub(r"[0-9a-f]{32}", "?", drawn.draw_mermaid())
    return sorted(ids.values()), edges, mermaid


def test_a_chain_a_graph_starts_draws_the_graphs_nodes_and_edges():
    expected = _drawn_chain(load_langgraph())
    assert ("join", "__end__", None, False) in expected[1]
    assert _drawn_chain(load_graphkit()) == expected
