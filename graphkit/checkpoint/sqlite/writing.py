"""Writing a checkpoint's row to an SQLite file: its values serialized (a value the
serializer refuses is named), its delta and checks computed, the row put before the one
it replaces, and the values its step changed kept in the row or as blobs: the writing
half of ``SqliteSaver``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from graphkit.checkpoint.base import Checkpoint
from graphkit.checkpoint.deltas import RowPlan
from graphkit.checkpoint.heads import record_put
from graphkit.checkpoint.integrity import blob_check, row_check, write_check
from graphkit.checkpoint.serde import SerializerProtocol, plain_json
from graphkit.checkpoint.sqlite.rows import Row, split_small
from graphkit.checkpoint.sqlite.writes import PendingWrites
from graphkit.checkpoint.sqlite_file import Layout

__all__ = ["RowWriting"]


class RowWriting:
    """The methods of ``SqliteSaver`` that write a checkpoint's row and serialize values;
    they use its serializer, file layout and pending writes."""

    serde: SerializerProtocol
    _layout: Layout
    _writes: PendingWrites

    def _insert(
        self,
        conn: sqlite3.Connection,
        thread: tuple[str, str],
        checkpoint: Checkpoint,
        metadata: Mapping[str, Any],
        plan: RowPlan,
        again: bool = True,
        writes: bool = True,
    ) -> tuple[int, int]:
        """Write ``checkpoint``'s row and the values its step changed (small ones in the
        row, if the file keeps them so; the rest as blobs); ``again``: it may have been
        put before, ``writes``: writes may have been saved against its id. Returns the
        row's seq and the size of its delta."""
        channels = list(plan.changed)

        def where(index: int) -> str:
            what = ("metadata", "channel versions")[index] if index < 2 else "channel"
            name = f" {channels[index - 2]!r}" if index >= 2 else ""
            return f"checkpoint {checkpoint.id!r} of thread {thread[0]!r}, {what}{name}"

        dumped = self._dump_all([dict(metadata), plan.delta(), *plan.changed.values()], where)
        metadata_typed, delta, *values = dumped
        row = (
            *thread,
            checkpoint.id,
            checkpoint.parent_id,
            checkpoint.step,
            checkpoint.source,
            float(checkpoint.created_at),  # what SQLite gives back from a REAL column
            plain_json(sorted(checkpoint.updated_channels)),
            *metadata_typed,
            plan.base.seq if plan.base else None,
            plan.depth,
            *delta,
        )
        blobs = [(channel, *typed) for channel, typed in zip(channels, values, strict=True)]
        row = (*row, *blob_check(blobs))
        # The writes saved against this id so far stay its writes: keep their check
        # (or, for a new id, count the writes saved before it, as a put of them would).
        old = None
        if again:
            old = conn.execute(
                "UPDATE graphkit_checkpoints SET replaced = 1 WHERE thread_id = ? AND "
                "checkpoint_ns = ? AND checkpoint_id = ? AND replaced = 0 "
                "RETURNING row_hash, write_count, write_sum",
                (*thread, checkpoint.id),
            ).fetchone()
        if old:
            check = old[1:]
        else:
            check = write_check(self._writes.read(conn, (*thread, checkpoint.id)) if writes else ())
        full = (*row, row_check(row), *check)
        if self._layout.small_values:
            small, blobs = split_small(blobs)
            full = (*full, small)
        try:
            seq: int = conn.execute(_INSERT_ROW[self._layout.small_values], full).lastrowid  # type: ignore[assignment]
        except sqlite3.IntegrityError:
            if again:
                raise
            # a row of this id, newer than the thread's head says (a file edited by hand)
            return self._insert(conn, thread, checkpoint, metadata, plan)
        record_put(conn, thread, checkpoint.id, added=0 if old and old[0] is not None else 1)
        if blobs:
            conn.executemany(
                "INSERT INTO graphkit_blobs (checkpoint_seq, channel, type, value)"
                " VALUES (?, ?, ?, ?)",
                [(seq, *blob) for blob in blobs],
            )
        return seq, len(delta[1])

    def _dump(self, value: Any, where: str) -> tuple[str, bytes]:
        try:
            return self.serde.dumps_typed(value)
        except TypeError as error:
            raise TypeError(f"Cannot save {where}. {error}") from error

    def _dump_all(self, values: Sequence[Any], where: Callable[[int], str]) -> list[Any]:
        """``serde.dumps_typed`` of each of ``values``; a TypeError names the value it
        refused (``where(its index)``: its words are built only then)."""
        dumps = self.serde.dumps_typed
        try:
            return [dumps(value) for value in values]
        except TypeError:
            for index, value in enumerate(values):
                self._dump(value, where(index))
            raise


_INSERT_ROW = {
    small_values: "INSERT INTO graphkit_checkpoints ({}) VALUES ({})".format(
        ", ".join(columns), ", ".join("?" * len(columns))
    )
    for small_values in (False, True)
    for columns in [Row._fields[1 : None if small_values else -1]]
}
"""A row's INSERT (all but seq), into a file with the ``small_values`` column or without."""
