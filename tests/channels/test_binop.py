"""BinaryOperatorAggregate: unit tests, and differential tests against LangGraph's."""

import collections.abc
import operator
import typing
from typing import Annotated, NotRequired, Required

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langgraph.channels import BinaryOperatorAggregate as LangGraphBinaryOperatorAggregate

from graphkit.channels import EMPTY, BinaryOperatorAggregate
from graphkit.errors import EmptyChannelError
from tests.channels.differential import read, run_both


class NeedsArguments:
    def __init__(self, value):
        self.value = value


INITIAL_VALUES = [
    (int, 0),
    (str, ""),
    (list, []),
    (list[str], []),
    (typing.List[int], []),  # noqa: UP006 - the old alias must work too
    (dict[str, int], {}),
    (Annotated[list[str], operator.add], []),
    (NotRequired[Annotated[list[str], operator.add]], []),
    (Required[int], 0),
    (collections.abc.Sequence, []),
    (collections.abc.MutableSequence[int], []),
    (collections.abc.Set, set()),
    (collections.abc.MutableSet[str], set()),
    (collections.abc.Mapping[str, int], {}),
    (collections.abc.MutableMapping, {}),
    (typing.Sequence[int], []),
    (tuple[int, ...], ()),
    (frozenset, frozenset()),
    (int | None, EMPTY),
    (typing.Optional[int], EMPTY),  # noqa: UP045
    (typing.Any, EMPTY),
    (NeedsArguments, EMPTY),
]


@pytest.mark.parametrize(("typ", "initial"), INITIAL_VALUES)
def test_starts_from_the_type_called_with_no_arguments(typ, initial):
    channel = BinaryOperatorAggregate(typ, operator.add)
    assert channel.checkpoint() == initial
    assert type(channel.checkpoint()) is type(initial)
    assert channel.is_available() is (initial is not EMPTY)


def test_folds_values_in_order():
    def show(total, value):
        return f"({total}+{value})"

    channel = BinaryOperatorAggregate(str, show, key="trace")
    assert channel.update(["a", "b"]) is True
    assert channel.get() == "((+a)+b)"
    assert channel.update([]) is False
    assert channel.get() == "((+a)+b)"
    assert BinaryOperatorAggregate.volatile is False


def test_the_first_value_starts_an_empty_channel():
    channel = BinaryOperatorAggregate(int | None, operator.sub)
    with pytest.raises(EmptyChannelError, match="BinaryOperatorAggregate channel is empty"):
        channel.get()
    assert channel.checkpoint() is EMPTY
    channel.update([5, 2])
    assert channel.get() == 3


def test_an_operator_that_raises_leaves_the_value_unchanged():
    channel = BinaryOperatorAggregate(int, operator.add)
    channel.update([1])
    with pytest.raises(TypeError):
        channel.update([2, "three"])
    assert channel.get() == 1


@pytest.mark.parametrize(
    "writes",
    [
        [{"a": 1}, {"b": 2}],  # plain dicts are folded
        [{"a": 1}, {"__overwrite__": {"b": 2}}],  # LangGraph's dict forms of an Overwrite
        [{"a": 1}, {"type": "__overwrite__", "value": {"b": 2}}, {"c": 3}],
        [{"type": "note"}, {"value": 1}],  # look alike, but are not Overwrites
        [{"__overwrite__": {}}, {"__overwrite__": {}}],  # two in one step: an error
    ],
)
def test_dict_writes_and_dict_overwrites_as_in_langgraph(writes):
    run_both(
        BinaryOperatorAggregate(dict, operator.or_),
        LangGraphBinaryOperatorAggregate(dict, operator.or_),
        [("update", writes)],
    )


def test_copy_is_independent_and_keeps_the_configuration():
    channel = BinaryOperatorAggregate(list[str], operator.add, key="log")
    channel.update([["a"]])
    copy = channel.copy()
    copy.update([["b"]])
    assert (channel.get(), copy.get()) == (["a"], ["a", "b"])
    assert (copy.typ, copy.operator, copy.key) == (list[str], operator.add, "log")


def test_from_checkpoint_round_trip_and_empty_copy():
    channel = BinaryOperatorAggregate(list[str], operator.add, key="log")
    channel.update([["a"], ["b"]])
    restored = channel.from_checkpoint(channel.checkpoint())
    assert restored == channel
    assert restored.get() == ["a", "b"]
    assert channel.empty_copy().get() == []
    assert BinaryOperatorAggregate(int | None, max).empty_copy().is_available() is False


def test_equality_compares_type_operator_and_value():
    def add(a, b):
        return a + b

    assert BinaryOperatorAggregate(int, operator.add) == BinaryOperatorAggregate(int, operator.add)
    assert BinaryOperatorAggregate(int, operator.add) != BinaryOperatorAggregate(int, add)
    assert BinaryOperatorAggregate(int, operator.add) != BinaryOperatorAggregate(
        float, operator.add
    )
    one, other = BinaryOperatorAggregate(int, add), BinaryOperatorAggregate(int, add)
    one.update([1])
    assert one != other
    other.update([1])
    assert one == other


def test_repr_shows_key_and_value():
    channel = BinaryOperatorAggregate(list[str], operator.add, key="log")
    channel.update([["a"]])
    assert repr(channel) == "BinaryOperatorAggregate 'log'(['a'])"


# -- differential tests against LangGraph -----------------------------------------


def calls_of(values):
    update = st.lists(values, max_size=4).map(lambda written: ("update", written))
    return st.lists(update | st.just(("consume",)) | st.just(("finish",)), max_size=10)


@pytest.mark.parametrize(("typ", "initial"), INITIAL_VALUES)
def test_initial_value_matches_langgraph(typ, initial):
    ours = BinaryOperatorAggregate(typ, operator.add)
    assert read(ours) == read(LangGraphBinaryOperatorAggregate(typ, operator.add))


@given(calls_of(st.lists(st.integers(), max_size=3)))
def test_list_concatenation_matches_langgraph(calls):
    typ = Annotated[list[int], operator.add]
    run_both(
        BinaryOperatorAggregate(typ, operator.add),
        LangGraphBinaryOperatorAggregate(typ, operator.add),
        calls,
    )


@given(calls_of(st.text(max_size=2)))
def test_order_sensitive_operator_matches_langgraph(calls):
    run_both(
        BinaryOperatorAggregate(str, operator.add),
        LangGraphBinaryOperatorAggregate(str, operator.add),
        calls,
    )


@given(calls_of(st.text(max_size=2)))
def test_channel_that_starts_empty_matches_langgraph(calls):
    def concatenate(left, right):
        return f"({left}+{right})"

    run_both(
        BinaryOperatorAggregate(str | None, concatenate),
        LangGraphBinaryOperatorAggregate(str | None, concatenate),
        calls,
    )
