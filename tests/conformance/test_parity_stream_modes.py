"""``stream_mode`` values at the edges, against LangGraph: an empty list streams nothing
(and ``invoke`` returns no chunks); an unknown mode is refused by graphkit with the modes
it knows, where LangGraph streams nothing for it (docs/compatibility.md)."""

from __future__ import annotations

from typing import TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph


class State(TypedDict):
    x: int


def _app(lib: Lib):
    graph = lib.StateGraph(State).add_node("a", lambda state: {"x": state["x"] + 1})
    return graph.add_edge(lib.START, "a").compile()


def test_an_empty_list_of_modes_streams_nothing_as_in_langgraph():
    def seen(lib: Lib) -> tuple:
        app = _app(lib)
        return list(app.stream({"x": 0}, stream_mode=[])), app.invoke({"x": 0}, stream_mode=[])

    assert seen(load_graphkit()) == seen(load_langgraph()) == ([], [])


@pytest.mark.parametrize("mode", ["bogus", ["values", "bogus"]], ids=["alone", "in-a-list"])
def test_an_unknown_mode_is_refused_where_langgraph_streams_nothing_for_it(mode):
    theirs = list(_app(load_langgraph()).stream({"x": 0}, stream_mode=mode))
    assert all(chunk[0] != "bogus" for chunk in theirs if isinstance(chunk, tuple))
    with pytest.raises(ValueError, match="Unknown stream_mode 'bogus'"):
        list(_app(load_graphkit()).stream({"x": 0}, stream_mode=mode))
