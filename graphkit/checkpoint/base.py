"""The Checkpoint record: the complete state of a run between two supersteps."""

from __future__ import annotations

import itertools
import os
import threading
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
    # 64 bits of wall-clock time, a per-process random part, then a counter that
    # orders ids made in the same time slot. The time comes from the monotonic clock
    # (so it never steps back within a process) and is formatted at most once per
    # millisecond: a superstep makes one id, and formatting was most of its cost.
    now = time.monotonic_ns()
    if now >= _renew_at:
        _renew_time_part(now)
    return f"{_time_part}{next(_counter) & 0xFFFF_FFFF:08x}"


def _renew_time_part(now: int) -> None:
    global _time_part, _renew_at
    with _renew_lock:
        if now < _renew_at:  # another thread renewed it meanwhile
            return
        hex_ = f"{_WALL_CLOCK_OFFSET + now:016x}"
        _time_part = f"{hex_[:8]}-{hex_[8:12]}-{hex_[12:]}-{_PROCESS_PART}"
        _renew_at = now + TIME_PART_RESOLUTION_NS


TIME_PART_RESOLUTION_NS = 1_000_000
"""How long one formatted time part is used: ids carry the time to the millisecond
(``Checkpoint.created_at`` has it exactly); the counter orders ids within it."""

_PROCESS_PART = f"{_process_bits >> 16:04x}-{_process_bits & 0xFFFF:04x}"
_renew_lock = threading.Lock()
_time_part = ""
_renew_at = 0


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
