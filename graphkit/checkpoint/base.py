"""The Checkpoint record: the complete state of a run between two supersteps."""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Mapping
from dataclasses import field
from typing import Any

from graphkit.checkpoint.delta_map import DeltaMap
from graphkit.frozen import frozen_record

__all__ = ["Checkpoint", "new_checkpoint_id"]

_process_bits = int.from_bytes(os.urandom(4), "big") & 0xFFFF_FFFF
_counter = itertools.count()
_WALL_CLOCK_OFFSET = time.time_ns() - time.monotonic_ns()
_NO_VALUES = DeltaMap()
"""Immutable, so every new thread's empty checkpoint can share it."""


def new_checkpoint_id() -> str:
    """Return a UUID-shaped id that sorts in creation order, even within one
    nanosecond and across threads (like LangGraph's time-ordered ids).

    >>> first, second = new_checkpoint_id(), new_checkpoint_id()
    >>> first < second
    True
    """
    # 64 bits of wall-clock time (taken from the monotonic clock, so it never steps
    # back within a process), a per-process random part, then a counter that orders
    # ids made in the same nanosecond. No lock: the counter is atomic. One formatting
    # of one integer, as this runs once per superstep.
    now = _WALL_CLOCK_OFFSET + time.monotonic_ns()
    hex_ = f"{now << 32 | (next(_counter) & 0xFFFF_FFFF):024x}"
    return f"{hex_[:8]}-{hex_[8:12]}-{hex_[12:16]}-{_PROCESS_PART}{hex_[16:]}"


_PROCESS_PART = f"{_process_bits >> 16:04x}-{_process_bits & 0xFFFF:04x}"


@frozen_record()
class Checkpoint:
    """What a run looks like between supersteps: every channel's saved value and
    version, and which channel versions each node has already seen.

    ``source`` is ``"input"`` for the step that applies the input and ``"loop"`` for
    the steps that run nodes (LangGraph's names). The value maps share unchanged
    entries with the previous checkpoint, so recording one per step is cheap.

    >>> checkpoint = Checkpoint.empty()
    >>> checkpoint.step, dict(checkpoint.channel_values)
    (-2, {})
    """

    id: str
    step: int
    source: str
    parent_id: str | None
    channel_values: Mapping[str, Any]
    channel_versions: Mapping[str, int]
    versions_seen: Mapping[str, Mapping[str, int]]
    updated_channels: frozenset[str] = frozenset()
    created_at: float = field(default_factory=time.time)

    @classmethod
    def empty(cls) -> Checkpoint:
        """The checkpoint a new thread starts from: no values, no versions."""
        return cls(new_checkpoint_id(), -2, "empty", None, _NO_VALUES, _NO_VALUES, _NO_VALUES)

    def __repr__(self) -> str:
        return (
            f"Checkpoint(step={self.step}, source={self.source!r}, "
            f"channels={sorted(self.channel_values)})"
        )
