"""The Checkpoint record: the complete state of a run between two supersteps."""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any

from graphkit.checkpoint.delta_map import DeltaMap
from graphkit.frozen import frozen_record

if TYPE_CHECKING:  # imported on first use (see __getattr__ at the end)
    from graphkit.checkpoint.saver import BaseCheckpointSaver, CheckpointTuple

__all__ = ["BaseCheckpointSaver", "Checkpoint", "CheckpointTuple", "new_checkpoint_id"]

_counter = itertools.count()
_NO_VALUES = DeltaMap()
"""Immutable, so every new thread's empty checkpoint can share it."""


def new_checkpoint_id(after: str | None = None) -> str:
    """Return a UUID-shaped id that sorts in creation order, even within one
    nanosecond and across threads (like LangGraph's time-ordered ids); with ``after``
    (the parent checkpoint's id), one that sorts after it whatever the clocks say.

    >>> first = new_checkpoint_id()
    >>> second = new_checkpoint_id(after=first)
    >>> first < second
    True
    """
    # 64 bits of wall-clock time, a per-process random part, then a counter that
    # orders ids made in the same time slot. The time part is formatted at most once
    # per millisecond (the monotonic clock says when): a superstep makes one id, and
    # formatting was most of its cost. It never goes back within a process.
    if time.monotonic_ns() >= _renew_at:
        _renew_time_part()
    checkpoint_id = f"{_time_part}{next(_counter) & 0xFFFF_FFFF:08x}"
    if after is not None and checkpoint_id <= after:
        target = _time_of(after) + 1
        if target - time.time_ns() > FOREIGN_AHEAD_NS:
            # an id of another scheme (LangGraph's, in a thread copied from it) reads as
            # a time years ahead: sort after it without moving this process's clock
            hex_ = f"{target:016x}"
            counter = next(_counter) & 0xFFFF_FFFF
            return f"{hex_[:8]}-{hex_[8:12]}-{hex_[12:]}-{_process_part}{counter:08x}"
        # a parent made by another process whose clock is ahead, or within the same
        # millisecond: move this process's time part past the parent's
        _renew_time_part(at_least=target)
        checkpoint_id = f"{_time_part}{next(_counter) & 0xFFFF_FFFF:08x}"
    return checkpoint_id


def _renew_time_part(at_least: int = 0) -> None:
    global _time_part, _renew_at, _last_time
    with _renew_lock:
        now = time.monotonic_ns()
        if now < _renew_at and not at_least:  # another thread renewed it meanwhile
            return
        _last_time = max(time.time_ns(), _last_time + 1, at_least)
        hex_ = f"{_last_time:016x}"
        _time_part = f"{hex_[:8]}-{hex_[8:12]}-{hex_[12:]}-{_process_part}"
        _renew_at = now + TIME_PART_RESOLUTION_NS


def _time_of(checkpoint_id: str) -> int:
    """The time part of an id made by ``new_checkpoint_id`` (0 for any other id)."""
    try:
        return int(checkpoint_id[:8] + checkpoint_id[9:13] + checkpoint_id[14:18], 16)
    except ValueError:
        return 0


def _new_process() -> None:
    """In a forked child: a random part of its own, and a fresh time part."""
    global _process_part, _renew_at
    bits = int.from_bytes(os.urandom(4), "big")
    _process_part = f"{bits >> 16:04x}-{bits & 0xFFFF:04x}"
    _renew_at = 0


FOREIGN_AHEAD_NS = 24 * 3_600 * 10**9
"""A parent id whose time is further ahead than this is not a clock running fast but
another id scheme; following it would date this process's ids years ahead."""

TIME_PART_RESOLUTION_NS = 1_000_000
"""How long one formatted time part is used: ids carry the time to the millisecond
(``Checkpoint.created_at`` has it exactly); the counter orders ids within it."""

_process_part = ""
_renew_lock = threading.Lock()
_time_part = ""
_renew_at = 0
_last_time = 0
_new_process()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_process)


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


def __getattr__(name: str) -> Any:
    """``BaseCheckpointSaver`` and ``CheckpointTuple``, importable from here as from
    ``langgraph.checkpoint.base`` (they live in ``graphkit.checkpoint.saver``, which
    imports this module)."""
    if name in ("BaseCheckpointSaver", "CheckpointTuple"):
        from graphkit.checkpoint import saver

        return getattr(saver, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
