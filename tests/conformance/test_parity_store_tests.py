"""What LangGraph's own store tests (``libs/checkpoint/tests/test_store.py``,
``libs/checkpoint-sqlite/tests/test_store.py``) pin, on both libraries: the names they
import, what a store shows of its index and its search results, the error of an unknown
operation, and dotted filter keys (a path into nested values in the SQLite store, a field
name in the in-memory one)."""

import importlib
from types import ModuleType
from typing import Any

import pytest

ROOTS = ("langgraph", "graphkit")


def _module(root: str, name: str) -> ModuleType:
    return importlib.import_module(f"{root}.{name}")


def test_the_async_sqlite_store_is_importable_from_the_sqlite_package() -> None:
    for root in ROOTS:
        package = _module(root, "store.sqlite")
        assert package.AsyncSqliteStore is _module(root, "store.sqlite.aio").AsyncSqliteStore
        assert "AsyncSqliteStore" in package.__all__
