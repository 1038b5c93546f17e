"""AnyValue: unit tests, and differential tests against LangGraph's AnyValue."""

import pytest
from hypothesis import given
from langgraph.channels import AnyValue as LangGraphAnyValue

from graphkit.channels import EMPTY, AnyValue
from graphkit.errors import EmptyChannelError
from tests.channels.differential import calls, run_both


def test_keeps_the_last_of_the_values_of_a_step():
    channel = AnyValue(int, key="done")
    assert channel.update([1, 2, 3]) is True
    assert channel.get() == 3


def test_a_step_without_writes_clears_it():
    channel = AnyValue(int)
    channel.update([1])
    assert channel.update([]) is True
    assert channel.is_available() is False
    assert channel.update([]) is False
    assert AnyValue.volatile is True


def test_an_empty_channel_has_no_value():
    channel = AnyValue(int)
    assert channel.checkpoint() is EMPTY
    with pytest.raises(EmptyChannelError, match="AnyValue channel is empty"):
        channel.get()


def test_copy_and_from_checkpoint_keep_value_and_key():
    channel = AnyValue(int, key="done")
    channel.update([1])
    copy = channel.copy()
    copy.update([])
    assert (channel.get(), copy.is_available()) == (1, False)
    restored = channel.from_checkpoint(channel.checkpoint())
    assert restored == channel
    assert (restored.get(), restored.key) == (1, "done")
    assert channel.empty_copy().is_available() is False


def test_equality_compares_type_and_value():
    assert AnyValue(int) == AnyValue(int)
    assert AnyValue(int) != AnyValue(str)
    one, other = AnyValue(int), AnyValue(int)
    one.update([1])
    assert one != other
    other.update([2, 1])
    assert one == other


def test_repr_shows_key_and_value():
    channel = AnyValue(bool, key="done")
    channel.update([True])
    assert repr(channel) == "AnyValue 'done'(True)"


# -- differential tests against LangGraph -----------------------------------------


@given(calls)
def test_matches_langgraph(calls):
    run_both(AnyValue(int, key="done"), LangGraphAnyValue(int, key="done"), calls)
