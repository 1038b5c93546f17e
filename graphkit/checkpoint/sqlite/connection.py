"""How ``SqliteSaver`` uses its connection: write transactions, read snapshots, and
SQLite's errors re-raised in words that name the file, the thread and the fix.

Each is a small class, not a generator-based context manager: every ``put`` and
``put_writes`` enters two of them, and a generator costs about a microsecond more each.

>>> import sqlite3
>>> conn = sqlite3.connect(":memory:")
>>> with Transaction(conn) as same:
...     _ = same.execute("CREATE TABLE t (x)")
>>> conn.in_transaction
False
"""

from __future__ import annotations

import os
import sqlite3
from types import TracebackType
from typing import Any

from graphkit.checkpoint.sqlite_file import CheckpointFileError, database_path, file_error

__all__ = ["FileErrors", "Snapshot", "Transaction", "not_a_connection"]


class Transaction:
    """Everything written in the block is committed together, or not at all (a
    transaction the caller opened is committed too, as each put commits its own)."""

    __slots__ = ("conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        if not self.conn.in_transaction:
            self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, _: TracebackType | None
    ) -> None:
        if kind is None:
            self.conn.commit()
        else:
            self.conn.rollback()


class Snapshot:
    """Every read in the block sees the file as one commit left it: a checkpoint row,
    its writes and its thread's head, even while another process saves more."""

    __slots__ = ("began", "conn")

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn, self.began = conn, False

    def __enter__(self) -> None:
        self.began = not self.conn.in_transaction  # (else inside one, e.g. a caller's)
        if self.began:
            self.conn.execute("BEGIN")

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, _: TracebackType | None
    ) -> None:
        if self.began:
            self.conn.rollback()  # nothing was written


class FileErrors:
    """SQLite's errors in the block, re-raised naming the saver's file (and ``thread``):
    a misuse of the connection says how to open one, an error of the file is a
    ``CheckpointFileError`` (``sqlite_file.file_error``)."""

    __slots__ = ("saver", "thread")

    def __init__(self, saver: Any, thread: str | None) -> None:
        self.saver, self.thread = saver, thread

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, _: TracebackType | None
    ) -> None:
        if isinstance(error, sqlite3.Error):
            told = self._told(error)
            if told is not None:
                raise told from error

    def _told(self, error: sqlite3.Error) -> sqlite3.Error | None:
        """``error`` in words that name the file, or None to raise it as it is."""
        saver = self.saver
        if isinstance(error, sqlite3.ProgrammingError):  # a misuse of the connection
            fix = _CONNECTION_MISUSES.get(str(error).partition(".")[0])
            if fix is None:
                return None
            name = type(saver).__name__
            fix = fix.format(saver=name, block=saver._block)
            file = "its file" if saver._file is None else repr(saver._file)
            thread = self.thread
            where = f" (reading or writing thread {thread!r})" if thread is not None else ""
            return sqlite3.ProgrammingError(
                f"{name} cannot use its connection to {file}{where}: {fix} (SQLite says: {error})"
            )
        if isinstance(error, CheckpointFileError) or not isinstance(error, sqlite3.DatabaseError):
            return None  # (already named; an InterfaceError: a value SQLite cannot bind)
        return file_error(database_path(saver.conn), error, self.thread)


# SQLite's message for a misuse of the connection (up to its first '.') -> what to do.
_CONNECTION_MISUSES = {
    "Cannot operate on a closed database": (
        "the connection is closed. A saver from `{block} {saver}.from_conn_string(path) "
        "as saver:` works only inside that block: run the graph there, or keep a connection "
        "open yourself, {saver}(sqlite3.connect(path, check_same_thread=False))."
    ),
    "SQLite objects created in a thread can only be used in that same thread": (
        "the connection was opened in another thread without check_same_thread=False, and "
        "a graph calls its saver from the thread that runs it and from its workers. Open it "
        "with sqlite3.connect(path, check_same_thread=False), as from_conn_string does; "
        "the saver locks it itself."
    ),
}


def not_a_connection(saver: str, conn: object) -> str:
    """Why ``conn`` is refused: what the saver takes, and how to make one from a path."""
    if isinstance(conn, (str, bytes, os.PathLike)):
        path = os.fsdecode(conn)
        return (
            f"{saver} takes an open sqlite3.Connection, not the path {path!r}. Use "
            f"`with {saver}.from_conn_string({path!r}) as saver:`, or "
            f"{saver}(sqlite3.connect({path!r}, check_same_thread=False))."
        )
    return (
        f"{saver} takes a sqlite3.Connection, got {type(conn).__name__}. Pass "
        f"sqlite3.connect(path, check_same_thread=False), or use "
        f"`with {saver}.from_conn_string(path) as saver:`."
    )
