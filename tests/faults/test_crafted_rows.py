"""Crafted rows of every table: each read of a file whose rows someone changed returns what
the untouched file returns, or raises ``CheckpointDecodeError`` naming the thread and the
checkpoint; it never hangs, never runs code from the file, never raises anything else
(but for the layout number a new file keeps: edited, the file is refused when opened, with
a ``CheckpointFileError`` naming it).

The file: two threads of ``graph_child``'s graph, one stopped after a step's tasks ran
(so its latest checkpoint has pending writes). For every table, column and kind of
change (wrong types, truncated bytes, JSON of the wrong shape, a pickle that would create
a file, a base pointer into a cycle or another thread, a value from another row, a huge
value, a deleted row) a seeded generator picks a row; each change is made on a fresh copy
of the file and every checkpoint of both threads is read back on a new connection.

Twice: with the checks the saver writes (every change must be refused or harmless), and
with every check cleared, as in a file written before they existed — then a change that
keeps the right shape is read as written (counted), and the rest must still be refused.

The order of pending writes is not compared (nor checked by the saver): the runtime
applies them in task-path order, whatever order they are read in.
"""

from __future__ import annotations

import pathlib
import pickle
import random
import shutil
import sqlite3
import sys
import threading
import traceback
from typing import Any, NamedTuple

import pytest

from graphkit.checkpoint import CheckpointDecodeError, CheckpointFileError, SqliteSaver
from tests.faults import graph_child
from tests.faults.tally import TALLY, scaled

pytestmark = pytest.mark.faults

THREADS = ("t", "other")
ROWS_PER_CHANGE = scaled(ci=1, long=6)
"""How many rows (picked at random) each kind of change is made to, per column."""
CHANGES = scaled(ci=120, long=100_000)
"""At most this many of those changes are tried (a seeded sample), per mode."""
SEED = 17
TIMEOUT = 60.0


class Payload:
    """What unpickling would run: create a file."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return (pathlib.Path.touch, (pathlib.Path(self.path),))


class Change(NamedTuple):
    name: str
    sql: str
    params: tuple[Any, ...]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The file, and what every read of it returns."""
    folder = tmp_path_factory.mktemp("crafted")
    db = str(folder / "reference.db")
    with SqliteSaver.from_conn_string(db) as saver:
        app = graph_child.build(saver)
        app.invoke(graph_child.INPUT, config("other"))
        stepper = app.stepper(graph_child.INPUT, config("t"), durability="sync")
        while stepper.step_number < 4 or stepper.next_phase != "update":
            getattr(stepper, stepper.next_phase)()  # stops with step 4's writes saved
    reads = read_all(db)
    assert all(not isinstance(read, Exception) for read in reads.values())
    assert reads["latest t"][0][4], "the latest checkpoint has pending writes"
    return db, reads


def config(thread: str, checkpoint_id: str | None = None) -> dict[str, Any]:
    configurable = {"thread_id": thread}
    if checkpoint_id is not None:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


def read_all(db: str, ids: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """Every read of both threads (their latest, their list, each checkpoint by id), on
    a new connection: what each returned (normalized) or raised."""
    reads = [
        read
        for thread in THREADS
        for read in [
            (f"latest {thread}", config(thread)),
            (f"list {thread}", None),
            *((f"{thread} {id_}", config(thread, id_)) for id_ in (ids or {}).get(thread, [])),
        ]
    ]
    found: dict[str, Any] = {}
    try:
        with SqliteSaver.from_conn_string(db) as saver:
            for name, one in reads:
                thread = name.split()[1] if name.startswith(("latest", "list")) else name.split()[0]
                try:
                    saved = [saver.get_tuple(one)] if one else list(saver.list(config(thread)))
                    found[name] = [normal(item) for item in saved]
                except Exception as error:  # judged by the caller
                    found[name] = error
    except CheckpointFileError as error:  # the file refused whole, when it is opened
        return {name: error for name, _ in reads}
    return found


def normal(saved):
    if saved is None:
        return None
    writes = sorted(saved.pending_writes, key=repr)
    return (saved.config, saved.checkpoint, saved.metadata, saved.parent_config, writes)


# -- the changes -------------------------------------------------------------------------


def changes(db: str, pick: random.Random, target: str) -> list[Change]:
    conn = sqlite3.connect(db)
    try:
        made = []
        tables = [
            row[0]
            for row in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'graphkit_%'"
            )
        ]
        for table in sorted(tables):
            columns = [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
            key = row_key(conn, table)
            where = " AND ".join(f"{column} IS ?" for column in key)
            rows = conn.execute(f"SELECT {', '.join(key)}, * FROM {table}").fetchall()
            max_seq = conn.execute("SELECT MAX(seq) FROM graphkit_checkpoints").fetchone()[0]
            for row in rows:
                made.append(
                    Change(
                        f"{table}: row deleted",
                        f"DELETE FROM {table} WHERE {where}",
                        tuple(row[: len(key)]),
                    )
                )
            for index, column in enumerate(columns):
                # (each row is its key's columns, then every column)
                for kind, value in values(column, rows, len(key) + index, pick, target, max_seq):
                    for row in pick.sample(rows, min(ROWS_PER_CHANGE, len(rows))):
                        chosen = value(row) if callable(value) else value
                        made.append(
                            Change(
                                f"{table}.{column}: {kind}",
                                f"UPDATE {table} SET {column} = ? WHERE {where}",
                                (chosen, *row[: len(key)]),
                            )
                        )
        return made
    finally:
        conn.close()


def row_key(conn: sqlite3.Connection, table: str) -> list[str]:
    """The columns that pick one row of ``table``: its rowid, or, in a table without one
    (the layout of files written since 2026-12-06), its primary key."""
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
    if not sql.rstrip().upper().endswith("WITHOUT ROWID"):
        return ["rowid"]
    info = sorted(conn.execute(f"PRAGMA table_info({table})"), key=lambda column: column[5])
    return [column[1] for column in info if column[5] > 0]


def values(column, rows, index, pick, target, max_seq):
    """(kind, value or row -> value) of the changes to make to ``column``, the
    ``index``-th field of each of ``rows``."""
    evil = pickle.dumps(Payload(target))
    deep = b"[" * 100_000 + b"]" * 100_000
    made = [
        ("an integer", 7),
        ("a negative integer", -1),
        ("the largest integer", 2**63 - 1),
        ("a float", 1.5),
        ("text", "x"),
        ("empty text", ""),
        ("bytes", b"\x00\xff"),
        ("NULL", None),
        ("a value from another row", lambda row: pick.choice(rows)[index]),
        ("truncated", lambda row: truncated(row[index])),
        ("a huge value", lambda row: huge(row[index])),
    ]
    if column in ("type", "metadata_type", "delta_type"):
        made.append(("'pickle'", "pickle"))
    if column in ("value", "metadata", "delta", "updated_channels", "small_values"):
        made += [
            ("a pickle that creates a file", evil),
            ("JSON: a list", b"[]"),
            ("JSON: null", b"null"),
            ("JSON: a tag without a value", b'{"__gk__": "tuple"}'),
            (
                "JSON: a class to import",
                b'{"__gk__": "dataclass", "cls": "antigravity:X", "v": {}}',
            ),
            ("JSON: nested 100,000 deep", deep),
            ("JSON: truncated", b'{"values": [{'),
        ]
    if column in ("base_seq", "checkpoint_seq", "seq"):
        made += [
            ("its own row", lambda row: row[0]),
            ("a row that does not exist", max_seq + 5),
        ]
    return made


def truncated(value):
    return value[: len(value) // 2] if isinstance(value, (str, bytes)) else value


def huge(value):
    if isinstance(value, bytes):
        return value + b" " * 4_000_000
    if isinstance(value, str):
        return value + "x" * 4_000_000
    return 2**62 if isinstance(value, int) else 1e308


def without_checks(db: str) -> None:
    conn = sqlite3.connect(db)
    with conn:
        conn.execute(
            "UPDATE graphkit_checkpoints SET blob_count = NULL, blob_hash = NULL, "
            "row_hash = NULL, write_count = NULL, write_sum = NULL"
        )
        conn.execute("UPDATE graphkit_heads SET checkpoints = 0")
    conn.close()


# -- the reads ---------------------------------------------------------------------------


def judge(read: str, found: Any, expected: Any) -> str:
    """ "same", "refused" (naming thread and checkpoint) or "read as written"; anything
    else fails the test."""
    if not isinstance(found, Exception):
        return "same" if found == expected else "read as written"
    if isinstance(found, CheckpointFileError):  # (a file whose layout number was edited)
        message = str(found)
        assert message.startswith("Cannot open the checkpoint file "), message
        assert "graphkit_layout" in message or "a newer graphkit made it" in message, message
        return "refused"
    assert isinstance(found, CheckpointDecodeError), (
        f"{read}: {found!r}\n{''.join(traceback.format_exception(found))}"
    )
    thread = read.split()[1] if read.startswith(("latest", "list")) else read.split()[0]
    message = str(found)
    assert f"of thread {thread!r}" in message or "thread 'other'" in message, message
    assert message.startswith("Cannot read checkpoint "), message
    return "refused"


def read_within(db: str, ids: dict[str, list[str]]) -> dict[str, Any]:
    outcome: list[Any] = []
    reader = threading.Thread(target=lambda: outcome.append(read_all(db, ids)), daemon=True)
    reader.start()
    reader.join(TIMEOUT)
    assert outcome, f"reading {db} did not end within {TIMEOUT} s"
    return outcome[0]


@pytest.mark.parametrize("checks", ["with checks", "checks cleared"])
def test_every_crafted_row_is_refused_or_harmless(tmp_path, reference, checks):
    db, _ = reference
    base = str(tmp_path / "base.db")
    shutil.copy(db, base)
    if checks == "checks cleared":
        without_checks(base)
    target = str(tmp_path / "pwned")
    ids = {  # read by id: the newest, one in the middle, the oldest (list reads them all)
        thread: [saved[0]["configurable"]["checkpoint_id"] for saved in reads][:: len(reads) // 2]
        for thread in THREADS
        for reads in [read_all(base)[f"list {thread}"]]
    }
    expected = read_all(base, ids)
    tally: dict[str, int] = {"same": 0, "refused": 0, "read as written": 0, "rejected": 0}
    pick = random.Random(f"{SEED}-{checks}")
    made = changes(base, pick, target)
    made = pick.sample(made, min(CHANGES, len(made)))
    for number, change in enumerate(made):
        copy = str(tmp_path / f"{number}.db")
        shutil.copy(base, copy)
        conn = sqlite3.connect(copy)
        try:
            with conn:
                conn.execute(change.sql, change.params)
        except sqlite3.IntegrityError:  # NOT NULL, UNIQUE: SQLite itself refuses it
            tally["rejected"] += 1
            continue
        finally:
            conn.close()
        found = read_within(copy, ids)
        try:
            verdicts = [judge(read, found[read], expected[read]) for read in expected]
        except AssertionError as error:
            shown = f"{change.sql} {repr(change.params)[:200]}"
            raise AssertionError(f"{change.name} ({shown}): {error}") from None
        if checks == "with checks":
            assert "read as written" not in verdicts, change.name
        for verdict in verdicts:
            tally[verdict] += 1
        pathlib.Path(copy).unlink()
    assert not pathlib.Path(target).exists(), "a pickle from the file was run"
    assert "antigravity" not in sys.modules
    TALLY[f"crafted rows tried, {checks}"] += len(made)
    TALLY[f"crafted rows tried, {checks}: rejected by SQLite"] += tally["rejected"]
    TALLY[f"reads of crafted files, {checks}: refused"] += tally["refused"]
    TALLY[f"reads of crafted files, {checks}: the right value"] += tally["same"]
    TALLY[f"reads of crafted files, {checks}: read as written"] += tally["read as written"]
    TALLY["crafted rows: hung, raised a raw error or ran code"] += 0
