"""Chains of deltas longer than ``SNAPSHOT_EVERY`` (up to ``LONGEST_CHAIN`` rows, a wide
state whose steps change little): read back cold at and around both limits, after a
delete of another thread, past a fork in the middle, and refused when a row inside
the chain is edited."""

from __future__ import annotations

import dataclasses
import shutil
import sqlite3

import pytest

from graphkit.checkpoint import Checkpoint, CheckpointDecodeError, SqliteSaver, new_checkpoint_id
from graphkit.checkpoint.deltas import LONGEST_CHAIN, SNAPSHOT_EVERY
from tests.checkpoint.chains import derive, put_chain, thread

CHANNELS = 2000  # a snapshot lists them all; a step's delta one of them
STEPS = LONGEST_CHAIN + 40


def wide_chain(steps: int = STEPS, tag: str = "") -> list[Checkpoint]:
    """``steps`` checkpoints of a ``CHANNELS``-channel state, each changing one channel
    (and no versions seen, so that a delta stays small)."""
    first = derive(Checkpoint.empty(), {f"c{i}": f"{tag}{i}" for i in range(CHANNELS)})
    checkpoints = [dataclasses.replace(first, versions_seen=Checkpoint.empty().versions_seen)]
    for step in range(1, steps):
        checkpoints.append(next_of(checkpoints[-1], f"c{step % CHANNELS}", f"{tag}{step}"))
    return checkpoints


def next_of(previous: Checkpoint, channel: str, value: str) -> Checkpoint:
    return dataclasses.replace(
        previous,
        id=new_checkpoint_id(),
        step=previous.step + 1,
        parent_id=previous.id,
        channel_values=previous.channel_values.with_changes({channel: value}, ()),  # type: ignore[attr-defined]
        channel_versions=previous.channel_versions.with_changes(  # type: ignore[attr-defined]
            {channel: previous.channel_versions[channel] + 1}
        ),
        updated_channels=frozenset([channel]),
    )


def read_cold(path: str, name: str, checkpoint: Checkpoint) -> Checkpoint:
    with SqliteSaver.from_conn_string(path) as saver:  # (nothing in memory)
        saved = saver.get_tuple(thread(name, checkpoint_id=checkpoint.id))
    assert saved is not None, checkpoint.id
    return saved.checkpoint


def depths(path: str, name: str = "t") -> list[int]:
    with sqlite3.connect(path) as conn:
        found = conn.execute(
            "SELECT depth FROM graphkit_checkpoints WHERE thread_id = ? ORDER BY seq", (name,)
        )
        return [depth for (depth,) in found]


@pytest.fixture(scope="module")
def long_file(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("long") / "long.db")
    checkpoints = wide_chain()
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, checkpoints)
    return path, checkpoints


@pytest.fixture
def long_copy(long_file, tmp_path):
    path = str(tmp_path / "copy.db")
    shutil.copy(long_file[0], path)
    return path, long_file[1]


def test_a_chain_runs_to_its_longest_then_starts_again(long_file):
    path, _ = long_file
    assert depths(path) == [*range(LONGEST_CHAIN), *range(STEPS - LONGEST_CHAIN)]


@pytest.mark.parametrize(
    "index",
    [
        *(SNAPSHOT_EVERY - 2, SNAPSHOT_EVERY - 1, SNAPSHOT_EVERY, SNAPSHOT_EVERY + 1),
        *(LONGEST_CHAIN - 2, LONGEST_CHAIN - 1, LONGEST_CHAIN, LONGEST_CHAIN + 1, STEPS - 1),
    ],
)
def test_a_checkpoint_at_any_depth_reads_back_cold(long_file, index):
    path, checkpoints = long_file
    assert read_cold(path, "t", checkpoints[index]) == checkpoints[index]


def test_a_whole_long_thread_lists_back_cold(long_file):
    path, checkpoints = long_file
    with SqliteSaver.from_conn_string(path) as saver:
        assert [saved.checkpoint for saved in saver.list(thread("t"))] == checkpoints[::-1]
        newest_first = [saved.checkpoint for saved in saver.list(thread("t"), limit=3)]
    assert newest_first == checkpoints[:-4:-1]


def test_a_long_chain_reads_back_after_another_thread_is_deleted(long_copy):
    path, checkpoints = long_copy
    others = wide_chain(LONGEST_CHAIN + 5, tag="u")
    with SqliteSaver.from_conn_string(path) as saver:
        put_chain(saver, others, "other")
        saver.delete_thread("other")
        put_chain(saver, [next_of(checkpoints[-1], "c1", "after")])
    with SqliteSaver.from_conn_string(path) as reader:
        assert list(reader.list(thread("other"))) == []
    for index in (LONGEST_CHAIN - 1, STEPS - 1):
        assert read_cold(path, "t", checkpoints[index]) == checkpoints[index]


@pytest.mark.parametrize("at", [30, SNAPSHOT_EVERY + 40])
def test_a_fork_in_the_middle_of_a_long_chain_reads_back_cold(long_copy, at):
    path, checkpoints = long_copy
    with SqliteSaver.from_conn_string(path) as saver:
        fork = [
            next_of(
                saver.get_tuple(thread("t", checkpoint_id=checkpoints[at].id)).checkpoint,
                "c5",
                "forked",
            )
        ]
        fork += [next_of(fork[-1], f"c{i}", "on the fork") for i in range(6, 80)]
        put_chain(saver, fork)
        put_chain(saver, [next_of(checkpoints[-1], "c7", "on the main line")])
    for checkpoint in (fork[0], fork[-1], checkpoints[at + 1], checkpoints[-1]):
        assert read_cold(path, "t", checkpoint) == checkpoint
    assert max(depths(path)) < LONGEST_CHAIN


MIDDLE = 151  # the seq of a row deep inside the first chain (its depth is 150)

EDITS = {
    "deleted": f"DELETE FROM graphkit_checkpoints WHERE seq = {MIDDLE}",
    "delta truncated": "UPDATE graphkit_checkpoints SET delta = substr(delta, 1, length(delta) / 2)"
    f" WHERE seq = {MIDDLE}",
    "delta of another row": "UPDATE graphkit_checkpoints SET delta = (SELECT delta FROM"
    f" graphkit_checkpoints WHERE seq = {MIDDLE + 1}) WHERE seq = {MIDDLE}",
    "based on another row": f"UPDATE graphkit_checkpoints SET base_seq = 140 WHERE seq = {MIDDLE}",
    "based on a later row": f"UPDATE graphkit_checkpoints SET base_seq = 200 WHERE seq = {MIDDLE}",
    "made a snapshot": f"UPDATE graphkit_checkpoints SET base_seq = NULL WHERE seq = {MIDDLE}",
    "values truncated": "UPDATE graphkit_checkpoints SET small_values ="
    f" substr(small_values, 1, length(small_values) - 1) WHERE seq = {MIDDLE}",
}


@pytest.mark.parametrize("edit", EDITS)
def test_a_row_edited_inside_a_long_chain_is_refused_and_the_rows_before_it_still_read(
    long_copy, edit
):
    path, checkpoints = long_copy
    with sqlite3.connect(path) as conn:
        conn.execute(EDITS[edit])
    conn.close()
    for index in (MIDDLE, LONGEST_CHAIN - 1):  # (seq MIDDLE + 1, and the chain's last row)
        with pytest.raises(CheckpointDecodeError):
            read_cold(path, "t", checkpoints[index])
    # before it, and in the next chain (unless it reads the value that was edited, or
    # kept in the deleted row: the snapshot that starts it refers to that row's value)
    reads_it = edit in ("values truncated", "deleted")
    for index in (MIDDLE - 2,) if reads_it else (MIDDLE - 2, STEPS - 1):
        assert read_cold(path, "t", checkpoints[index]) == checkpoints[index]
