"""Each thread's head: its newest checkpoint and how many checked checkpoints it has.

A checkpoint row that is deleted leaves no trace in the rows that are left: a read of
the thread's latest checkpoint would silently return the one before. So every put also
updates the thread's row in ``graphkit_heads``, in the same transaction, and a read
compares what it finds with it.

>>> check_head(Head("1f0b", 3), newest=("1f0a", True), count=None)
Traceback (most recent call last):
...
graphkit.checkpoint.heads.MissingCheckpoint: it is the thread's newest checkpoint, but its row is missing (the newest row left is '1f0a')
"""  # noqa: E501

from __future__ import annotations

import sqlite3
from typing import NamedTuple

from graphkit.checkpoint.integrity import RowProblem

__all__ = ["HEADS", "Head", "MissingCheckpoint", "check_head", "read_heads", "record_put"]

HEADS = """
CREATE TABLE graphkit_heads (
    thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL,
    checkpoint_id TEXT NOT NULL,  -- the thread's newest checkpoint
    checkpoints INTEGER NOT NULL,  -- how many of its rows carry a row check
    PRIMARY KEY (thread_id, checkpoint_ns)
) WITHOUT ROWID;  -- (one b-tree, not two: a page less for each put to write)
INSERT INTO graphkit_heads
    SELECT thread_id, checkpoint_ns, MAX(checkpoint_id), COUNT(row_hash)
    FROM graphkit_checkpoints WHERE replaced = 0 GROUP BY thread_id, checkpoint_ns;
"""
"""The table, filled from the rows already in the file (written before heads existed)."""


class Head(NamedTuple):
    checkpoint_id: str  # the newest
    checkpoints: int  # how many checked rows


class MissingCheckpoint(RowProblem):
    """A checkpoint the head says was written is not there; ``checkpoint_id`` names it."""

    def __init__(self, checkpoint_id: str, problem: str) -> None:
        super().__init__(problem)
        self.checkpoint_id = checkpoint_id


def record_put(conn: sqlite3.Connection, thread: tuple[str, str], checkpoint_id: str, added: int):
    """Note a put of ``checkpoint_id`` that ``added`` one checked row (1) or replaced
    one (0); call it inside the put's transaction."""
    conn.execute(
        "INSERT INTO graphkit_heads (thread_id, checkpoint_ns, checkpoint_id, checkpoints) "
        "VALUES (?, ?, ?, ?) ON CONFLICT (thread_id, checkpoint_ns) DO UPDATE SET "
        "checkpoint_id = max(checkpoint_id, excluded.checkpoint_id), "
        "checkpoints = checkpoints + excluded.checkpoints",
        (*thread, checkpoint_id, added),
    )


def read_heads(
    conn: sqlite3.Connection, thread_id: str | None, namespace: str | None
) -> dict[tuple[str, str], Head]:
    """The heads of ``thread_id`` (every thread: None), in ``namespace`` (all: None)."""
    clauses, params = [], []
    for column, value in (("thread_id", thread_id), ("checkpoint_ns", namespace)):
        if value is not None:
            clauses.append(f"{column} = ?")
            params.append(value)
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    return {
        (thread, ns): Head(newest, count)
        for thread, ns, newest, count in conn.execute(
            "SELECT thread_id, checkpoint_ns, checkpoint_id, checkpoints FROM graphkit_heads"
            + where,
            params,
        )
    }


def check_head(head: Head | None, newest: tuple[str, bool] | None, count: int | None) -> None:
    """Refuse a thread whose rows disagree with its head. ``newest`` is the newest row
    found, (checkpoint id, whether it carries a row check); ``count`` the number of
    checked rows found, when every row of the thread was read (else None).

    A row without a check was written by a graphkit that kept no heads: it may be newer
    than the head, and a thread of only such rows may have none.
    """
    if head is None:
        if newest is not None and newest[1]:
            raise RowProblem("its thread's head row (in graphkit_heads) is missing")
        return
    if not isinstance(head.checkpoint_id, str) or type(head.checkpoints) is not int:
        raise RowProblem(f"its thread's head row holds {tuple(head)!r}, not (an id, a count)")
    if newest is not None and not isinstance(newest[0], str):
        raise RowProblem(f"its checkpoint_id is {newest[0]!r}, not text")
    if newest is None or newest[0] < head.checkpoint_id:
        left = f"the newest row left is {newest[0]!r}" if newest else "no row is left"
        raise MissingCheckpoint(
            head.checkpoint_id,
            f"it is the thread's newest checkpoint, but its row is missing ({left})",
        )
    if newest[0] > head.checkpoint_id and newest[1]:
        raise RowProblem(
            f"the thread's head says its newest checkpoint is {head.checkpoint_id!r}, so "
            "this row was not written by a put"
        )
    if count is not None and count != head.checkpoints:
        saved = "checkpoint was" if head.checkpoints == 1 else "checkpoints were"
        raise RowProblem(f"{head.checkpoints} {saved} saved in its thread, {count} are left")
