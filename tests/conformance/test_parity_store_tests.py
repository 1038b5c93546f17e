"""What LangGraph's own store tests (``libs/checkpoint/tests/test_store.py``,
``libs/checkpoint-sqlite/tests/test_store.py``) pin, on both libraries: the names they
import, what a store shows of its index and its search results, the error of an unknown
operation, and dotted filter keys (a path into nested values in the SQLite store, a field
name in the in-memory one)."""

import importlib
from types import ModuleType
from typing import Any

import pytest
from langchain_core.embeddings import Embeddings

ROOTS = ("langgraph", "graphkit")


def _module(root: str, name: str) -> ModuleType:
    return importlib.import_module(f"{root}.{name}")


def test_the_async_sqlite_store_is_importable_from_the_sqlite_package() -> None:
    for root in ROOTS:
        package = _module(root, "store.sqlite")
        assert package.AsyncSqliteStore is _module(root, "store.sqlite.aio").AsyncSqliteStore
        assert "AsyncSqliteStore" in package.__all__


class _CountingEmbeddings(Embeddings):
    """A LangChain ``Embeddings`` that counts letters."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[float(len(text)), 1.0] for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def test_a_stores_embeddings_are_the_embeddings_it_was_given() -> None:
    given = _CountingEmbeddings()
    index = {"dims": 2, "embed": given}
    stores = [
        _module("langgraph", "store.memory").InMemoryStore(index=index),
        _module("graphkit", "store.memory").InMemoryStore(index=index),
        _module("graphkit", "store.sqlite").SqliteStore(index=index),
    ]
    assert [store.embeddings is given for store in stores] == [True, True, True]
    assert [store.index_config["embed"] is given for store in stores] == [True, True, True]


def _stores(root: str) -> list[Any]:
    stores = [_module(root, "store.memory").InMemoryStore()]
    if root == "graphkit":
        stores.append(_module(root, "store.sqlite").SqliteStore())
    return stores


def test_search_results_print_as_items_with_their_score() -> None:
    seen = []
    for root in ROOTS:
        base = _module(root, "store.base")
        when = "2026-01-02T03:04:05"
        made = base.SearchItem(("n",), "k", {"a": 1}, when, when, 0.5)
        seen.append(repr(made))
        for store in _stores(root):
            store.put(("n",), "k", {"a": 1})
            (found,) = store.search(("n",))
            assert repr(found).startswith("Item(namespace=['n'], key='k', value={'a': 1}, ")
            assert repr(found).endswith(", score=None)")
    assert seen[0] == seen[1]
    assert seen[1].startswith("Item(namespace=['n'], key='k'")


def test_a_batch_given_no_operation_raises_value_error() -> None:
    for root in ROOTS:
        for store in _stores(root):
            with pytest.raises(ValueError, match=r"(?i)unknown"):
                store.batch([("not", "an", "op")])
