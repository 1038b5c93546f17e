"""UntrackedValue: unit tests, and differential tests against LangGraph's UntrackedValue."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langgraph.channels import UntrackedValue as LangGraphUntrackedValue

from graphkit.channels import EMPTY, UntrackedValue
from graphkit.errors import EmptyChannelError, InvalidUpdateError
from tests.channels.differential import calls, run_both


def test_keeps_the_last_value_but_never_saves_it():
    channel = UntrackedValue(str, key="client")
    assert channel.update(["connection"]) is True
    assert channel.get() == "connection"
    assert channel.checkpoint() is EMPTY
    assert channel.update([]) is False
    assert channel.get() == "connection"
    assert UntrackedValue.volatile is False


def test_an_empty_channel_has_no_value():
    with pytest.raises(EmptyChannelError, match="UntrackedValue channel is empty"):
        UntrackedValue(str).get()


def test_guard_makes_two_values_in_one_step_an_error_that_names_the_fix():
    channel = UntrackedValue(str, key="client")
    channel.update(["a"])
    with pytest.raises(InvalidUpdateError) as error:
        channel.update(["b", "c"])
    assert str(error.value) == (
        "Channel 'client' received 2 values in one step; an untracked value keeps one value "
        "per step. Write it from one node per step, or create it with "
        "UntrackedValue(..., guard=False) to keep the last."
    )
    assert channel.get() == "a"


def test_without_guard_the_last_value_is_kept():
    channel = UntrackedValue(str, guard=False)
    channel.update(["a", "b"])
    assert channel.get() == "b"


def test_copy_keeps_the_value_but_a_restore_does_not():
    channel = UntrackedValue(str, guard=False, key="client")
    channel.update(["connection"])
    copy = channel.copy()
    assert copy == channel
    assert (copy.get(), copy.guard, copy.key) == ("connection", False, "client")
    copy.update(["other"])
    assert channel.get() == "connection"
    restored = channel.from_checkpoint(channel.checkpoint())
    assert restored.is_available() is False
    assert (restored.guard, restored.key) == (False, "client")
    assert channel.from_checkpoint("ignored").is_available() is False


def test_equality_compares_type_guard_and_value():
    assert UntrackedValue(str) == UntrackedValue(str)
    assert UntrackedValue(str) != UntrackedValue(str, guard=False)
    assert UntrackedValue(str) != UntrackedValue(int)
    one, other = UntrackedValue(str), UntrackedValue(str)
    one.update(["a"])
    assert one != other
    other.update(["a"])
    assert one == other
    assert hash(one) == hash(other)


def test_repr_shows_the_value_held_in_memory():
    channel = UntrackedValue(str, key="client")
    assert repr(channel) == "UntrackedValue 'client'(<empty>)"
    channel.update(["connection"])
    assert repr(channel) == "UntrackedValue 'client'('connection')"


# -- differential tests against LangGraph -----------------------------------------


@given(st.booleans(), calls)
def test_matches_langgraph(guard, calls):
    run_both(UntrackedValue(int, guard=guard), LangGraphUntrackedValue(int, guard=guard), calls)


def test_a_subclass_keeps_the_copy_it_inherits():
    class Mine(UntrackedValue):
        pass

    channel = Mine(int, key="k")
    channel.update([5])
    assert channel.copy().get() == 5  # UntrackedValue's own copy(), not a checkpoint round trip


def test_a_subclass_of_a_value_channel_copies_its_own_slots():
    from graphkit.channels import LastValue

    class Labelled(LastValue):
        __slots__ = ("label",)

    channel = Labelled(int, key="k")
    channel.label = "mine"
    channel.update([3])
    copy = channel.copy()
    assert (copy.get(), copy.label) == (3, "mine")
