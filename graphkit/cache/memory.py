"""InMemoryCache: a node cache in a dict, for one process (LangGraph's ``InMemoryCache``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

from graphkit.cache.base import BaseCache, FullKey, Namespace

__all__ = ["InMemoryCache"]


class InMemoryCache(BaseCache):
    """Keeps cached task writes in memory. Values are stored serialized (graphkit's
    serializer), so a node that later changes what it returned cannot change the cache.

    >>> cache = InMemoryCache()
    >>> cache.set({(("ns",), "k"): ({"x": [1]}, None)})
    >>> cache.get([(("ns",), "k")])
    {(('ns',), 'k'): {'x': [1]}}
    >>> cache.clear([("ns",)]); cache.get([(("ns",), "k")])
    {}
    """

    def __init__(self, *, serde: Any = None) -> None:
        super().__init__(serde=serde)
        self._entries: dict[Namespace, dict[str, tuple[str, bytes, float | None]]] = {}
        self._lock = threading.RLock()

    def get(self, keys: Sequence[FullKey]) -> dict[FullKey, Any]:
        """The unexpired values of ``keys``; expired entries are dropped on the way."""
        now = time.time()
        found: dict[FullKey, Any] = {}
        with self._lock:
            for namespace, key in keys:
                entries = self._entries.get(tuple(namespace))
                entry = entries.get(key) if entries is not None else None
                if entry is None:
                    continue
                kind, data, expiry = entry
                if expiry is not None and now >= expiry:
                    del entries[key]  # type: ignore[union-attr]
                    continue
                found[(tuple(namespace), key)] = self.serde.loads_typed((kind, data))
        return found

    def set(self, pairs: Mapping[FullKey, tuple[Any, float | None]]) -> None:
        """Store each ``key: (value, ttl seconds or None)``."""
        now = time.time()
        with self._lock:
            for (namespace, key), (value, ttl) in pairs.items():
                kind, data = self.serde.dumps_typed(value)
                expiry = None if ttl is None else now + ttl
                self._entries.setdefault(tuple(namespace), {})[key] = (kind, data, expiry)

    def clear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        """Forget ``namespaces`` (every entry when None)."""
        with self._lock:
            if namespaces is None:
                self._entries.clear()
            for namespace in namespaces or ():
                self._entries.pop(tuple(namespace), None)

    def __repr__(self) -> str:
        with self._lock:
            count = sum(len(entries) for entries in self._entries.values())
        return f"InMemoryCache(entries={count})"
