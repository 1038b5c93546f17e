"""heads: a thread's newest checkpoint and its count, against the rows a read finds."""

from __future__ import annotations

import pytest

from graphkit.checkpoint.heads import Head, MissingCheckpoint, check_head
from graphkit.checkpoint.integrity import RowProblem


def test_rows_that_agree_with_their_head_pass():
    check_head(Head("b", 2), newest=("b", True), count=2)
    check_head(Head("b", 2), newest=("b", True), count=None)  # not every row was read
    check_head(None, newest=None, count=0)  # a new thread


def test_a_missing_newest_checkpoint_is_named():
    with pytest.raises(MissingCheckpoint, match="the newest row left is 'a'") as error:
        check_head(Head("b", 2), newest=("a", True), count=None)
    assert error.value.checkpoint_id == "b"
    with pytest.raises(MissingCheckpoint, match="no row is left"):
        check_head(Head("b", 2), newest=None, count=0)


def test_a_row_newer_than_its_head_is_refused_unless_written_without_checks():
    with pytest.raises(RowProblem, match="was not written by a put"):
        check_head(Head("a", 1), newest=("b", True), count=None)
    check_head(Head("a", 1), newest=("b", False), count=None)  # an older graphkit's put


def test_a_missing_head_or_a_wrong_count_is_refused():
    with pytest.raises(RowProblem, match=r"head row .* is missing"):
        check_head(None, newest=("a", True), count=None)
    check_head(None, newest=("a", False), count=None)  # a thread only older graphkits wrote
    with pytest.raises(RowProblem, match="3 checkpoints were saved in its thread, 2 are left"):
        check_head(Head("b", 3), newest=("b", True), count=2)


@pytest.mark.parametrize("head", [Head(5, 1), Head("b", "1"), Head(None, 1)])
def test_a_head_row_of_the_wrong_types_is_refused(head):
    with pytest.raises(RowProblem, match="head row holds"):
        check_head(head, newest=("b", True), count=None)
