"""AsyncSqliteStore: LangGraph's async SQLite store, by name, for code moved from it.

graphkit's ``SqliteStore`` already has the async verbs (``aput``, ``aget``, ``asearch``...;
they run the same SQLite calls). LangGraph's async apps open theirs as
``langgraph.store.sqlite.aio.AsyncSqliteStore``; this class is ``SqliteStore`` with what that
one's API awaits: ``from_conn_string`` as an *async* context manager, ``setup()``,
``sweep_ttl()``, ``start_ttl_sweeper()`` and ``stop_ttl_sweeper()``.

>>> import asyncio
>>> async def main():
...     async with AsyncSqliteStore.from_conn_string(":memory:") as store:
...         await store.setup()
...         await store.aput(("users",), "ada", {"theme": "dark"})
...         return (await store.aget(("users",), "ada")).value, repr(store)
>>> asyncio.run(main())
({'theme': 'dark'}, "AsyncSqliteStore(path=':memory:', items=1)")
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from graphkit.store.base import TTLConfig
from graphkit.store.index import IndexConfig
from graphkit.store.sqlite import SqliteStore

__all__ = ["AsyncSqliteStore"]


class AsyncSqliteStore(SqliteStore):
    """``SqliteStore`` under the name and the awaited openers of LangGraph's
    ``AsyncSqliteStore``. It takes a path or a ``sqlite3`` connection, not an ``aiosqlite``
    one."""

    def __init__(self, conn_or_path: sqlite3.Connection | str | Path = ":memory:", **options: Any):
        if not isinstance(conn_or_path, sqlite3.Connection | str | Path):
            raise TypeError(
                f"AsyncSqliteStore takes a path or a sqlite3.Connection, got "
                f"{type(conn_or_path).__name__}: graphkit's store needs no aiosqlite "
                "connection. Use `async with AsyncSqliteStore.from_conn_string(path) as store`."
            )
        super().__init__(conn_or_path, **options)

    @classmethod
    @asynccontextmanager
    async def from_conn_string(  # type: ignore[override]
        cls, conn_string: str, *, index: IndexConfig | None = None, ttl: TTLConfig | None = None
    ) -> AsyncIterator[AsyncSqliteStore]:
        """A store on ``conn_string``, its sweeper stopped and file closed when the
        ``async with`` block ends."""
        store = await asyncio.to_thread(cls, conn_string, ttl=ttl, index=index)
        try:
            yield store
        finally:
            await store.stop_ttl_sweeper()
            store.conn.close()

    async def setup(self) -> None:  # type: ignore[override]
        """Create the tables if they are missing (done on construction; safe to repeat)."""
        await asyncio.to_thread(super().setup)

    async def sweep_ttl(self) -> int:  # type: ignore[override]
        """Delete the expired items; how many went."""
        return await asyncio.to_thread(super().sweep_ttl)

    async def start_ttl_sweeper(  # type: ignore[override]
        self, sweep_interval_minutes: float | None = None
    ) -> asyncio.Future[None]:
        """Sweep on a background thread; the future finishes when the sweeper stops."""
        return asyncio.wrap_future(super().start_ttl_sweeper(sweep_interval_minutes))

    async def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:  # type: ignore[override]
        """Stop the sweeper; True when it has stopped (or none was running)."""
        return await asyncio.to_thread(super().stop_ttl_sweeper, timeout)

    def __repr__(self) -> str:
        return "Async" + super().__repr__()
