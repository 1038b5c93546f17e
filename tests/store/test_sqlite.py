"""graphkit.store.sqlite.SqliteStore: persistence, serialization, TTLs and sweeping."""

from __future__ import annotations

import sqlite3
import time
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from graphkit.store.sqlite import SqliteStore


def test_items_survive_reopening_the_file(tmp_path) -> None:
    path = tmp_path / "store.db"
    SqliteStore(path).put(("users", "ada"), "prefs", {"theme": "dark"})
    again = SqliteStore(path)
    assert again.get(("users", "ada"), "prefs").value == {"theme": "dark"}
    assert again.list_namespaces() == [("users", "ada")]


def test_values_use_graphkits_serializer_not_pickle() -> None:
    store = SqliteStore()
    value = {"when": datetime(2026, 1, 1, tzinfo=UTC), "amount": Decimal("1.5"), "t": (1, 2)}
    store.put(("a",), "k", value)
    # (the tuple reads back as a list, as from LangGraph's SqliteStore)
    assert store.get(("a",), "k").value == {**value, "t": [1, 2]}
    (encoding,) = store.conn.execute("SELECT encoding FROM store").fetchone()
    assert "pickle" not in encoding
    with pytest.raises(TypeError, match="Cannot checkpoint"):
        store.put(("a",), "bad", {"thing": object()})
    assert store.get(("a",), "bad") is None


def test_a_given_connection_is_used_and_setup_repeats() -> None:
    connection = sqlite3.connect(":memory:")
    store = SqliteStore(connection)
    store.setup()
    store.put(("a",), "k", {"v": 1})
    assert connection.execute("SELECT COUNT(*) FROM store").fetchone() == (1,)
    assert repr(store) == "SqliteStore(path='<connection>', items=1)"


def test_a_prefix_does_not_match_a_longer_label() -> None:
    store = SqliteStore()
    store.put(("ab",), "1", {})
    store.put(("a", "b"), "2", {})
    assert [item.key for item in store.search(("a",))] == ["2"]


def expires_at(store: SqliteStore, key: str) -> float:
    (when,) = store.conn.execute("SELECT expires_at FROM store WHERE key = ?", (key,)).fetchone()
    return when


def test_reads_refresh_the_ttl_only_where_the_store_says_so() -> None:
    """As LangGraph's SqliteStore: only a store whose ttl has refresh_on_read=True
    restarts an item's clock on a read, and a read's refresh_ttl=False leaves it."""
    for ttl, refreshes in (
        ({"default_ttl": 10, "refresh_on_read": False}, False),
        ({"default_ttl": 10}, False),
        ({"default_ttl": 10, "refresh_on_read": True}, True),
    ):
        store = SqliteStore(ttl=ttl)
        store.put(("a",), "k", {"v": 1})
        first = expires_at(store, "k")
        assert first == pytest.approx(time.time() + 600, abs=5)
        time.sleep(0.01)
        store.get(("a",), "k", refresh_ttl=False)
        assert expires_at(store, "k") == first
        store.get(("a",), "k", refresh_ttl=True)
        assert (expires_at(store, "k") > first) is refreshes
    store.put(("a",), "never", {"v": 1}, ttl=None)
    assert expires_at(store, "never") is None


def test_expired_items_are_hidden_when_configured_and_swept() -> None:
    store = SqliteStore(ttl={"omit_expired": True})
    store.put(("a",), "old", {"v": 1}, ttl=-1)
    store.put(("a",), "new", {"v": 2}, ttl=60)
    store.put(("b",), "old", {"v": 1}, ttl=-1)
    assert store.get(("a",), "old") is None
    assert [item.key for item in store.search(("a",))] == ["new"]
    assert store.list_namespaces() == [("a",)]
    assert store.sweep_ttl() == 2


def test_the_sweeper_starts_and_stops() -> None:
    store = SqliteStore()
    store.put(("a",), "old", {"v": 1}, ttl=-1)
    done = store.start_ttl_sweeper(sweep_interval_minutes=0.001)
    assert store.start_ttl_sweeper().done()  # a second start changes nothing
    deadline = time.time() + 5
    while store.get(("a",), "old") is not None and time.time() < deadline:
        time.sleep(0.02)
    assert store.get(("a",), "old") is None
    assert store.stop_ttl_sweeper(timeout=5)
    assert done.result(timeout=1) is None
    assert store.stop_ttl_sweeper()


def test_from_conn_string_closes_the_connection(tmp_path) -> None:
    with SqliteStore.from_conn_string(str(tmp_path / "s.db")) as store:
        store.put(("a",), "k", {"v": 1})
    with pytest.raises(sqlite3.ProgrammingError):
        store.get(("a",), "k")
