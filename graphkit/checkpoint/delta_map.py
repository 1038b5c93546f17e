"""An immutable mapping that shares what did not change with its parent.

A run writes one checkpoint per superstep, and a step usually changes a handful of
channels out of many. Copying every channel's value into every checkpoint would make
the cost of a step grow with the size of the graph; a ``DeltaMap`` stores only the
step's changes and points at its parent, and flattens itself every few generations
so that look-ups stay short.
"""

from __future__ import annotations

import weakref
from collections.abc import ItemsView, Iterator, Mapping, ValuesView
from typing import Any

__all__ = ["DeltaMap"]

_FLATTEN_AFTER = 32
"""Generations of deltas before a full copy: bounds a look-up to this many dict probes."""

_ABSENT: Any = object()
_NOTHING: frozenset[str] = frozenset()
"""Shared by every map that removed nothing: fewer objects for the GC to walk."""


class DeltaMap(Mapping[str, Any]):
    """An immutable ``Mapping``; ``with_changes`` derives a new one in O(changes).

    >>> first = DeltaMap({"a": 1, "b": 2})
    >>> second = first.with_changes({"b": 3}, removed=["a"])
    >>> dict(first), dict(second)
    ({'a': 1, 'b': 2}, {'b': 3})
    """

    __slots__ = (
        "__weakref__",
        "_base",
        "_changes",
        "_delta_changes",
        "_delta_removed",
        "_depth",
        "_parent",
        "_removed",
    )

    def __init__(self, values: Mapping[str, Any] | None = None) -> None:
        self._parent: DeltaMap | None = None
        self._base: weakref.ref[DeltaMap] | None = None
        self._changes: dict[str, Any] = dict(values) if values else {}
        self._removed: frozenset[str] = _NOTHING
        self._depth = 0
        self._delta_changes = self._changes
        self._delta_removed = _NOTHING

    def with_changes(
        self, changes: Mapping[str, Any], removed: Iterator[str] | list[str] | tuple = ()
    ) -> DeltaMap:
        """Return a new map with ``changes`` set and the keys in ``removed`` dropped."""
        child = DeltaMap.__new__(DeltaMap)
        child._parent = self
        child._changes = dict(changes)
        child._removed = frozenset(removed) if removed else _NOTHING
        child._delta_changes = child._changes
        child._delta_removed = child._removed
        child._depth = self._depth + 1
        child._base = None
        if child._depth >= _FLATTEN_AFTER:
            child._changes = child._flatten()
            child._parent = None
            child._removed = _NOTHING
            child._depth = 0
            # still say what this map's delta() is relative to, without keeping it alive:
            # a saver holding the parent can then write just the delta, not compare
            # every key
            child._base = weakref.ref(self)
        return child

    def __getstate__(self) -> dict[str, Any]:
        # the weak reference to the map a flattened one came from cannot be pickled;
        # a copy elsewhere has no use for it (its delta() stays as it was)
        return {
            name: getattr(self, name)
            for name in DeltaMap.__slots__
            if name not in ("__weakref__", "_base")
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self._base = None

    def delta(self) -> tuple[dict[str, Any], frozenset[str]]:
        """What this map changed relative to the one it was derived from: the keys set
        and the keys removed (everything, for a map built from scratch). Savers use it
        to write only what a step changed.

        >>> DeltaMap({"a": 1}).with_changes({"b": 2}, removed=["a"]).delta()
        ({'b': 2}, frozenset({'a'}))
        """
        return self._delta_changes, self._delta_removed

    def derived_from(self) -> DeltaMap | None:
        """The map ``delta()`` is relative to: None for a new map, or when it flattened
        itself and that map is gone.

        >>> first = DeltaMap({"a": 1})
        >>> first.with_changes({"b": 2}).derived_from() is first
        True
        """
        if self._parent is not None:
            return self._parent
        return self._base() if self._base is not None else None

    def to_dict(self) -> dict[str, Any]:
        """A plain dict with the same items (a fresh copy)."""
        return self._flatten()

    def _lookup(self, key: str) -> Any:
        node: DeltaMap | None = self
        while node is not None:
            value = node._changes.get(key, _ABSENT)
            if value is not _ABSENT:
                return value
            if key in node._removed:
                return _ABSENT
            node = node._parent
        return _ABSENT

    def _flatten(self) -> dict[str, Any]:
        chain: list[DeltaMap] = []
        node: DeltaMap | None = self
        while node is not None:
            chain.append(node)
            node = node._parent
        flat: dict[str, Any] = {}
        for node in reversed(chain):
            for key in node._removed:
                flat.pop(key, None)
            flat.update(node._changes)
        return flat

    def __getitem__(self, key: str) -> Any:
        value = self._lookup(key)
        if value is _ABSENT:
            raise KeyError(key)
        return value

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._lookup(key) is not _ABSENT

    def __iter__(self) -> Iterator[str]:
        return iter(self._flatten())

    # (one walk of the chain, where Mapping's would look each key up through it again)
    def items(self) -> ItemsView[str, Any]:
        return self._flatten().items()

    def values(self) -> ValuesView[Any]:
        return self._flatten().values()

    def __len__(self) -> int:
        return len(self._flatten())

    def __repr__(self) -> str:
        return f"DeltaMap({self._flatten()!r})"
