"""A full disk and a read-only file or folder: the run fails with ``CheckpointFileError``
naming the file and the thread; the file stays readable, with the last checkpoint that
was saved; once there is room again (or the file is writable), the thread resumes to the
result of a run that never failed.

A full disk is SQLite's ``max_page_count``: the file may not grow past its size when the
limit is set, so the next put or task write that needs a new page fails with SQLite's
own "database or disk is full" — the error a full disk gives. (Mounting a tiny tmpfs
needs privileges CI does not have.)

The tests run as root, whom ``chmod`` does not stop, so a read-only file or folder is
made immutable with ``chattr +i``, which stops root too; where ``chattr`` is missing
or not allowed those tests are skipped, and a connection opened read-only (``mode=ro``)
stands in for a read-only file.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from contextlib import contextmanager

import pytest

from graphkit.checkpoint import CheckpointFileError, SqliteSaver
from tests.faults import graph_child
from tests.faults.harness import integrity_problems
from tests.faults.tally import TALLY

pytestmark = pytest.mark.faults

CONFIG = {"configurable": {"thread_id": "disk"}}


def run_until(saver, step: int) -> None:
    """Run the thread up to the start of ``step``."""
    stepper = graph_child.build(saver).stepper(graph_child.INPUT, CONFIG, durability="sync")
    while stepper.step_number < step and not stepper.done:
        getattr(stepper, stepper.next_phase)()


def resume(db: str) -> dict:
    with SqliteSaver.from_conn_string(db) as saver:
        started = saver.get_tuple(CONFIG) is not None
        return graph_child.build(saver).invoke(None if started else graph_child.INPUT, CONFIG)


def assert_names_file_and_thread(error: BaseException, db: str) -> None:
    assert isinstance(error, CheckpointFileError), repr(error)
    assert repr(db) in str(error) and "thread 'disk'" in str(error), str(error)


@pytest.mark.parametrize("full_from_step", range(-1, 8, 2))
def test_a_full_disk_fails_naming_file_and_thread_and_loses_nothing(
    tmp_path, uninterrupted, full_from_step
):
    db = str(tmp_path / "full.db")
    with SqliteSaver.from_conn_string(db) as saver:
        run_until(saver, full_from_step)
        saver.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = saver.conn.execute("PRAGMA page_count").fetchone()[0]
        saver.conn.execute(f"PRAGMA max_page_count = {pages}")
        started = saver.get_tuple(CONFIG) is not None
        with pytest.raises(CheckpointFileError, match="the disk is full") as error:
            graph_child.build(saver).invoke(None if started else graph_child.INPUT, CONFIG)
        # the steps that still fitted in the file's free space were saved; then nothing
        last_good = saver.get_tuple(CONFIG)
    assert_names_file_and_thread(error.value, db)
    assert integrity_problems(db) == []
    with SqliteSaver.from_conn_string(db) as reader:  # the last good checkpoint reads back
        latest = reader.get_tuple(CONFIG)
        assert (latest and latest.checkpoint) == (last_good and last_good.checkpoint)
        list(reader.list(CONFIG))  # and so does every one before it
    assert resume(db) == uninterrupted["values"]  # room again: the thread finishes
    TALLY["full disk: runs stopped, then resumed to the right result"] += 1


@contextmanager
def immutable(path):
    """``path`` (a file or folder) made read-only even for root, for the block."""
    if shutil.which("chattr") is None:
        pytest.skip("chattr is not installed; test_a_read_only_connection covers a read-only file")
    made = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"chattr +i is not allowed here ({made.stderr.strip()})")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def started_file(tmp_path) -> str:
    """A file whose thread ran two steps and was closed."""
    db = str(tmp_path / "started.db")
    with SqliteSaver.from_conn_string(db) as saver:
        run_until(saver, 2)
    return db


def test_a_read_only_file_fails_naming_file_and_thread_and_loses_nothing(tmp_path, uninterrupted):
    db = started_file(tmp_path)
    with immutable(db), pytest.raises(CheckpointFileError, match="read-only") as error:
        resume(db)
    assert_names_file_and_thread(error.value, db)
    assert resume(db) == uninterrupted["values"]
    TALLY["read-only file or folder: runs refused, then resumed to the right result"] += 1


def test_a_read_only_folder_fails_naming_file_and_thread_and_loses_nothing(tmp_path, uninterrupted):
    db = started_file(tmp_path)
    with immutable(tmp_path), pytest.raises(CheckpointFileError) as error:
        resume(db)  # SQLite cannot make the journal files it needs beside the file
    assert repr(db) in str(error.value)
    assert resume(db) == uninterrupted["values"]
    TALLY["read-only file or folder: runs refused, then resumed to the right result"] += 1


def test_a_new_file_in_a_read_only_folder_is_named(tmp_path):
    db = str(tmp_path / "new.db")
    with immutable(tmp_path), pytest.raises(CheckpointFileError, match="cannot be opened") as error:
        resume(db)
    assert repr(db) in str(error.value)


def test_a_read_only_connection_fails_naming_file_and_thread(tmp_path, uninterrupted):
    db = started_file(tmp_path)
    read_only = sqlite3.connect(f"file:{db}?mode=ro", uri=True, check_same_thread=False)
    try:
        saver = SqliteSaver(read_only)
        assert saver.get_tuple(CONFIG) is not None  # reading works
        with pytest.raises(CheckpointFileError, match="read-only") as error:
            graph_child.build(saver).invoke(None, CONFIG)
    finally:
        read_only.close()
    assert_names_file_and_thread(error.value, db)
    assert resume(db) == uninterrupted["values"]
    TALLY["read-only file or folder: runs refused, then resumed to the right result"] += 1
