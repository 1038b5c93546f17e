"""Checkpoint ids (UUID-shaped, ordered by creation, unique across threads) and the
empty Checkpoint a new run starts from."""

import dataclasses
import itertools
import threading
import time
import uuid
from types import SimpleNamespace

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
    before = time.time_ns()
    taken = time_part(new_checkpoint_id())
    after = time.time_ns()
    # read from the monotonic clock, anchored to the wall clock when graphkit loaded
    assert before - 50_000_000 <= taken <= after + 50_000_000


def test_ids_follow_the_monotonic_clock_to_the_millisecond(monkeypatch):
    clock = [10**15]
    monkeypatch.setattr(base, "time", SimpleNamespace(monotonic_ns=lambda: clock[0]))
    monkeypatch.setattr(base, "_renew_at", 0)
    monkeypatch.setattr(base, "_time_part", "")  # both restored after the test
    first = new_checkpoint_id()
    clock[0] += base.TIME_PART_RESOLUTION_NS - 1  # same time slot: same time part
    second = new_checkpoint_id()
    clock[0] += 1  # the next slot
    third = new_checkpoint_id()
    assert time_part(first) == time_part(second) == base._WALL_CLOCK_OFFSET + 10**15
    assert time_part(third) == time_part(first) + base.TIME_PART_RESOLUTION_NS
    assert first < second < third


def test_ids_keep_increasing_when_the_clock_stalls(monkeypatch):
    monkeypatch.setattr(base, "time", SimpleNamespace(monotonic_ns=lambda: 5 * 10**15))
    monkeypatch.setattr(base, "_renew_at", 0)
    monkeypatch.setattr(base, "_time_part", "")  # both restored after the test
    ids = [new_checkpoint_id() for _ in range(100)]
    assert {time_part(i) for i in ids} == {base._WALL_CLOCK_OFFSET + 5 * 10**15}
    assert ids == sorted(set(ids))  # the counter orders them


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
