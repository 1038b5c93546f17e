"""What code written for LangGraph reads off a compiled graph reads the same: a drawn
edge unpacks and indexes as the NamedTuple ``(source, target, data, conditional)`` of
LangGraph's ``get_graph().edges``, ``trigger_to_nodes`` is LangGraph's index, and
``get_graph().draw_ascii()`` draws what LangGraph's draws."""

import importlib
import importlib.util
from typing import Any, Literal, TypedDict

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


def _tutorial_graphs(library: str) -> dict[str, Any]:
    """The graphs of LangGraph's basics tutorial (a chatbot, its tool loop with the
    tutorial's path_map) and a waiting edge, which graphkit draws with a join point."""
    graph = importlib.import_module(f"{library}.graph")
    chatbot = graph.StateGraph(State).add_node("chatbot", lambda state: {})
    chatbot = chatbot.add_edge(graph.START, "chatbot").add_edge("chatbot", graph.END)
    tools = graph.StateGraph(State).add_node("chatbot", lambda state: {})
    tools = tools.add_node("tools", lambda state: {}).add_edge(graph.START, "chatbot")
    tools.add_conditional_edges(
        "chatbot", lambda state: "tools", {"tools": "tools", graph.END: graph.END}
    )
    tools.add_edge("tools", "chatbot")
    waiting = graph.StateGraph(State)
    for name in ("b", "a", "c"):
        waiting.add_node(name, lambda state: {})
    waiting.add_edge(graph.START, "b").add_edge(graph.START, "a").add_edge(["a", "b"], "c")
    return {"chatbot": chatbot, "tools": tools, "waiting": waiting}


def test_draw_ascii_hands_langchain_cores_drawing_the_graph_langgraph_hands_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """``get_graph().draw_ascii()`` (the basics tutorial names it beside the PNGs): both
    lay the graph out with langchain-core's ``draw_ascii`` (grandalf, whose layout may
    change from run to run), given the same boxes and the same edges in the same order;
    ``print_ascii()`` prints it. Without grandalf both raise langchain-core's ImportError."""
    from langchain_core.runnables import graph_ascii

    handed: list[Any] = []

    def draw(vertices: Any, edges: Any) -> str:
        handed.append((dict(vertices), [tuple(edge) for edge in edges]))
        return f"<drawing {len(handed)}>"

    monkeypatch.setattr(graph_ascii, "draw_ascii", draw)
    for library in ("langgraph", "graphkit"):
        for builder in _tutorial_graphs(library).values():
            builder.compile().get_graph().draw_ascii()
    assert handed[3:] == handed[:3]
    _tutorial_graphs("graphkit")["chatbot"].compile().get_graph().print_ascii()
    assert capsys.readouterr().out == "<drawing 7>\n"


def test_draw_ascii_without_grandalf_says_to_install_it(capsys: pytest.CaptureFixture) -> None:
    if importlib.util.find_spec("grandalf") is not None:
        pytest.skip("grandalf is installed")

    def raised(library: str) -> tuple[str, str]:
        drawable = _tutorial_graphs(library)["tools"].compile().get_graph()
        with pytest.raises(ImportError) as error:
            drawable.print_ascii()
        return type(error.value).__name__, str(error.value)

    assert raised("graphkit") == raised("langgraph")
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("path_map", [{"loop": "b", "again": "b"}, {"again": "b", "loop": "b"}])
def test_several_keys_for_one_target_are_joined_where_langgraph_keeps_the_first(
    path_map: dict[str, str],
) -> None:
    """docs/drawing.md, on purpose: graphkit's edge holds every key that takes it, joined
    in the path_map's order; LangGraph's holds one, the key that sorts first, whatever
    that order."""

    def label(library: str) -> Any:
        graph = importlib.import_module(f"{library}.graph")
        builder = graph.StateGraph(State)
        builder.add_node("a", lambda state: {})
        builder.add_node("b", lambda state: {})
        builder.add_edge(graph.START, "a")
        builder.add_conditional_edges("a", lambda state: "again", path_map)
        edges = builder.compile().get_graph().edges
        return next(edge[2] for edge in edges if edge[:2] == ("a", "b"))

    assert (label("graphkit"), label("langgraph")) == (", ".join(path_map), "again")


def test_a_destination_labelled_with_its_own_name_is_drawn_unlabelled() -> None:
    """``destinations={"b": "b", "c": "to c"}``: a label that repeats its target's name
    says nothing the arrow does not, so the edge's data is None, as a path_map key that
    repeats it; the other edge keeps its label (and graphkit draws ``goto`` on it)."""

    def drawn(library: str) -> list[tuple[Any, ...]]:
        graph = importlib.import_module(f"{library}.graph")
        types = importlib.import_module(f"{library}.types")
        builder = graph.StateGraph(State)
        builder.add_node(
            "a", lambda state: types.Command(goto="b"), destinations={"b": "b", "c": "to c"}
        )
        builder.add_node("b", lambda state: {})
        builder.add_node("c", lambda state: {})
        builder.add_edge(graph.START, "a")
        app = builder.compile()
        return sorted(tuple(edge) for edge in app.get_graph().edges if edge[0] == "a")

    assert (
        drawn("graphkit")
        == drawn("langgraph")
        == [("a", "b", None, True), ("a", "c", "to c", True)]
    )


def _list_router(state: State) -> list[Literal["b", "c"]]:
    return ["b", "c"]


def test_a_list_of_literals_is_drawn_where_langgraph_draws_end() -> None:
    """docs/drawing.md, on purpose: graphkit reads the names inside ``list[Literal[...]]``
    and draws an edge to each; LangGraph reads only a bare ``Literal`` and draws this
    router as one without a path_map: a plain edge to END, and none from b or c."""

    def drawn(library: str) -> list[tuple[Any, ...]]:
        graph = importlib.import_module(f"{library}.graph")
        builder = graph.StateGraph(State)
        for name in ("a", "b", "c"):
            builder.add_node(name, lambda state: {})
        builder.add_edge(graph.START, "a")
        builder.add_conditional_edges("a", _list_router)
        builder.add_edge("b", graph.END)
        builder.add_edge("c", graph.END)
        return sorted(tuple(edge) for edge in builder.compile().get_graph().edges)

    assert drawn("graphkit") == [
        ("__start__", "a", None, False),
        ("a", "b", None, True),
        ("a", "c", None, True),
        ("b", "__end__", None, False),
        ("c", "__end__", None, False),
    ]
    assert drawn("langgraph") == [("__start__", "a", None, False), ("a", "__end__", None, False)]
