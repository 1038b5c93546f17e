"""sqlite_file: SQLite's errors about a file, in words that name the file."""

from __future__ import annotations

import sqlite3

import pytest

from graphkit.checkpoint.sqlite_file import CheckpointFileError, database_path, file_error


@pytest.mark.parametrize(
    ("sqlite_says", "we_say"),
    [
        ("file is not a database", "is not an SQLite database"),
        ("database disk image is malformed", "is damaged"),
        ("attempt to write a readonly database", "read-only"),
        ("database or disk is full", "the disk is full"),
        ("database is locked", "locked by another connection"),
        ("unable to open database file", "cannot be opened"),
        ("something new", "SQLite failed on"),
    ],
)
def test_each_error_names_the_file_the_thread_and_a_fix(tmp_path, sqlite_says, we_say):
    path = str(tmp_path / "runs.db")
    error = file_error(path, sqlite3.OperationalError(sqlite_says), thread="t1")
    assert isinstance(error, CheckpointFileError)
    assert isinstance(error, sqlite3.DatabaseError)  # still caught as SQLite's own
    assert we_say in str(error)
    assert f"{path!r} (reading or writing thread 't1')" in str(error)


def test_a_missing_folder_and_a_folder_are_told_apart(tmp_path):
    missing = str(tmp_path / "nope" / "runs.db")
    assert "its folder" in str(file_error(missing, sqlite3.OperationalError("x")))
    assert "it is a folder" in str(file_error(str(tmp_path), sqlite3.OperationalError("x")))


def test_database_path_names_the_file_or_memory(tmp_path):
    assert database_path(sqlite3.connect(":memory:")) == ":memory:"
    path = str(tmp_path / "runs.db")
    assert database_path(sqlite3.connect(path)) == path


class BusyAtFirst(sqlite3.Connection):
    """A connection whose first ``busy`` journal-mode statements fail as SQLite fails a
    connection that opens a WAL file while another one runs recovery or closes it
    (SQLITE_BUSY, without waiting for the busy timeout)."""

    busy = 0

    def execute(self, sql, *args):
        if BusyAtFirst.busy > 0 and sql.startswith("PRAGMA journal_mode"):
            BusyAtFirst.busy -= 1
            raise sqlite3.OperationalError("database is locked")
        return super().execute(sql, *args)


def test_opening_a_file_another_process_briefly_locks_waits_for_it(tmp_path):
    from graphkit.checkpoint import SqliteSaver

    BusyAtFirst.busy = 3
    conn = sqlite3.connect(tmp_path / "shared.db", factory=BusyAtFirst, check_same_thread=False)
    saver = SqliteSaver(conn)
    assert list(saver.list(None)) == [] and BusyAtFirst.busy == 0
    conn.close()


def test_a_file_that_stays_locked_is_named_after_the_wait(tmp_path, monkeypatch):
    from graphkit.checkpoint import SqliteSaver, sqlite_file

    monkeypatch.setattr(sqlite_file, "OPEN_WAIT_SECONDS", 0.05)
    BusyAtFirst.busy = 10**6
    conn = sqlite3.connect(tmp_path / "shared.db", factory=BusyAtFirst, check_same_thread=False)
    try:
        with pytest.raises(CheckpointFileError, match=r"shared\.db' is locked"):
            SqliteSaver(conn)
    finally:
        BusyAtFirst.busy = 0
        conn.close()


@pytest.mark.parametrize(
    ("stored", "we_say"),
    [
        ("VALUES (3)", "a newer graphkit made it (its tables have layout 3; graphkit"),
        ("VALUES ('two')", "graphkit_layout holds ['two'], not one layout number"),
        ("SELECT version FROM graphkit_layout", "holds [2, 2], not one layout number"),
    ],
)
def test_a_file_of_a_layout_this_graphkit_does_not_know_is_refused(tmp_path, stored, we_say):
    """A new file says which layout its tables have: a graphkit that does not know it
    refuses the file, naming it and what to do, rather than misreading its rows (an
    older graphkit, without this check, calls such a file's checkpoints damaged)."""
    from graphkit.checkpoint import Checkpoint, SqliteSaver
    from graphkit.checkpoint.sqlite_file import LAYOUT

    path = str(tmp_path / "runs.db")
    with SqliteSaver.from_conn_string(path) as saver:
        saver.put({"configurable": {"thread_id": "t"}}, Checkpoint.empty(), {}, {})
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT version FROM graphkit_layout").fetchall() == [(LAYOUT,)]
        if stored.startswith("VALUES"):
            conn.execute("DELETE FROM graphkit_layout")
        conn.execute(f"INSERT INTO graphkit_layout (version) {stored}")
    with pytest.raises(CheckpointFileError) as refused, SqliteSaver.from_conn_string(path):
        pass
    assert f"Cannot open the checkpoint file {path!r}: " in str(refused.value)
    assert we_say in str(refused.value)
    fix = "Upgrade graphkit" if "newer" in we_say else "Restore it from a backup"
    assert fix in str(refused.value)
