"""Checkpoint ids (UUID-shaped, ordered by creation, unique across threads) and the
empty Checkpoint a new run starts from."""

import dataclasses
import itertools
import os
import threading
import time
import uuid

import pytest

from graphkit.checkpoint import Checkpoint, base, new_checkpoint_id
from graphkit.checkpoint.delta_map import DeltaMap


def test_ids_are_uuid_shaped():
    for _ in range(100):
        checkpoint_id = new_checkpoint_id()
        assert len(checkpoint_id) == 36
        assert [len(part) for part in checkpoint_id.split("-")] == [8, 4, 4, 4, 12]
        assert str(uuid.UUID(checkpoint_id)) == checkpoint_id  # lower-case canonical form


def test_ids_strictly_increase_over_many_calls():
    ids = [new_checkpoint_id() for _ in range(10_000)]
    assert all(first < second for first, second in itertools.pairwise(ids))
    # String order is UUID order, so sorting either way agrees.
    assert [uuid.UUID(i).int for i in ids] == sorted(uuid.UUID(i).int for i in ids)


def time_part(checkpoint_id: str) -> int:
    return int(checkpoint_id.replace("-", "")[:16], 16)


def test_ids_lead_with_the_wall_clock_in_nanoseconds():
    floor = base._last_time + 1  # (past this process's latest id, whatever the clock)
    before = time.time_ns()
    taken = time_part(new_checkpoint_id())
    after = time.time_ns()
    assert max(before, floor) <= taken <= max(after, floor)


class FakeClock:
    """A wall clock the test moves by hand."""

    def __init__(self, wall: int) -> None:
        self.wall = wall

    def time_ns(self) -> int:
        return self.wall


@pytest.fixture
def clocks(monkeypatch):
    fake = FakeClock(wall=10**18)
    monkeypatch.setattr(base, "time", fake)
    monkeypatch.setattr(base, "_last_time", 0)  # restored after the test
    return fake


def test_ids_read_the_wall_clock_each_time(clocks):
    first = new_checkpoint_id()
    clocks.wall += 123
    second = new_checkpoint_id()
    assert time_part(first) == 10**18
    assert time_part(second) == 10**18 + 123
    assert first < second


def test_ids_keep_increasing_when_the_clock_stalls(clocks):
    ids = [new_checkpoint_id() for _ in range(100)]
    assert [time_part(i) for i in ids] == [10**18 + n for n in range(100)]
    assert ids == sorted(set(ids))


def test_ids_keep_increasing_when_the_wall_clock_steps_back(clocks):
    first = new_checkpoint_id()
    clocks.wall -= 10**12  # an NTP correction, or a VM restored from a snapshot
    second = new_checkpoint_id()
    assert first < second and time_part(second) == time_part(first) + 1


def test_a_child_id_sorts_after_its_parent_whatever_the_clocks(clocks):
    # the parent was made by another process whose clock runs an hour ahead
    ahead = 10**18 + 3_600 * 10**9
    parent = f"{ahead:016x}"
    parent = f"{parent[:8]}-{parent[8:12]}-{parent[12:]}-0000-0000ffffffff"
    child = new_checkpoint_id(after=parent)
    assert child > parent and time_part(child) == ahead + 1
    assert new_checkpoint_id() > child  # and this process's ids go on from there


def test_a_child_of_another_schemes_id_sorts_after_it_and_keeps_the_clock(clocks):
    # LangGraph's ids (uuid6) read as a time years ahead in graphkit's layout
    langgraph_id = "1f1ef27f-42f2-6e74-8002-bc8bec150bd3"
    child = new_checkpoint_id(after=langgraph_id)
    grandchild = new_checkpoint_id(after=child)
    assert langgraph_id < child < grandchild
    assert time_part(new_checkpoint_id()) == 10**18  # this process's clock did not move


def test_a_forked_process_makes_ids_of_its_own():
    if not hasattr(os, "fork"):
        pytest.skip("no fork on this platform")
    new_checkpoint_id()  # the parent has made ids before it forks
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.write(write, new_checkpoint_id().encode())
        os._exit(0)
    os.waitpid(pid, 0)
    child_id = os.read(read, 100).decode()
    mine = new_checkpoint_id()
    assert child_id != mine
    assert child_id.split("-")[3] != mine.split("-")[3]  # a different process part


def test_ids_are_unique_and_ordered_across_threads():
    per_thread: dict[int, list[str]] = {}
    start = threading.Barrier(8)

    def collect(number: int) -> None:
        start.wait()  # all threads ask for ids at the same time
        per_thread[number] = [new_checkpoint_id() for _ in range(2_000)]

    threads = [threading.Thread(target=collect, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(per_thread) == list(range(8))
    for ids in per_thread.values():
        assert ids == sorted(ids)
        assert len(set(ids)) == len(ids)
    everything = sorted(i for ids in per_thread.values() for i in ids)
    assert len(set(everything)) == len(everything) == 8 * 2_000


def test_empty_checkpoint_has_no_values_and_no_versions():
    checkpoint = Checkpoint.empty()
    assert checkpoint.step == -2
    assert checkpoint.source == "empty"
    assert checkpoint.parent_id is None
    uuid.UUID(checkpoint.id)
    for mapping in (
        checkpoint.channel_values,
        checkpoint.channel_versions,
        checkpoint.versions_seen,
    ):
        assert isinstance(mapping, DeltaMap)
        assert dict(mapping) == {}
    assert checkpoint.updated_channels == frozenset()
    assert isinstance(checkpoint.created_at, float)


def test_each_empty_checkpoint_gets_a_new_later_id():
    first, second = Checkpoint.empty(), Checkpoint.empty()
    assert first.id < second.id


def test_empty_checkpoint_repr():
    assert repr(Checkpoint.empty()) == "Checkpoint(step=-2, source='empty', channels=[])"


def test_repr_lists_channels_sorted():
    checkpoint = dataclasses.replace(
        Checkpoint.empty(),
        step=3,
        source="loop",
        channel_values=DeltaMap({"zeta": 1, "alpha": 2, "branch:to:a": None}),
    )
    assert repr(checkpoint) == (
        "Checkpoint(step=3, source='loop', channels=['alpha', 'branch:to:a', 'zeta'])"
    )


def test_checkpoint_is_frozen():
    checkpoint = Checkpoint.empty()
    with pytest.raises(dataclasses.FrozenInstanceError):
        checkpoint.step = 0
