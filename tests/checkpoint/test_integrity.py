"""integrity: the checks SqliteSaver makes on what it reads back."""

from __future__ import annotations

from types import SimpleNamespace as Row

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphkit.checkpoint.integrity import (
    RowProblem,
    blob_check,
    check_blobs,
    check_fields,
    check_names,
    check_row,
    check_writes,
    read_delta,
    row_check,
    write_check,
)

blobs = st.dictionaries(
    st.text(max_size=8), st.tuples(st.sampled_from(["json", "bytes"]), st.binary(max_size=8))
)


@given(blobs)
def test_the_check_of_value_rows_does_not_depend_on_their_order(found):
    rows = [(channel, *typed) for channel, typed in found.items()]
    assert blob_check(rows) == blob_check(rows[::-1])
    check_blobs(blob_check(rows), found)


@pytest.mark.parametrize(
    "changed",
    [
        [("ab", "json", b"c")],  # the same bytes, split differently
        [("a", "jsonb", b"c")],
        [("a", "json", b"bd")],
        [("b", "json", b"bc")],
    ],
)
def test_any_change_to_a_value_row_changes_the_check(changed):
    assert blob_check([("a", "json", b"bc")]) != blob_check(changed)


def test_text_and_bytes_values_are_both_checked():
    # a custom serializer may return text; SQLite gives back what was written
    assert blob_check([("a", "json", "é")]) == blob_check([("a", "json", "é".encode())])


def test_a_row_written_before_checks_is_taken_as_it_is():
    check_blobs((None, None), {})


def test_changed_value_rows_say_what_changed():
    count, hash_ = blob_check([("a", "json", b"1"), ("b", "json", b"2")])
    with pytest.raises(RowProblem, match="2 values were written, 1 is left"):
        check_blobs((count, hash_), {"a": ("json", b"1")})
    with pytest.raises(RowProblem, match="the 2 values were changed after they were written"):
        check_blobs((count, hash_), {"a": ("json", b"1"), "b": ("json", b"3")})


def test_fields_of_the_wrong_type_are_named():
    check_fields(Row(checkpoint_id="1", parent_id=None, step=3, created_at=1.5, depth=0))
    with pytest.raises(RowProblem, match=r"its created_at is 'noon' \(a str\), not an int or"):
        check_fields(Row(created_at="noon"))
    with pytest.raises(RowProblem, match=r"its parent_id is 7 .* not a str or None"):
        check_fields(Row(parent_id=7))
    with pytest.raises(RowProblem, match=r"its step is True \(a bool\), not an int"):
        check_fields(Row(step=True))
    with pytest.raises(RowProblem, match="not a list of channel names"):
        check_names({"a": 1})


@pytest.mark.parametrize(
    ("delta", "problem"),
    [
        ([], "is not a dict"),
        ({"values": [{}, []], "versions": [{}, []]}, "'seen' is None, not"),
        ({"values": [{}, [], []], "versions": [{}, []], "seen": [{}, []]}, "'values' is"),
        ({"values": [{"a": True}, []], "versions": [{}, []], "seen": [{}, []]}, "row number"),
        ({"values": [{}, []], "versions": [{"a": None}, []], "seen": [{}, []]}, "version"),
        ({"values": [{}, []], "versions": [{}, []], "seen": [{"n": [1]}, []]}, "node ->"),
        ({"values": [{}, "a"], "versions": [{}, []], "seen": [{}, []]}, "removed keys"),
    ],
)
def test_a_delta_of_the_wrong_shape_is_refused(delta, problem):
    with pytest.raises(RowProblem, match=problem):
        read_delta(delta)


def test_a_delta_of_the_right_shape_is_read():
    delta = {"values": [{"a": 3}, ["b"]], "versions": [{"a": "v2"}, []], "seen": [{"n": {}}, []]}
    assert read_delta(delta).seen == ({"n": {}}, [])


# -- the checkpoint row and its pending writes --------------------------------------------

writes = st.lists(
    st.tuples(st.text(max_size=4), st.integers(-4, 4), st.text(max_size=4), st.binary(max_size=8)),
    unique_by=lambda write: write[:2],
)


@pytest.mark.parametrize(
    "changed",
    [
        ["t", "", 3.0, None, b"x"],  # a number of another type
        ["t", "", 3, "", b"x"],  # None is not empty text
        ["t", "3", "", None, b"x"],  # the same characters, split differently
        ["t", "", 3, None, b"y"],
        ["t", "", 3, None],
    ],
)
def test_any_change_to_a_rows_fields_changes_its_check(changed):
    fields = ["t", "", 3, None, b"x"]
    assert row_check(fields) != row_check(changed)
    with pytest.raises(RowProblem, match="its fields were changed"):
        check_row(row_check(fields), changed)
    check_row(None, changed)  # a row written before rows were checked


def test_a_rows_check_is_the_one_files_already_hold():
    # computed by the code that wrote the first checked files: a faster way to hash the
    # same bytes must keep every saved row readable
    fields = ("t1", "", "1f0c9-aaaa", None, 5, "loop", 1733300000.123, '["n"]', "json", b"{}")
    assert row_check(fields) == "ffcd55ed519a758a26d941a656de9bcf"


@given(writes)
def test_the_check_of_pending_writes_does_not_depend_on_their_order(found):
    rows = [("t", "", "c1", task, index, "x", "", "json", value) for task, index, _, value in found]
    assert write_check(rows) == write_check(rows[::-1])
    check_writes(write_check(rows), rows)


def test_changed_pending_writes_say_what_changed():
    rows = [("t", "", "c1", "task", index, "x", "", "json", b"1") for index in range(2)]
    with pytest.raises(RowProblem, match="2 pending writes were saved, 1 is left"):
        check_writes(write_check(rows), rows[:1])
    moved = [rows[0], ("t", "", "c2", *rows[1][3:])]
    with pytest.raises(RowProblem, match="its 2 pending writes were changed after they were saved"):
        check_writes(write_check(rows), moved)
    check_writes((None, None), moved)  # a checkpoint written before writes were checked
