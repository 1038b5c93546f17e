"""Deltas: what a row stores for a checkpoint against a remembered base, and how the
saver finds that base — by the identity of the map a checkpoint was derived from, never
by trusting its parent id."""

from __future__ import annotations

import dataclasses
import operator

from graphkit.checkpoint import Checkpoint, DeltaMap
from graphkit.checkpoint.delta_map import _FLATTEN_AFTER
from graphkit.checkpoint.deltas import (
    LONGEST_CHAIN,
    SNAPSHOT_EVERY,
    Changes,
    RowMaps,
    RowMemory,
    map_delta,
    plan_row,
)
from tests.checkpoint.chains import derive


def remembered(checkpoint: Checkpoint, seq: int = 1, depth: int = 0, thread=("t", "")) -> RowMaps:
    refs = DeltaMap(dict.fromkeys(checkpoint.channel_values, seq))
    return RowMaps(
        seq,
        thread,
        checkpoint.id,
        depth,
        checkpoint.channel_values,
        checkpoint.channel_versions,
        checkpoint.versions_seen,
        refs,
        decoded_by=None,
    )


def test_a_checkpoint_without_a_known_base_is_a_full_snapshot():
    first = derive(Checkpoint.empty(), {"a": 1, "b": 2}, source="input")
    plan = plan_row(first, None)
    assert plan.snapshot and plan.depth == 0
    assert plan.changed == {"a": 1, "b": 2}
    assert plan.versions == [{"a": 1, "b": 1}, []]
    assert plan.refs(7) == {"a": 7, "b": 7}


def test_a_checkpoint_derived_from_a_known_row_stores_only_its_changes():
    first = derive(Checkpoint.empty(), {"a": 1, "b": 2, "c": 3}, source="input")
    second = derive(first, {"a": 10}, removed=["b"])
    plan = plan_row(second, remembered(first, seq=1))
    assert not plan.snapshot and plan.depth == 1
    assert plan.changed == {"a": 10} and plan.removed == {"b"}
    assert plan.delta()["values"] == [{}, ["b"]]
    assert plan.versions == [{"a": 2, "b": 2}, []]
    assert plan.refs(2) == {"a": 2, "c": 1}


def test_every_snapshot_every_rows_the_chain_is_cut_without_serializing_again():
    first = derive(Checkpoint.empty(), {"a": 1, "b": 2, "c": 3}, source="input")
    second = derive(first, {"a": 10}, removed=["b"])
    plan = plan_row(second, remembered(first, seq=1, depth=SNAPSHOT_EVERY - 1))
    assert plan.snapshot and plan.depth == 0
    assert plan.changed == {"a": 10}  # only the change is serialized ...
    assert plan.inherited == {"c": 1}  # ... the rest points at older blobs
    assert plan.versions[0] == dict(second.channel_versions)  # versions in full
    assert plan.refs(5) == {"a": 5, "c": 1}


def test_past_snapshot_every_a_chain_goes_on_while_its_deltas_are_smaller_than_its_snapshot():
    first = derive(Checkpoint.empty(), {"a": 1, "b": 2, "c": 3}, source="input")
    second = derive(first, {"a": 10})
    past = SNAPSHOT_EVERY - 1

    def plan(depth, chain_bytes, snapshot_bytes):
        known = dataclasses.replace(
            remembered(first, depth=depth), chain_bytes=chain_bytes, snapshot_bytes=snapshot_bytes
        )
        return plan_row(second, known)

    assert not plan(past, 900, 1000).snapshot  # smaller than its snapshot: a delta
    assert plan(past, 1000, 1000).snapshot  # as big: cut
    assert plan(past, None, None).snapshot  # not known (a row read back): cut
    assert not plan(past - 1, None, None).snapshot  # before SNAPSHOT_EVERY rows: a delta
    assert plan(LONGEST_CHAIN - 1, 0, 10**9).snapshot  # the longest chain: cut
    assert plan(0, 100, 1000).chain_bytes(40) == (140, 1000)
    assert plan_row(first, None).chain_bytes(500) == (0, 500)


def test_maps_derived_through_unsaved_steps_are_compared_not_trusted():
    first = derive(Checkpoint.empty(), {"a": 1, "b": 2, "c": 3}, source="input")
    unsaved = derive(first, {"a": 10})
    second = dataclasses.replace(derive(unsaved, {"b": 20}), parent_id=first.id)
    assert second.channel_values.delta() == ({"b": 20}, frozenset())  # misses "a"
    memory = RowMemory()
    memory.remember(remembered(first, seq=1))
    base = memory.base_for(("t", ""), second)  # found by parent id, not by identity
    plan = plan_row(second, base)
    assert plan.changed == {"a": 10, "b": 20}


def test_a_flattened_map_is_compared_and_counts_its_own_delta_as_changed():
    base = DeltaMap({"a": [1], "b": 2})
    child = base
    for _ in range(_FLATTEN_AFTER - 1):
        child = child.with_changes({})
    same_object = child["a"]
    flattened = child.with_changes({"a": same_object})  # "mutated in place", same object
    assert flattened._parent is None
    changes, removed = map_delta(flattened, base, operator.is_)
    assert changes == {"a": [1]} and removed == set()


def test_a_flattened_map_still_gives_its_delta_against_the_map_it_came_from():
    parent = DeltaMap({f"k{i}": i for i in range(1000)})
    for _ in range(_FLATTEN_AFTER - 1):
        parent = parent.with_changes({})
    flattened = parent.with_changes({"k1": -1}, removed=["k2"])
    assert flattened._parent is None and flattened.derived_from() is parent

    def never_compared(a, b):
        raise AssertionError("a derived map is not compared key by key")

    assert map_delta(flattened, parent, never_compared) == ({"k1": -1}, {"k2"})


def test_a_flattened_map_does_not_keep_the_map_it_came_from_alive():
    parent = DeltaMap({"a": 1})
    for _ in range(_FLATTEN_AFTER - 1):
        parent = parent.with_changes({})
    flattened = parent.with_changes({"a": 2})
    del parent
    assert flattened.derived_from() is None and dict(flattened) == {"a": 2}


def test_map_delta_of_plain_dicts_compares_values():
    assert map_delta({"a": 1, "c": 3}, {"a": 1, "b": 2}, operator.eq) == ({"c": 3}, {"b"})


def test_changes_accumulate_over_rows():
    changes = Changes()
    changes.apply({"a": 1}, removed=[])
    changes.apply({}, removed=["a", "b"])
    changes.apply({"b": 2}, removed=[])
    assert changes == Changes({"b": 2}, {"a"})
    assert dict(changes.onto(DeltaMap({"a": 0, "z": 26}))) == {"z": 26, "b": 2}


def test_row_memory_finds_a_base_by_the_identity_of_the_parent_map():
    first = derive(Checkpoint.empty(), {"a": 1}, source="input")
    second = derive(first, {"a": 2})
    memory = RowMemory()
    memory.remember(remembered(first, seq=1))
    fork = dataclasses.replace(second, parent_id="an id the memory never saw")
    assert memory.base_for(("t", ""), fork).seq == 1
    assert memory.base_for(("another thread", ""), fork) is None


def test_row_memory_finds_the_row_a_readers_copy_was_lent_from():
    """A checkpoint derived from a reader's copy of a row's values is a delta of that
    row, compared with the copy; in another thread it is not. A copy no one holds any
    more is forgotten."""
    first = derive(Checkpoint.empty(), {"a": [1], "b": [2]}, source="input")
    memory = RowMemory()
    memory.remember(remembered(first, seq=1))
    copy = memory.lend(memory.get(1), DeltaMap({"a": [1], "b": [2]}))
    resumed = dataclasses.replace(
        derive(first, {"a": [3]}), channel_values=copy.with_changes({"a": [3]})
    )
    base = memory.base_for(("t", ""), resumed)
    assert base.seq == 1 and base.values is copy
    assert plan_row(resumed, base).changed == {"a": [3]}  # "b" is not written again
    elsewhere = dataclasses.replace(resumed, parent_id=None)
    assert memory.base_for(("another thread", ""), elsewhere) is None
    del copy, base, resumed, elsewhere
    assert not memory._lent  # (forgotten with the copy)


def test_row_memory_is_bounded_and_forgets_threads():
    memory = RowMemory(limit=2)
    rows = [derive(Checkpoint.empty(), {"a": index}, source="input") for index in range(3)]
    for seq, checkpoint in enumerate(rows, start=1):
        memory.remember(remembered(checkpoint, seq=seq, thread=(f"t{seq}", "")))
    assert memory.get(1) is None and memory.get(3).seq == 3
    assert memory.get(3, decoded_by=object()) is None  # put, not read back by that reader
    memory.forget_thread("t3")
    assert memory.get(3) is None and repr(memory) == "RowMemory(rows=1, limit=2)"
