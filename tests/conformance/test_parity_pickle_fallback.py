"""``JsonPlusSerializer(pickle_fallback=True)``, as LangGraph's persistence guide gives a
saver that must keep what JSON cannot (a pandas DataFrame): both libraries pickle such a
value, read it back, and refuse it without the flag."""

from __future__ import annotations

import importlib
import sqlite3
from typing import Any, TypedDict

import pytest

from .harness import load_graphkit, load_langgraph


class Opaque:
    """A plain class: no dataclass, no pydantic model, so no serializer can spell it out."""

    def __init__(self, label: str) -> None:
        self.label = label

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Opaque) and other.label == self.label

    def __repr__(self) -> str:
        return f"Opaque({self.label!r})"


class State(TypedDict):
    value: Any


def _module(library: str, path: str) -> Any:
    return importlib.import_module(path.replace("langgraph", library, 1))


def _saver(library: str, kind: str, serde: Any) -> Any:
    if kind == "memory":
        return _module(library, "langgraph.checkpoint.memory").InMemorySaver(serde=serde)
    connection = sqlite3.connect(":memory:", check_same_thread=False)
    return _module(library, "langgraph.checkpoint.sqlite").SqliteSaver(connection, serde=serde)


def _run(library: str, kind: str, pickle_fallback: bool) -> list[str]:
    lib = load_graphkit() if library == "graphkit" else load_langgraph()
    serializers = _module(library, "langgraph.checkpoint.serde.jsonplus")
    serde = serializers.JsonPlusSerializer(pickle_fallback=pickle_fallback)
    builder = lib.StateGraph(State).add_node("keep", lambda state: {"value": Opaque("kept")})
    app = builder.add_edge(lib.START, "keep").compile(checkpointer=_saver(library, kind, serde))
    config = {"configurable": {"thread_id": "1"}}
    try:
        result = app.invoke({"value": 0}, config)
    except TypeError:
        return ["refused with TypeError"]
    restored = app.get_state(config).values
    kind_of, _ = serde.dumps_typed(Opaque("x"))
    return [repr(result), repr(restored), kind_of, repr(serde.loads_typed(serde.dumps_typed(2)))]


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
@pytest.mark.parametrize("pickle_fallback", [True, False])
def test_pickle_fallback_keeps_what_json_cannot(kind, pickle_fallback):
    expected = _run("langgraph", kind, pickle_fallback)
    assert _run("graphkit", kind, pickle_fallback) == expected
    if pickle_fallback:
        assert expected[2] == "pickle"
