"""The checkpoint tuples a read of an SQLite file returns: each row checked and built into
a ``CheckpointTuple`` (its maps rebuilt by ``reading.py``, its pending writes read and
checked), the rows of a thread checked against its head, and equal ids put in two
threads ordered as ``InMemorySaver`` orders them.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from typing import Any

from graphkit.checkpoint.base import Checkpoint
from graphkit.checkpoint.copies import copy_seen, copy_values
from graphkit.checkpoint.heads import MissingCheckpoint, check_head, read_heads
from graphkit.checkpoint.integrity import (
    RowProblem,
    check_fields,
    check_names,
    check_row,
    check_writes,
)
from graphkit.checkpoint.saver import CheckpointTuple, checkpoint_config
from graphkit.checkpoint.sqlite.reading import MapsReading, Values, decode_error
from graphkit.checkpoint.sqlite.rows import Row
from graphkit.checkpoint.sqlite.writes import PendingWrites

__all__ = ["PAGE_ROWS", "TupleReading"]

PAGE_ROWS = 100
"""The rows a read of many reads together: their blobs and pending writes in one
statement each. A page's blobs are held at once (each row's whole value of a long
list), so not more."""


class TupleReading(MapsReading):
    """The methods of ``SqliteSaver`` that turn the rows a read found into checked
    ``CheckpointTuple``s; they use its connection, serializer and pending writes."""

    _writes: PendingWrites

    def _first_thread_first(self, rows: list[Row]) -> list[Row]:
        """``rows`` (newest id first) with equal ids (one checkpoint put in two threads)
        in the order their threads were first written, as InMemorySaver's dicts keep
        them (the ids of one thread and namespace differ)."""
        ordered: list[Row] = []
        for _, same in itertools.groupby(rows, key=lambda row: row.checkpoint_id):
            tied = list(same)
            if len(tied) > 1:
                first = {
                    key: self.conn.execute(_FIRST_SEQ, key).fetchone()[0]
                    for key in {(row.thread_id, row.checkpoint_ns) for row in tied}
                }
                tied.sort(key=lambda row: first[row.thread_id, row.checkpoint_ns])
            ordered += tied
        return ordered

    def _tuples(self, found: Sequence[tuple[Row, dict[str, Any]]]) -> dict[int, CheckpointTuple]:
        """The tuples of the rows ``found`` (each with its metadata), by seq. Read oldest
        first, so that each row's base is already in memory, a page of rows at a time:
        the values and pending writes of a page are read in a statement or two, not two
        per row."""
        ordered, tuples = sorted(found), {}
        for start in range(0, len(ordered), PAGE_ROWS):
            page = ordered[start : start + PAGE_ROWS]
            ids: dict[tuple[str, str], list[str]] = {}
            for row, _ in page:
                ids.setdefault((row.thread_id, row.checkpoint_ns), []).append(row.checkpoint_id)
            writes = {
                thread: self._writes.read_some(self.conn, thread, some)
                for thread, some in ids.items()
            }
            blobs = self._blobs({row.seq for row, _ in page})
            for row, metadata in page:
                stored = writes[row.thread_id, row.checkpoint_ns].get(row.checkpoint_id, [])
                tuples[row.seq] = self._tuple(row, metadata, stored, blobs)
        return tuples

    def _tuple(
        self,
        row: Row,
        metadata: dict[str, Any],
        stored: list[Any] | None = None,
        blobs: Values | None = None,
    ) -> CheckpointTuple:
        """``row`` checked and read, with ``metadata``, its pending writes (``stored``, as
        ``PendingWrites.read`` gives them; None: read them here) and the blobs of its
        page of rows, if read already."""
        try:
            check_fields(row)
            check_row(row.row_hash, row.checked())
        except RowProblem as error:
            raise self._error(row, str(error), damaged=True) from error
        try:
            updated = check_names(json.loads(row.updated_channels))
        except (ValueError, TypeError, RecursionError) as error:  # a RowProblem, bad JSON, not text
            raise self._error(row, "its updated channels", error, damaged=True) from error
        known = self._maps(row, blobs)
        checkpoint = Checkpoint(
            id=row.checkpoint_id,
            step=row.step,
            source=row.source,
            parent_id=row.parent_id,
            channel_values=self._memory.lend(known, copy_values(known.values)),
            channel_versions=known.versions,
            versions_seen=copy_seen(known.seen),
            updated_channels=frozenset(updated),
            created_at=row.created_at,
        )
        if stored is None:
            where = (row.thread_id, row.checkpoint_ns, row.checkpoint_id)
            stored = self._writes.read(self.conn, where)
        try:
            check_writes((row.write_count, row.write_sum), stored)
        except RowProblem as error:
            problem = f"its pending writes do not match the check kept with them ({error})"
            raise self._error(row, problem, damaged=True) from error
        writes = [
            (task, channel, self._load(row, f"a write of task {task!r} to {channel!r}", typed))
            for *_, task, _, channel, _, type_, value in stored
            for typed in [(type_, value)]
        ]
        for task, channel, _ in writes:
            if not (isinstance(task, str) and isinstance(channel, str)):
                problem = f"a write of task {task!r} to {channel!r}: task and channel must be text"
                raise self._error(row, problem, damaged=True)
        parent = (
            checkpoint_config(row.thread_id, row.checkpoint_ns, row.parent_id)
            if row.parent_id
            else None
        )
        config = checkpoint_config(row.thread_id, row.checkpoint_ns, row.checkpoint_id)
        # (_make: the record needs none of the constructor's check for a dict)
        return CheckpointTuple._make((config, checkpoint, metadata, parent, writes))

    def _metadata(self, row: Row) -> dict[str, Any]:
        metadata = self._load(row, "its metadata", (row.metadata_type, row.metadata))
        if not isinstance(metadata, dict):
            kind = type(metadata).__name__
            raise self._error(row, f"its metadata is a {kind}, not a dict", damaged=True)
        return metadata

    def _check_heads(
        self, thread_id: str | None, namespace: str | None, rows: Sequence[Row], *, whole: bool
    ) -> None:
        """Refuse threads whose newest row (``rows`` newest first) or, if ``whole``
        holds every row of them, whose number of rows differs from their head."""
        newest: dict[tuple[str, str], Row] = {}
        checked: dict[tuple[str, str], int] = {}
        for row in rows:
            key = (row.thread_id, row.checkpoint_ns)
            newest.setdefault(key, row)
            checked[key] = checked.get(key, 0) + (row.row_hash is not None)
        heads = read_heads(self.conn, thread_id, namespace)
        for key in sorted({*heads, *newest}, key=repr):
            row = newest.get(key)
            try:
                check_head(
                    heads.get(key),
                    row and (row.checkpoint_id, row.row_hash is not None),
                    checked.get(key, 0) if whole else None,
                )
            except MissingCheckpoint as error:
                raise decode_error(*key, error.checkpoint_id, str(error), damaged=True) from error
            except RowProblem as error:
                if row is None:  # a head without rows: a thread deleted by hand
                    raise decode_error(*key, None, str(error), damaged=True) from error
                raise self._error(row, str(error), damaged=True) from error


_FIRST_SEQ = (
    "SELECT MIN(seq) FROM (SELECT seq FROM graphkit_checkpoints WHERE thread_id = ?1 AND"
    " checkpoint_ns = ?2 AND replaced = 0 UNION ALL SELECT seq FROM graphkit_checkpoints"
    " WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND replaced <> 0)"
)
"""The first row put in a thread's namespace (its rows put again too)."""
