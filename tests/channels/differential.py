"""Shared by the channel tests: run the same calls on a graphkit channel and on
LangGraph's channel of the same name, and check that every observable result agrees."""

from __future__ import annotations

from hypothesis import strategies as st
from langgraph.errors import EmptyChannelError as LangGraphEmptyChannelError
from langgraph.errors import InvalidUpdateError as LangGraphInvalidUpdateError

from graphkit.channels import EMPTY
from graphkit.errors import EmptyChannelError, InvalidUpdateError


def read(channel):
    """What a reader sees: availability and the value (EMPTY when there is none)."""
    try:
        value = channel.get()
    except (EmptyChannelError, LangGraphEmptyChannelError):
        value = EMPTY
    return channel.is_available(), value


def call(method, *args):
    """What a call did: its return value, or the name of the error it raised."""
    try:
        return method(*args)
    except (InvalidUpdateError, LangGraphInvalidUpdateError) as error:
        return type(error).__name__


def run_both(ours, theirs, calls):
    """Make the same calls on both channels and check that every result agrees."""
    assert read(ours) == read(theirs)
    for name, *args in calls:
        result = call(getattr(ours, name), *args)
        assert result == call(getattr(theirs, name), *args), (name, args)
        if result == "InvalidUpdateError":
            return  # the runtime stops on this error; the state after it is unspecified
        assert read(ours) == read(theirs)
        assert read(ours.copy()) == read(theirs.copy())
        restored = ours.from_checkpoint(ours.checkpoint())
        assert read(restored) == read(theirs.from_checkpoint(theirs.checkpoint()))
        if name == "update" and not args[0]:
            assert result is False or ours.volatile  # the runtime skips update([]) otherwise


calls = st.lists(
    st.one_of(
        st.lists(st.integers() | st.none(), max_size=3).map(lambda values: ("update", values)),
        st.just(("consume",)),
        st.just(("finish",)),
    ),
    max_size=12,
)
"""Random sequences of channel calls: updates of up to three small values, consume, finish."""
