"""sqlite/rows.py: a new file keeps a checkpoint's small values in its row, and any bytes
come back as they were; what an edited row holds is refused, saying what is wrong."""

from __future__ import annotations

import re
import sqlite3

import pytest

from graphkit.checkpoint import Checkpoint, SqliteSaver
from graphkit.checkpoint.integrity import RowProblem, blob_check
from graphkit.checkpoint.sqlite.rows import SMALL_VALUE_BYTES, read_small, split_small
from tests.checkpoint.chains import derive, put_chain, thread


def test_small_values_round_trip_any_bytes_and_larger_ones_stay_blobs():
    every_byte = bytes(range(256))
    blobs = [
        ("every byte", "bytes", every_byte[:SMALL_VALUE_BYTES]),
        ("largest", "json", b"1" * SMALL_VALUE_BYTES),
        ("too large", "json", b"1" * (SMALL_VALUE_BYTES + 1)),
        ("é ☃", "json", b'"\xc3\xa9"'),
        ("text value", "json", "a custom serializer's str"),
    ]
    text, rest = split_small(blobs)
    assert [channel for channel, _, _ in rest] == ["too large", "text value"]
    assert read_small(text) == {
        channel: (type_, value) for channel, type_, value in blobs[:2] + blobs[3:4]
    }
    assert split_small([("big", "json", b"1" * 1000)]) == (None, [("big", "json", b"1" * 1000)])
    assert read_small(None) == {}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('["c", "json"', "are not a JSON list"),
        (b"\xff\xfe", "are not a JSON list"),
        (7, "are not a JSON list"),
        ('{"c": 1}', "not a list of [channel, type, value] texts"),
        ('["c", "json"]', "not a list of [channel, type, value] texts"),
        ('["c", "json", 1]', "not a list of [channel, type, value] texts"),
        ('["c", "json", "1", "c", "json", "2"]', "hold channel 'c' twice"),
        ('["c", "json", "\\u2603"]', "hold channel 'c' as text that is not bytes"),
    ],
)
def test_edited_small_values_are_refused_saying_what_is_wrong(text, problem):
    with pytest.raises(RowProblem, match=re.escape(problem)):
        read_small(text)


def test_a_new_file_keeps_small_values_in_the_row_and_reads_them_back_cold(tmp_path):
    path = str(tmp_path / "new.db")
    big = "x" * SMALL_VALUE_BYTES
    first = derive(Checkpoint.empty(), {"n": 0, "flag": None, "log": [big]}, source="input")
    second = derive(first, {"n": 1, "log": [big, big]})
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, [first, second])
    with sqlite3.connect(path) as conn:
        stored = conn.execute(
            "SELECT small_values, blob_count, blob_hash FROM graphkit_checkpoints ORDER BY seq"
        ).fetchall()
        blobs = conn.execute("SELECT checkpoint_seq, channel FROM graphkit_blobs").fetchall()
    conn.close()
    assert [sorted(read_small(small)) for small, _, _ in stored] == [["flag", "n"], ["n"]]
    assert [channel for _, channel in blobs] == ["log", "log"]  # one per step: too big
    assert stored[1][1:] == blob_check(
        [("n", "json", b"1"), ("log", "json", f'["{big}","{big}"]'.encode())]
    )  # (the same check as if every value were a blob)
    with SqliteSaver.from_conn_string(path) as reader:
        assert [saved.checkpoint for saved in reader.list(thread("t"))] == [second, first]
