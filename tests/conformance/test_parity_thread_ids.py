"""A ``thread_id`` that is not a string (a ``uuid.UUID``, as LangGraph's time-travel docs
use, or an int) names the same thread as its ``str()`` on both libraries and both
savers: its history and state find what the run saved. (Called directly with such an
id, LangGraph's savers find nothing in memory and raise in SQLite; graphkit's read it as
its ``str()``.)"""

import sqlite3
import uuid
from typing import Any, TypedDict

import pytest

from .harness import load_graphkit, load_langgraph

LIBS = [load_langgraph, load_graphkit]


class Count(TypedDict):
    x: int


def _saver(library: str, kind: str) -> Any:
    if kind == "memory":
        if library == "langgraph":
            from langgraph.checkpoint.memory import InMemorySaver
        else:
            from graphkit import InMemorySaver
        return InMemorySaver()
    connection = sqlite3.connect(":memory:", check_same_thread=False)
    if library == "langgraph":
        from langgraph.checkpoint.sqlite import SqliteSaver
    else:
        from graphkit import SqliteSaver
    return SqliteSaver(connection)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
@pytest.mark.parametrize(
    "thread", [uuid.UUID("12345678-1234-5678-1234-567812345678"), 7], ids=["uuid", "int"]
)
def test_a_thread_id_that_is_not_a_string_keeps_its_history(thread, kind):
    seen = []
    for loader in LIBS:
        lib = loader()
        app = lib.StateGraph(Count).add_node("a", lambda state: {"x": state["x"] + 1})
        app = app.add_edge(lib.START, "a").compile(checkpointer=_saver(lib.name, kind))
        config = {"configurable": {"thread_id": thread}}
        as_text = {"configurable": {"thread_id": str(thread)}}
        output = app.invoke({"x": 1}, config)
        counts = [len(list(app.get_state_history(c))) for c in (config, as_text)]
        seen.append((output, counts, app.get_state(config).values))
    assert seen[1] == seen[0]
    assert seen[1] == ({"x": 2}, [3, 3], {"x": 2})


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_graphkits_savers_read_a_thread_id_as_its_string(kind):
    lib = load_graphkit()
    app = lib.StateGraph(Count).add_node("a", lambda state: {"x": state["x"] + 1})
    app = app.add_edge(lib.START, "a").compile(checkpointer=_saver("graphkit", kind))
    thread = uuid.uuid4()
    app.invoke({"x": 1}, {"configurable": {"thread_id": thread}})
    assert len(list(app.checkpointer.list({"configurable": {"thread_id": thread}}))) == 3
    app.checkpointer.delete_thread(thread)
    assert app.get_state({"configurable": {"thread_id": str(thread)}}).values == {}
