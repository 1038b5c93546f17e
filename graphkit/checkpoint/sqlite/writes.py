"""Pending writes in the SQLite file: a task's writes saved (a regular write stays once
saved, a special slot is replaced), a checkpoint's read back in ``pending_order``, a
thread's deleted; in either layout of ``graphkit_writes``.

A file created before this layout keeps each write in a rowid table with a unique index on
its key (thread, namespace, checkpoint, task, index): two b-trees, so two pages of the
file written for every write, and the index's, whose long keys split often, more. A new
file keys the table by those columns itself (``WITHOUT ROWID``): one b-tree. Such a table
keeps a row in its key's b-tree, whose cells hold about 1 KB of a 4 KB page, so a larger
row would spill to a page of its own (a 1.5 KB message took half as much room again); a
value of more than ``INLINE_WRITE_BYTES`` is kept in ``graphkit_write_values`` (a rowid
table) instead, and its write names it (``value_seq``). Either way a write reads back as
the same nine fields, which its check hashes (``integrity.write_hash``).

>>> import sqlite3
>>> from graphkit.checkpoint.sqlite_file import SCHEMA, NEW_FILE_SCHEMA
>>> conn = sqlite3.connect(":memory:")
>>> conn.executescript(SCHEMA + NEW_FILE_SCHEMA) and None
>>> writes = PendingWrites(keyed=True)
>>> rows = [("t", "", "c1", "task", 0, "log", "", "json", b"[" + b"1," * 300 + b"1]")]
>>> writes.save(conn, rows)[0], writes.read(conn, ("t", "", "c1")) == rows
(1, True)
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from graphkit.checkpoint.integrity import write_hash

__all__ = ["INLINE_WRITE_BYTES", "PendingWrites"]

INLINE_WRITE_BYTES = 512
"""The largest serialized value a new file keeps in its write's row (with the row's key,
well within the ~1 KB a cell of its b-tree holds)."""

_FIELDS = "thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, task_path, type"
_KEY = "thread_id = ? AND checkpoint_ns = ? AND checkpoint_id IS ? AND task_id = ? AND idx = ?"
_VALUE = (  # (a new file's: the value kept in the row, or in graphkit_write_values)
    "CASE WHEN value_seq IS NULL THEN value ELSE"
    " (SELECT v.value FROM graphkit_write_values AS v WHERE v.seq = value_seq) END"
)


class PendingWrites:
    """The pending writes of a file whose ``graphkit_writes`` is ``keyed`` by its key
    columns (a new file) or not. A write is the tuple (thread, namespace, checkpoint,
    task, index, channel, task path, type, value)."""

    __slots__ = ("_insert", "_read", "_read_some", "_select_old", "_upsert", "keyed")

    def __init__(self, keyed: bool) -> None:
        self.keyed = keyed
        columns = f"{_FIELDS}, value" + (", value_seq" if keyed else "")
        places = ", ".join("?" * (10 if keyed else 9))
        insert = f"INSERT INTO graphkit_writes ({columns}) VALUES ({places})"
        self._insert = f"{insert} ON CONFLICT DO NOTHING"
        self._upsert = (
            f"{insert} ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)"
            " DO UPDATE SET channel = excluded.channel, task_path = excluded.task_path,"
            " type = excluded.type, value = excluded.value"
            + (", value_seq = excluded.value_seq" if keyed else "")
        )
        value, seq = (_VALUE, "value_seq") if keyed else ("value", "NULL")
        self._select_old = f"SELECT {_FIELDS}, {value}, {seq} FROM graphkit_writes WHERE {_KEY}"
        self._read = (
            f"SELECT {_FIELDS}, {value} FROM graphkit_writes WHERE thread_id = ? AND"
            " checkpoint_ns = ? AND checkpoint_id = ? ORDER BY task_path, task_id, idx"
        )
        self._read_some = self._read.replace("checkpoint_id = ?", "checkpoint_id IN ({})")

    def save(self, conn: sqlite3.Connection, writes: Sequence[tuple[Any, ...]]) -> tuple[int, int]:
        """Save ``writes`` (one task's, against one checkpoint) in ``conn``'s transaction;
        returns how many were added and the change to the sum of their hashes, for the
        check kept on their checkpoint's row."""
        added, total = 0, 0
        for write in writes:
            stored, seq = self._stored(conn, write)
            # A saved write stays (as in InMemorySaver); a special slot is replaced (an
            # upsert: the row keeps its key).
            if write[4] >= 0:
                if not conn.execute(self._insert, stored).rowcount:
                    if seq is not None:  # (kept already: its value is not needed)
                        conn.execute("DELETE FROM graphkit_write_values WHERE seq = ?", (seq,))
                    continue
                added, total = added + 1, total + write_hash(write)
                continue
            old = conn.execute(self._select_old, write[:5]).fetchone()
            conn.execute(self._upsert, stored)
            if old is not None and old[9] is not None:  # (its value, kept apart, replaced)
                conn.execute("DELETE FROM graphkit_write_values WHERE seq = ?", (old[9],))
            added += old is None
            total += write_hash(write) - (write_hash(old[:9]) if old else 0)
        return added, total

    def _stored(
        self, conn: sqlite3.Connection, write: tuple[Any, ...]
    ) -> tuple[tuple[Any, ...], int | None]:
        """The row that keeps ``write``, and the seq of its value in
        ``graphkit_write_values`` if it is kept there."""
        if not self.keyed:
            return write, None
        value = write[8]
        if not isinstance(value, (bytes, str)) or len(value) <= INLINE_WRITE_BYTES:
            return (*write, None), None
        seq = conn.execute("INSERT INTO graphkit_write_values (value) VALUES (?)", (value,))
        return (*write[:8], None, seq.lastrowid), seq.lastrowid

    def read(self, conn: sqlite3.Connection, checkpoint: tuple[str, str, str]) -> list[Any]:
        """The writes of (thread, namespace, checkpoint id), in ``pending_order`` (SQLite
        compares text as Python does: by code point)."""
        return conn.execute(self._read, checkpoint).fetchall()

    def read_some(
        self, conn: sqlite3.Connection, thread: tuple[str, str], ids: Sequence[str]
    ) -> dict[str, list[Any]]:
        """The writes of the checkpoints ``ids`` of ``thread`` (thread, namespace) that
        have any, by id, each checkpoint's as ``read`` gives them: one statement, not one
        per checkpoint (SQLite before 3.32 binds at most 999 ids)."""
        found: dict[str, list[Any]] = {}
        query = self._read_some.format(", ".join("?" * len(ids)))
        for write in conn.execute(query, (*thread, *ids)):
            found.setdefault(write[2], []).append(write)
        return found

    def delete_thread(self, conn: sqlite3.Connection, thread: str) -> None:
        if self.keyed:
            conn.execute(
                "DELETE FROM graphkit_write_values WHERE seq IN (SELECT value_seq FROM"
                " graphkit_writes WHERE thread_id = ? AND value_seq IS NOT NULL)",
                (thread,),
            )
        conn.execute("DELETE FROM graphkit_writes WHERE thread_id = ?", (thread,))

    def __repr__(self) -> str:
        return f"PendingWrites(keyed={self.keyed})"
