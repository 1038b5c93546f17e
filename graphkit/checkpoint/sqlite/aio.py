"""AsyncSqliteSaver: LangGraph's async SQLite saver, by name, for code moved from it.

LangGraph's ``SqliteSaver`` is sync only, so its async apps use
``langgraph.checkpoint.sqlite.aio.AsyncSqliteSaver`` (on ``aiosqlite``). graphkit's
``SqliteSaver`` already serves ``ainvoke`` and ``astream``: its async methods run the same
SQLite calls in a worker thread. This class is that saver with what LangGraph's async one
adds to the API: ``from_conn_string`` as an *async* context manager, and an awaitable
``setup()``. Its sync methods work too, also on the event loop's thread (LangGraph's
refuse there).

>>> import asyncio
>>> async def main():
...     async with AsyncSqliteSaver.from_conn_string(":memory:") as saver:
...         await saver.setup()
...         return repr(saver), [saved async for saved in saver.alist(None)]
>>> asyncio.run(main())
("AsyncSqliteSaver(':memory:')", [])
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from graphkit.checkpoint.serde import SerializerProtocol
from graphkit.checkpoint.sqlite import SqliteSaver
from graphkit.checkpoint.sqlite_file import file_error

__all__ = ["AsyncSqliteSaver"]


class AsyncSqliteSaver(SqliteSaver):
    """``SqliteSaver`` under the name and the async ``from_conn_string`` / ``setup`` of
    LangGraph's ``AsyncSqliteSaver``. It takes a ``sqlite3`` connection, not an
    ``aiosqlite`` one."""

    _block = "async with"

    def __init__(self, conn: sqlite3.Connection, *, serde: SerializerProtocol | None = None):
        if not isinstance(conn, sqlite3.Connection):
            raise TypeError(
                f"AsyncSqliteSaver takes a sqlite3.Connection, got {type(conn).__name__}: "
                "graphkit's saver runs its SQLite calls in a worker thread, so it needs no "
                "aiosqlite connection. Use `async with AsyncSqliteSaver.from_conn_string(path)"
                " as saver`, or pass sqlite3.connect(path, check_same_thread=False)."
            )
        super().__init__(conn, serde=serde)

    @classmethod
    @asynccontextmanager
    async def from_conn_string(  # type: ignore[override]
        cls, conn_string: str
    ) -> AsyncIterator[AsyncSqliteSaver]:
        """Open (or create) the database at ``conn_string`` for the ``async with`` block."""
        try:
            conn = sqlite3.connect(conn_string, check_same_thread=False)
        except sqlite3.DatabaseError as error:
            raise file_error(conn_string, error) from error
        try:
            yield await asyncio.to_thread(cls, conn)
        finally:
            conn.close()

    async def setup(self) -> None:  # type: ignore[override]
        """Make the file's tables if they are missing (the saver already did when it was
        made); awaited, as LangGraph's async saver needs it."""
        await asyncio.to_thread(super().setup)

    def __repr__(self) -> str:
        return f"AsyncSqliteSaver({self._file!r})"
