"""EphemeralValue: unit tests, and differential tests against LangGraph's EphemeralValue."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langgraph.channels import EphemeralValue as LangGraphEphemeralValue

from graphkit.channels import EMPTY, EphemeralValue
from graphkit.errors import EmptyChannelError, InvalidUpdateError
from tests.channels.differential import calls, run_both


def test_holds_the_value_of_the_previous_step_only():
    channel = EphemeralValue(str, key="start")
    assert channel.update(["go"]) is True
    assert channel.get() == "go"
    assert channel.update([]) is True
    assert channel.is_available() is False
    assert channel.update([]) is False
    assert EphemeralValue.volatile is True


def test_an_empty_channel_has_no_value():
    channel = EphemeralValue(str)
    assert channel.checkpoint() is EMPTY
    with pytest.raises(EmptyChannelError, match="EphemeralValue channel is empty"):
        channel.get()


def test_guard_makes_two_values_in_one_step_an_error_that_names_the_fix():
    channel = EphemeralValue(str, key="start")
    channel.update(["go"])
    with pytest.raises(InvalidUpdateError) as error:
        channel.update(["a", "b"])
    assert str(error.value) == (
        "Channel 'start' received 2 values in one step; an ephemeral value keeps one value "
        "per step. Write it from one node per step, or create it with "
        "EphemeralValue(..., guard=False) to keep the last."
    )
    assert channel.get() == "go"


def test_without_guard_the_last_value_is_kept():
    channel = EphemeralValue(str, guard=False)
    assert channel.update(["a", "b"]) is True
    assert channel.get() == "b"


def test_copy_and_from_checkpoint_keep_value_and_configuration():
    channel = EphemeralValue(str, guard=False, key="start")
    channel.update(["go"])
    copy = channel.copy()
    copy.update([])
    assert (channel.get(), copy.is_available()) == ("go", False)
    restored = channel.from_checkpoint(channel.checkpoint())
    assert restored == channel
    assert (restored.get(), restored.guard, restored.key) == ("go", False, "start")
    assert channel.empty_copy().is_available() is False


def test_equality_compares_type_guard_and_value():
    assert EphemeralValue(str) == EphemeralValue(str)
    assert EphemeralValue(str) != EphemeralValue(str, guard=False)
    assert EphemeralValue(str) != EphemeralValue(int)
    one, other = EphemeralValue(str), EphemeralValue(str)
    one.update(["go"])
    assert one != other


def test_repr_shows_key_and_value():
    channel = EphemeralValue(str, key="start")
    channel.update(["go"])
    assert repr(channel) == "EphemeralValue 'start'('go')"


# -- differential tests against LangGraph -----------------------------------------


@given(st.booleans(), calls)
def test_matches_langgraph(guard, calls):
    run_both(EphemeralValue(int, guard=guard), LangGraphEphemeralValue(int, guard=guard), calls)
