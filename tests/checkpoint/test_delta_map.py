"""DeltaMap: a read-only Mapping, derived maps that never touch their parent, and
flattening that keeps the contents while bounding the chain of parents."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphkit.checkpoint.delta_map import _FLATTEN_AFTER, DeltaMap


def chain_length(mapping):
    """How many maps a look-up may visit (the map itself plus its ancestors)."""
    length, node = 0, mapping
    while node is not None:
        length, node = length + 1, node._parent
    return length


# -- Mapping behaviour ------------------------------------------------------------------


def test_reads_like_the_dict_it_was_built_from():
    mapping = DeltaMap({"a": 1, "b": None})
    assert mapping["a"] == 1
    assert mapping["b"] is None  # None is a value, not "absent"
    assert "a" in mapping and "b" in mapping
    assert "c" not in mapping
    assert mapping.get("c", "default") == "default"
    assert len(mapping) == 2
    assert list(mapping) == ["a", "b"]
    assert dict(mapping) == {"a": 1, "b": None}
    assert mapping == {"a": 1, "b": None}
    assert {"a": 1, "b": None} == mapping  # noqa: SIM300 - the dict on the left is the point
    assert mapping != {"a": 1}


def test_missing_key_raises_key_error_with_the_key():
    mapping = DeltaMap({"a": 1}).with_changes({}, removed=["a"])
    with pytest.raises(KeyError) as excinfo:
        mapping["a"]
    assert excinfo.value.args == ("a",)


def test_non_string_keys_are_never_contained():
    assert 1 not in DeltaMap({"1": "one"})
    assert None not in DeltaMap({"a": 1})


def test_empty_map_from_nothing_or_an_empty_dict():
    assert dict(DeltaMap()) == {}
    assert dict(DeltaMap({})) == {}
    assert len(DeltaMap(None)) == 0
    assert list(DeltaMap()) == []


def test_repr_shows_the_flattened_contents():
    assert repr(DeltaMap()) == "DeltaMap({})"
    assert repr(DeltaMap({"a": 1, "b": "x"})) == "DeltaMap({'a': 1, 'b': 'x'})"
    derived = DeltaMap({"a": 1, "b": 2}).with_changes({"c": 3}, removed=["a"])
    assert repr(derived) == "DeltaMap({'b': 2, 'c': 3})"


def test_iteration_order_matches_a_dict_given_the_same_operations():
    derived = (
        DeltaMap({"a": 1, "b": 2, "c": 3})
        .with_changes({"b": 20})  # an update keeps its place
        .with_changes({}, removed=["a"])
        .with_changes({"a": 10, "d": 4})  # a re-added key goes to the end
    )
    assert list(derived.items()) == [("b", 20), ("c", 3), ("a", 10), ("d", 4)]


def test_the_constructor_copies_its_argument():
    values = {"a": 1}
    mapping = DeltaMap(values)
    values["a"] = 2
    values["b"] = 3
    assert dict(mapping) == {"a": 1}


def test_a_delta_map_can_be_built_from_another():
    parent = DeltaMap({"a": 1}).with_changes({"b": 2})
    assert dict(DeltaMap(parent)) == {"a": 1, "b": 2}


# -- with_changes -------------------------------------------------------------------------


def test_with_changes_sets_adds_and_removes():
    parent = DeltaMap({"a": 1, "b": 2, "c": 3})
    child = parent.with_changes({"b": 20, "d": 4}, removed=["c"])
    assert dict(child) == {"a": 1, "b": 20, "d": 4}
    assert child["b"] == 20
    assert "c" not in child
    assert len(child) == 3


def test_removing_a_missing_key_is_a_no_op():
    child = DeltaMap({"a": 1}).with_changes({}, removed=["nope"])
    assert dict(child) == {"a": 1}


def test_a_key_both_removed_and_set_in_one_call_ends_up_set():
    child = DeltaMap({"a": 1, "b": 2}).with_changes({"a": 10}, removed=["a", "b"])
    assert child["a"] == 10
    assert "a" in child
    assert dict(child) == {"a": 10}
    assert len(child) == 1


def test_a_key_removed_then_re_added_in_a_later_generation():
    removed = DeltaMap({"a": 1}).with_changes({}, removed=["a"])
    re_added = removed.with_changes({"a": 2})
    assert "a" not in removed
    assert re_added["a"] == 2
    assert dict(re_added) == {"a": 2}
    again_removed = re_added.with_changes({}, removed=["a"])
    assert "a" not in again_removed
    assert dict(again_removed) == {}


def test_removed_accepts_any_iterable_of_keys():
    parent = DeltaMap({"a": 1, "b": 2, "c": 3})
    assert dict(parent.with_changes({}, removed=("a",))) == {"b": 2, "c": 3}
    assert dict(parent.with_changes({}, removed=iter(["b", "c"]))) == {"a": 1}


def test_with_changes_copies_the_changes():
    changes = {"a": 2}
    child = DeltaMap({"a": 1}).with_changes(changes)
    changes["a"] = 3
    changes["b"] = 4
    assert dict(child) == {"a": 2}


def test_deriving_children_leaves_the_parent_unchanged():
    parent = DeltaMap({"a": 1, "b": 2})
    first = parent.with_changes({"a": 10}, removed=["b"])
    second = parent.with_changes({"c": 3})
    grandchild = first.with_changes({"b": 20}, removed=["a"])
    assert dict(parent) == {"a": 1, "b": 2}
    assert dict(first) == {"a": 10}
    assert dict(second) == {"a": 1, "b": 2, "c": 3}
    assert dict(grandchild) == {"b": 20}


# -- flattening -------------------------------------------------------------------------


def test_the_chain_of_parents_never_exceeds_the_flatten_threshold():
    mapping = DeltaMap({"start": 0})
    lengths = []
    for generation in range(3 * _FLATTEN_AFTER):
        mapping = mapping.with_changes({f"k{generation}": generation})
        lengths.append(chain_length(mapping))
    assert max(lengths) == _FLATTEN_AFTER
    # The generation that reaches the threshold is a full copy with no parent.
    assert lengths[_FLATTEN_AFTER - 2] == _FLATTEN_AFTER
    assert lengths[_FLATTEN_AFTER - 1] == 1
    assert lengths[_FLATTEN_AFTER] == 2


def test_flattening_keeps_the_contents_identical():
    expected = {"start": 0}
    mapping = DeltaMap(expected)
    generations = [(mapping, dict(expected))]
    for generation in range(2 * _FLATTEN_AFTER + 3):
        key = f"k{generation % 5}"
        removed = [f"k{(generation + 2) % 5}"] if generation % 3 == 0 else []
        for gone in removed:
            expected.pop(gone, None)
        expected[key] = generation
        mapping = mapping.with_changes({key: generation}, removed=removed)
        generations.append((mapping, dict(expected)))
    flattened = [m for m, _ in generations if m._parent is None]
    assert len(flattened) == 3  # the root and two flattened generations
    for mapping, contents in generations:
        assert dict(mapping) == contents
        assert list(mapping) == list(contents)
        assert len(mapping) == len(contents)


def test_a_removal_just_before_flattening_stays_removed():
    mapping = DeltaMap({"gone": 1, "kept": 2})
    for generation in range(_FLATTEN_AFTER - 1):
        mapping = mapping.with_changes({"counter": generation})
    mapping = mapping.with_changes({}, removed=["gone"])
    assert mapping._parent is None  # this generation was flattened
    assert "gone" not in mapping
    assert dict(mapping) == {"kept": 2, "counter": _FLATTEN_AFTER - 2}


# -- property: a DeltaMap chain behaves like a dict ----------------------------------------

KEYS = st.sampled_from(["a", "b", "c", "d", "e"])
VALUES = st.one_of(st.integers(-3, 3), st.none())
GENERATION = st.tuples(
    st.dictionaries(KEYS, VALUES, max_size=3),  # changes
    st.lists(KEYS, max_size=3),  # removed (may overlap the changes)
)


def apply_to_dict(values, changes, removed):
    result = dict(values)
    for key in removed:
        result.pop(key, None)
    result.update(changes)
    return result


def assert_same_mapping(mapping, expected):
    assert dict(mapping) == expected
    assert len(mapping) == len(expected)
    for key in ["a", "b", "c", "d", "e"]:
        assert (key in mapping) == (key in expected)
        assert mapping.get(key, "missing") == expected.get(key, "missing")


@given(
    initial=st.dictionaries(KEYS, VALUES, max_size=5),
    generations=st.lists(GENERATION, max_size=3 * _FLATTEN_AFTER),
)
def test_a_chain_of_changes_matches_a_dict_at_every_generation(initial, generations):
    maps, dicts = [DeltaMap(initial)], [dict(initial)]
    for changes, removed in generations:
        maps.append(maps[-1].with_changes(changes, removed=removed))
        dicts.append(apply_to_dict(dicts[-1], changes, removed))
    # Checked only at the end: every earlier generation must still be intact.
    for mapping, expected in zip(maps, dicts, strict=True):
        assert_same_mapping(mapping, expected)


@given(
    initial=st.dictionaries(KEYS, VALUES, max_size=5),
    derivations=st.lists(st.tuples(st.integers(min_value=0), GENERATION), max_size=60),
)
def test_branching_from_any_earlier_generation_matches_a_dict(initial, derivations):
    maps, dicts = [DeltaMap(initial)], [dict(initial)]
    for parent_choice, (changes, removed) in derivations:
        parent = parent_choice % len(maps)
        maps.append(maps[parent].with_changes(changes, removed=removed))
        dicts.append(apply_to_dict(dicts[parent], changes, removed))
    for mapping, expected in zip(maps, dicts, strict=True):
        assert_same_mapping(mapping, expected)


def test_a_flattened_map_pickles_and_keeps_its_contents():
    import pickle

    from graphkit.checkpoint.delta_map import _FLATTEN_AFTER

    mapping = DeltaMap({"a": 1})
    for index in range(_FLATTEN_AFTER + 3):
        mapping = mapping.with_changes({f"k{index}": index})
    copy = pickle.loads(pickle.dumps(mapping))
    assert dict(copy) == dict(mapping)
    assert copy.delta() == mapping.delta()
