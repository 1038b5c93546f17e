"""Checkpoints as deltas: the storage-independent half of ``SqliteSaver``.

A stored checkpoint is a *row* that records how its three maps (channel values,
channel versions, versions seen) differ from those of a *base* row, or, for a
snapshot, what they hold in full. Channel values live in blobs, one per value a step
changed; a row's ``refs`` map says which row's blob holds each channel's value, so a
snapshot can point at old blobs instead of serializing unchanged values again.

``plan_row`` decides what to write for a checkpoint; ``RowMemory`` remembers the maps of
recent rows, so that writing and reading a delta costs what the step changed.

>>> from graphkit.checkpoint.base import Checkpoint
>>> first = Checkpoint.empty()
>>> plan = plan_row(first, None)
>>> plan.depth, plan.changed, plan.delta()["values"]
(0, {}, [{}, []])
"""

from __future__ import annotations

import dataclasses
import operator
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from graphkit.checkpoint.base import Checkpoint
from graphkit.checkpoint.copies import Lent
from graphkit.checkpoint.delta_map import DeltaMap

__all__ = [
    "LONGEST_CHAIN",
    "SNAPSHOT_EVERY",
    "Changes",
    "RowMaps",
    "RowMemory",
    "RowPlan",
    "plan_row",
]

SNAPSHOT_EVERY = 64
"""A chain of delta rows is cut by a full snapshot after this many rows, or later (up to
``LONGEST_CHAIN``) while its deltas hold fewer bytes than its snapshot did."""

LONGEST_CHAIN = 256
"""The most rows a chain of deltas runs to, so that reading a checkpoint walks at most
this many rows. A snapshot lists every channel: at 1,000 channels one costs about what
500 of a chain step's deltas do, and one every 64 rows was a tenth of that step's put."""


@dataclass(frozen=True, slots=True)
class RowMaps:
    """A stored row whose three maps are in memory."""

    seq: int
    thread: tuple[str, str]  # (thread id, namespace)
    checkpoint_id: str
    depth: int  # rows since the last snapshot
    values: Mapping[str, Any]
    versions: Mapping[str, Any]
    seen: Mapping[str, Any]
    refs: Mapping[str, int]  # channel -> seq of the row whose blob holds its value
    decoded_by: Any  # the serializer that read it back; None: the very maps that were put
    # bytes of the deltas written since the chain's snapshot, and of that snapshot's
    # (None: not known, for a row read back, whose chain is then cut as soon as it may)
    chain_bytes: int | None = None
    snapshot_bytes: int | None = None

    def __repr__(self) -> str:
        return f"RowMaps(seq={self.seq}, checkpoint_id={self.checkpoint_id!r})"


@dataclass(slots=True)
class Changes:
    """Changes to one map, accumulated over several rows: keys set, and keys removed.

    >>> changes = Changes()
    >>> changes.apply({"a": 1, "b": 2}, removed=[])
    >>> changes.apply({"b": 3}, removed=["a"])
    >>> changes
    Changes(changed={'b': 3}, removed={'a'})
    """

    changed: dict[str, Any] = field(default_factory=dict)
    removed: set[str] = field(default_factory=set)

    def apply(self, changes: Mapping[str, Any], removed: Sequence[str]) -> None:
        for key in removed:
            self.changed.pop(key, None)
            self.removed.add(key)
        for key, value in changes.items():
            self.changed[key] = value
            self.removed.discard(key)

    def onto(self, base: Mapping[str, Any] | None) -> DeltaMap:
        """These changes applied to ``base`` (``None``: to an empty map)."""
        if base is None:
            return DeltaMap(self.changed)
        return base.with_changes(self.changed, self.removed)  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class RowPlan:
    """What to write for one checkpoint: its changes against ``base``, or, without a
    base, a snapshot that lists every channel (reusing the blobs of unchanged values)."""

    base: RowMaps | None
    changed: dict[str, Any]  # the channel values to serialize into new blobs
    removed: set[str]
    inherited: dict[str, int]  # snapshot only: channel -> seq of the older row holding it
    versions: list[Any]  # [changes, removed keys]
    seen: list[Any]

    @property
    def snapshot(self) -> bool:
        return self.base is None

    @property
    def depth(self) -> int:
        return 0 if self.base is None else self.base.depth + 1

    def delta(self) -> dict[str, Any]:
        """The row's description of its maps (the blobs it writes aside)."""
        return {
            "values": [self.inherited, sorted(self.removed)],
            "versions": self.versions,
            "seen": self.seen,
        }

    def chain_bytes(self, size: int) -> tuple[int | None, int | None]:
        """``RowMaps.chain_bytes`` and ``snapshot_bytes`` of this row, once its delta is
        written in ``size`` bytes."""
        if self.base is None:
            return 0, size
        if self.base.chain_bytes is None:
            return None, None
        return self.base.chain_bytes + size, self.base.snapshot_bytes

    def refs(self, seq: int) -> Mapping[str, int]:
        """The row's ``refs`` once it is stored as row ``seq``."""
        return Changes({**self.inherited, **dict.fromkeys(self.changed, seq)}, self.removed).onto(
            self.base.refs if self.base else None
        )


def plan_row(checkpoint: Checkpoint, known: RowMaps | None) -> RowPlan:
    """What to write for ``checkpoint``, whose maps were derived from ``known``'s (or
    from unknown maps: ``None``). Values are compared by identity, versions by value.

    >>> from graphkit.checkpoint.base import Checkpoint
    >>> empty = Checkpoint.empty()
    >>> plan_row(empty, None).snapshot
    True
    """
    if known is None:
        changed, removed = _as_dict(checkpoint.channel_values), set()
    else:
        changed, removed = map_delta(checkpoint.channel_values, known.values, operator.is_)
    base = known if known is not None and _continues(known) else None
    inherited = {}
    if base is None and known is not None:
        inherited = {
            channel: seq
            for channel, seq in _as_dict(known.refs).items()
            if channel not in changed and channel not in removed
        }
        removed = set()
    versions = _map_changes(checkpoint.channel_versions, base and base.versions)
    seen = _map_changes(checkpoint.versions_seen, base and base.seen)
    seen[0] = {node: dict(versions) for node, versions in seen[0].items()}
    return RowPlan(base, changed, removed, inherited, versions, seen)


def _continues(known: RowMaps) -> bool:
    """Whether the next row may be a delta of ``known``: a chain is cut after
    ``SNAPSHOT_EVERY`` rows once its deltas hold as many bytes as its snapshot, so that
    a put's share of snapshots follows what steps change, not how many channels there
    are; and after ``LONGEST_CHAIN`` rows in any case."""
    depth = known.depth + 1
    if depth < SNAPSHOT_EVERY:
        return True
    if depth >= LONGEST_CHAIN or known.chain_bytes is None or known.snapshot_bytes is None:
        return False
    return known.chain_bytes < known.snapshot_bytes


def _map_changes(child: Mapping[str, Any], base: Mapping[str, Any] | None) -> list[Any]:
    if base is None:
        return [_as_dict(child), []]
    changes, removed = map_delta(child, base, operator.eq)
    return [changes, sorted(removed)]


def map_delta(
    child: Mapping[str, Any], base: Mapping[str, Any], same: Callable[[Any, Any], bool]
) -> tuple[dict[str, Any], set[str]]:
    """What ``child`` changed relative to ``base``: (keys set, keys removed).

    A ``DeltaMap`` derived directly from ``base`` says so itself (``delta()``), at the
    cost of the change. Any other map is compared key by key with ``same``; a key that
    the map's own delta names counts as changed even when its value is the same object.

    >>> base = DeltaMap({"a": 1, "b": 2})
    >>> map_delta(base.with_changes({"b": 3}), base, operator.eq)
    ({'b': 3}, set())
    >>> map_delta({"b": 2, "c": 4}, base, operator.eq)
    ({'c': 4}, {'a'})
    """
    if isinstance(child, DeltaMap) and _derived_from(child) is base:
        changes, removed = child.delta()
        return dict(changes), set(removed) - changes.keys()
    own = child.delta()[0] if isinstance(child, DeltaMap) else {}
    flat_base, flat_child = _as_dict(base), _as_dict(child)
    changes = {
        key: value
        for key, value in flat_child.items()
        if key in own or key not in flat_base or not same(flat_base[key], value)
    }
    return changes, flat_base.keys() - flat_child.keys()


# The two places that look inside a DeltaMap: which map its delta() is relative to (it
# forgets when it flattens itself), and its contents as one dict in O(size) rather than
# O(size x depth) look-ups.


def _derived_from(child: Mapping[str, Any]) -> Any:
    return child.derived_from() if isinstance(child, DeltaMap) else None


def _as_dict(mapping: Mapping[str, Any]) -> dict[str, Any]:
    return mapping.to_dict() if isinstance(mapping, DeltaMap) else dict(mapping)


class RowMemory:
    """The maps of the most recently written or read rows (a bounded LRU).

    >>> memory = RowMemory(limit=2)
    >>> memory.get(1) is None
    True
    """

    def __init__(self, limit: int = 256) -> None:
        self.limit = limit
        self._rows: OrderedDict[int, RowMaps] = OrderedDict()
        self._by_map: dict[int, int] = {}  # id(values map) -> seq, for maps held in _rows
        self._by_id: dict[tuple[str, str, str], int] = {}  # (thread, ns, checkpoint) -> seq
        self._lent = Lent()  # a reader's copy of a row's values -> the row's seq

    def get(self, seq: int | None, *, decoded_by: Any = None) -> RowMaps | None:
        """Row ``seq``'s maps; with ``decoded_by``, only maps that serializer read back
        (a saver's ``with_allowlist`` copy shares its memory, and may build classes the
        first read gave as plain data)."""
        known = self._rows.get(seq) if seq is not None else None
        if known is None or (decoded_by is not None and known.decoded_by is not decoded_by):
            return None
        self._rows.move_to_end(seq)
        return known

    def base_for(self, thread: tuple[str, str], checkpoint: Checkpoint) -> RowMaps | None:
        """The remembered row of ``thread`` that ``checkpoint``'s maps were derived from:
        the row whose values map (or a reader's copy of it, see ``lend``) is the parent
        of ``checkpoint.channel_values``, else the row of its parent checkpoint."""
        parent_map = _derived_from(checkpoint.channel_values)
        lent = self._lent.origin(parent_map)
        if lent is not None:
            known = self.get(lent)
            if known is not None and known.thread == thread:
                # compared with the copy the checkpoint was derived from: its delta
                return dataclasses.replace(known, values=parent_map)
        seq = self._by_map.get(id(parent_map)) if parent_map is not None else None
        if seq is None and checkpoint.parent_id is not None:
            seq = self._by_id.get((*thread, checkpoint.parent_id))
        known = self.get(seq)
        return known if known is not None and known.thread == thread else None

    def lend(self, known: RowMaps, copy: DeltaMap) -> DeltaMap:
        """Note that ``copy``, while it lives, is a reader's own copy of ``known``'s values,
        and return it: a checkpoint a run derives from it (a resumed run's) is then saved
        as a delta of ``known``'s row. Else every copied value, equal to the row's but not
        the same object, would count as changed and be written again."""
        return self._lent.lend(copy, known.seq)

    def remember(self, known: RowMaps) -> None:
        self._rows[known.seq] = known
        self._rows.move_to_end(known.seq)
        self._by_map[id(known.values)] = known.seq
        self._by_id[(*known.thread, known.checkpoint_id)] = known.seq
        while len(self._rows) > self.limit:
            self._forget(next(iter(self._rows.values())))

    def forget_thread(self, thread_id: str) -> None:
        for known in [known for known in self._rows.values() if known.thread[0] == thread_id]:
            self._forget(known)

    def _forget(self, known: RowMaps) -> None:
        del self._rows[known.seq]
        if self._by_map.get(id(known.values)) == known.seq:
            del self._by_map[id(known.values)]
        if self._by_id.get((*known.thread, known.checkpoint_id)) == known.seq:
            del self._by_id[(*known.thread, known.checkpoint_id)]

    def __repr__(self) -> str:
        return f"RowMemory(rows={len(self._rows)}, limit={self.limit})"
