"""LastValue: unit tests, and differential tests against LangGraph's LastValue."""

from typing import Annotated, Any, Literal, Optional

import pytest
from hypothesis import given
from langgraph.channels import LastValue as LangGraphLastValue

from graphkit.channels import EMPTY, LastValue
from graphkit.diagnostics.channels import plain_field_written_twice
from graphkit.errors import EmptyChannelError, InvalidUpdateError
from tests.channels.differential import calls, run_both


def test_keeps_the_one_value_of_a_step():
    channel = LastValue(int, key="count")
    assert channel.update([1]) is True
    assert channel.update([2]) is True
    assert channel.get() == 2


def test_a_step_without_writes_keeps_the_value():
    channel = LastValue(int)
    channel.update([1])
    assert channel.update([]) is False
    assert channel.get() == 1
    assert LastValue.volatile is False


def test_an_empty_channel_has_no_value():
    channel = LastValue(int)
    assert channel.is_available() is False
    assert channel.checkpoint() is EMPTY
    with pytest.raises(EmptyChannelError, match="LastValue channel is empty"):
        channel.get()


def test_two_values_in_one_step_are_an_error_that_names_the_channel_and_the_fix():
    channel = LastValue(int, key="count")
    channel.update([1])
    with pytest.raises(InvalidUpdateError) as error:
        channel.update([2, 3])
    assert str(error.value) == (
        "Channel 'count' received 2 values in one step; a plain field keeps one value per "
        "step. Give it a reducer in the state schema, e.g. count: Annotated[int, "
        "operator.add], or write it from one node per step.\nFor "
        "troubleshooting, visit: https://docs.langchain.com/oss/python/langgraph/errors/"
        "INVALID_CONCURRENT_GRAPH_UPDATE"
    )
    assert channel.get() == 1


@pytest.mark.parametrize(
    ("typ", "reducer"),
    [
        (str, "Annotated[str, operator.add]"),
        (list[str], "Annotated[list[str], operator.add]"),
        (dict[str, int], "Annotated[dict[str, int], operator.or_]"),
        (Any, "Annotated[list, operator.add] (each node then writes a one-item list)"),
        (Annotated[str, "a note"], "Annotated[str, operator.add]"),
        (Optional[list[str]], "Annotated[list[str], operator.add]"),  # noqa: UP045
        (set[int] | None, "Annotated[set[int], operator.or_]"),
    ],
)
def test_the_reducer_suggested_for_two_values_suits_the_declared_type(typ, reducer):
    with pytest.raises(InvalidUpdateError) as error:
        LastValue(typ, key="text").update(["a", "b"])
    assert f"e.g. text: {reducer}, or write it from one node per step." in str(error.value)


def test_a_single_value_state_is_given_its_reducer_in_the_state_graph_call():
    with pytest.raises(InvalidUpdateError) as error:  # StateGraph(int): one key, __root__
        LastValue(int, key="__root__").update([1, 2])
    assert "e.g. StateGraph(Annotated[int, operator.add]), or write" in str(error.value)


def test_a_single_value_state_of_another_type_is_told_the_aside_after_the_call():
    # (the aside inside the parentheses, StateGraph(Annotated[...] (each node ...)), read
    # as code that does not run)
    with pytest.raises(InvalidUpdateError) as error:
        LastValue(Literal["a", "b"], key="__root__").update(["a", "b"])
    assert (
        "e.g. StateGraph(Annotated[list, operator.add]) (each node then writes a one-item "
        "list), or write it from one node per step."
    ) in str(error.value)


@pytest.mark.parametrize("typ", [Any, object])
def test_a_low_level_channel_of_any_value_is_not_told_to_add_to_an_object(typ):
    # BinaryOperatorAggregate(object, operator.add) starts from object(): + fails
    error = plain_field_written_twice("out", 2, typ, low_level=True)
    assert "Make it a Topic(object) (it keeps them all) or a BinaryOperatorAggregate of " in str(
        error
    )


def test_none_is_a_value():
    channel = LastValue(int)
    channel.update([None])
    assert channel.is_available() is True
    assert channel.get() is None


def test_copy_is_independent():
    channel = LastValue(int, key="count")
    channel.update([1])
    copy = channel.copy()
    copy.update([2])
    assert (channel.get(), copy.get()) == (1, 2)
    assert (copy.key, copy.typ) == ("count", int)


def test_from_checkpoint_round_trip_and_empty_copy():
    channel = LastValue(str, key="weather")
    channel.update(["sunny"])
    restored = channel.from_checkpoint(channel.checkpoint())
    assert restored == channel
    assert restored.get() == "sunny"
    assert restored.key == "weather"
    assert channel.empty_copy().is_available() is False


def test_equality_compares_kind_type_and_value():
    one, other = LastValue(int), LastValue(int)
    assert one == other
    one.update([1])
    assert one != other
    other.update([1])
    assert one == other
    assert LastValue(int) != LastValue(str)
    assert hash(LastValue(int, key="a")) == hash(LastValue(int, key="a"))


def test_repr_shows_key_and_value():
    channel = LastValue(int, key="count")
    assert repr(channel) == "LastValue 'count'(<empty>)"
    channel.update([3])
    assert repr(channel) == "LastValue 'count'(3)"
    assert repr(LastValue(int)) == "LastValue(<empty>)"


# -- differential tests against LangGraph -----------------------------------------


@given(calls)
def test_matches_langgraph(calls):
    run_both(LastValue(int, key="count"), LangGraphLastValue(int, key="count"), calls)
