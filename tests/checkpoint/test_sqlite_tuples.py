"""The tuples a read of many rows returns (``sqlite/tuples.py``): a page of rows at a
time, each page's blobs and pending writes read in a statement each, and still every
row's own values, writes and checks, across pages and threads."""

from __future__ import annotations

import sqlite3

import pytest

from graphkit import InMemorySaver
from graphkit.checkpoint import CheckpointDecodeError, SqliteSaver
from graphkit.checkpoint.sqlite.tuples import PAGE_ROWS
from tests.checkpoint.chains import chain, put_chain, thread

STEPS = PAGE_ROWS * 2 + 30  # three pages, the last one short
BIG = "x" * 300  # (a value too big for its row: a blob)


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "checkpoints.db")


def read_back(saver, config):
    return [
        (saved.checkpoint, saved.metadata, saved.pending_writes) for saved in saver.list(config)
    ]


def test_a_history_reads_blobs_and_writes_a_page_of_rows_at_a_time(path):
    # (it read both once per checkpoint: two statements a row)
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, chain(4, STEPS, tag=BIG))
    statements: list[str] = []
    with SqliteSaver.from_conn_string(path) as reader:
        reader.conn.set_trace_callback(statements.append)
        assert len(list(reader.list(thread("t", "")))) == STEPS
    selects = [sql for sql in statements if sql.lstrip().upper().startswith(("SELECT", "WITH"))]
    assert len(selects) <= 3 * 2 + 10, selects[:20]


def test_pages_across_threads_read_as_the_in_memory_saver(path):
    memory = InMemorySaver()
    with SqliteSaver.from_conn_string(path) as saver:
        for name, tag in (("a", BIG), ("b", "")):
            checkpoints = chain(4, STEPS, seed=len(tag), tag=tag)
            put_chain(saver, checkpoints, name)
            put_chain(memory, checkpoints, name)
    with SqliteSaver.from_conn_string(path) as reader:
        for config in (thread("a"), thread("b", "")):
            assert read_back(reader, config) == read_back(memory, config)
        # (every thread at once: newest id first, as LangGraph's SQLite saver, where
        # the in-memory saver goes thread by thread)
        by_id = sorted(read_back(memory, None), key=lambda read: read[0].id, reverse=True)
        assert read_back(reader, None) == by_id
        # A reader's edit of a value changes no later read (the page's blobs are the
        # saver's: each row reads its own copy).
        first = next(reader.list(thread("a")))
        first.checkpoint.channel_values["c0"].append("edited")
        assert read_back(reader, thread("a")) == read_back(memory, thread("a"))


def test_an_edited_blob_in_a_later_page_names_its_checkpoint(path):
    with SqliteSaver.from_conn_string(path) as saver:
        configs = put_chain(saver, chain(4, STEPS, tag=BIG))
    edited = configs[PAGE_ROWS + 5]["configurable"]["checkpoint_id"]
    with sqlite3.connect(path) as conn:
        conn.execute(
            "UPDATE graphkit_blobs SET value = CAST('[1]' AS BLOB) WHERE checkpoint_seq ="
            " (SELECT seq FROM graphkit_checkpoints WHERE checkpoint_id = ?)",
            (edited,),
        )
    conn.close()
    with (
        SqliteSaver.from_conn_string(path) as reader,
        pytest.raises(CheckpointDecodeError, match=f"checkpoint '{edited}'.*changed after"),
    ):
        list(reader.list(thread("t")))
