"""sqlite/writes.py: a new file keys its pending writes by their columns and keeps a large
value apart; writes read back the same either way, a saved write stays, a special slot
is replaced, and nothing is left behind by a replaced slot or a deleted thread."""

from __future__ import annotations

import sqlite3

import pytest

from graphkit.checkpoint import CheckpointDecodeError, SqliteSaver
from graphkit.checkpoint.sqlite.writes import INLINE_WRITE_BYTES
from tests.checkpoint.chains import chain, put_chain, thread

LARGE = "x" * INLINE_WRITE_BYTES  # (its JSON, with quotes, is larger than the limit)


def rows(path, sql):
    with sqlite3.connect(path) as conn:
        found = conn.execute(sql).fetchall()
    conn.close()
    return found


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "writes.db")


def test_a_new_file_keys_its_writes_and_keeps_a_large_value_apart(path):
    with SqliteSaver.from_conn_string(path) as saver:
        config = put_chain(saver, chain(3, 1))[0]
        saver.put_writes(config, [("c0", "small"), ("c1", LARGE), ("c2", [LARGE, 1])], "t1")
        pending = saver.get_tuple(config).pending_writes
    sql = rows(path, "SELECT sql FROM sqlite_master WHERE name = 'graphkit_writes'")[0][0]
    assert sql.rstrip().endswith("WITHOUT ROWID")
    kept = rows(path, "SELECT channel, value IS NULL, value_seq FROM graphkit_writes")
    apart = {channel for channel, no_value, seq in kept if no_value and seq is not None}
    assert apart == {"c1", "c2"}
    assert rows(path, "SELECT COUNT(*) FROM graphkit_write_values") == [(2,)]
    assert [write for write in pending if write[0] == "t1"] == [
        ("t1", "c0", "small"),
        ("t1", "c1", LARGE),
        ("t1", "c2", [LARGE, 1]),
    ]
    with SqliteSaver.from_conn_string(path) as reader:  # (a new connection reads them too)
        assert reader.get_tuple(config).pending_writes == pending


def test_a_write_saved_again_stays_and_leaves_no_value_behind(path):
    with SqliteSaver.from_conn_string(path) as saver:
        config = put_chain(saver, chain(3, 1))[0]
        saver.put_writes(config, [("c0", LARGE), ("c1", 1)], "t1")
        # (a resumed task saving its writes again, one of them larger now, another new)
        saver.put_writes(config, [("c0", LARGE + "y"), ("c1", LARGE), ("c2", 2)], "t1")
        pending = [w for w in saver.get_tuple(config).pending_writes if w[0] == "t1"]
    assert pending == [("t1", "c0", LARGE), ("t1", "c1", 1), ("t1", "c2", 2)]
    assert rows(path, "SELECT COUNT(*) FROM graphkit_write_values") == [(1,)]


@pytest.mark.parametrize("sizes", [("small", "large"), ("large", "small"), ("large", "large")])
def test_a_special_slot_is_replaced_whatever_the_sizes_of_its_values(path, sizes):
    first, second = ({"small": "error 1", "large": LARGE}[size] for size in sizes)
    with SqliteSaver.from_conn_string(path) as saver:
        config = put_chain(saver, chain(3, 1))[0]
        saver.put_writes(config, [("__error__", first)], "t1")
        saver.put_writes(config, [("__error__", second + "!")], "t1")
        pending = [w for w in saver.get_tuple(config).pending_writes if w[0] == "t1"]
    assert pending == [("t1", "__error__", second + "!")]
    assert rows(path, "SELECT COUNT(*) FROM graphkit_write_values") == [(sizes[1] == "large",)]
    with SqliteSaver.from_conn_string(path) as reader:  # the check was kept up to date
        assert pending[0] in reader.get_tuple(config).pending_writes


def test_deleting_a_thread_deletes_its_writes_values_and_no_other(path):
    with SqliteSaver.from_conn_string(path) as saver:
        for name in ("gone", "kept"):
            config = put_chain(saver, chain(3, 1), name)[0]
            saver.put_writes(config, [("c0", LARGE), ("c1", LARGE + name)], "t1")
        saver.delete_thread("gone")
        assert saver.get_tuple(thread("gone")) is None
        kept = saver.get_tuple(thread("kept")).pending_writes
        assert [value for task, _, value in kept if task == "t1"] == [LARGE, LARGE + "kept"]
    assert rows(path, "SELECT COUNT(*) FROM graphkit_write_values") == [(2,)]


@pytest.mark.parametrize(
    "edit",
    [
        "UPDATE graphkit_write_values SET value = CAST('\"edited\"' AS BLOB)",
        "DELETE FROM graphkit_write_values",
        "UPDATE graphkit_writes SET value_seq = value_seq + 1 WHERE value_seq IS NOT NULL",
    ],
)
def test_a_large_value_changed_behind_the_savers_back_is_refused(path, edit):
    with SqliteSaver.from_conn_string(path) as saver:
        config = put_chain(saver, chain(3, 1))[0]
        saver.put_writes(config, [("c0", LARGE), ("c1", LARGE + "1")], "t1")
    with sqlite3.connect(path) as conn:
        conn.execute(edit)
    conn.close()
    with (
        SqliteSaver.from_conn_string(path) as reader,
        pytest.raises(CheckpointDecodeError, match="its pending writes do not match the check"),
    ):
        reader.get_tuple(config)
