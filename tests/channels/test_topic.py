"""Topic: unit tests, and differential tests against LangGraph's Topic."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langgraph.channels import Topic as LangGraphTopic

from graphkit.channels import EMPTY, Topic
from graphkit.errors import EmptyChannelError
from tests.channels.differential import run_both


def test_collects_values_and_spreads_lists_one_level():
    channel = Topic(int, key="events")
    assert channel.update([1, [2, [3]], (4, 5)]) is True
    assert channel.get() == [1, 2, [3], (4, 5)]


def test_without_accumulate_each_update_replaces_the_values():
    channel = Topic(int)
    channel.update([1, 2])
    assert channel.update([3]) is True
    assert channel.get() == [3]
    assert channel.update([]) is True
    assert channel.is_available() is False
    assert channel.update([]) is False
    assert channel.update([[]]) is False


def test_with_accumulate_values_are_kept_across_updates():
    channel = Topic(int, accumulate=True)
    channel.update([1])
    channel.update([[2, 3]])
    assert channel.update([]) is False
    assert channel.update([[]]) is False
    assert channel.get() == [1, 2, 3]


def test_volatile_is_decided_per_instance():
    assert Topic(int).volatile is True
    assert Topic(int, accumulate=True).volatile is False


def test_an_empty_topic_has_no_value():
    channel = Topic(int)
    assert channel.is_available() is False
    assert channel.checkpoint() is EMPTY
    with pytest.raises(EmptyChannelError, match="Topic channel is empty"):
        channel.get()


def test_get_and_checkpoint_return_copies():
    channel = Topic(int, accumulate=True)
    channel.update([1])
    channel.get().append(99)
    channel.checkpoint().append(99)
    assert channel.get() == [1]


def test_from_checkpoint_copies_the_saved_list():
    saved = [1, 2]
    restored = Topic(int, accumulate=True, key="events").from_checkpoint(saved)
    restored.update([3])
    assert saved == [1, 2]
    assert restored.get() == [1, 2, 3]
    assert (restored.accumulate, restored.key) == (True, "events")


def test_copy_is_independent():
    channel = Topic(int, accumulate=True)
    channel.update([1])
    copy = channel.copy()
    copy.update([2])
    assert (channel.get(), copy.get()) == ([1], [1, 2])
    assert channel.empty_copy() == Topic(int, accumulate=True)


def test_equality_compares_type_accumulate_and_values():
    assert Topic(int) == Topic(int)
    assert Topic(int) != Topic(int, accumulate=True)
    assert Topic(int) != Topic(str)
    one, other = Topic(int), Topic(int)
    one.update([1])
    assert one != other
    other.update([[1]])
    assert one == other


def test_repr_shows_key_and_values():
    channel = Topic(int, key="events")
    assert repr(channel) == "Topic 'events'(<empty>)"
    channel.update([1, 2])
    assert repr(channel) == "Topic 'events'([1, 2])"


# -- differential tests against LangGraph -----------------------------------------


written = st.integers(0, 9) | st.tuples(st.integers(0, 9)) | st.lists(st.integers(0, 9), max_size=3)
calls = st.lists(
    st.one_of(
        st.lists(written, max_size=4).map(lambda values: ("update", values)),
        st.just(("consume",)),
        st.just(("finish",)),
    ),
    max_size=12,
)


@given(st.booleans(), calls)
def test_matches_langgraph(accumulate, calls):
    run_both(Topic(int, accumulate=accumulate), LangGraphTopic(int, accumulate=accumulate), calls)


def _saved_topic_values(library: str) -> list[dict]:
    """Each checkpoint's `channel_values` of a Pregel that fills a Topic, then reads it."""
    if library == "langgraph":
        from langgraph.channels import LastValue as Last
        from langgraph.channels import Topic as Top
        from langgraph.checkpoint.memory import InMemorySaver
        from langgraph.pregel import NodeBuilder, Pregel
    else:
        from graphkit.channels import LastValue as Last
        from graphkit.channels import Topic as Top
        from graphkit.checkpoint.memory import InMemorySaver
        from graphkit.pregel import NodeBuilder, Pregel
    saver = InMemorySaver()
    app = Pregel(
        nodes={
            "fill": NodeBuilder().subscribe_only("a").do(lambda x: x).write_to("t"),
            "read": NodeBuilder().subscribe_only("t").do(len).write_to("b"),
            "last": NodeBuilder().subscribe_only("b").do(lambda n: n * 2).write_to("c"),
        },
        channels={"a": Last(int), "t": Top(int), "b": Last(int), "c": Last(int)},
        input_channels="a",
        output_channels="c",
        checkpointer=saver,
    )
    config = {"configurable": {"thread_id": "t"}}
    app.invoke(1, config)
    saved = [item.checkpoint for item in saver.list(config)]
    return [dict(c["channel_values"] if isinstance(c, dict) else c.channel_values) for c in saved]


def test_an_emptied_topic_is_saved_as_an_empty_list_as_langgraph_saves_it():
    """The channel's own checkpoint() is EMPTY once emptied (LangGraph's: []), but the
    saved checkpoints hold [] in both: the compatibility page once said it was left out."""
    expected = _saved_topic_values("langgraph")
    assert _saved_topic_values("graphkit") == expected
    assert expected[0] == {"a": 1, "t": [], "b": 1, "c": 2}
