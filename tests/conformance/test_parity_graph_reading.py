"""What code written for LangGraph reads off a compiled graph reads the same: a drawn
edge unpacks and indexes as the NamedTuple ``(source, target, data, conditional)`` of
LangGraph's ``get_graph().edges``, and ``trigger_to_nodes`` is LangGraph's index."""

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


def test_a_compiled_graph_says_which_nodes_each_channel_wakes() -> None:
    """``trigger_to_nodes`` (LangGraph's attribute of every compiled graph, read back):
    the same index, a waiting edge's join channel and a router's branches included."""

    def index(library: str) -> dict[str, list[str]]:
        graph = importlib.import_module(f"{library}.graph")
        builder = graph.StateGraph(State)
        for name in ("a", "b", "c", "d"):
            builder.add_node(name, lambda state: {})
        builder.add_edge(graph.START, "a")
        builder.add_conditional_edges("a", lambda state: ["b", "c"], ["b", "c"])
        builder.add_edge(["b", "c"], "d")
        app = builder.compile()
        return {channel: sorted(nodes) for channel, nodes in app.trigger_to_nodes.items()}

    assert index("graphkit") == index("langgraph")
