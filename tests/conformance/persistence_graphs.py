"""Graphs the persistence scenarios share (built from either library via `Tools`)."""

import operator
from typing import Annotated, TypedDict

from .scenarios import Tools


class Log(TypedDict):
    log: Annotated[list, operator.add]


class Counter(TypedDict):
    n: int
    log: Annotated[list, operator.add]


def counted(tools: Tools, name: str):
    """An `appender` that also counts its calls (shown by a `Calls` step)."""

    def node(state: dict) -> dict:
        tools.calls[name] += 1
        return {"log": [name]}

    return node


def chain(tools: Tools, **compile_options):
    """START -> a -> b -> c -> END, each node counting its calls."""
    lib = tools.lib
    graph = lib.StateGraph(Log)
    for name in "abc":
        graph.add_node(name, counted(tools, name))
    graph.add_edge(lib.START, "a")
    graph.add_edge("a", "b")
    graph.add_edge("b", "c")
    return graph.compile(checkpointer=tools.checkpointer, **compile_options)
