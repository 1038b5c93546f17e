"""assert_passes and assert_fails: an instructor's tests of their own checks."""

from __future__ import annotations

import pytest

from graphkit.course import Wrong, assert_fails, assert_passes, exercise


@exercise("0.1 · Double it")
def check_double(function) -> str:
    if function(2) != 4:
        raise Wrong(f"double(2) gave {function(2)!r}, not 4.", hint="Multiply by two.")
    return "double works."


@exercise("0.2 · Halve it")
def check_halve(function) -> str:
    results = [function(n) for n in (2, 4)]
    return f"halve(4) is {results[2]}."  # (the check's own mistake: two results)


def test_a_check_passes_the_solution_and_fails_a_wrong_answer_with_its_message():
    assert assert_passes(check_double(lambda x: 2 * x)).message == "double works."
    verdict = assert_fails(check_double(lambda x: x + 1), "gave 3, not 4", hint="two")
    assert verdict.message == "double(2) gave 3, not 4."


def test_each_assertion_says_what_went_otherwise():
    with pytest.raises(AssertionError, match=r"the check failed, but should pass:\n✗ 0.1"):
        assert_passes(check_double(lambda x: x + 1))
    with pytest.raises(AssertionError, match="the check passed, but should fail"):
        assert_fails(check_double(lambda x: 2 * x))
    with pytest.raises(AssertionError, match="the message should say 'gave 5'"):
        assert_fails(check_double(lambda x: x + 1), "gave 5")
    with pytest.raises(AssertionError, match="the hint should say 'Add'"):
        assert_fails(check_double(lambda x: x + 1), hint="Add")
    with pytest.raises(AssertionError, match="got bool: is the check decorated"):
        assert_passes(True)


def test_a_check_that_broke_is_no_failure_of_the_answer():
    # `assert not check_halve(wrong)` passes: the broken check "fails" every answer.
    assert not check_halve(lambda x: x // 3)
    for assertion in (assert_fails, assert_passes):
        with pytest.raises(AssertionError, match="the check itself raised IndexError") as caught:
            assertion(check_halve(lambda x: x // 3))
        assert isinstance(caught.value.__cause__, IndexError)  # (pytest shows its traceback)
