"""DeltaChannel: its configuration fits its constructor, so the channel protocol's generic
rebuild (the base classes' ``from_checkpoint``, ``Channel._empty_like``) makes the same
channel.
(Its behaviour in graphs, against LangGraph's: tests/conformance/test_parity_delta_channel.py.)
"""

from graphkit.channels import EMPTY, DeltaChannel


def _merged(value: set, writes: list) -> set:
    return value | set(writes)


def test_the_generic_rebuild_keeps_reducer_type_and_snapshot_frequency():
    channel = DeltaChannel(_merged, set, snapshot_frequency=7, key="log")
    channel.update([3, 1])
    rebuilt = super(DeltaChannel, channel).from_checkpoint({1, 3})  # (the base's path)
    assert type(rebuilt) is DeltaChannel
    assert (rebuilt.reducer, rebuilt.typ, rebuilt.snapshot_frequency, rebuilt.key) == (
        _merged,
        set,
        7,
        "log",
    )
    assert rebuilt.get() == {1, 3}
    assert rebuilt == channel
    empty = super(DeltaChannel, channel).from_checkpoint(EMPTY)
    assert empty.get() == set()  # (starts from its type, as a new one does)
    assert channel._empty_like() == empty


def test_channels_differing_only_by_snapshot_frequency_are_not_equal():
    assert DeltaChannel(_merged, set, snapshot_frequency=5) != DeltaChannel(_merged, set)
    assert DeltaChannel(_merged, set) == DeltaChannel(_merged, set)
