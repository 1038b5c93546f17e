"""SqliteCache: a node cache in a SQLite file, shared by processes and kept across
restarts (LangGraph's ``SqliteCache``)."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

from graphkit.cache.base import BaseCache, FullKey, Namespace

__all__ = ["SqliteCache"]

_SCHEMA = """CREATE TABLE IF NOT EXISTS cache (
    ns TEXT NOT NULL,      -- the namespace's parts joined by ','
    key TEXT NOT NULL,
    expiry REAL,           -- seconds since the epoch; NULL: never expires
    encoding TEXT NOT NULL,
    val BLOB NOT NULL,
    PRIMARY KEY (ns, key)
)"""


class SqliteCache(BaseCache):
    """Keeps cached task writes in a SQLite database at ``path`` (``":memory:"`` works),
    written with graphkit's serializer (never pickle).

    >>> cache = SqliteCache(path=":memory:")
    >>> cache.set({(("ns", "a"), "k"): ([("x", 1)], 60)})
    >>> cache.get([(("ns", "a"), "k")])
    {(('ns', 'a'), 'k'): [['x', 1]]}
    """

    def __init__(self, path: str = ":memory:", *, serde: Any = None) -> None:
        super().__init__(serde=serde)
        self.path = str(path)
        self._lock = threading.RLock()
        self._connection = sqlite3.connect(self.path, check_same_thread=False)
        with self._lock, self._connection:
            if self.path != ":memory:":
                self._connection.execute("PRAGMA journal_mode=WAL")
            self._connection.execute(_SCHEMA)

    def get(self, keys: Sequence[FullKey]) -> dict[FullKey, Any]:
        """The unexpired values of ``keys``; expired rows are deleted on the way."""
        if not keys:
            return {}
        now = time.time()
        wanted = [(",".join(namespace), key) for namespace, key in keys]
        found: dict[FullKey, Any] = {}
        with self._lock, self._connection:
            for ns, key in wanted:
                row = self._connection.execute(
                    "SELECT expiry, encoding, val FROM cache WHERE ns = ? AND key = ?", (ns, key)
                ).fetchone()
                if row is None:
                    continue
                expiry, encoding, data = row
                if expiry is not None and now >= expiry:
                    self._connection.execute(
                        "DELETE FROM cache WHERE ns = ? AND key = ?", (ns, key)
                    )
                    continue
                found[(tuple(ns.split(",")), key)] = self.serde.loads_typed((encoding, data))
        return found

    def set(self, pairs: Mapping[FullKey, tuple[Any, float | None]]) -> None:
        """Store each ``key: (value, ttl seconds or None)``, replacing what was there."""
        now = time.time()
        rows = []
        for (namespace, key), (value, ttl) in pairs.items():
            encoding, data = self.serde.dumps_typed(value)
            expiry = None if ttl is None else now + ttl
            rows.append((",".join(namespace), key, expiry, encoding, data))
        with self._lock, self._connection:
            self._connection.executemany(
                "INSERT OR REPLACE INTO cache (ns, key, expiry, encoding, val) "
                "VALUES (?, ?, ?, ?, ?)",
                rows,
            )

    def clear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        """Delete the rows of ``namespaces`` (every row when None)."""
        with self._lock, self._connection:
            if namespaces is None:
                self._connection.execute("DELETE FROM cache")
            else:
                self._connection.executemany(
                    "DELETE FROM cache WHERE ns = ?", [(",".join(ns),) for ns in namespaces]
                )

    def close(self) -> None:
        """Close the database connection."""
        self._connection.close()

    def __repr__(self) -> str:
        return f"SqliteCache(path={self.path!r})"
