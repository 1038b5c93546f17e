"""Saved checkpoints read raw, as LangGraph code reads them (``saver.list(config)`` then
``entry.checkpoint["channel_values"]``, ``["channel_versions"]``, ``["versions_seen"]``,
``["updated_channels"]``): every checkpoint of a thread, oldest first, on both libraries.
Values are compared as the stream compares them (`canonical`); versions by their integer
part (LangGraph's in-memory saver adds a random fraction; graphkit saves ints). Graphs: a
chain, a waiting edge (its barrier channel), ``Send``s beside an edge, a deferred node,
an interrupt resumed, and ``update_state`` with and without ``as_node``, on both savers.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, canonical, load_graphkit, load_langgraph
from .persistence_graphs import chain
from .scenarios import SAVERS, Tools, _interrupt


class Notes(TypedDict, total=False):
    notes: Annotated[list, operator.add]
    x: str


def _note(name: str) -> Callable[[Any], dict]:
    return lambda state: {"notes": [name]}


def _whole(version: Any) -> int:
    return int(str(version).split(".")[0])


def _raw(checkpoint: Any, source: str) -> str:
    """One saved checkpoint's four LangGraph dicts, as one comparable line. An
    ``update_state`` checkpoint's ``updated_channels`` is left out: LangGraph saves none
    (its next step checks every node), graphkit the channels its next step wakes from
    (docs/compatibility.md, "Known differences")."""
    seen = checkpoint["versions_seen"]
    updated = checkpoint.get("updated_channels") if source != "update" else "(not compared)"
    return canonical(
        {
            "values": checkpoint["channel_values"],
            "versions": {k: _whole(v) for k, v in checkpoint["channel_versions"].items()},
            "seen": {n: {k: _whole(v) for k, v in by.items()} for n, by in seen.items()},
            "updated": updated if isinstance(updated, str) else sorted(updated or ()),
        }
    )


def _join(tools: Tools) -> Any:
    lib = tools.lib
    graph = lib.StateGraph(Notes)
    for name in ("a", "d", "slow", "b", "c"):
        graph.add_node(name, _note(name))
    for name in ("a", "d", "slow"):
        graph.add_edge(lib.START, name)
    graph.add_edge("slow", "b").add_edge("d", "c").add_edge(["a", "b"], "c")
    return graph.compile(checkpointer=tools.checkpointer)


def _sends(tools: Tools) -> Any:
    lib = tools.lib
    graph = lib.StateGraph(Notes)
    for name in "awz":
        graph.add_node(name, _note(name))
    graph.add_conditional_edges(lib.START, lambda s: [lib.Send("w", {}), lib.Send("w", {})], ["w"])
    graph.add_edge(lib.START, "a").add_edge("a", "w").add_edge("w", "z")
    return graph.compile(checkpointer=tools.checkpointer)


def _deferred(tools: Tools) -> Any:
    lib = tools.lib
    graph = lib.StateGraph(Notes)
    for name in "abc":
        graph.add_node(name, _note(name))
    graph.add_node("last", _note("last"), defer=True)
    graph.add_edge(lib.START, "a").add_edge(lib.START, "b").add_edge("b", "c")
    graph.add_edge(["a", "c"], "last")
    return graph.compile(checkpointer=tools.checkpointer)


def _asks(tools: Tools) -> Any:
    lib = tools.lib

    def ask(state: Notes) -> dict:
        return {"notes": [tools.interrupt("name?")]}

    graph = lib.StateGraph(Notes)
    graph.add_node("a", _note("a")).add_node("ask", ask).add_node("z", _note("z"))
    graph.add_edge(lib.START, "a").add_edge("a", "ask").add_edge("ask", "z")
    return graph.compile(checkpointer=tools.checkpointer)


GRAPHS: dict[str, Callable[[Tools], Any]] = {
    "chain": chain,
    "join": _join,
    "sends": _sends,
    "deferred": _deferred,
    "asks": _asks,
}


def _observe(lib: Lib, graph: str, saver: str) -> list[str]:
    lines: list[str] = []
    with SAVERS[saver](lib.name) as checkpointer:
        tools = Tools(lib, checkpointer, _interrupt(lib.name))
        app = GRAPHS[graph](tools)
        thread = {"configurable": {"thread_id": "t"}}
        app.invoke({"x": "q"} if graph != "chain" else {"log": []}, thread, durability="sync")
        if graph == "asks":
            app.invoke(lib.Command(resume="ada"), thread, durability="sync")
        key = "log" if graph == "chain" else "notes"
        try:  # (refused where the last step ran more than one node: compared elsewhere)
            app.update_state(thread, {key: ["edit"]})
        except lib.errors.InvalidUpdateError:
            lines.append("ambiguous update")
        app.update_state(thread, {key: ["edit"]}, as_node="a")
        for entry in reversed(list(app.checkpointer.list(thread))):
            source = entry.metadata["source"]
            lines.append(
                f"step {entry.metadata['step']} {source}: {_raw(entry.checkpoint, source)}"
            )
    return lines


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
@pytest.mark.parametrize("graph", sorted(GRAPHS))
def test_saved_checkpoints_read_raw_as_langgraphs(graph, saver):
    expected = _observe(load_langgraph(), graph, saver)
    assert _observe(load_graphkit(), graph, saver) == expected
