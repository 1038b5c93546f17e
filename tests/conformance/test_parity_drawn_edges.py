"""A drawn graph's edges read as LangGraph's: each unpacks and indexes as the NamedTuple
``(source, target, data, conditional)`` LangGraph's ``get_graph().edges`` holds."""

import importlib
from typing import Any, TypedDict

import pytest


class State(TypedDict):
    n: int


def edges(library: str) -> list[Any]:
    graph = importlib.import_module(f"{library}.graph")
    builder = graph.StateGraph(State)
    builder.add_node("a", lambda state: {})
    builder.add_node("b", lambda state: {})
    builder.add_edge(graph.START, "a")
    builder.add_conditional_edges("a", lambda state: "b", {"go": "b", "stop": graph.END})
    builder.add_edge("b", graph.END)
    return list(builder.compile().get_graph().edges)


@pytest.mark.parametrize("read", ["unpacked", "indexed"])
def test_a_drawn_edge_reads_as_langgraphs_named_tuple(read: str) -> None:
    def seen(library: str) -> list[Any]:
        if read == "unpacked":
            return sorted((s, t, d, c) for s, t, d, c in edges(library))
        return sorted((e[0], e[1], e[2], e[3], len(e), e[:2]) for e in edges(library))

    assert seen("graphkit") == seen("langgraph")
