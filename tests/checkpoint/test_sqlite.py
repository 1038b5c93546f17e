"""SqliteSaver: what it writes (one blob per changed channel, bounded delta chains),
that it outlives its connection, that threads can share it, and that a database
someone tampered with is refused rather than run."""

from __future__ import annotations

import dataclasses
import itertools
import json
import operator
import pathlib
import pickle
import sqlite3
import sys
import threading
from typing import Annotated, TypedDict

import pytest

from graphkit import START, Command, InMemorySaver, StateGraph, interrupt
from graphkit.checkpoint import (
    Checkpoint,
    CheckpointDecodeError,
    CheckpointFileError,
    PickleSerializer,
    SqliteSaver,
)
from graphkit.checkpoint.deltas import LONGEST_CHAIN, SNAPSHOT_EVERY
from graphkit.checkpoint.sqlite.rows import SMALL_VALUE_BYTES
from tests.checkpoint.chains import chain, derive, put_chain, thread


def count(path, sql, *params):
    with sqlite3.connect(path) as conn:
        return conn.execute(sql, params).fetchone()[0]


def execute(path, sql, *params):
    conn = sqlite3.connect(path)
    with conn:
        conn.execute(sql, params)
    conn.close()


CHECKS = ("blob_count", "blob_hash", "row_hash", "write_count", "write_sum")

BIG = "x" * SMALL_VALUE_BYTES
"""A ``chain`` tag that makes every value too big for its row: each one is a blob."""


def stored_values(path):
    """How many values the file holds: its blobs, and the small values its rows keep."""
    return count(
        path,
        "SELECT (SELECT COUNT(*) FROM graphkit_blobs) + (SELECT"
        " COALESCE(SUM(json_array_length(small_values)), 0) FROM graphkit_checkpoints) / 3",
    )


def edit_small_values(path, edit, where="small_values IS NOT NULL"):
    """Apply ``edit`` to the small values of the rows ``where`` picks: it takes the list
    of [channel, type, value text] and returns the new one (None: the column cleared)."""
    conn = sqlite3.connect(path)
    with conn:
        found = conn.execute(f"SELECT seq, small_values FROM graphkit_checkpoints WHERE {where}")
        for seq, text in found.fetchall():
            items = json.loads(text)
            edited = edit([items[start : start + 3] for start in range(0, len(items), 3)])
            text = None if edited is None else json.dumps([part for one in edited for part in one])
            update = "UPDATE graphkit_checkpoints SET small_values = ? WHERE seq = ?"
            conn.execute(update, (text, seq))
    conn.close()


def without_checks(path):
    """Clear the rows' checks, as in a file written before they existed: what the
    serializer and the shape checks alone refuse."""
    execute(path, f"UPDATE graphkit_checkpoints SET {' = NULL, '.join(CHECKS)} = NULL")
    execute(path, "UPDATE graphkit_heads SET checkpoints = 0")


def as_before_the_checks(path):
    """Make the file what a graphkit without any checks wrote: no check columns, no heads."""
    for column in CHECKS:
        execute(path, f"ALTER TABLE graphkit_checkpoints DROP COLUMN {column}")
    execute(path, "DROP TABLE graphkit_heads")


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "checkpoints.db")


# -- the file ---------------------------------------------------------------------------


def test_from_conn_string_opens_a_wal_database_and_closes_it(path):
    with SqliteSaver.from_conn_string(path) as saver:
        assert saver.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert repr(saver) == f"SqliteSaver({path!r})"
    with pytest.raises(sqlite3.ProgrammingError):
        saver.conn.execute("SELECT 1")


def test_checkpoints_outlive_the_connection(path):
    checkpoints = chain(50, 150)
    with SqliteSaver.from_conn_string(path) as saver:
        configs = put_chain(saver, checkpoints)
        before = list(saver.list(thread("t")))
    with SqliteSaver.from_conn_string(path) as reopened:
        assert list(reopened.list(thread("t"))) == before
        for checkpoint, config in zip(checkpoints, configs, strict=True):
            assert reopened.get_tuple(config).checkpoint == checkpoint
        # A resumed run derives from what it read; its next checkpoint is a delta again.
        latest = reopened.get_tuple(thread("t")).checkpoint
        reopened.put(thread("t"), derive(latest, {"c1": "resumed"}), {}, {})
    last_base = "SELECT base_seq FROM graphkit_checkpoints ORDER BY seq DESC LIMIT 1"
    assert count(path, last_base) is not None


def test_its_tables_live_beside_langgraphs_in_one_file(path):
    from langgraph.checkpoint.sqlite import SqliteSaver as LangGraphSqliteSaver

    with LangGraphSqliteSaver.from_conn_string(path) as theirs:
        theirs.setup()
    with SqliteSaver.from_conn_string(path) as ours:
        put_chain(ours, chain(3, 2))
        assert len(list(ours.list(None))) == 2


# -- cost: what a step changed ---------------------------------------------------------------


def test_each_put_serializes_only_the_channels_its_step_changed(path):
    steps = 3 * SNAPSHOT_EVERY  # long enough to cross snapshots and DeltaMap flattening
    checkpoints = chain(1000, steps, changed=2)
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, checkpoints[:1])
        assert stored_values(path) == 1000
        for done, checkpoint in enumerate(checkpoints[1:], start=1):
            changed = len(checkpoint.channel_values.delta()[0])
            before = stored_values(path)
            saver.put(thread("t"), checkpoint, {}, {})
            assert stored_values(path) == before + changed, done
    snapshots = count(path, "SELECT COUNT(*) FROM graphkit_checkpoints WHERE base_seq IS NULL")
    assert snapshots in (2, 3)  # the first row, then one every SNAPSHOT_EVERY or more rows
    longest = count(path, "SELECT MAX(depth) FROM graphkit_checkpoints")
    assert SNAPSHOT_EVERY - 1 <= longest < LONGEST_CHAIN
    with SqliteSaver.from_conn_string(path) as reopened:
        assert [saved.checkpoint for saved in reopened.list(thread("t"))] == checkpoints[::-1]


def test_a_wide_graphs_chain_of_deltas_runs_longer_and_reads_back_cold(path):
    # A 1,000-node chain: its state grows a node's channels a step, and after a few
    # hundred steps a snapshot costs what a hundred deltas or more do, so the chain runs
    # past SNAPSHOT_EVERY rows; a new connection reads every row of it.
    builder = StateGraph(Wide)
    names = [f"n{index}" for index in range(1000)]
    for name in names:
        builder.add_node(name, lambda state: {"n": state["n"] + 1})
    builder.add_edge(START, names[0])
    for first, second in itertools.pairwise(names):
        builder.add_edge(first, second)
    config = {**thread("wide"), "recursion_limit": 1100}
    with SqliteSaver.from_conn_string(path) as saver:
        builder.compile(checkpointer=saver).invoke({"n": 0}, config)
    depths = [depth for (depth,) in rows(path, "SELECT depth FROM graphkit_checkpoints")]
    assert SNAPSHOT_EVERY < max(depths) < LONGEST_CHAIN
    with SqliteSaver.from_conn_string(path) as reader:
        app = builder.compile(checkpointer=reader)
        states = [state.values.get("n") for state in app.get_state_history(config)]
        newest = reader.get_tuple(thread("wide")).checkpoint
    assert states == [*range(1000, -1, -1), None]
    expected = InMemorySaver()
    builder.compile(checkpointer=expected).invoke({"n": 0}, config)
    assert dict(newest.versions_seen) == dict(expected.get_tuple(config).checkpoint.versions_seen)


class Wide(TypedDict):
    n: int


def rows(path, sql, *params):
    with sqlite3.connect(path) as conn:
        return conn.execute(sql, params).fetchall()


def test_a_threads_rows_are_found_by_index_not_by_reading_every_row(path):
    # A new file indexes rows by id and rows put again by thread; no read or delete of a
    # thread reads every row of the file.
    checkpoints = chain(3, 3)
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, checkpoints)
        put_chain(saver, chain(3, 2, tag="u"), "other")
        saver.put(thread("t"), checkpoints[-1], {}, {})  # (a row put again)
        conn = saver.conn
        for sql in (
            "SELECT seq FROM graphkit_checkpoints WHERE thread_id = ? AND replaced = 0",
            "SELECT seq FROM graphkit_checkpoints WHERE thread_id = ? AND replaced <> 0",
            "DELETE FROM graphkit_checkpoints WHERE thread_id = ? AND replaced <> 0",
            "SELECT * FROM graphkit_checkpoints AS c WHERE replaced = 0 AND thread_id = ?"
            " AND checkpoint_ns = ? ORDER BY checkpoint_id DESC",
        ):
            plan = " ".join(
                row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}", ("t",) * sql.count("?"))
            )
            assert "USING" in plan and "SCAN graphkit_checkpoints " not in f"{plan} ", (sql, plan)
        saver.delete_thread("t")
        assert list(saver.list(thread("t"))) == [] and len(list(saver.list(None))) == 2
    assert count(path, "SELECT COUNT(*) FROM graphkit_checkpoints WHERE thread_id = 't'") == 0
    names = {name for (name,) in rows(path, "SELECT name FROM sqlite_master")}
    assert "graphkit_checkpoints_by_thread" not in names  # (a page less per put)


def test_a_checkpoint_derived_from_a_read_one_writes_only_what_changed(path):
    """A reader gets its own copy of the values (see the test below); a checkpoint a
    resumed run derives from that copy is still a delta of the row it was read from:
    the 50 values no step changed are not written again, read from memory or from the
    reopened file."""
    first = derive(Checkpoint.empty(), {f"c{i}": [i] for i in range(50)}, source="input")
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, [first])
        before = stored_values(path)
        latest = saver.get_tuple(thread("t")).checkpoint
        saver.put(thread("t"), derive(latest, {"c1": "resumed"}), {}, {})
        assert stored_values(path) == before + 1
    with SqliteSaver.from_conn_string(path) as reopened:
        latest = next(reopened.list(thread("t"))).checkpoint
        reopened.put(thread("t"), derive(latest, {"c2": "resumed again"}), {}, {})
        assert stored_values(path) == before + 2
        assert reopened.get_tuple(thread("t")).checkpoint.channel_values["c1"] == "resumed"


def test_a_checkpoint_of_plain_dicts_is_stored_whole_and_read_back(path):
    first, second = chain(5, 2)
    plain = derive(second, {"c1": 1})
    plain = dataclasses.replace(plain, channel_values=dict(plain.channel_values))
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, [first, second, plain])
        assert saver.get_tuple(thread("t")).checkpoint == plain


def test_a_base_deleted_by_another_connection_is_not_built_on(path):
    first, second = chain(5, 2)
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, [first])
        execute(path, "DELETE FROM graphkit_checkpoints")
        saver.put(thread("t"), second, {}, {})
        assert saver.get_tuple(thread("t")).checkpoint == second
    assert count(path, "SELECT base_seq FROM graphkit_checkpoints") is None


# -- threads ---------------------------------------------------------------------------------


def test_threads_sharing_one_saver_keep_their_chains_apart(path):
    names = [f"thread-{index}" for index in range(8)]
    chains = {name: chain(30, 40, seed=index, tag=name) for index, name in enumerate(names)}
    failures = []
    with SqliteSaver.from_conn_string(path) as saver:
        start = threading.Barrier(len(names))

        def work(name):
            try:
                start.wait()
                put_chain(saver, chains[name], name)
            except Exception as error:  # reported below; a thread cannot fail the test
                failures.append(error)

        workers = [threading.Thread(target=work, args=(name,)) for name in names]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    assert failures == []
    with SqliteSaver.from_conn_string(path) as reopened:
        for name, checkpoints in chains.items():
            history = list(reopened.list(thread(name)))
            assert [saved.checkpoint for saved in history] == checkpoints[::-1]
            for saved, parent in itertools.pairwise(history):
                assert saved.parent_config == parent.config
            assert all(name in str(dict(saved.checkpoint.channel_values)) for saved in history[:-1])
            assert history[0].pending_writes == [
                ("task", "c0", checkpoints[-1].step),
                ("task", "log", [name, checkpoints[-1].id]),
            ]


# -- a tampered database is refused, naming the thread and checkpoint --------------------------


class Payload:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):  # what unpickling would run
        return (pathlib.Path.touch, (pathlib.Path(self.path),))


@pytest.mark.parametrize("where", ["blob", "small value", "metadata", "write"])
def test_a_pickle_smuggled_into_a_row_is_refused_and_never_run(path, tmp_path, where):
    target = tmp_path / "pwned"
    evil = pickle.dumps(Payload(str(target)))
    checkpoints = chain(3, 2, tag=BIG if where == "blob" else "")
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, checkpoints, "victim")
    if where == "small value":
        edit_small_values(
            path, lambda kept: [[channel, "pickle", evil.decode("latin-1")] for channel, *_ in kept]
        )
    else:
        table, columns = {
            "blob": ("graphkit_blobs", "type = 'pickle', value = ?"),
            "metadata": ("graphkit_checkpoints", "metadata_type = 'pickle', metadata = ?"),
            "write": ("graphkit_writes", "type = 'pickle', value = ?"),
        }[where]
        execute(path, f"UPDATE {table} SET {columns}", evil)
    without_checks(path)
    with (
        SqliteSaver.from_conn_string(path) as reader,
        pytest.raises(CheckpointDecodeError) as error,
    ):
        reader.get_tuple(thread("victim"))
    message = str(error.value)
    assert f"checkpoint {checkpoints[-1].id!r} of thread 'victim'" in message
    assert "never unpickles" in message
    assert not target.exists()


@pytest.mark.parametrize("kept", ["as a blob", "in its row"])
@pytest.mark.parametrize(
    ("stored", "problem"),
    [
        (b'{"__gk__": "dataclass", "cls": "os:system", "v": {}}', "does not name a class"),
        (b'{"truncated": ', "corrupt JSON"),
    ],
)
def test_an_unreadable_value_names_thread_checkpoint_and_channel(path, stored, problem, kept):
    first, second = chain(3, 2, tag=BIG if kept == "as a blob" else "")
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, [first, second])
    channel = sorted(second.channel_values.delta()[0])[0]
    if kept == "as a blob":
        execute(path, "UPDATE graphkit_blobs SET value = ? WHERE channel = ?", stored, channel)
    else:
        edit_small_values(
            path,
            lambda values: [
                [name, type_, stored.decode() if name == channel else value]
                for name, type_, value in values
            ],
        )
    without_checks(path)
    with (
        SqliteSaver.from_conn_string(path) as reader,
        pytest.raises(CheckpointDecodeError, match=problem) as error,
    ):
        reader.get_tuple(thread("t"))
    assert f"checkpoint {second.id!r} of thread 't': channel {channel!r}" in str(error.value)
    assert "antigravity" not in sys.modules


def test_an_unsupported_value_is_refused_on_write_and_nothing_is_stored(path):
    first, second = chain(3, 2)
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, [first])
        with pytest.raises(TypeError, match=r"channel 'c1'.*type 'object'.*PickleSerializer"):
            saver.put(thread("t"), derive(first, {"c1": object()}), {}, {})
        with pytest.raises(TypeError, match="metadata"):
            saver.put(thread("t"), second, {"user": object()}, {})
        assert (
            list(saver.list(None)) == list(saver.list(thread("t")))
            and len(list(saver.list(None))) == 1
        )
    assert stored_values(path) == 3


def test_the_value_that_cannot_be_saved_is_named_among_others(path):
    first = chain(3, 1)[0]
    with SqliteSaver.from_conn_string(path) as saver:
        config = put_chain(saver, [first])[0]
        with pytest.raises(TypeError, match=r"of thread 't', channel 'c2'\. Cannot checkpoint"):
            saver.put(thread("t"), derive(first, {"c0": 1, "c1": "x", "c2": object()}), {}, {})
        with pytest.raises(
            TypeError,
            match=rf"a write of task 'later' to checkpoint {first.id!r} of thread 't', channel "
            r"'c1'\. Cannot checkpoint",
        ):
            saver.put_writes(config, [("c0", 1), ("c1", object()), ("c2", 2)], "later")
        assert len(saver.get_tuple(thread("t")).pending_writes) == 2  # put_chain's only


def test_pickle_is_an_explicit_opt_in(path):
    first = derive(chain(2, 1)[0], {"c0": range(3)})
    with SqliteSaver.from_conn_string(path) as saver, pytest.raises(TypeError):
        saver.put(thread("t"), first, {}, {})
    opt_in = sqlite3.connect(path, check_same_thread=False)
    SqliteSaver(opt_in, serde=PickleSerializer()).put(thread("t"), first, {}, {})
    assert SqliteSaver(opt_in, serde=PickleSerializer()).get_tuple(thread("t")).checkpoint == first
    with SqliteSaver.from_conn_string(path) as default, pytest.raises(CheckpointDecodeError):
        default.get_tuple(thread("t"))
    opt_in.close()


def reader_error(path, config=None, *, within=30.0):
    """The CheckpointDecodeError that reading the thread's latest checkpoint raises, on a
    new connection; a read that has not ended after ``within`` seconds fails the test
    (it runs on a daemon thread: a crafted file must not hang the test run)."""
    outcome = []

    def read():
        try:
            with SqliteSaver.from_conn_string(path) as reader:
                outcome.append(reader.get_tuple(config or thread("t")))
        except Exception as error:  # reported below
            outcome.append(error)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(within)
    assert outcome, f"reading did not end within {within} s"
    assert isinstance(outcome[0], CheckpointDecodeError), outcome[0]
    return str(outcome[0])


@pytest.mark.parametrize("cycle", ["itself", "through the snapshot"])
def test_a_cycle_of_base_pointers_is_refused_not_walked_forever(path, cycle):
    checkpoints = chain(3, 4)
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, checkpoints)
    last = "(SELECT MAX(seq) FROM graphkit_checkpoints)"
    if cycle == "itself":
        execute(path, f"UPDATE graphkit_checkpoints SET base_seq = seq WHERE seq = {last}")
    else:  # the first row, a snapshot, now builds on the last: last -> ... -> first -> last
        execute(path, f"UPDATE graphkit_checkpoints SET base_seq = {last} WHERE base_seq IS NULL")
    assert "its fields were changed" in reader_error(path)
    without_checks(path)  # what the walk alone refuses
    message = reader_error(path)
    assert f"checkpoint {checkpoints[-1].id!r} of thread 't'" in message
    assert "cycle" in message


def test_a_base_pointer_into_another_thread_is_refused(path):
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, chain(3, 3, tag="secret"), "other")
        checkpoints = chain(3, 3)
        put_chain(saver, checkpoints)
    execute(
        path,
        "UPDATE graphkit_checkpoints SET base_seq = (SELECT MIN(seq) FROM graphkit_checkpoints) "
        "WHERE seq = (SELECT MAX(seq) FROM graphkit_checkpoints)",
    )
    assert "its fields were changed" in reader_error(path)
    without_checks(path)
    message = reader_error(path)
    assert f"checkpoint {checkpoints[-1].id!r} of thread 't'" in message
    assert "belongs to another thread" in message


@pytest.mark.parametrize("kept", ["as blobs", "in its row"])
def test_deleted_values_are_refused_not_read_as_the_previous_values(path, kept):
    checkpoints = chain(3, 3, tag=BIG if kept == "as blobs" else "")
    with SqliteSaver.from_conn_string(path) as saver:
        configs = put_chain(saver, checkpoints)
    latest = "(SELECT MAX(seq) FROM graphkit_checkpoints)"
    if kept == "as blobs":
        execute(path, f"DELETE FROM graphkit_blobs WHERE checkpoint_seq = {latest}")
    else:
        edit_small_values(path, lambda values: None, f"seq = {latest}")
    message = reader_error(path)
    assert f"checkpoint {checkpoints[-1].id!r} of thread 't'" in message
    assert "its values do not match the check written with them" in message
    assert "2 values were written, 0 are left" in message
    with SqliteSaver.from_conn_string(path) as reader:  # the older checkpoints are intact
        assert reader.get_tuple(configs[-2]).checkpoint == checkpoints[-2]
        with pytest.raises(CheckpointDecodeError):
            list(reader.list(thread("t")))


@pytest.mark.parametrize("kept", ["as blobs", "in its row"])
@pytest.mark.parametrize("change", ["value", "channel", "added value"])
def test_a_value_changed_behind_the_savers_back_is_refused(path, change, kept):
    checkpoints = chain(3, 1, tag=BIG if kept == "as blobs" else "")
    for step in range(SNAPSHOT_EVERY + 1):  # the last rows read c1 and c2 from the first
        checkpoints.append(derive(checkpoints[-1], {"c0": step}))
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, checkpoints)
    first_seq = "(SELECT MIN(seq) FROM graphkit_checkpoints)"
    if kept == "as blobs":
        execute(
            path,
            *{
                "value": (
                    f"UPDATE graphkit_blobs SET value = ? WHERE checkpoint_seq = {first_seq}",
                    b'"x"',
                ),
                "channel": (
                    f"UPDATE graphkit_blobs SET channel = 'c9' WHERE checkpoint_seq = "
                    f"{first_seq} AND channel = ?",
                    "c2",
                ),
                "added value": (
                    f"INSERT INTO graphkit_blobs VALUES ({first_seq}, 'c9', 'json', ?)",
                    b"1",
                ),
            }[change],
        )
    else:
        edit_small_values(
            path,
            {
                "value": lambda values: [[name, type_, '"x"'] for name, type_, _ in values],
                "channel": lambda values: [
                    ["c9" if name == "c2" else name, *rest] for name, *rest in values
                ],
                "added value": lambda values: [*values, ["c9", "json", "1"]],
            }[change],
            f"seq = {first_seq}",
        )
    message = reader_error(path)
    assert f"checkpoint {checkpoints[-1].id!r} of thread 't'" in message
    assert f"the values of checkpoint {checkpoints[0].id!r}, which it reads," in message


def test_a_deleted_latest_checkpoint_is_refused_not_read_as_the_previous_one(path):
    checkpoints = chain(3, 3)
    with SqliteSaver.from_conn_string(path) as saver:
        configs = put_chain(saver, checkpoints)
    latest = "(SELECT MAX(seq) FROM graphkit_checkpoints)"
    execute(path, f"DELETE FROM graphkit_blobs WHERE checkpoint_seq = {latest}")
    execute(path, f"DELETE FROM graphkit_checkpoints WHERE seq = {latest}")
    message = reader_error(path)
    assert f"checkpoint {checkpoints[-1].id!r} of thread 't'" in message
    assert f"its row is missing (the newest row left is {checkpoints[-2].id!r})" in message
    with SqliteSaver.from_conn_string(path) as reader:
        assert reader.get_tuple(configs[-2]).checkpoint == checkpoints[-2]  # named: intact
        with pytest.raises(CheckpointDecodeError, match=checkpoints[-1].id):
            list(reader.list(thread("t")))


def test_a_thread_whose_every_row_was_deleted_by_hand_is_refused(path):
    (only,) = chain(3, 1)
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, [only])
    execute(path, "DELETE FROM graphkit_checkpoints")
    message = reader_error(path)
    assert f"checkpoint {only.id!r} of thread 't': it is the thread's newest" in message
    assert "no row is left" in message


def test_a_deleted_older_checkpoint_is_refused_by_list(path):
    checkpoints = [chain(3, 1)[0]]
    for step in range(SNAPSHOT_EVERY + 2):  # a snapshot row, which no later row needs
        checkpoints.append(derive(checkpoints[-1], {"c0": step}))
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, checkpoints)
    unneeded = checkpoints[SNAPSHOT_EVERY - 1]  # the row after it is a snapshot
    execute(path, "DELETE FROM graphkit_checkpoints WHERE checkpoint_id = ?", unneeded.id)
    with SqliteSaver.from_conn_string(path) as reader:
        assert reader.get_tuple(thread("t")).checkpoint == checkpoints[-1]
        with pytest.raises(CheckpointDecodeError, match="thread 't'") as error:
            list(reader.list(thread("t")))
    assert f"{len(checkpoints)} checkpoints were saved in its thread" in str(error.value)


def test_the_first_page_of_a_history_reads_only_its_own_rows(path, monkeypatch):
    # (a history's first page cost every row of the thread: linear in its length)
    checkpoints = chain(3, 40)
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, checkpoints)
    read = []
    decode = SqliteSaver._metadata
    monkeypatch.setattr(
        SqliteSaver, "_metadata", lambda self, row: read.append(row) or decode(self, row)
    )
    with SqliteSaver.from_conn_string(path) as reader:
        page = [saved.checkpoint for saved in reader.list(thread("t", ""), limit=3)]
        assert page == checkpoints[::-1][:3] and len(read) == 3
        assert [saved.checkpoint for saved in reader.list(thread("t", ""))] == checkpoints[::-1]
    latest = "(SELECT MAX(seq) FROM graphkit_checkpoints)"
    execute(path, f"DELETE FROM graphkit_checkpoints WHERE seq = {latest}")
    with (  # the page's newest is still checked against the head
        SqliteSaver.from_conn_string(path) as reader,
        pytest.raises(CheckpointDecodeError, match=checkpoints[-1].id),
    ):
        list(reader.list(thread("t", ""), limit=3))


def test_a_deleted_head_row_is_refused(path):
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, chain(3, 2))
    execute(path, "DELETE FROM graphkit_heads")
    assert "head row (in graphkit_heads) is missing" in reader_error(path)


@pytest.mark.parametrize("change", ["deleted", "value", "task", "moved", "added"])
def test_a_pending_write_changed_behind_the_savers_back_is_refused(path, change):
    checkpoints = chain(3, 2)
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, checkpoints)
    # the newest checkpoint's second write, and the oldest one's first
    last = "checkpoint_id = (SELECT MAX(checkpoint_id) FROM graphkit_writes) AND idx = 1"
    first = "checkpoint_id = (SELECT MIN(checkpoint_id) FROM graphkit_writes) AND idx = 0"
    execute(
        path,
        {
            "deleted": f"DELETE FROM graphkit_writes WHERE {last}",
            "value": f"UPDATE graphkit_writes SET value = CAST('[1]' AS BLOB) WHERE {last}",
            "task": f"UPDATE graphkit_writes SET task_id = 'other' WHERE {last}",
            "moved": f"UPDATE graphkit_writes SET checkpoint_id = ?, idx = 9 WHERE {first}",
            "added": "INSERT INTO graphkit_writes (thread_id, checkpoint_ns, checkpoint_id,"
            " task_id, idx, channel, type, value, task_path) SELECT thread_id, checkpoint_ns,"
            " checkpoint_id, task_id, 7, channel, type, value, task_path FROM graphkit_writes"
            f" WHERE {last}",
        }[change],
        *([checkpoints[-1].id] if change == "moved" else []),
    )
    message = reader_error(path)
    assert f"checkpoint {checkpoints[-1].id!r} of thread 't'" in message
    assert "its pending writes do not match the check kept with them" in message


def test_pending_writes_put_again_or_replaced_keep_their_check(path):
    checkpoints = chain(3, 2)
    with SqliteSaver.from_conn_string(path) as saver:
        configs = put_chain(saver, checkpoints)
        saver.put_writes(configs[-1], [("c0", "again")], "task")  # kept: the first stays
        saver.put_writes(configs[-1], [("__error__", "boom")], "task")
        saver.put_writes(configs[-1], [("__error__", "boom twice")], "task")  # replaced
        saver.put(thread("t"), checkpoints[-1], {}, {})  # the same id again
    with SqliteSaver.from_conn_string(path) as reader:
        assert reader.get_tuple(thread("t")).pending_writes == [
            ("task", "__error__", "boom twice"),  # (its slot, -1, comes first, as in LangGraph)
            ("task", "c0", checkpoints[-1].step),
            ("task", "log", ["t", checkpoints[-1].id]),
        ]
        assert len(list(reader.list(thread("t")))) == 2


@pytest.mark.parametrize("bad_id", [5, None, b"1f0"])
def test_a_checkpoint_whose_id_is_not_text_is_refused_naming_it_and_nothing_is_written(
    path, bad_id
):
    # (a put compares the id with the thread's newest: an int or None there raised
    # Python's own "'<=' not supported"; before that, an int id was written, and its
    # row then read back as damaged)
    checkpoints = chain(3, 2)
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, checkpoints)
        odd = dataclasses.replace(checkpoints[-1], id=bad_id)
        with pytest.raises(TypeError, match=rf"{bad_id!r} in thread 't': its id is a .*not a str"):
            saver.put(thread("t"), odd, {}, {})
        assert saver.get_tuple(thread("t")).checkpoint == checkpoints[-1]
    assert count(path, "SELECT COUNT(*) FROM graphkit_checkpoints") == 2


def test_a_checkpoint_put_again_behind_a_head_edited_to_an_older_id_still_replaces_its_row(path):
    # A put asks the thread's head whether its id can have been put before; a head
    # edited by hand must not make it fail on the row it would replace.
    checkpoints = chain(3, 2)
    with SqliteSaver.from_conn_string(path) as saver:
        configs = put_chain(saver, checkpoints)
    execute(path, "UPDATE graphkit_heads SET checkpoint_id = '0'")
    with SqliteSaver.from_conn_string(path) as saver:
        saver.put(thread("t"), checkpoints[-1], {"again": True}, {})
    assert count(path, "SELECT COUNT(*) FROM graphkit_checkpoints WHERE replaced = 1") == 1
    with SqliteSaver.from_conn_string(path) as reader:
        saved = reader.get_tuple(configs[-1])
    assert saved.metadata["again"] is True and len(saved.pending_writes) == 2


@pytest.mark.parametrize("column", ["step", "created_at", "source", "parent_id", "metadata"])
def test_a_checkpoint_row_changed_behind_the_savers_back_is_refused(path, column):
    checkpoints = chain(3, 3)
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, checkpoints)
    value = {"step": 7, "created_at": 1.5, "source": "fork", "parent_id": "1f", "metadata": b"{}"}
    execute(
        path,
        f"UPDATE graphkit_checkpoints SET {column} = ? WHERE seq = "
        "(SELECT MAX(seq) FROM graphkit_checkpoints)",
        value[column],
    )
    message = reader_error(path)
    assert f"checkpoint {checkpoints[-1].id!r} of thread 't'" in message
    assert "its fields were changed after they were written" in message


def test_an_old_files_threads_get_heads_that_catch_a_deleted_latest_row(path):
    checkpoints = chain(3, 3)
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, checkpoints)
    as_before_the_checks(path)
    with SqliteSaver.from_conn_string(path) as reopened:  # migrates: heads from the rows
        assert len(list(reopened.list(thread("t")))) == 3
    execute(path, "DELETE FROM graphkit_checkpoints WHERE checkpoint_id = ?", checkpoints[-1].id)
    assert f"checkpoint {checkpoints[-1].id!r} of thread 't'" in reader_error(path)


def test_a_file_written_before_the_checks_is_migrated_and_read(path):
    checkpoints = chain(3, 4, tag=BIG)
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, checkpoints[:3])
    as_before_the_checks(path)
    with SqliteSaver.from_conn_string(path) as reopened:
        assert [saved.checkpoint for saved in reopened.list(thread("t"))] == checkpoints[2::-1]
        put_chain(reopened, checkpoints[3:])
    unchecked = "SELECT COUNT(*) FROM graphkit_checkpoints WHERE blob_hash IS NULL"
    assert count(path, unchecked) == 3
    execute(path, "DELETE FROM graphkit_blobs")
    assert "values do not match" in reader_error(path)


def test_processes_opening_an_old_file_at_once_migrate_it_once(path):
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, chain(3, 2))
    as_before_the_checks(path)
    start, failures = threading.Barrier(4), []

    def open_it():
        try:
            start.wait()
            with SqliteSaver.from_conn_string(path) as saver:
                assert len(list(saver.list(thread("t")))) == 2
        except Exception as error:  # reported below; a thread cannot fail the test
            failures.append(error)

    workers = [threading.Thread(target=open_it) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert failures == []


@pytest.mark.parametrize(
    ("column", "stored"),
    [
        ("step", "three"),
        ("depth", "deep"),
        ("created_at", "noon"),
        ("source", b"loop"),  # a TEXT column keeps what is not text
        ("parent_id", b"1f0a"),
        ("updated_channels", "5"),
        ("updated_channels", '["c0", 1]'),
        ("delta", b'{"values": 5}'),
        ("delta", b"[1, 2]"),
        ("delta", b'{"values": [{}, []], "versions": [[], 3], "seen": [{}, []]}'),
        ("delta", b'{"values": [{"c0": "seq"}, []], "versions": [{}, []], "seen": [{}, []]}'),
        ("delta", b'{"values": [{}, [1]], "versions": [{}, []], "seen": [{"n": 1}, []]}'),
        ("metadata", b"[1]"),
    ],
)
def test_a_field_of_the_wrong_type_or_shape_is_refused_naming_the_thread(path, column, stored):
    checkpoints = chain(3, 3)
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, checkpoints)
    execute(path, f"UPDATE graphkit_checkpoints SET {column} = ?", stored)
    message = reader_error(path)
    assert f"checkpoint {checkpoints[-1].id!r} of thread 't'" in message


@pytest.mark.parametrize("column", ["channel", "task_id"])
def test_a_pending_write_of_the_wrong_type_is_refused(path, column):
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, chain(3, 2))
    execute(path, f"UPDATE graphkit_writes SET {column} = ?", b"c0")
    assert "its pending writes do not match the check" in reader_error(path)
    without_checks(path)
    assert "a write of task" in reader_error(path)


def test_a_text_step_is_refused_by_get_state(path):
    with SqliteSaver.from_conn_string(path) as saver:
        graph(saver).invoke({"log": []}, thread("run"))
    execute(path, "UPDATE graphkit_checkpoints SET step = 'three'")
    with (
        SqliteSaver.from_conn_string(path) as saver,
        pytest.raises(CheckpointDecodeError, match="of thread 'run': its step"),
    ):
        graph(saver).get_state(thread("run"))


# -- a file that is not a checkpoint database -------------------------------------------------


def test_a_missing_folder_is_named(tmp_path):
    missing = tmp_path / "no-such-folder" / "checkpoints.db"
    with (
        pytest.raises(CheckpointFileError, match=r"folder .* does not exist") as error,
        SqliteSaver.from_conn_string(str(missing)),
    ):
        pass
    assert str(missing) in str(error.value)


def test_a_folder_given_as_the_file_is_named(tmp_path):
    with (
        pytest.raises(CheckpointFileError, match="it is a folder"),
        SqliteSaver.from_conn_string(str(tmp_path)),
    ):
        pass


def test_a_file_that_is_not_sqlite_is_named(path):
    pathlib.Path(path).write_text("name,value\nweather,sunny\n" * 200)
    with (
        pytest.raises(CheckpointFileError, match="not an SQLite database") as error,
        SqliteSaver.from_conn_string(path),
    ):
        pass
    assert path in str(error.value)


def test_a_truncated_file_is_named_with_the_thread(path):
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, chain(50, 40))
    data = pathlib.Path(path).read_bytes()
    pathlib.Path(path).write_bytes(data[: len(data) // 2])
    with (
        pytest.raises(CheckpointFileError) as error,
        SqliteSaver.from_conn_string(path) as saver,
    ):
        list(saver.list(thread("t")))
    assert path in str(error.value)
    assert "damaged" in str(error.value)


def test_synchronous_is_normal_as_the_docs_say(path):
    with SqliteSaver.from_conn_string(path) as saver:
        assert saver.conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    docs = pathlib.Path(__file__).parents[2] / "docs" / "persistence.md"
    assert "`synchronous=NORMAL`" in docs.read_text()


# -- with the runtime ------------------------------------------------------------------------


class State(TypedDict):
    log: Annotated[list, operator.add]


def review(state):
    return {"log": [f"review:{interrupt('approve?')}"]}


def graph(checkpointer):
    builder = StateGraph(State)
    builder.add_node("draft", lambda state: {"log": ["draft"]})
    builder.add_node("review", review)
    builder.add_edge(START, "draft").add_edge("draft", "review")
    return builder.compile(checkpointer=checkpointer)


def history(app, config):
    return [
        (s.values, s.next, s.metadata["source"], s.metadata["step"])
        for s in app.get_state_history(config)
    ]


def test_a_run_interrupted_in_one_process_resumes_in_another(path):
    config = thread("run")
    reference = graph(InMemorySaver())
    reference.invoke({"log": []}, config)
    reference.invoke(Command(resume="yes"), config)
    with SqliteSaver.from_conn_string(path) as saver:
        assert graph(saver).invoke({"log": []}, config)["__interrupt__"]
    with SqliteSaver.from_conn_string(path) as saver:  # a new connection, as after a restart
        assert graph(saver).invoke(Command(resume="yes"), config) == {
            "log": ["draft", "review:yes"]
        }
        assert history(graph(saver), config) == history(reference, config)


def test_a_checkpoint_derived_through_unsaved_steps_reads_back_whole(path):
    first, second = chain(5, 2)
    unsaved = derive(second, {"c1": "never saved"})
    third = dataclasses.replace(derive(unsaved, {"c2": "saved"}), parent_id=second.id)
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, [first, second, third])
    with SqliteSaver.from_conn_string(path) as reopened:
        assert reopened.get_tuple(thread("t")).checkpoint == third
