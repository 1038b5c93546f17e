"""Files written by an older graphkit still open, read, grow and refuse edits.

``files/sqlite_2026_12_05.db`` was written by graphkit at ``759abf9`` (its head table has
a rowid, its writes an AUTOINCREMENT seq, every row is indexed by thread; files written
since have none of these), ``files/sqlite_2026_12_06.db`` at ``8704ca7`` (without those,
but every value in ``graphkit_blobs``, its rows without ``small_values``, its writes in a
rowid table with a unique index). In both, thread
``chain`` is ``chain(4, 70)`` put with ``put_chain`` (two snapshots and the delta rows
between them; its newest checkpoint put twice, so one row is replaced), thread ``graph``
a 12-step run of ``growing_graph``. ``files/make_sqlite_2026_12_05.py`` (and ``_06``)
wrote them.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from graphkit.checkpoint import CheckpointDecodeError, SqliteSaver
from tests.checkpoint.chains import chain, derive, put_chain, thread
from tests.checkpoint.files.make_sqlite_2026_12_05 import STEPS, growing_graph

FILES = Path(__file__).parent / "files"


@pytest.fixture(params=["sqlite_2026_12_05.db", "sqlite_2026_12_06.db"])
def old_file(tmp_path, request):
    copy = tmp_path / "old.db"
    shutil.copy(FILES / request.param, copy)  # (the committed file is never opened for writing)
    return str(copy)


def blobs(path: str) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT COUNT(*) FROM graphkit_blobs").fetchone()[0]


def layout(path: str) -> list[tuple[str, str]]:
    with sqlite3.connect(path) as conn:
        return sorted(conn.execute("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL"))


def test_an_old_file_reads_back_every_checkpoint_and_write(old_file):
    expected = chain(4, STEPS)
    with SqliteSaver.from_conn_string(old_file) as saver:
        saved = list(saver.list(thread("chain")))[::-1]  # oldest first
        assert len(saved) == STEPS
        for found, want in zip(saved, expected, strict=True):
            checkpoint = found.checkpoint
            assert (checkpoint.step, checkpoint.source) == (want.step, want.source)
            assert dict(checkpoint.channel_values) == dict(want.channel_values)
            assert dict(checkpoint.channel_versions) == dict(want.channel_versions)
            assert dict(checkpoint.versions_seen) == dict(want.versions_seen)
            assert found.metadata["step"] == want.step
            assert found.pending_writes == [
                ("task", "c0", want.step),
                ("task", "log", ["chain", checkpoint.id]),  # (a tagged tuple: read as a list)
            ]
        assert saved[-1].metadata["again"] is True  # the row put second
        assert saver.get_tuple(thread("chain")).checkpoint == saved[-1].checkpoint
        history = list(growing_graph(saver).get_state_history(thread("graph")))
    assert history[0].values == {"n": 12, "log": list(range(12))}
    assert all(state.values["log"] == list(range(state.values["n"])) for state in history[:-1])


def test_an_old_file_grows_and_keeps_its_layout(old_file):
    before, values_before = layout(old_file), blobs(old_file)
    with SqliteSaver.from_conn_string(old_file) as saver:
        latest = saver.get_tuple(thread("chain")).checkpoint
        more = [derive(latest, {"c1": "new"})]
        more.append(derive(more[-1], {"c2": "newer"}, ["c3"]))
        put_chain(saver, more, "chain")
        growing_graph(saver).invoke({"log": []}, thread("graph"))
    assert layout(old_file) == before  # an older graphkit can still open it
    # every value it wrote is a blob, as the graphkit that made the file writes them:
    # the two puts' two, and the run's five (its input, a branch, n and log twice)
    assert blobs(old_file) == values_before + 2 + 5
    with SqliteSaver.from_conn_string(old_file) as reader:
        saved = list(reader.list(thread("chain")))
        assert [found.checkpoint for found in saved[:2]] == more[::-1]
        assert len(saved) == STEPS + 2
        state = growing_graph(reader).get_state(thread("graph"))
    assert state.values == {"n": 13, "log": list(range(13))}


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        ("UPDATE graphkit_blobs SET value = CAST('\"edited\"' AS BLOB)", "values do not match"),
        (
            "DELETE FROM graphkit_checkpoints WHERE seq = (SELECT MAX(seq) FROM "
            "graphkit_checkpoints WHERE thread_id = 'chain')",
            "row is missing",
        ),
        ("UPDATE graphkit_writes SET value = CAST('7' AS BLOB)", "pending writes"),
        ("UPDATE graphkit_checkpoints SET step = step + 1", "fields were changed"),
    ],
)
def test_an_edited_old_file_is_refused(old_file, edit, problem):
    with sqlite3.connect(old_file) as conn:
        conn.execute(edit)
    conn.close()
    with (
        SqliteSaver.from_conn_string(old_file) as saver,
        pytest.raises(CheckpointDecodeError, match=problem),
    ):
        list(saver.list(thread("chain")))


def test_a_thread_of_an_old_file_is_deleted_whole(old_file):
    with SqliteSaver.from_conn_string(old_file) as saver:
        saver.delete_thread("chain")
        assert list(saver.list(thread("chain"))) == []
        assert len(list(saver.list(thread("graph")))) == 14
    with sqlite3.connect(old_file) as conn:
        for table in ("graphkit_checkpoints", "graphkit_writes", "graphkit_heads"):
            left = conn.execute(f"SELECT COUNT(*) FROM {table} WHERE thread_id = 'chain'")
            assert left.fetchone()[0] == 0, table
        assert conn.execute("SELECT COUNT(*) FROM graphkit_blobs").fetchone()[0] > 0
    conn.close()
