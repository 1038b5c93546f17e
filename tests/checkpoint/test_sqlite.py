"""SqliteSaver: what it writes (one blob per changed channel, bounded delta chains),
that it outlives its connection, that threads can share it, and that a database
someone tampered with is refused rather than run."""

from __future__ import annotations

import dataclasses
import itertools
import operator
import pathlib
import pickle
import sqlite3
import sys
import threading
from typing import Annotated, TypedDict

import pytest

from graphkit import START, Command, InMemorySaver, StateGraph, interrupt
from graphkit.checkpoint import CheckpointDecodeError, PickleSerializer, SqliteSaver
from graphkit.checkpoint.deltas import SNAPSHOT_EVERY
from tests.checkpoint.chains import chain, derive, put_chain, thread


def count(path, sql, *params):
    with sqlite3.connect(path) as conn:
        return conn.execute(sql, params).fetchone()[0]


def execute(path, sql, *params):
    conn = sqlite3.connect(path)
    with conn:
        conn.execute(sql, params)
    conn.close()


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
        assert count(path, "SELECT COUNT(*) FROM graphkit_blobs") == 1000
        for done, checkpoint in enumerate(checkpoints[1:], start=1):
            changed = len(checkpoint.channel_values.delta()[0])
            before = count(path, "SELECT COUNT(*) FROM graphkit_blobs")
            saver.put(thread("t"), checkpoint, {}, {})
            assert count(path, "SELECT COUNT(*) FROM graphkit_blobs") == before + changed, done
    snapshots = count(path, "SELECT COUNT(*) FROM graphkit_checkpoints WHERE base_seq IS NULL")
    assert snapshots == 3  # the first row, then one every SNAPSHOT_EVERY rows
    assert count(path, "SELECT MAX(depth) FROM graphkit_checkpoints") == SNAPSHOT_EVERY - 1
    with SqliteSaver.from_conn_string(path) as reopened:
        assert [saved.checkpoint for saved in reopened.list(thread("t"))] == checkpoints[::-1]


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
                ("task", "log", (name, checkpoints[-1].id)),
            ]


# -- a tampered database is refused, naming the thread and checkpoint --------------------------


class Payload:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):  # what unpickling would run
        return (pathlib.Path.touch, (pathlib.Path(self.path),))


@pytest.mark.parametrize("where", ["blob", "metadata", "write"])
def test_a_pickle_smuggled_into_a_row_is_refused_and_never_run(path, tmp_path, where):
    target = tmp_path / "pwned"
    evil = pickle.dumps(Payload(str(target)))
    checkpoints = chain(3, 2)
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, checkpoints, "victim")
    table, columns = {
        "blob": ("graphkit_blobs", "type = 'pickle', value = ?"),
        "metadata": ("graphkit_checkpoints", "metadata_type = 'pickle', metadata = ?"),
        "write": ("graphkit_writes", "type = 'pickle', value = ?"),
    }[where]
    execute(path, f"UPDATE {table} SET {columns}", evil)
    with (
        SqliteSaver.from_conn_string(path) as reader,
        pytest.raises(CheckpointDecodeError) as error,
    ):
        reader.get_tuple(thread("victim"))
    message = str(error.value)
    assert f"checkpoint {checkpoints[-1].id!r} of thread 'victim'" in message
    assert "never unpickles" in message
    assert not target.exists()


@pytest.mark.parametrize(
    ("stored", "problem"),
    [
        (b'{"__gk__": "dataclass", "cls": "antigravity:Fly", "v": {}}', "not loaded"),
        (b'{"truncated": ', "corrupt JSON"),
    ],
)
def test_an_unreadable_value_names_thread_checkpoint_and_channel(path, stored, problem):
    first, second = chain(3, 2)
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, [first, second])
    channel = sorted(second.channel_values.delta()[0])[0]
    execute(path, "UPDATE graphkit_blobs SET value = ? WHERE channel = ?", stored, channel)
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
    assert count(path, "SELECT COUNT(*) FROM graphkit_blobs") == 3


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
