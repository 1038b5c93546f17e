"""Values LangGraph's default serializer writes that are neither plain data nor a user's
class: a store's ``Item`` and ``SearchItem`` (a node keeping what ``store.get`` or
``store.search`` returned) and pydantic's ``SecretStr`` and ``SecretBytes`` (alone or as a
model's field). Saved and read back, they are the same values on both libraries."""

from __future__ import annotations

import importlib
import sqlite3
from typing import Any, TypedDict

import pytest
from pydantic import BaseModel, SecretBytes, SecretStr, field_validator

from .harness import Lib, load_graphkit, load_langgraph


class Credentials(BaseModel):
    api_key: SecretStr
    retries: int = 0


class Found(TypedDict):
    found: Any


def _module(lib: Lib, path: str) -> Any:
    return importlib.import_module(f"{lib.name}.{path}")


def _saver(lib: Lib, kind: str) -> Any:
    if kind == "memory":
        return _module(lib, "checkpoint.memory").InMemorySaver()
    connection = sqlite3.connect(":memory:", check_same_thread=False)
    return _module(lib, "checkpoint.sqlite").SqliteSaver(connection)


def _kept_store_results(lib: Lib, kind: str) -> list[str]:
    """A node keeps ``store.get`` and ``store.search`` results in the state."""
    store = _module(lib, "store.memory").InMemoryStore()
    store.put(("memories",), "a", {"text": "likes tea"})

    def recall(state: Found, *, store):  # (no annotation: LangGraph injects by name)
        return {"found": [store.get(("memories",), "a"), *store.search(("memories",))]}

    graph = _module(lib, "graph").StateGraph(Found)
    graph.add_node("recall", recall)
    graph.set_entry_point("recall")
    app = graph.compile(checkpointer=_saver(lib, kind), store=store)
    config = {"configurable": {"thread_id": "1"}}
    app.invoke({"found": None}, config)
    found = app.get_state(config).values["found"]
    return [_item_described(item) for item in found]


def _item_described(item: Any) -> str:
    """Its class and fields; of its timestamps (the moment of the run), their types."""
    stamps = [
        f"{type(when).__name__} aware={when.tzinfo is not None}"
        for when in (item.created_at, item.updated_at)
    ]
    fields = (item.namespace, item.key, item.value, *stamps, getattr(item, "score", "-"))
    return f"{type(item).__name__} {fields}"


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_node_keeping_store_items_is_saved_and_read_back_as_in_langgraph(kind):
    expected = _kept_store_results(load_langgraph(), kind)
    assert _kept_store_results(load_graphkit(), kind) == expected


SECRETS = {
    "secret str": SecretStr("sk-123"),
    "secret bytes": SecretBytes(b"\x00key"),
    "secrets in a list": [SecretStr("a"), SecretBytes(b"b")],
    "a model with a secret field": Credentials(api_key=SecretStr("sk-9"), retries=2),
}


def _described(value: Any) -> Any:
    if isinstance(value, list):
        return [_described(item) for item in value]
    if isinstance(value, (SecretStr, SecretBytes)):
        return type(value).__name__, value.get_secret_value()
    if isinstance(value, Credentials):
        return "Credentials", _described(value.api_key), value.retries
    return type(value).__name__, value


@pytest.mark.parametrize("name", list(SECRETS))
def test_a_pydantic_secret_reads_back_as_in_langgraph(name):
    def round_trip(lib: Lib) -> Any:
        serde = _module(lib, "checkpoint.serde.jsonplus").JsonPlusSerializer()
        serde = serde.with_msgpack_allowlist([Credentials])
        return _described(serde.loads_typed(serde.dumps_typed(SECRETS[name])))

    expected = round_trip(load_langgraph())
    assert round_trip(load_graphkit()) == expected
    assert expected == _described(SECRETS[name])


class NonNegative(BaseModel):
    n: int

    @field_validator("n")
    @classmethod
    def not_negative(cls, n: int) -> int:
        if n < 0:
            raise ValueError("n must be >= 0")
        return n


def _kept_invalid_model(lib: Lib, kind: str) -> Any:
    """A node keeps a model its validator would refuse (built with ``model_construct``)."""
    graph = _module(lib, "graph").StateGraph(Found)
    graph.add_node("keep", lambda state: {"found": NonNegative.model_construct(n=-5)})
    graph.set_entry_point("keep")
    app = graph.compile(checkpointer=_saver(lib, kind))
    config = {"configurable": {"thread_id": "1"}}
    app.invoke({"found": None}, config)
    found = app.get_state(config).values["found"]
    return type(found).__name__, found.n, len(list(app.get_state_history(config)))


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_saved_model_its_validator_refuses_is_read_back_as_in_langgraph(kind):
    """graphkit's SqliteSaver validated the model as it read it, and raised
    CheckpointDecodeError: the thread could no longer be read at all."""
    expected = _kept_invalid_model(load_langgraph(), kind)
    assert _kept_invalid_model(load_graphkit(), kind) == expected == ("NonNegative", -5, 3)
