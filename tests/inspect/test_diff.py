"""run.diff(a, b): the state keys whose values differ between two steps."""

from __future__ import annotations

import pytest

from graphkit.channels import EMPTY
from graphkit.inspect.diff import StateDiff, diff


def test_changes_between_two_steps(seed_run):
    result = seed_run.diff(1, 3)
    assert isinstance(result, StateDiff)
    assert result.changes == {
        "messages": ([("user", "hi")], [("user", "hi"), ("ai", "sunny; market up")]),
        "token_count": (101, 201),
        "weather": (EMPTY, "sunny"),
        "news": (EMPTY, "market up"),
    }
    assert str(result) == (
        "From step 1 to step 3, 4 state keys changed:\n"
        "  messages     [('user', 'hi')] -> [('user', 'hi'), ('ai', 'sunny; market …\n"
        "  token_count  101 -> 201\n"
        "  weather      <empty> -> 'sunny'\n"
        "  news         <empty> -> 'market up'"
    )
    assert repr(result) == (
        "StateDiff(step 1 -> 3, changed=['messages', 'token_count', 'weather', 'news'])"
    )


def test_no_difference(seed_run):
    result = diff(seed_run, 3, 3)
    assert not result
    assert str(result) == "No state key differs between step 3 and step 3."
    assert "no state key differs" in result._repr_html_()


def test_backwards_and_internal_channels_left_out(seed_run):
    result = seed_run.diff(2, 0)
    assert list(result.changes) == ["token_count", "plan", "weather", "news"]
    assert result.changes["plan"] == ("check the weather and the news", EMPTY)


def test_a_failed_step_has_the_state_it_started_from(failing_run):
    assert not failing_run.diff(0, 1)


def test_an_unknown_step_names_the_steps(seed_run):
    with pytest.raises(KeyError, match=r"no step 9; its steps are \[-1, 0, 1, 2, 3\]"):
        seed_run.diff(0, 9)


def test_values_that_cannot_be_compared_count_as_changed():
    class Array:
        def __eq__(self, other):
            raise ValueError("ambiguous")

    from graphkit.inspect.values import same_value

    assert not same_value(Array(), Array())


def test_html_is_a_table_and_escaped(hostile_run, hostile):
    html = hostile_run.diff(0, 1)._repr_html_()
    assert "<table" in html and "<script" not in html
    assert "&lt;script&gt;" in html
