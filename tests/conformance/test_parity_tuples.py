"""Tuples come back from a checkpoint as LangGraph's do: LangGraph's serializer writes a
tuple as a msgpack array, so a value read back (``get_state``, history, a resumed or
later run, an interrupt's value, a ``Send``'s argument, a cached write, a SQLite store's
item) holds lists where the node wrote tuples; a dict key or a set member stays a tuple,
and a named tuple stays one (its fields as lists), as do a dataclass's fields rebuilt.
The first run returns what the nodes wrote (its channels hold their objects).

graphkit's serializer read tuples back as tuples, and ``InMemorySaver`` kept them:
``state["one"] == (1, 2)`` held after a resume in graphkit but not in LangGraph.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import operator
import sqlite3
from typing import Annotated, Any, NamedTuple, TypedDict

import pytest


class Pair(NamedTuple):
    left: Any
    right: Any


@dataclasses.dataclass
class Held:
    inner: Any


class State(TypedDict, total=False):
    one: Any
    log: Annotated[list, operator.add]
    got: Any


class Two(TypedDict, total=False):
    x: Any
    y: Any


NAMES = {
    "InMemorySaver": "checkpoint.memory",
    "SqliteSaver": "checkpoint.sqlite",
    "StateGraph": "graph",
    "START": "graph",
    "END": "graph",
    "SqliteStore": "store.sqlite",
    "Command": "types",
    "Send": "types",
    "interrupt": "types",
}
"""The names a test takes from each library, and the module (under it) holding each."""


def names(library: str) -> dict[str, Any]:
    return {
        name: getattr(importlib.import_module(f"{library}.{module}"), name)
        for name, module in NAMES.items()
    }


def saver(lib: dict[str, Any], kind: str) -> Any:
    if kind == "memory":
        return lib["InMemorySaver"]()
    return lib["SqliteSaver"](sqlite3.connect(":memory:", check_same_thread=False))


def shown(value: Any) -> str:
    """A value's repr, which tells a tuple from a list (``==`` does not inside a dict)."""
    if isinstance(value, dict):
        value = {key: item for key, item in value.items() if key != "__interrupt__"}
    return repr(value)


def main_graph(lib: dict[str, Any]) -> Any:
    send, interrupt = lib["Send"], lib["interrupt"]

    def a(state: State) -> dict:
        return {"one": (1, (2, 3)), "log": [("a", 1)]}

    def ask(state: State) -> dict:
        return {"got": interrupt(("q", (1, 2)))}

    builder = lib["StateGraph"](State)
    builder.add_node("a", a)
    builder.add_node("w", lambda arg: {"log": [("w", arg)]})
    builder.add_node("ask", ask)
    builder.add_edge(lib["START"], "a")
    builder.add_conditional_edges("a", lambda state: [send("w", (5, 6))], ["w"])
    builder.add_edge("w", "ask")
    builder.add_edge("ask", lib["END"])
    return builder


def run(library: str, kind: str) -> list[str]:
    lib = names(library)
    app = main_graph(lib).compile(checkpointer=saver(lib, kind))
    config = {"configurable": {"thread_id": "1"}}
    seen = [shown(app.invoke({"one": ()}, config))]
    state = app.get_state(config)
    seen += [shown(state.values), shown([i.value for i in state.interrupts])]
    seen.append(shown([task.interrupts[0].value for task in state.tasks if task.interrupts]))
    seen.append(shown([past.values.get("one") for past in app.get_state_history(config)]))
    seen.append(shown(app.invoke(lib["Command"](resume=("yes", (1,))), config)))
    update = {"one": {"k": (9,), (1, (2,)): "key"}, "got": [Pair(1, (2,)), Held((3,))]}
    app.update_state(config, update)
    seen.append(shown(app.get_state(config).values))
    return seen + pending_write(lib, kind)


def pending_write(lib: dict[str, Any], kind: str) -> list[str]:
    """What a node of an interrupted step wrote, read back when the step resumes."""
    interrupt, seen = lib["interrupt"], []

    def stop(state: Two) -> dict:
        interrupt("stop")
        return {"y": 1}

    builder = lib["StateGraph"](Two)
    builder.add_node("b", lambda state: {"x": (1, 2)})
    builder.add_node("c", stop)
    builder.add_node("d", lambda state: seen.append(shown(state)) or {})
    builder.add_edge(lib["START"], "b").add_edge(lib["START"], "c")
    builder.add_edge(["b", "c"], "d").add_edge("d", lib["END"])
    app = builder.compile(checkpointer=saver(lib, kind))
    config = {"configurable": {"thread_id": "1"}}
    app.invoke({"x": None}, config)
    seen.append(shown(app.get_state(config).values))
    app.invoke(lib["Command"](resume=1), config)
    return seen


async def run_async(library: str) -> list[str]:
    lib = names(library)
    app = main_graph(lib).compile(checkpointer=lib["InMemorySaver"]())
    config = {"configurable": {"thread_id": "1"}}
    seen = [shown(await app.ainvoke({"one": ()}, config))]
    seen.append(shown((await app.aget_state(config)).values))
    seen.append(shown(await app.ainvoke(lib["Command"](resume=("yes", (1,))), config)))
    return seen


def store_values(library: str) -> list[str]:
    store = names(library)["SqliteStore"](
        sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    )
    store.setup()
    store.put(("a",), "k", {"t": (1, (2,)), "l": [(3,)]})
    return [shown(store.get(("a",), "k").value), shown(store.search(("a",))[0].value)]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_tuples_read_back_from_a_checkpoint_as_in_langgraph(kind):
    expected = run("langgraph", kind)
    assert "'one': [1, [2, 3]]" in expected[1]  # (what this test is about)
    assert run("graphkit", kind) == expected


@pytest.mark.filterwarnings("ignore")
def test_tuples_read_back_from_a_checkpoint_as_in_langgraph_async():
    assert asyncio.run(run_async("graphkit")) == asyncio.run(run_async("langgraph"))


def test_tuples_read_back_from_a_sqlite_store_as_in_langgraph():
    assert store_values("graphkit") == store_values("langgraph")


def sent_across_a_pause(library: str, kind: str) -> list[str]:
    """A ``Send`` saved before a pause (``interrupt_before`` its node), its argument read
    back when the run resumes."""
    lib = names(library)
    builder = lib["StateGraph"](State)
    builder.add_node("a", lambda state: {})
    builder.add_node("w", lambda arg: {"log": [arg]})
    builder.add_edge(lib["START"], "a")
    builder.add_conditional_edges("a", lambda state: [lib["Send"]("w", ("x", (1,)))], ["w"])
    app = builder.compile(checkpointer=saver(lib, kind), interrupt_before=["w"])
    config = {"configurable": {"thread_id": "1"}}
    app.invoke({"log": []}, config)
    return [shown(app.invoke(None, config))]


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_sends_argument_saved_before_a_pause_reads_back_as_in_langgraph(kind):
    """InMemorySaver deep-copied a saved ``Send``, so its tuple argument stayed a tuple
    after the resume (LangGraph's savers, and graphkit's SqliteSaver, give a list)."""
    expected = sent_across_a_pause("langgraph", kind)
    assert expected == ["{'log': [['x', [1]]]}"]
    assert sent_across_a_pause("graphkit", kind) == expected
