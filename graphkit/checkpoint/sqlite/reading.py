"""Rebuilding a checkpoint's three maps from the rows of an SQLite file, checking each
row, delta and value on the way: the reading half of ``SqliteSaver``.

A row holds a delta of its maps against the row it builds on (``base_seq``), back to a
snapshot; its values live in ``graphkit_blobs`` and, in a new file, in the row itself
(``rows.py``). ``MapsReading._maps`` walks the chain from the last snapshot (or from a
row whose maps are in memory), checks each row's values against the count and hash
written with them, and applies the deltas.

>>> print(decode_error("t", "", "1f0a", "its step is 'x'", damaged=False))
Cannot read checkpoint '1f0a' of thread 't': its step is 'x'
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from functools import partial
from typing import Any, NamedTuple, Protocol

from graphkit.checkpoint.deltas import LONGEST_CHAIN, Changes, RowMaps, RowMemory
from graphkit.checkpoint.integrity import Delta, RowProblem, check_blobs, check_row, read_delta
from graphkit.checkpoint.serde import CheckpointDecodeError, SerializerProtocol
from graphkit.checkpoint.sqlite.grown import GrownLists
from graphkit.checkpoint.sqlite.rows import Row, chain_query, read_small, row_columns
from graphkit.checkpoint.sqlite_file import Layout

__all__ = ["MapsReading", "Values", "decode_error"]

Values = dict[int, dict[str, tuple[str, bytes]]]
"""Row seq -> the values that row wrote: channel -> (type, bytes)."""


class _Written(Protocol):
    """What a row says about the values it wrote (a ``Row``, or a ``_Check``)."""

    @property
    def seq(self) -> int: ...
    @property
    def checkpoint_id(self) -> str: ...
    @property
    def blob_count(self) -> int | None: ...
    @property
    def blob_hash(self) -> str | None: ...
    @property
    def small_values(self) -> str | None: ...


class _Check(NamedTuple):
    """The fields of a row that another row reads values of."""

    seq: int
    checkpoint_id: str
    blob_count: int | None
    blob_hash: str | None
    small_values: str | None


class MapsReading:
    """The methods of ``SqliteSaver`` that rebuild a row's maps; they use its connection,
    serializer, file layout and memory of rows and lists."""

    conn: sqlite3.Connection
    serde: SerializerProtocol
    _layout: Layout  # what the file's tables keep
    _memory: RowMemory
    _lists: GrownLists

    def _maps(self, row: Row, blobs: Values | None = None) -> RowMaps:
        """The three maps of ``row``: from memory, or by applying the deltas of the rows
        it builds on, from the last snapshot (or a row already in memory) onwards
        (``blobs``: those of some rows, read already)."""
        known = self._memory.get(row.seq, decoded_by=self.serde)
        if known is not None:
            return known
        chain, start = self._chain(row)
        values = self._values(row, chain, blobs)
        self._check_blobs(row, chain, values)
        refs, versions, seen = Changes(), Changes(), Changes()
        for link in reversed(chain):
            delta = self._delta(row, link)
            inherited, removed = delta.refs
            refs.apply({**inherited, **dict.fromkeys(values.get(link.seq, ()), link.seq)}, removed)
            versions.apply(*delta.versions)
            seen.apply(*delta.seen)
        older = self._checks(set(refs.changed.values()) - {link.seq for link in chain})
        older_values = self._values(row, older, blobs)
        self._check_blobs(row, older, older_values)
        values.update(older_values)
        found = Changes(removed=refs.removed)
        for channel, seq in refs.changed.items():
            typed = values.get(seq, {}).get(channel)
            if typed is None:
                raise self._error(row, f"the value of channel {channel!r} is missing", damaged=True)
            load = partial(self._load, row, f"channel {channel!r}")
            key = (row.thread_id, row.checkpoint_ns, channel)
            found.changed[channel] = self._lists.read(key, typed, self.serde, load)
        known = RowMaps(
            row.seq,
            (row.thread_id, row.checkpoint_ns),
            row.checkpoint_id,
            row.depth,
            found.onto(start and start.values),
            versions.onto(start and start.versions),
            seen.onto(start and start.seen),
            refs.onto(start and start.refs),
            decoded_by=self.serde,
        )
        self._memory.remember(known)
        return known

    def _chain(self, row: Row) -> tuple[list[Row], RowMaps | None]:
        """``row`` and the rows it builds on, newest first, back to a snapshot or to a
        row whose maps are in memory (returned second)."""
        chain, seqs, fetched = [row], {row.seq}, None
        while (base_seq := chain[-1].base_seq) is not None:
            start = self._memory.get(base_seq, decoded_by=self.serde)
            if start is not None and start.thread == (row.thread_id, row.checkpoint_ns):
                return chain, start
            if base_seq in seqs:  # a crafted row: never loop
                cycle = " -> ".join(str(link.seq) for link in chain)
                problem = f"the rows it builds on form a cycle (seq {cycle} -> {base_seq})"
                raise self._error(row, problem, damaged=True)
            seqs.add(base_seq)
            if fetched is None or base_seq not in fetched:  # the rest of it, in one query
                fetched = {link.seq: link for link in self._links(base_seq)}
            found = [fetched[base_seq]] if base_seq in fetched else []
            if not found:
                problem = f"the row it builds on (seq {base_seq}) is missing"
                raise self._error(row, problem, damaged=True)
            if (found[0].thread_id, found[0].checkpoint_ns) != (row.thread_id, row.checkpoint_ns):
                problem = f"it builds on row {base_seq}, which belongs to another thread"
                raise self._error(row, problem, damaged=True)
            try:
                check_row(found[0].row_hash, found[0].checked())
            except RowProblem as error:
                problem = f"the row it builds on (seq {base_seq}): {error}"
                raise self._error(row, problem, damaged=True) from error
            chain.append(found[0])
        return chain, None

    def _links(self, seq: Any) -> list[Row]:
        """Row ``seq`` and the rows it builds on, up to ``LONGEST_CHAIN`` of them (a
        crafted chain may loop, or run on: the caller checks each link)."""
        query = chain_query(self._layout.small_values)
        return [Row(*found) for found in self.conn.execute(query, (seq, LONGEST_CHAIN))]

    def _delta(self, row: Row, link: Row) -> Delta:
        """The checked delta of ``link``, a row that ``row`` builds on (or ``row``)."""
        try:
            return read_delta(self._load(row, "its delta", (link.delta_type, link.delta)))
        except RowProblem as error:
            whose = (
                "its delta"
                if link is row
                else f"the delta of checkpoint {link.checkpoint_id!r}, which it builds on,"
            )
            raise self._error(row, f"{whose} has the wrong shape: {error}", damaged=True) from error

    def _check_blobs(self, row: Row, links: Iterable[_Written], values: Values) -> None:
        """Refuse ``row`` if the values of a row it reads (``links``) differ from the
        check written with them."""
        for link in links:
            try:
                check_blobs((link.blob_count, link.blob_hash), values.get(link.seq, {}))
            except RowProblem as error:
                whose = (
                    "its values"
                    if link.seq == row.seq
                    else f"the values of checkpoint {link.checkpoint_id!r}, which it reads,"
                )
                problem = f"{whose} do not match the check written with them ({error})"
                raise self._error(row, problem, damaged=True) from error

    def _checks(self, seqs: Iterable[int]) -> list[_Check]:
        """What the rows ``seqs`` say about the values they wrote."""
        small = "small_values" if self._layout.small_values else "NULL"
        ordered, found = sorted(seqs), []
        for start in range(0, len(ordered), 500):
            chunk = ordered[start : start + 500]
            found.extend(
                _Check(*check)
                for check in self.conn.execute(
                    f"SELECT seq, checkpoint_id, blob_count, blob_hash, {small} FROM "
                    f"graphkit_checkpoints WHERE seq IN ({', '.join('?' * len(chunk))})",
                    chunk,
                )
            )
        return found

    def _values(self, row: Row, links: Sequence[_Written], blobs: Values | None = None) -> Values:
        """Every value the rows ``links`` wrote: in ``graphkit_blobs`` (or ``blobs``,
        those of some rows, read already) and, in a new file, in the rows themselves."""
        blobs = blobs or {}
        found = self._blobs({link.seq for link in links if link.seq not in blobs})
        found.update((link.seq, dict(blobs[link.seq])) for link in links if link.seq in blobs)
        for link in links:
            if link.small_values is None:
                continue
            whose = (
                "its small values"
                if link.seq == row.seq
                else f"the small values of checkpoint {link.checkpoint_id!r}, which it reads,"
            )
            try:
                small = read_small(link.small_values)
            except RowProblem as error:
                raise self._error(row, f"{whose} {error}", damaged=True) from error
            kept = found.setdefault(link.seq, {})
            if twice := sorted(kept.keys() & small.keys()):
                problem = f"{whose} hold channel {twice[0]!r}, which its blobs hold too"
                raise self._error(row, problem, damaged=True)
            kept.update(small)
        return found

    def _blobs(self, seqs: set[int]) -> Values:
        """Every value the rows ``seqs`` wrote to ``graphkit_blobs`` (an empty dict for
        each that wrote none)."""
        found: Values = {seq: {} for seq in seqs}
        ordered = sorted(seqs)
        for start in range(0, len(ordered), 500):
            chunk = ordered[start : start + 500]
            for seq, channel, type_, value in self.conn.execute(
                "SELECT checkpoint_seq, channel, type, value FROM graphkit_blobs "
                f"WHERE checkpoint_seq IN ({', '.join('?' * len(chunk))})",
                chunk,
            ):
                found.setdefault(seq, {})[channel] = (type_, value)
        return found

    def _load(self, row: Row, what: str, typed: tuple[str, bytes] | Sequence[Any]) -> Any:
        try:
            return self.serde.loads_typed((typed[0], typed[1]))
        except Exception as error:  # a custom serde may raise anything
            raise self._error(row, what, error) from error

    def _error(
        self, row: Row, what: str, cause: Exception | None = None, *, damaged: bool = False
    ) -> Exception:
        where = (row.thread_id, row.checkpoint_ns, row.checkpoint_id)
        return decode_error(*where, what + (f": {cause}" if cause else ""), damaged=damaged)

    def _rows(self, where: str, params: Sequence[Any], order: str = "") -> list[Row]:
        columns = row_columns(self._layout.small_values)
        query = f"SELECT {columns} FROM graphkit_checkpoints AS c WHERE {where} {order}"
        return [Row(*found) for found in self.conn.execute(query, params)]


def decode_error(
    thread_id: str, namespace: str, checkpoint_id: str | None, what: str, *, damaged: bool
) -> CheckpointDecodeError:
    """The error for a checkpoint of ``thread_id`` that cannot be read (``damaged``: the
    file, not the serializer, is at fault)."""
    checkpoint = f"checkpoint {checkpoint_id!r} of " if checkpoint_id is not None else ""
    fix = (
        ". The file was changed outside graphkit, or is damaged: restore it from a "
        f"backup, or delete the thread with saver.delete_thread({thread_id!r})"
    )
    return CheckpointDecodeError(
        f"Cannot read {checkpoint}thread {thread_id!r}"
        + (f" (namespace {namespace!r})" if namespace else "")
        + f": {what}"
        + (fix if damaged else "")
    )
