"""Channels: one kind per file, one small protocol (``Channel``)."""

from graphkit.channels.any_value import AnyValue
from graphkit.channels.base import EMPTY, Channel
from graphkit.channels.binop import BinaryOperatorAggregate
from graphkit.channels.ephemeral_value import EphemeralValue
from graphkit.channels.last_value import LastValue
from graphkit.channels.last_value_after_finish import LastValueAfterFinish
from graphkit.channels.named_barrier_value import NamedBarrierValue
from graphkit.channels.named_barrier_value_after_finish import NamedBarrierValueAfterFinish
from graphkit.channels.topic import Topic
from graphkit.channels.untracked_value import UntrackedValue

__all__ = [
    "EMPTY",
    "AnyValue",
    "BinaryOperatorAggregate",
    "Channel",
    "EphemeralValue",
    "LastValue",
    "LastValueAfterFinish",
    "NamedBarrierValue",
    "NamedBarrierValueAfterFinish",
    "Topic",
    "UntrackedValue",
]
