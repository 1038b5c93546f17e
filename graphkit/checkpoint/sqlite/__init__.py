"""SqliteSaver: checkpoints in an SQLite file, each row holding only what its step changed.

Four tables (six in a new file), prefixed ``graphkit_`` so they never clash with
LangGraph's own (their SQL, and how a file written by an older graphkit is brought up to
date, are in ``sqlite_file.py``; what a read checks is in ``integrity.py`` and
``heads.py``; how a read rebuilds a row's maps, in ``reading.py``, and turns rows
into checked tuples, in ``tuples.py``; how a put writes its row, in ``writing.py``):

``graphkit_checkpoints``
    One row per checkpoint: ids, parent id, step, source, created_at, updated channels,
    metadata, its small values (a new file's: ``rows.py``), the count and hash of the
    values it wrote, a hash of its own fields, the count and hash-sum of its pending
    writes, and a *delta* of its three maps
    (channel values, channel versions, versions seen) against the row named by
    ``base_seq``, usually its parent. A row whose base the saver does not know, and one
    in every ``SNAPSHOT_EVERY`` to ``LONGEST_CHAIN`` rows of a chain (see ``deltas.py``),
    is a snapshot instead (``base_seq`` is NULL): it lists every channel, so reading a
    checkpoint walks at most ``LONGEST_CHAIN`` rows.
``graphkit_blobs``
    One serialized value per channel a step changed (but the small ones a new file keeps
    in the row), keyed by (checkpoint row, channel). A snapshot points at the older rows
    that wrote the values that did not change, so each value is serialized once however
    many checkpoints share it.
``graphkit_writes``
    Pending writes, one row per (checkpoint, task, index); a new file keys the table by
    those columns, and keeps a value above 512 bytes in ``graphkit_write_values``
    (``writes.py``).
``graphkit_heads``
    One row per thread: its newest checkpoint id and how many checkpoints it has.
``graphkit_layout``
    A new file's: the number of its layout (``sqlite_file.LAYOUT``), so that a graphkit
    that does not know it refuses the file rather than misreads it.

>>> from graphkit.checkpoint import Checkpoint
>>> with SqliteSaver.from_conn_string(":memory:") as saver:
...     config = saver.put({"configurable": {"thread_id": "1"}}, Checkpoint.empty(), {}, {})
...     saver.get_tuple(config).checkpoint
Checkpoint(step=-2, source='empty', channels=[])
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from graphkit.checkpoint.base import Checkpoint
from graphkit.checkpoint.deltas import RowMaps, RowMemory, plan_row
from graphkit.checkpoint.integrity import WRITE_SUM_MODULUS
from graphkit.checkpoint.saver import (
    BaseCheckpointSaver,
    CheckpointTuple,
    checkpoint_config,
    config_key,
    matches,
    saved_metadata,
    thread_id_of,
    write_index,
    written_checkpoint_id,
)
from graphkit.checkpoint.serde import CheckpointDecodeError, JsonPlusSerializer, SerializerProtocol
from graphkit.checkpoint.sqlite.connection import (
    FileErrors,
    Snapshot,
    Transaction,
    not_a_connection,
)
from graphkit.checkpoint.sqlite.grown import GrownLists
from graphkit.checkpoint.sqlite.reading import decode_error
from graphkit.checkpoint.sqlite.tuples import TupleReading
from graphkit.checkpoint.sqlite.writes import PendingWrites
from graphkit.checkpoint.sqlite.writing import RowWriting
from graphkit.checkpoint.sqlite_file import (
    CheckpointFileError,
    database_path,
    file_error,
    prepare_file,
)

__all__ = ["CheckpointFileError", "SqliteSaver"]


class SqliteSaver(TupleReading, RowWriting, BaseCheckpointSaver):
    """Keeps checkpoints in SQLite (stdlib ``sqlite3``, WAL journal), safe to share between
    threads; observably the same as ``InMemorySaver``. A checkpoint costs what its step
    changed: one row, plus one blob per changed channel whose value is not small.

    Values go through ``serde`` (default ``JsonPlusSerializer``, which never unpickles).

    >>> import sqlite3
    >>> saver = SqliteSaver(sqlite3.connect(":memory:", check_same_thread=False))
    >>> list(saver.list(None))
    []
    """

    _block = "with"  # (how from_conn_string is used, for the messages)

    def __init__(self, conn: sqlite3.Connection, *, serde: SerializerProtocol | None = None):
        if not isinstance(conn, sqlite3.Connection):
            raise TypeError(not_a_connection(type(self).__name__, conn))
        self.conn = conn
        self.serde = serde if serde is not None else JsonPlusSerializer()
        self._lock = threading.Lock()
        self._memory = RowMemory()
        self._lists = GrownLists()
        self._file: str | None = None  # (kept: a closed connection can no longer say it)
        with self._lock, self._file_errors():
            self._file = database_path(conn)
            self._layout = prepare_file(conn)
            self._writes = PendingWrites(self._layout.keyed_writes)

    def setup(self) -> None:
        """Make the file's tables if they are missing. The saver already did when it was
        made; LangGraph's saver needs this call, so code written for it runs as is."""
        with self._lock, self._file_errors():
            self._layout = prepare_file(self.conn)
            self._writes = PendingWrites(self._layout.keyed_writes)

    @classmethod
    @contextmanager
    def from_conn_string(cls, conn_string: str) -> Iterator[SqliteSaver]:
        """Open (or create) the database at ``conn_string`` for the ``with`` block.

        >>> with SqliteSaver.from_conn_string(":memory:") as saver:
        ...     saver
        SqliteSaver(':memory:')
        """
        try:
            conn = sqlite3.connect(conn_string, check_same_thread=False)
        except sqlite3.DatabaseError as error:
            raise file_error(conn_string, error) from error
        try:
            yield cls(conn)
        finally:
            conn.close()

    def __repr__(self) -> str:
        return f"SqliteSaver({self._file!r})"

    # -- the saver protocol ----------------------------------------------------------------

    def get_tuple(self, config: Mapping[str, Any]) -> CheckpointTuple | None:
        thread, namespace = thread_id_of(config), config_key(config, "checkpoint_ns", "")
        wanted = config_key(config, "checkpoint_id")
        where, params = "replaced = 0 AND thread_id = ? AND checkpoint_ns = ?", [thread, namespace]
        if wanted is not None:
            where, params = f"{where} AND checkpoint_id = ?", [*params, wanted]
        with self._lock, self._file_errors(thread), self._snapshot():
            found = self._rows(where, params, "ORDER BY checkpoint_id DESC LIMIT 1")
            if wanted is None:  # the latest: is it the one the thread's head names?
                self._check_heads(thread, namespace, found, whole=False)
            elif not found:  # never written, or deleted? The head counts the thread's rows.
                rows = self._rows(
                    "replaced = 0 AND thread_id = ? AND checkpoint_ns = ?",
                    params[:2],
                    "ORDER BY checkpoint_id DESC",
                )
                try:
                    self._check_heads(thread, namespace, rows, whole=True)
                except CheckpointDecodeError as error:
                    problem = f"it is not in the file, and the thread is damaged: {error}"
                    raise decode_error(thread, namespace, wanted, problem, damaged=False) from error
            return self._tuple(found[0], self._metadata(found[0])) if found else None

    def list(
        self,
        config: Mapping[str, Any] | None,
        *,
        filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        _check_filter_keys(filter)
        clauses, params = ["replaced = 0"], []
        for column, value in (
            ("thread_id", config_key(config, "thread_id")),
            ("checkpoint_ns", config_key(config, "checkpoint_ns")),
            ("checkpoint_id", config_key(config, "checkpoint_id")),  # that one, as LangGraph
        ):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(str(value))
        before_id = config_key(before, "checkpoint_id")
        if before_id is not None:
            clauses.append("checkpoint_id < ?")
            params.append(before_id)
        order = "ORDER BY checkpoint_id DESC"  # (equal ids: see _first_thread_first)
        whole = before_id is None and config_key(config, "checkpoint_id") is None
        # The newest few of one thread (a history's first page) are read alone, not every
        # row of it: only the newest is then checked against the thread's head, as
        # get_tuple checks it.
        page = whole and not filter and type(limit) is int and limit > 0 and len(params) == 2
        if page:  # (two params: a thread_id and a checkpoint_ns)
            order, whole = f"{order} LIMIT {limit}", False
        with self._lock, self._file_errors(config_key(config, "thread_id")), self._snapshot():
            rows = self._rows(" AND ".join(clauses), params, order)
            if (
                config_key(config, "thread_id") is None
                or config_key(config, "checkpoint_ns") is None
            ):
                rows = self._first_thread_first(rows)
            if page:
                self._check_heads(params[0], params[1], rows, whole=False)
            if whole:  # every row of the threads: check them against their heads
                thread_id, namespace = (
                    None if value is None else str(value)
                    for value in (
                        config_key(config, "thread_id"),
                        config_key(config, "checkpoint_ns"),
                    )
                )
                self._check_heads(thread_id, namespace, rows, whole=True)
            found = [
                (row, metadata)
                for row in rows
                if matches(metadata := self._metadata(row), filter, paths=True)
            ]
            found = found[:limit] if limit is not None and limit >= 0 else found  # (SQL's)
            by_seq = self._tuples(found)
        yield from (by_seq[row.seq] for row, _ in found)

    def put(
        self,
        config: Mapping[str, Any],
        checkpoint: Checkpoint,
        metadata: Mapping[str, Any],
        new_versions: Mapping[str, int],
    ) -> dict[str, Any]:
        thread = (thread_id_of(config), config_key(config, "checkpoint_ns", ""))
        if not isinstance(checkpoint.id, str):  # (compared with the thread's newest id)
            raise TypeError(
                f"Cannot put checkpoint {checkpoint.id!r} in thread {thread[0]!r}: its id is "
                f"a {type(checkpoint.id).__name__}, not a str. Give it one from "
                "new_checkpoint_id(), as the checkpoints a graph makes have."
            )
        with self._lock, self._file_errors(thread[0]):
            # The base is looked up inside the write transaction, so that no other
            # connection can delete it before the delta that builds on it is committed.
            with self._transaction() as conn:
                known = self._memory.base_for(thread, checkpoint)
                found = conn.execute(_BEFORE_PUT, (known and known.seq, *thread, checkpoint.id))
                base_kept, head, writes = found.fetchone()
                # (another connection may have deleted the base since this saver saw it)
                plan = plan_row(checkpoint, known if base_kept else None)
                metadata = saved_metadata(config, metadata)
                # Put before, unless newer than the thread's newest (new ids are newer).
                again = type(head) is not str or checkpoint.id <= head
                seq, size = self._insert(conn, thread, checkpoint, metadata, plan, again, writes)
            maps = (
                checkpoint.channel_values,
                checkpoint.channel_versions,
                checkpoint.versions_seen,
            )
            known = RowMaps(
                *(seq, thread, checkpoint.id, plan.depth, *maps, plan.refs(seq), None),
                *plan.chain_bytes(size),
            )
            self._memory.remember(known)
        return checkpoint_config(*thread, checkpoint.id)

    def put_writes(
        self,
        config: Mapping[str, Any],
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        thread, namespace = thread_id_of(config), config_key(config, "checkpoint_ns", "")
        checkpoint_id = written_checkpoint_id(config, task_id)
        dumped = self._dump_all(
            [value for _, value in writes],
            lambda index: (
                f"a write of task {task_id!r} to checkpoint {checkpoint_id!r} of "
                f"thread {thread!r}, channel {writes[index][0]!r}"
            ),
        )
        rows = [
            (
                *(thread, namespace, checkpoint_id, task_id, write_index(channel, position)),
                *(channel, task_path, *typed),
            )
            for position, ((channel, _), typed) in enumerate(zip(writes, dumped, strict=True))
        ]
        with self._lock, self._file_errors(thread), self._transaction() as conn:
            added, total = self._writes.save(conn, rows)  # (for the checkpoint row's check)
            conn.execute(
                _COUNT_WRITES, (added, total % WRITE_SUM_MODULUS, thread, namespace, checkpoint_id)
            )

    def delete_thread(self, thread_id: str) -> None:
        thread = str(thread_id)
        with self._lock, self._file_errors(thread):
            with self._transaction() as conn:
                # (rows put again apart: a file written since 2026-12-06 indexes them
                # apart, and the rest by id)
                for rows in ("replaced = 0", "replaced <> 0"):
                    conn.execute(
                        "DELETE FROM graphkit_blobs WHERE checkpoint_seq IN (SELECT seq FROM"
                        f" graphkit_checkpoints WHERE thread_id = ? AND {rows})",
                        (thread,),
                    )
                    conn.execute(
                        f"DELETE FROM graphkit_checkpoints WHERE thread_id = ? AND {rows}",
                        (thread,),
                    )
                self._writes.delete_thread(conn, thread)
                conn.execute("DELETE FROM graphkit_heads WHERE thread_id = ?", (thread,))
            self._memory.forget_thread(thread)
            self._lists.forget_thread(thread)

    def _file_errors(self, thread: str | None = None) -> FileErrors:
        return FileErrors(self, thread)

    def _transaction(self) -> Transaction:
        return Transaction(self.conn)

    def _snapshot(self) -> Snapshot:
        return Snapshot(self.conn)


_BEFORE_PUT = (
    # what a put needs to know, in one statement: whether its base row (?1) is still
    # there, the thread's newest checkpoint id, whether writes were saved against its id
    "SELECT EXISTS (SELECT 1 FROM graphkit_checkpoints WHERE seq = ?1),"
    " (SELECT checkpoint_id FROM graphkit_heads WHERE thread_id = ?2 AND checkpoint_ns = ?3),"
    " EXISTS (SELECT 1 FROM graphkit_writes WHERE thread_id = ?2 AND checkpoint_ns = ?3"
    " AND checkpoint_id = ?4)"
)

_COUNT_WRITES = (
    "UPDATE graphkit_checkpoints SET write_count = write_count + ?,"
    f" write_sum = (write_sum + ?) % {WRITE_SUM_MODULUS} WHERE thread_id = ?"
    " AND checkpoint_ns = ? AND checkpoint_id = ? AND replaced = 0"
)
"""Add writes (how many, the sum of their hashes) to their checkpoint's check."""

_FILTER_KEY = re.compile(r"[a-zA-Z0-9_.-]+")


def _check_filter_keys(filter: Mapping[str, Any] | None) -> None:
    """Refuse the filter keys LangGraph's SQLite saver refuses (it puts them in SQL),
    so that a filter that works here works there too."""
    if not isinstance(filter, Mapping):
        return  # (None; or not a dict, which ``matches`` refuses, saying how to write one)
    for key in filter:
        if not isinstance(key, str) or not _FILTER_KEY.fullmatch(key):
            raise ValueError(
                f"Invalid filter key: {key!r}. SqliteSaver.list filters by keys of "
                "letters, digits, '_', '-' and '.' (a dot names a nested item: "
                "'user.name'), as LangGraph's SQLite saver does; rename the metadata key."
            )
