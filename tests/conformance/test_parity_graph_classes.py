"""What ``isinstance`` says of a compiled graph, on both libraries. In LangGraph every
compiled graph (a compiled ``StateGraph``, its copies, an entrypoint, a prebuilt agent, a
low-level ``Pregel``) is a ``Pregel``, and code tells a graph that way: LangGraph's app
templates test ``assert isinstance(agent, Pregel)``. graphkit's compiled graphs share
``CompiledGraph`` instead, so ``Pregel`` counts each of them."""

import importlib
from typing import Any, TypedDict

import pytest


class Count(TypedDict):
    x: int


def _module(library: str, name: str) -> Any:
    return importlib.import_module(name.replace("langgraph", library, 1))


def _graphs(library: str) -> dict[str, Any]:
    from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel

    graph = _module(library, "langgraph.graph")
    func = _module(library, "langgraph.func")
    pregel = _module(library, "langgraph.pregel")
    channels = _module(library, "langgraph.channels")
    prebuilt = _module(library, "langgraph.prebuilt")

    builder = graph.StateGraph(Count).add_node("a", lambda state: {"x": 1})
    compiled = builder.add_edge(graph.START, "a").compile()

    @func.entrypoint()
    def flow(number: int) -> int:
        return number

    node = pregel.NodeBuilder().subscribe_only("a").do(lambda x: x).write_to("b")
    low_level = pregel.Pregel(
        nodes={"node": node},
        channels={"a": channels.EphemeralValue(int), "b": channels.LastValue(int)},
        input_channels="a",
        output_channels="b",
    )
    agent = prebuilt.create_react_agent(FakeMessagesListChatModel(responses=[]), [])
    return {
        "a compiled StateGraph": compiled,
        "its copy": compiled.copy(),
        "its with_config": compiled.with_config(recursion_limit=5),
        "an entrypoint": flow,
        "a low-level Pregel": low_level,
        "a prebuilt agent": agent,
    }


def _what_isinstance_says(library: str) -> dict[str, tuple[bool, bool]]:
    pregel = _module(library, "langgraph.pregel").Pregel
    return {
        name: (isinstance(graph, pregel), issubclass(type(graph), pregel))
        for name, graph in _graphs(library).items()
    }


@pytest.mark.parametrize(
    "name",
    [
        "a compiled StateGraph",
        "its copy",
        "its with_config",
        "an entrypoint",
        "a low-level Pregel",
        "a prebuilt agent",
    ],
)
def test_every_compiled_graph_is_a_pregel_as_in_langgraph(name):
    langgraph, graphkit = (_what_isinstance_says(lib)[name] for lib in ("langgraph", "graphkit"))
    assert graphkit == langgraph == (True, True)


def test_pregel_still_tells_a_graph_from_what_is_not_one():
    from graphkit.graph import StateGraph
    from graphkit.pregel import Pregel

    assert not isinstance(StateGraph(Count), Pregel)
    assert not isinstance(object(), Pregel)
    assert not issubclass(int, Pregel)
