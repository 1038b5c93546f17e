"""Behaviours LangGraph's ``test_large_cases.py`` pins, run on both libraries: a
differential hunt through that file found each of these different on graphkit. Each
program is written for this file; none is LangGraph's code."""

from __future__ import annotations

import dataclasses
import operator
from typing import Annotated, Any, TypedDict

import pytest
import typing_extensions

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import Tools, load_tools

LIBS = [load_langgraph, load_graphkit]
THREAD = {"configurable": {"thread_id": "t"}}


class Plan(TypedDict):
    call: dict


def _on_saver(saver: str, lib: Lib, program: Any) -> Any:
    with load_tools(lib, saver) as tools:
        return program(tools)


def _edit_a_read_value(tools: Tools) -> dict[str, Any]:
    """LangGraph's review pattern: read the paused state, edit the tool call in place,
    hand it back with ``update_state``; then edit what the history and the saver's own
    ``get_tuple`` and ``list`` hand out, and read again."""
    lib, checkpointer = tools.lib, tools.checkpointer
    builder = lib.StateGraph(Plan)
    builder.add_node("plan", lambda state: {"call": {"name": "search", "args": {"q": "sf"}}})
    builder.add_node("act", lambda state: {})
    builder.add_edge(lib.START, "plan").add_edge("plan", "act")
    app = builder.compile(checkpointer=checkpointer, interrupt_after=["plan"])
    chunks = list(app.stream({"call": {}}, THREAD))
    call = app.get_state(THREAD).values["call"]
    call["args"]["q"] = "a different query"
    read_again = app.get_state(THREAD).values["call"]["args"]["q"]
    app.update_state(THREAD, {"call": call})
    for snapshot in app.get_state_history(THREAD):
        snapshot.values.get("call", {}).setdefault("args", {})["q"] = "edited in the history"
    checkpointer.get_tuple(THREAD).checkpoint["channel_values"]["call"]["name"] = "edited"
    for saved in checkpointer.list(THREAD):
        saved.metadata["step"] = 99
        saved.checkpoint["channel_values"].get("call", {})["args"] = "edited in the list"
    history = [
        (snapshot.metadata["step"], snapshot.values.get("call"))
        for snapshot in app.get_state_history(THREAD)
    ]
    return {"chunk": chunks[0], "read again": read_again, "history": history}


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_editing_a_value_get_state_gave_changes_no_checkpoint(saver):
    """A value ``get_state`` (or the history, or the saver's own reads) hands out is the
    caller's own: editing it in place changes neither the next read nor the checkpoint it
    came from (InMemorySaver kept the values put and handed those very objects out;
    SqliteSaver, the rows it decoded)."""
    langgraph, graphkit = (_on_saver(saver, loader(), _edit_a_read_value) for loader in LIBS)
    assert graphkit == langgraph
    assert graphkit["read again"] == "sf"
    assert graphkit["history"][0] == (2, {"name": "search", "args": {"q": "a different query"}})
    assert graphkit["history"][1] == (1, {"name": "search", "args": {"q": "sf"}})


class Branches(TypedDict):
    found: Annotated[list, operator.add]
    answer: str


def _edit_a_pending_write(tools: Tools) -> dict[str, Any]:
    """One branch finishes, the other asks a question: the finished branch's write is
    saved as a pending write. Edit what ``get_tuple`` hands out, then resume."""
    lib, checkpointer = tools.lib, tools.checkpointer
    builder = lib.StateGraph(Branches)
    builder.add_node("search", lambda state: {"found": [{"title": "sf", "tags": ["city"]}]})
    builder.add_node("ask", lambda state: {"answer": tools.interrupt("which one?")})
    builder.add_edge(lib.START, "search").add_edge(lib.START, "ask")
    app = builder.compile(checkpointer=checkpointer)
    app.invoke({"found": []}, THREAD)
    written = [
        value
        for _, channel, value in checkpointer.get_tuple(THREAD).pending_writes
        if channel == "found"
    ]
    written[0][0]["tags"].append("edited")
    read_again = [
        value
        for _, channel, value in checkpointer.get_tuple(THREAD).pending_writes
        if channel == "found"
    ]
    result = app.invoke(lib.Command(resume="sf"), THREAD)
    return {"read again": read_again, "result": result}


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_editing_a_pending_write_a_saver_gave_changes_no_saved_write(saver):
    """A pending write ``get_tuple`` hands out is the caller's own too: the resumed run
    applies the write as it was saved."""
    langgraph, graphkit = (_on_saver(saver, loader(), _edit_a_pending_write) for loader in LIBS)
    assert graphkit == langgraph
    assert graphkit["result"] == {"found": [{"title": "sf", "tags": ["city"]}], "answer": "sf"}


@dataclasses.dataclass
class Counted:
    count: int = 0


class RootKeyed(typing_extensions.TypedDict):  # (LangGraph's old single-value state)
    __root__: Annotated[list[int], operator.add]


SCHEMAS = {
    "int": int,
    "a list with a reducer": Annotated[list[int], operator.add],
    "a dataclass": Counted,
    "a TypedDict of one __root__ key": RootKeyed,
}


def _json_schemas(lib: Lib, schema: Any, name: str | None) -> tuple[dict, dict]:
    builder = lib.StateGraph(schema).add_node("a", lambda state: None)
    app = builder.add_edge(lib.START, "a").compile(name=name)
    return app.get_input_jsonschema(), app.get_output_jsonschema()


@pytest.mark.parametrize("name", [None, "counter"])
@pytest.mark.parametrize("schema", SCHEMAS)
def test_a_state_graphs_json_schemas_are_titled_as_langgraph_titles_them(schema, name):
    """A single-value state (``StateGraph(int)``, LangGraph's ``test_message_graph``)
    gives its value's schema titled by the graph's name and defaulting to None; a
    lowercase name gets LangChain's suffix (``counter_input``), as with every schema."""
    langgraph, graphkit = (_json_schemas(loader(), SCHEMAS[schema], name) for loader in LIBS)
    assert graphkit == langgraph
    if schema != "a TypedDict of one __root__ key":  # (titled by its class)
        assert graphkit[0]["title"] == ("counter_input" if name else "LangGraphInput")


def _channels_by_module_path(library: str) -> Any:
    """LangGraph's ``test_invoke_two_processes_in_out_interrupt`` imports each channel
    class from its own module (``langgraph.channels.last_value``)."""
    import importlib

    def channel(module: str, name: str) -> Any:
        return getattr(importlib.import_module(f"{library}.channels.{module}"), name)

    pregel = importlib.import_module(f"{library}.pregel")
    last_value, binop = (
        channel("last_value", "LastValue"),
        channel("binop", "BinaryOperatorAggregate"),
    )
    node = pregel.NodeBuilder().subscribe_only("given").do(lambda x: [x + 1])
    app = pregel.Pregel(
        nodes={"one": node.write_to("total")},
        channels={
            "given": last_value(int),
            "total": binop(list, operator.add),
            "scratch": channel("untracked_value", "UntrackedValue")(int),
            "once": channel("ephemeral_value", "EphemeralValue")(int),
            "any": channel("any_value", "AnyValue")(int),
            "both": channel("named_barrier_value", "NamedBarrierValue")(str, {"a", "b"}),
        },
        input_channels="given",
        output_channels="total",
    )
    return app.invoke(2)


def test_each_channel_class_imports_from_langgraphs_module_path():
    assert _channels_by_module_path("graphkit") == _channels_by_module_path("langgraph") == [3]
