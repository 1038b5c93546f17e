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

_id_lock = threading.Lock()
_last_time_ns = 0
_process_bits = int.from_bytes(os.urandom(4), "big") & 0xFFFF_FFFF
_counter = itertools.count()
_NO_VALUES = DeltaMap()
"""Immutable, so every new thread's empty checkpoint can share it."""


def new_checkpoint_id() -> str:
    """Return a UUID-shaped id that sorts in creation order, even within one
    nanosecond and across threads (like LangGraph's time-ordered ids).

    >>> first, second = new_checkpoint_id(), new_checkpoint_id()
    >>> first < second
    True
    """
    global _last_time_ns
    with _id_lock:
        now = _last_time_ns = max(time.time_ns(), _last_time_ns + 1)
    # 64 bits of time, then a per-process random part and a counter to tell apart
    # ids made by several processes in the same nanosecond. One formatting of two
    # integers: this runs once per superstep.
    hex_ = f"{now:016x}{next(_counter) & 0xFFFF_FFFF:08x}"
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
