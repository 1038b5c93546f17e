"""The Checkpoint record: the complete state of a run between two supersteps."""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Mapping
from dataclasses import field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from graphkit.checkpoint.delta_map import DeltaMap
from graphkit.frozen import frozen_record

if TYPE_CHECKING:  # imported on first use (see __getattr__ at the end)
    from graphkit.checkpoint.saver import NOT_CARRIED as EXCLUDED_METADATA_KEYS
    from graphkit.checkpoint.saver import BaseCheckpointSaver, CheckpointTuple, PendingWrite
    from graphkit.checkpoint.saver import saved_metadata as get_checkpoint_metadata
    from graphkit.checkpoint.saver import (
        serializable_metadata as get_serializable_checkpoint_metadata,
    )

__all__ = [
    "EXCLUDED_METADATA_KEYS",
    "WRITES_IDX_MAP",
    "BaseCheckpointSaver",
    "ChannelVersions",
    "Checkpoint",
    "CheckpointMetadata",
    "CheckpointTuple",
    "PendingWrite",
    "copy_checkpoint",
    "empty_checkpoint",
    "get_checkpoint_id",
    "get_checkpoint_metadata",
    "get_serializable_checkpoint_metadata",
    "new_checkpoint_id",
]

# -- the names a saver written for LangGraph imports from langgraph.checkpoint.base ---------

ChannelVersions = dict[str, str | int | float]
"""A checkpoint's version of each channel (graphkit's are ints)."""


class CheckpointMetadata(TypedDict, total=False):
    """What ``put`` is handed as ``metadata``: where the checkpoint came from, its step
    (-1 for the input), the parent namespaces' checkpoint ids, and the config's own
    metadata items."""

    source: Literal["input", "loop", "update", "fork"]
    step: int
    parents: dict[str, str]
    run_id: str


def get_checkpoint_id(config: Mapping[str, Any]) -> str | None:
    """The ``checkpoint_id`` a config names, if any.

    >>> get_checkpoint_id({"configurable": {"thread_id": "1", "checkpoint_id": "c"}})
    'c'
    """
    return config["configurable"].get("checkpoint_id")


WRITES_IDX_MAP = {"__error__": -1, "__scheduled__": -2, "__interrupt__": -3, "__resume__": -4}
"""Where ``put_writes`` keeps a task's write to a special channel (LangGraph's indices):
a fixed slot per task, so its interrupt survives its later writes; a regular write is
kept at its position in ``writes``, and only once."""


def empty_checkpoint() -> Checkpoint:
    """The checkpoint a new thread starts from (``Checkpoint.empty()``)."""
    return Checkpoint.empty()


def copy_checkpoint(checkpoint: Any) -> Any:
    """A copy of ``checkpoint`` that shares nothing its reader may change: graphkit's
    record with its own ``versions_seen`` dicts (its value maps cannot change), or, for
    LangGraph's dict, the dict with its maps copied.

    >>> record = empty_checkpoint()
    >>> copy_checkpoint(record) == record, copy_checkpoint(record) is record
    (True, False)
    """
    if isinstance(checkpoint, Checkpoint):
        seen = {node: dict(versions) for node, versions in checkpoint.versions_seen.items()}
        return replace(checkpoint, versions_seen=DeltaMap(seen))
    copied = {**checkpoint}
    for key in ("channel_values", "channel_versions"):
        copied[key] = dict(checkpoint[key])
    copied["versions_seen"] = {n: dict(v) for n, v in checkpoint["versions_seen"].items()}
    return copied


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
    # 64 bits of wall-clock time in nanoseconds, a per-process random part, then a
    # counter. The time never goes back within a process: a stalled or stepped-back
    # clock, or a parent made by a process whose clock is ahead, moves it one past.
    global _last_time
    floor = _time_of(after) + 1 if after is not None else 0
    with _clock_lock:
        now = time.time_ns()
        if floor - now > FOREIGN_AHEAD_NS:
            # an id of another scheme (LangGraph's, in a thread copied from it) reads as
            # a time years ahead: sort after it without moving this process's clock
            taken = floor
        else:
            taken = _last_time = max(now, _last_time + 1, floor)
        counter = next(_counter) & 0xFFFF_FFFF
    hex_ = f"{taken:016x}"
    return f"{hex_[:8]}-{hex_[8:12]}-{hex_[12:]}-{_process_part}{counter:08x}"


def _time_of(checkpoint_id: str) -> int:
    """The time part of an id made by ``new_checkpoint_id`` (0 for any other id)."""
    try:
        return int(checkpoint_id[:8] + checkpoint_id[9:13] + checkpoint_id[14:18], 16)
    except ValueError:
        return 0


def _new_process() -> None:
    """In a forked child: a random part of its own, so its ids differ from the parent's,
    and a lock of its own (another thread of the parent may have held it)."""
    global _process_part, _random_part, _clock_lock
    _clock_lock = threading.Lock()
    bits = int.from_bytes(os.urandom(4), "big")
    _process_part = f"{bits >> 16:04x}-{bits & 0xFFFF:04x}"
    _random_part = os.urandom(8).hex()  # (unsaved ids: 64 bits, then a counter)


LANGGRAPH_CHECKPOINT_VERSION = 4
"""The format version LangGraph 1.x's runtime gives its checkpoints as ``"v"``: 4, where a
step's ``Send``s are in the ``__pregel_tasks`` channel, as graphkit keeps them. A saver
written for LangGraph reads an older one's Sends from its parent's pending writes instead
(LangGraph's Postgres saver moves them into the checkpoint when ``v < 4``)."""

_DICT_KEYS = (
    "v", "id", "ts", "channel_values", "channel_versions", "versions_seen", "updated_channels",
)  # fmt: skip

FOREIGN_AHEAD_NS = 24 * 3_600 * 10**9
"""A parent id whose time is further ahead than this is not a clock running fast but
another id scheme; following it would date this process's ids years ahead."""

_process_part = _random_part = ""
_clock_lock = threading.Lock()
_last_time = 0  # the time part of this process's latest id
_new_process()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_process)


@frozen_record()
class Checkpoint:
    """What a run looks like between supersteps: every channel's saved value and
    version, and which channel versions each node has already seen.

    ``source`` is ``"input"`` for the step that applies the input, ``"loop"`` for
    the steps that run nodes, ``"update"`` for an ``update_state``, ``"fork"`` for the
    copy a replay of an older checkpoint continues from, and ``"empty"`` before any
    (LangGraph's names). The value maps share unchanged
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

    @classmethod
    def unsaved(cls, step: int, source: str, parent_id: str | None, updated: Any) -> Checkpoint:
        """A checkpoint of a run that nobody saves or reads (``invoke`` or ``stream``
        without a checkpointer, keeping no supersteps): no values, as LangGraph's loop
        copies none into such a run's checkpoints, and an id that is only unique: 64
        random bits per process (drawn again in a forked child) and a counter (the next
        step's task ids hash it; nothing sorts or shows it). Together −13% per 3-node ``invoke``
        (benchmarks/README.md, "After the core redesign").

        >>> first, second = (Checkpoint.unsaved(0, "loop", None, ()) for _ in range(2))
        >>> first.id != second.id, dict(first.channel_values)
        (True, {})
        """
        unique_id = f"{_random_part}-{next(_counter):x}"
        no_values = _NO_VALUES
        return cls(
            unique_id, step, source, parent_id, no_values, no_values, no_values, frozenset(updated)
        )

    # -- read as LangGraph's checkpoint dict (``saved.checkpoint["channel_values"]``) --------

    def __getitem__(self, key: str) -> Any:
        """LangGraph's keys: ``"id"``, ``"ts"`` (ISO time), ``"v"``, and as plain dicts
        ``"channel_values"``, ``"channel_versions"`` and ``"versions_seen"`` (graphkit's
        own bookkeeping: int versions), ``"updated_channels"`` (a sorted list).

        >>> Checkpoint.empty()["channel_values"]
        {}
        """
        if key not in _DICT_KEYS:
            raise KeyError(key)
        if key == "ts":
            return datetime.fromtimestamp(self.created_at, UTC).isoformat()
        if key == "v":
            return LANGGRAPH_CHECKPOINT_VERSION
        if key == "updated_channels":
            return sorted(self.updated_channels)
        if key == "versions_seen":
            return {node: dict(seen) for node, seen in self.versions_seen.items()}
        return dict(getattr(self, key)) if key.startswith("channel_") else getattr(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        """``self[key]``, or ``default`` for a key LangGraph's dict does not have."""
        return self[key] if key in _DICT_KEYS else default

    def keys(self) -> tuple[str, ...]:
        """The keys of LangGraph's checkpoint dict."""
        return _DICT_KEYS

    def copy(self) -> dict[str, Any]:
        """LangGraph's checkpoint dict (a saver written for LangGraph takes it apart:
        ``values = checkpoint.copy().pop("channel_values")``); given back in a
        ``CheckpointTuple``, it is this record again (``from_dict``).

        >>> sorted(Checkpoint.empty().copy())[:3]
        ['channel_values', 'channel_versions', 'id']
        """
        return {key: self[key] for key in _DICT_KEYS}

    @classmethod
    def from_dict(
        cls, saved: Mapping[str, Any], metadata: Mapping[str, Any] | None, parent_id: str | None
    ) -> Checkpoint:
        """The record a saver gave back as LangGraph's dict (``copy()`` of it, put
        together again): its step and source are in the ``metadata`` saved with it.

        >>> record = Checkpoint.unsaved(3, "loop", "p", ["n"])
        >>> metadata = {"step": 3, "source": "loop"}
        >>> again = Checkpoint.from_dict(record.copy(), metadata, "p")
        >>> again.step, again.source, again.parent_id, sorted(again.updated_channels)
        (3, 'loop', 'p', ['n'])
        """
        metadata = metadata or {}
        _check_dict(saved)
        seen = {node: dict(versions) for node, versions in saved["versions_seen"].items()}
        ts = saved.get("ts")
        return cls(
            saved["id"],
            metadata.get("step", -1),
            metadata.get("source", "loop"),
            parent_id,
            DeltaMap(saved["channel_values"]),
            DeltaMap(saved["channel_versions"]),
            DeltaMap(seen),
            frozenset(saved.get("updated_channels") or ()),
            datetime.fromisoformat(ts).timestamp() if ts else time.time(),
        )

    def __contains__(self, key: object) -> bool:
        return key in _DICT_KEYS

    def __repr__(self) -> str:
        return (
            f"Checkpoint(step={self.step}, source={self.source!r}, "
            f"channels={sorted(self.channel_values)})"
        )


_NEEDED = ("id", "channel_values", "channel_versions", "versions_seen")


def _check_dict(saved: Mapping[str, Any]) -> None:
    """``ValueError`` naming a part of LangGraph's checkpoint dict a saver gave back
    missing or of the wrong type (put together again from its rows)."""
    told = "CheckpointTuple was given a checkpoint dict"
    fix = "give back the dict checkpoint.copy() gave put(), with all its parts, or the record"
    if missing := [key for key in _NEEDED if key not in saved]:
        have = ", ".join(map(repr, saved)) or "nothing"
        raise ValueError(f"{told} without {', '.join(map(repr, missing))} (it has {have}): {fix}")
    seen = saved["versions_seen"]
    wrong = [key for key in _NEEDED[1:] if not isinstance(saved[key], Mapping)]
    if not wrong and not all(isinstance(v, Mapping) for v in seen.values()):
        wrong = ["versions_seen"]
    ts = saved.get("ts")
    if not wrong and ts is not None and not _iso_time(ts):
        wrong = ["ts"]
    if wrong:
        key = wrong[0]
        raise ValueError(f"{told} whose {key!r} is {saved[key]!r:.60}: {fix}")


def _iso_time(ts: Any) -> bool:
    try:
        datetime.fromisoformat(ts)
    except (TypeError, ValueError):
        return False
    return True


_FROM_SAVER = {
    "BaseCheckpointSaver": "BaseCheckpointSaver",
    "CheckpointTuple": "CheckpointTuple",
    "EXCLUDED_METADATA_KEYS": "NOT_CARRIED",
    "PendingWrite": "PendingWrite",
    "get_checkpoint_metadata": "saved_metadata",
    "get_serializable_checkpoint_metadata": "serializable_metadata",
}


def __getattr__(name: str) -> Any:
    """``BaseCheckpointSaver``, ``CheckpointTuple``, ``PendingWrite``,
    ``EXCLUDED_METADATA_KEYS`` (the config's keys metadata leaves out),
    ``get_checkpoint_metadata`` (the metadata ``put`` saves: what it is handed plus what
    the config carries) and ``get_serializable_checkpoint_metadata`` (that without
    ``"writes"``), importable from here as from ``langgraph.checkpoint.base``
    (they live in ``graphkit.checkpoint.saver``, which imports this module)."""
    if name in _FROM_SAVER:
        from graphkit.checkpoint import saver

        return getattr(saver, _FROM_SAVER[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
