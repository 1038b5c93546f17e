"""NamedBarrierValue: unit tests, and differential tests against LangGraph's."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langgraph.channels import NamedBarrierValue as LangGraphNamedBarrierValue

from graphkit.channels import EMPTY, NamedBarrierValue
from graphkit.errors import EmptyChannelError, InvalidUpdateError
from tests.channels.differential import run_both


def test_opens_once_every_name_was_written():
    channel = NamedBarrierValue(str, {"weather", "news"}, key="join")
    assert channel.update(["weather"]) is True
    assert channel.is_available() is False
    with pytest.raises(EmptyChannelError, match="NamedBarrierValue channel is empty"):
        channel.get()
    assert channel.update(["weather"]) is False
    assert channel.update(["news", "news"]) is True
    assert channel.is_available() is True
    assert channel.get() is None
    assert channel.update([]) is False
    assert NamedBarrierValue.volatile is False


def test_consume_resets_only_a_complete_barrier():
    channel = NamedBarrierValue(str, {"weather", "news"})
    channel.update(["weather"])
    assert channel.consume() is False
    assert channel.checkpoint() == {"weather"}
    channel.update(["news"])
    assert channel.consume() is True
    assert channel.is_available() is False
    assert channel.checkpoint() is EMPTY
    assert channel.finish() is False


def test_an_unknown_name_is_an_error_that_names_channel_value_and_names():
    channel = NamedBarrierValue(str, {"weather", "news"}, key="join")
    with pytest.raises(InvalidUpdateError) as error:
        channel.update(["weather", "sports"])
    assert str(error.value) == (
        "Channel 'join' received 'sports', but it waits only for ['news', 'weather']. "
        "Write one of those names, or add 'sports' to the names the barrier waits for."
    )
    assert channel.checkpoint() is EMPTY  # the update was not applied in part


def test_checkpoint_is_a_copy_of_the_names_seen():
    channel = NamedBarrierValue(str, {"weather", "news"})
    channel.update(["weather"])
    channel.checkpoint().add("news")
    assert channel.is_available() is False


def test_from_checkpoint_copies_the_saved_names():
    saved = {"weather"}
    restored = NamedBarrierValue(str, ["weather", "news"], key="join").from_checkpoint(saved)
    restored.update(["news"])
    assert saved == {"weather"}
    assert restored.get() is None
    assert restored.key == "join"
    assert restored.from_checkpoint(["weather", "news"]).is_available() is True


def test_copy_is_independent():
    channel = NamedBarrierValue(str, {"weather", "news"})
    channel.update(["weather"])
    copy = channel.copy()
    copy.update(["news"])
    assert (channel.is_available(), copy.is_available()) == (False, True)
    assert channel.empty_copy() == NamedBarrierValue(str, {"weather", "news"})


def test_equality_compares_type_names_and_names_seen():
    assert NamedBarrierValue(str, {"a", "b"}) == NamedBarrierValue(str, ["b", "a"])
    assert NamedBarrierValue(str, {"a", "b"}) != NamedBarrierValue(str, {"a"})
    assert NamedBarrierValue(str, {"a"}) != NamedBarrierValue(int, {"a"})
    one, other = NamedBarrierValue(str, {"a", "b"}), NamedBarrierValue(str, {"a", "b"})
    one.update(["a"])
    assert one != other
    other.update(["a"])
    assert one == other


def test_repr_is_sorted_so_it_does_not_depend_on_hash_order():
    channel = NamedBarrierValue(str, {"c", "a", "b"}, key="join")
    channel.update(["c", "b"])
    assert repr(channel) == "NamedBarrierValue 'join'(seen=['b', 'c'], names=['a', 'b', 'c'])"


# -- differential tests against LangGraph -----------------------------------------


# Mostly known names, so that barriers complete; now and then an unknown one.
name = st.sampled_from(["a", "b", "c", "a", "b", "c", "unknown"])
calls = st.lists(
    st.one_of(
        st.lists(name, max_size=3).map(lambda values: ("update", values)),
        st.just(("consume",)),
        st.just(("finish",)),
    ),
    max_size=16,
)


@given(calls)
def test_matches_langgraph(calls):
    names = {"a", "b", "c"}
    run_both(NamedBarrierValue(str, names), LangGraphNamedBarrierValue(str, set(names)), calls)
