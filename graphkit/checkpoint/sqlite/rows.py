"""A row of ``graphkit_checkpoints`` as ``SqliteSaver`` reads it, and the small values a
row of a new file keeps in itself.

A value of a few serialized bytes (a counter, a flag, a short string, the ``None`` a
branch channel holds) cost more in ``graphkit_blobs`` than it holds: a row there and an
entry in that table's key index, two more pages of the file written at every put. A file
created with the ``small_values`` column keeps each value of at most
``SMALL_VALUE_BYTES`` bytes in its checkpoint's row instead, as the JSON list
``[channel, type, value, ...]`` (a value's bytes as the Latin-1 text they spell, so any
bytes come back as they were); larger values stay in ``graphkit_blobs``. The row's blob
check (``blob_count``, ``blob_hash``) covers both kinds alike: the same count and hash
whichever place holds each value. A file created before keeps its layout: its values all
go to ``graphkit_blobs``, as before.

>>> text, rest = split_small([("n", "json", b"3"), ("log", "json", b"[" + b"0," * 200 + b"0]")])
>>> text, [channel for channel, _, _ in rest]
('["n","json","3"]', ['log'])
>>> read_small(text)
{'n': ('json', b'3')}
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from typing import Any, NamedTuple

from graphkit.checkpoint.integrity import RowProblem
from graphkit.checkpoint.serde import plain_json

__all__ = ["SMALL_VALUE_BYTES", "Row", "chain_query", "read_small", "row_columns", "split_small"]

SMALL_VALUE_BYTES = 256
"""The largest serialized value a new file keeps in its checkpoint's row."""


class Row(NamedTuple):
    """One row of ``graphkit_checkpoints`` (all but ``replaced``)."""

    seq: int
    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str
    parent_id: str | None
    step: int
    source: str
    created_at: float
    updated_channels: str
    metadata_type: str
    metadata: bytes
    base_seq: int | None
    depth: int
    delta_type: str
    delta: bytes
    blob_count: int | None
    blob_hash: str | None
    row_hash: str | None
    write_count: int | None
    write_sum: int | None
    small_values: str | None  # (NULL in a file without the column: see the module)

    def checked(self) -> tuple[Any, ...]:
        """The fields ``row_hash`` covers: all but seq and the checks kept up to date (the
        small values are covered by the blob check, with the blobs)."""
        return self[1:17]


@cache
def row_columns(small_values: bool, table: str = "") -> str:
    """The ``SELECT`` list of a ``Row``, from a file with the ``small_values`` column or
    without it (then NULL), its columns prefixed with ``table``."""
    columns = [f"{table}{field}" for field in Row._fields]
    if not small_values:
        columns[-1] = "NULL"
    return ", ".join(columns)


@cache
def chain_query(small_values: bool) -> str:
    """A row (``?1``) and the rows it builds on, back to a snapshot (at most ``?2`` links)."""
    return (
        "WITH RECURSIVE link (seq, n) AS (SELECT ?1, 0 UNION ALL SELECT c.base_seq, link.n + 1"
        " FROM graphkit_checkpoints AS c JOIN link ON c.seq = link.seq"
        " WHERE c.base_seq IS NOT NULL AND link.n < ?2)"
        f" SELECT {row_columns(small_values, 'c.')}"
        " FROM graphkit_checkpoints AS c WHERE c.seq IN (SELECT seq FROM link)"
    )


def split_small(blobs: Sequence[tuple[Any, Any, Any]]) -> tuple[str | None, list[Any]]:
    """``blobs`` (channel, type, bytes each) as the row's ``small_values`` text (None if
    none is small) and the list of those that go to ``graphkit_blobs``."""
    small: list[str] = []
    rest = []
    for blob in blobs:
        channel, type_, value = blob
        if (
            type(value) is bytes
            and len(value) <= SMALL_VALUE_BYTES
            and type(channel) is str
            and type(type_) is str
        ):
            small += (channel, type_, value.decode("latin-1"))
        else:
            rest.append(blob)
    return (plain_json(small) if small else None), rest


def read_small(text: Any) -> dict[str, tuple[str, bytes]]:
    """The values a row's ``small_values`` holds: channel -> (type, bytes). Raises
    ``RowProblem`` for text that ``split_small`` did not write (an edited file), saying
    what the small values are or hold:

    >>> read_small('["n", "json"]')
    Traceback (most recent call last):
    ...
    graphkit.checkpoint.integrity.RowProblem: are not a list of [channel, type, value] texts
    """
    if text is None:
        return {}
    try:
        items = json.loads(text)
    except (ValueError, TypeError, RecursionError) as error:
        raise RowProblem(f"are not a JSON list ({error})") from error
    if type(items) is not list or len(items) % 3 or not all(type(item) is str for item in items):
        raise RowProblem("are not a list of [channel, type, value] texts")
    found: dict[str, tuple[str, bytes]] = {}
    for channel, type_, value in zip(items[::3], items[1::3], items[2::3], strict=True):
        if channel in found:
            raise RowProblem(f"hold channel {channel!r} twice")
        try:
            found[channel] = (type_, value.encode("latin-1"))
        except UnicodeEncodeError as error:
            problem = f"hold channel {channel!r} as text that is not bytes (past Latin-1)"
            raise RowProblem(problem) from error
    return found
