"""Channels: one small protocol (``Channel``, in base.py) and its kinds, by family."""

from graphkit.channels.barrier import NamedBarrierValue, NamedBarrierValueAfterFinish
from graphkit.channels.base import EMPTY, BaseChannel, Channel
from graphkit.channels.delta import DeltaChannel
from graphkit.channels.topic import Topic
from graphkit.channels.value import (
    AnyValue,
    BinaryOperatorAggregate,
    EphemeralValue,
    LastValue,
    LastValueAfterFinish,
    UntrackedValue,
)

__all__ = [
    "EMPTY",
    "AnyValue",
    "BaseChannel",
    "BinaryOperatorAggregate",
    "Channel",
    "DeltaChannel",
    "EphemeralValue",
    "LastValue",
    "LastValueAfterFinish",
    "NamedBarrierValue",
    "NamedBarrierValueAfterFinish",
    "Topic",
    "UntrackedValue",
]
