"""SqliteStore: a Store in a SQLite database, shared across threads and kept across
restarts (LangGraph's ``SqliteStore``), with TTLs and optional semantic search.

Values are written with graphkit's serializer (``graphkit.checkpoint.serde``, never
pickle); filters are applied to the values read back, so they behave exactly as
``InMemoryStore``'s do. Vectors are kept as JSON in the ``store_vectors`` table and
compared in Python (cosine), so no SQLite extension is needed.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graphkit.checkpoint.serde import JsonPlusSerializer
from graphkit.store.base import (
    GetOp,
    IndexConfig,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
    matches_filter,
    matches_namespace,
    unknown_operation,
    validate_labels,
)
from graphkit.store.index import IndexedStore, Vectors, rank
from graphkit.store.memory import cut_and_page

__all__ = ["AsyncSqliteStore", "SqliteStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS store_namespaces (
    prefix TEXT PRIMARY KEY   -- labels joined by '.'; rowid = order first written
);
CREATE TABLE IF NOT EXISTS store (
    prefix TEXT NOT NULL,
    key TEXT NOT NULL,
    encoding TEXT NOT NULL,
    value BLOB NOT NULL,
    created_at TEXT NOT NULL,  -- ISO 8601, UTC
    updated_at TEXT NOT NULL,
    ttl_minutes REAL,          -- NULL: never expires
    expires_at REAL,           -- seconds since the epoch
    PRIMARY KEY (prefix, key)
);
CREATE TABLE IF NOT EXISTS store_vectors (
    prefix TEXT NOT NULL,
    key TEXT NOT NULL,
    field TEXT NOT NULL,       -- the field path the text came from ('text', 'tags.0'...)
    vector TEXT NOT NULL,      -- JSON list of floats
    PRIMARY KEY (prefix, key, field)
);
"""

_COLUMNS = "s.prefix, s.key, s.encoding, s.value, s.created_at, s.updated_at"
_IN_ORDER = "JOIN store_namespaces n ON n.prefix = s.prefix ORDER BY n.rowid, s.rowid"


class SqliteStore(IndexedStore):
    """A Store in SQLite: give a path (``":memory:"`` works) or an open connection.

    Items keep ``InMemoryStore``'s order (namespaces as first written, keys as put).
    ``put(..., ttl=minutes)`` expires an item; ``ttl=TTLConfig(...)`` sets the
    defaults; ``sweep_ttl()`` deletes expired items and ``start_ttl_sweeper()`` does
    so every ``sweep_interval_minutes`` on a background thread. ``index=`` (see
    ``IndexConfig``) turns on semantic search, as in ``InMemoryStore``.

    >>> store = SqliteStore(":memory:")
    >>> store.put(("users", "ada"), "prefs", {"theme": "dark"}, ttl=60)
    >>> store.get(("users", "ada"), "prefs").value
    {'theme': 'dark'}
    >>> store.delete(("users", "ada"), "prefs")
    >>> store
    SqliteStore(path=':memory:', items=0)
    >>> def embed(texts):
    ...     return [[text.count("cat"), text.count("dog")] for text in texts]
    >>> pets = SqliteStore(index={"dims": 2, "embed": embed, "fields": ["text"]})
    >>> pets.put(("pets",), "a", {"text": "a cat"})
    >>> pets.put(("pets",), "b", {"text": "a dog"})
    >>> [(item.key, item.score) for item in pets.search(("pets",), query="dog")]
    [('b', 1.0), ('a', 0.0)]
    """

    supports_ttl = True

    def __init__(
        self,
        conn_or_path: sqlite3.Connection | str | Path = ":memory:",
        *,
        ttl: TTLConfig | None = None,
        serde: Any = None,
        index: IndexConfig | None = None,
    ) -> None:
        self.use_index(index)
        if isinstance(conn_or_path, sqlite3.Connection):
            self.path = "<connection>"
            self.conn = conn_or_path
        else:
            self.path = str(conn_or_path)
            self.conn = sqlite3.connect(self.path, check_same_thread=False)
        self.ttl_config = ttl
        self.serde = serde or JsonPlusSerializer()
        self._lock = threading.RLock()
        self._sweeper: threading.Thread | None = None
        self._stop = threading.Event()
        SqliteStore.setup(self)  # not self.setup(): AsyncSqliteStore's is a coroutine

    @classmethod
    @contextmanager
    def from_conn_string(
        cls, path: str, *, ttl: TTLConfig | None = None, index: IndexConfig | None = None
    ) -> Iterator[SqliteStore]:
        """A store on ``path`` that is closed when the ``with`` block ends."""
        store = cls(path, ttl=ttl, index=index)
        try:
            yield store
        finally:
            store.stop_ttl_sweeper()
            store.conn.close()

    def setup(self) -> None:
        """Create the tables if they are missing (done on construction; safe to repeat)."""
        with self._lock, self.conn:
            self.conn.executescript(_SCHEMA)

    def __repr__(self) -> str:
        with self._lock:
            (items,) = self.conn.execute("SELECT COUNT(*) FROM store").fetchone()
        return f"SqliteStore(path={self.path!r}, items={items})"

    def apply(self, ops: list[Op], vectors: Vectors) -> list[Result]:
        """Run ``ops`` (embedded already) in one transaction: the reads first, then the
        writes (in order)."""
        for op in ops:
            validate_labels(_namespace_of(op))
        with self._lock, self.conn:
            results = [self._read(op, vectors) for op in ops]
            for op in ops:
                if isinstance(op, PutOp):
                    self._write(op, vectors)
        return results

    # Reading.

    def _read(self, op: Op, vectors: Vectors) -> Result:
        if isinstance(op, GetOp):
            found = self._rows("s.prefix = ? AND s.key = ?", [_text(op.namespace), op.key])
            self._refresh(found, op.refresh_ttl)
            return _item(self._decode(found[0]), Item) if found else None
        if isinstance(op, SearchOp):
            return self._search(op, vectors)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        if isinstance(op, PutOp):
            return None
        raise unknown_operation(op)

    def _rows(self, where: str, parameters: list[Any]) -> list[tuple[Any, ...]]:
        if (self.ttl_config or {}).get("omit_expired", False):
            where += " AND (s.expires_at IS NULL OR s.expires_at >= ?)"
            parameters = [*parameters, time.time()]
        query = f"SELECT {_COLUMNS} FROM store s {_IN_ORDER}".replace(
            "ORDER BY", f"WHERE {where} ORDER BY"
        )
        return self.conn.execute(query, parameters).fetchall()

    def _decode(self, row: tuple[Any, ...]) -> tuple[Any, ...]:
        prefix, key, encoding, data, created_at, updated_at = row
        value = self.serde.loads_typed((encoding, data))
        return (tuple(prefix.split(".")), key, value, created_at, updated_at)

    def _search(self, op: SearchOp, vectors: Vectors) -> list[SearchItem]:
        where, parameters = _under(op.namespace_prefix)
        decoded = [self._decode(row) for row in self._rows(where, parameters)]
        kept = [row for row in decoded if matches_filter(row[2], op.filter)]
        if op.query in vectors.queries:
            stored = self._stored_vectors(op.namespace_prefix)
            candidates = [(row, stored.get((row[0], row[1]), {})) for row in kept]
            ranked = rank(candidates, vectors.queries[op.query])  # type: ignore[arg-type]
        else:
            ranked = [(row, None) for row in kept]
        page = ranked[op.offset : op.offset + op.limit]
        self._refresh([(_text(row[0]), row[1]) for row, _ in page], op.refresh_ttl)
        return [_item(row, SearchItem, score) for row, score in page]

    def _stored_vectors(self, prefix: tuple[str, ...]) -> dict[Any, dict[str, list[float]]]:
        """The vectors of the items under ``prefix``, by (namespace, key), then field."""
        where, parameters = _under(prefix)
        rows = self.conn.execute(
            f"SELECT s.prefix, s.key, s.field, s.vector FROM store_vectors s WHERE {where} "
            "ORDER BY s.rowid",
            parameters,
        )
        stored: dict[Any, dict[str, list[float]]] = {}
        for text, key, field, vector in rows:
            stored.setdefault((_namespace(text), key), {})[field] = json.loads(vector)
        return stored

    def _refresh(self, found: list[tuple[Any, ...]], refresh: bool) -> None:
        """Restart the TTL clock of the items read, when reads refresh it: only in a store
        whose ``ttl`` says ``refresh_on_read=True`` (as LangGraph's SqliteStore; a read's
        ``refresh_ttl=True`` does not override a store that never refreshes)."""
        if not (refresh and (self.ttl_config or {}).get("refresh_on_read", False)):
            return
        for prefix, key, *_ in found:
            self.conn.execute(
                "UPDATE store SET expires_at = ? + ttl_minutes * 60 "
                "WHERE prefix = ? AND key = ? AND ttl_minutes IS NOT NULL",
                (time.time(), prefix, key),
            )

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        rows = self._rows("1", [])
        namespaces = {_namespace(row[0]) for row in rows}
        conditions = op.match_conditions or ()
        kept = [ns for ns in namespaces if all(matches_namespace(c, ns) for c in conditions)]
        return cut_and_page(kept, op)

    # Writing.

    def _write(self, op: PutOp, vectors: Vectors) -> None:
        prefix = _text(op.namespace)
        # A put replaces the item's vectors (none with index=False); a delete drops them.
        self.conn.execute(
            "DELETE FROM store_vectors WHERE prefix = ? AND key = ?", (prefix, op.key)
        )
        if op.value is None:
            self.conn.execute("DELETE FROM store WHERE prefix = ? AND key = ?", (prefix, op.key))
            return
        encoding, data = self.serde.dumps_typed(dict(op.value))
        now = datetime.now(UTC).isoformat()
        expires_at = None if op.ttl is None else time.time() + op.ttl * 60
        self.conn.execute("INSERT OR IGNORE INTO store_namespaces (prefix) VALUES (?)", (prefix,))
        # An upsert keeps the row (and so its place in search order) when a key is replaced.
        self.conn.execute(
            "INSERT INTO store (prefix, key, encoding, value, created_at, updated_at, "
            "ttl_minutes, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (prefix, key) DO UPDATE SET encoding = excluded.encoding, "
            "value = excluded.value, created_at = excluded.created_at, "
            "updated_at = excluded.updated_at, ttl_minutes = excluded.ttl_minutes, "
            "expires_at = excluded.expires_at",
            (prefix, op.key, encoding, data, now, now, op.ttl, expires_at),
        )
        for field, vector in vectors.items.get((op.namespace, op.key), {}).items():
            self.conn.execute(
                "INSERT INTO store_vectors (prefix, key, field, vector) VALUES (?, ?, ?, ?)",
                (prefix, op.key, field, json.dumps(vector)),
            )

    # TTL sweeping.

    def sweep_ttl(self) -> int:
        """Delete the expired items; return how many were deleted."""
        with self._lock, self.conn:
            cursor = self.conn.execute(
                "DELETE FROM store WHERE expires_at IS NOT NULL AND expires_at < ?", (time.time(),)
            )
            self.conn.execute(  # the swept items' vectors go too
                "DELETE FROM store_vectors "
                "WHERE (prefix, key) NOT IN (SELECT prefix, key FROM store)"
            )
        return cursor.rowcount

    def start_ttl_sweeper(self, sweep_interval_minutes: float | None = None) -> Future[None]:
        """Sweep every ``sweep_interval_minutes`` (else the config's, else 5) on a thread;
        the returned future finishes when ``stop_ttl_sweeper`` stops it."""
        done: Future[None] = Future()
        if self._sweeper is not None:
            done.set_result(None)  # already running: nothing more to start
            return done
        config = self.ttl_config or {}
        minutes = sweep_interval_minutes or config.get("sweep_interval_minutes") or 5
        self._stop.clear()

        def sweep_until_stopped() -> None:
            while not self._stop.wait(minutes * 60):
                SqliteStore.sweep_ttl(self)  # (AsyncSqliteStore's is a coroutine)
            done.set_result(None)

        self._sweeper = threading.Thread(target=sweep_until_stopped, daemon=True)
        self._sweeper.start()
        return done

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Stop the sweeper thread; True when it has stopped (or none was running)."""
        if self._sweeper is None:
            return True
        self._stop.set()
        self._sweeper.join(timeout)
        stopped = not self._sweeper.is_alive()
        if stopped:
            self._sweeper = None
        return stopped


def _text(namespace: tuple[str, ...]) -> str:
    return ".".join(namespace)


def _under(namespace_prefix: tuple[str, ...]) -> tuple[str, list[Any]]:
    """SQL (on table ``s``) for the rows whose namespace starts with ``namespace_prefix``."""
    if not namespace_prefix:
        return "1", []
    prefix = _text(namespace_prefix)
    return "(s.prefix = ? OR substr(s.prefix, 1, ?) = ?)", [prefix, len(prefix) + 1, prefix + "."]


def _namespace(prefix: str) -> tuple[str, ...]:
    return tuple(prefix.split("."))


def _namespace_of(op: Op) -> tuple[str, ...]:
    if isinstance(op, SearchOp):
        return op.namespace_prefix
    if isinstance(op, ListNamespacesOp):
        return tuple(label for c in op.match_conditions or () for label in c.path)
    if isinstance(op, GetOp | PutOp):
        return op.namespace
    raise unknown_operation(op)


def _item(row: tuple[Any, ...], kind: type[Item], score: float | None = None) -> Any:
    namespace, key, value, created_at, updated_at = row
    if kind is SearchItem:
        return SearchItem(namespace, key, value, created_at, updated_at, score)
    return Item(
        value=value, key=key, namespace=namespace, created_at=created_at, updated_at=updated_at
    )


# LangGraph's async store is importable from here too (``from langgraph.store.sqlite import
# AsyncSqliteStore``); it subclasses SqliteStore, so it is imported once that class exists.
from graphkit.store.sqlite.aio import AsyncSqliteStore  # noqa: E402
