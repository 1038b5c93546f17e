"""The cache interface, and how a task's cache key is made (LangGraph 1.2's scheme).

A cache maps ``(namespace, key)`` to a value with an optional time to live. The runtime
keeps one entry per cached task: its writes, under the namespace
``("__pregel_ns_writes", "<module>.<function>", "<node>")`` and a key that hashes what
``CachePolicy.key_func`` makes of the task's input.

>>> from graphkit.cache.memory import InMemoryCache
>>> cache = InMemoryCache()
>>> cache.set({(("ns",), "k"): ([("x", 1)], None)})
>>> cache.get([(("ns",), "k"), (("ns",), "missing")])  # (pairs read back as lists, as in LangGraph)
{(('ns',), 'k'): [['x', 1]]}
"""

from __future__ import annotations

import asyncio
import hashlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from types import GenericAlias
from typing import Any

__all__ = [
    "WRITES_NAMESPACE",
    "BaseCache",
    "FullKey",
    "Namespace",
    "default_cache_key",
    "hash_key",
    "node_namespace",
]

Namespace = tuple[str, ...]
FullKey = tuple[Namespace, str]

WRITES_NAMESPACE = "__pregel_ns_writes"
"""The first part of every namespace the runtime caches task writes under (LangGraph's)."""


class BaseCache(ABC):
    """What the runtime needs from a cache: read many keys, write many, clear namespaces.
    ``ttl`` is in seconds (None: the entry never expires). The async twins run the sync
    methods in a worker thread unless a cache overrides them."""

    # LangGraph's is generic (``BaseCache[...]`` in annotations); here the types are not
    # checked, so any arguments give a ``types.GenericAlias``, as ``list[int]`` does.
    __class_getitem__ = classmethod(GenericAlias)

    def __init__(self, *, serde: Any = None) -> None:
        if serde is None:
            from graphkit.checkpoint.serde import JsonPlusSerializer

            serde = JsonPlusSerializer()
        self.serde = serde

    @abstractmethod
    def get(self, keys: Sequence[FullKey]) -> dict[FullKey, Any]:
        """The values of those ``keys`` that hold one that has not expired."""

    @abstractmethod
    def set(self, pairs: Mapping[FullKey, tuple[Any, float | None]]) -> None:
        """Store each ``key: (value, ttl)``; a later set of the same key replaces it."""

    @abstractmethod
    def clear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        """Delete the entries of ``namespaces``, or every entry when None."""

    async def aget(self, keys: Sequence[FullKey]) -> dict[FullKey, Any]:
        """``get`` for async code."""
        return await asyncio.to_thread(self.get, keys)

    async def aset(self, pairs: Mapping[FullKey, tuple[Any, float | None]]) -> None:
        """``set`` for async code."""
        await asyncio.to_thread(self.set, pairs)

    async def aclear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        """``clear`` for async code."""
        await asyncio.to_thread(self.clear, namespaces)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def default_cache_key(*args: Any, **kwargs: Any) -> bytes:
    """``CachePolicy``'s default key function: the arguments, with mappings sorted by key
    so that key order does not matter, written by graphkit's serializer (never pickle).

    >>> default_cache_key({"a": 1, "b": [2]}) == default_cache_key({"b": [2], "a": 1})
    True
    """
    frozen = (_freeze(args), _freeze(kwargs))
    try:
        return _key_serde().dumps_typed(frozen)[1]
    except Exception as error:
        raise TypeError(
            f"The default cache key cannot write the node's input ({error}). Give the "
            "node a key function that returns a str or bytes, "
            f"{_key_example(args[0] if args else None, 'CachePolicy(', ')')}."
        ) from error


_KEY_SERDE: list[Any] = []  # made on first use: the serializer imports graphkit.types


def _key_serde() -> Any:
    if not _KEY_SERDE:
        from graphkit.checkpoint.serde import JsonPlusSerializer

        _KEY_SERDE.append(JsonPlusSerializer())
    return _KEY_SERDE[0]


def _freeze(value: Any, depth: int = 10) -> Any:
    """``value`` with its mappings as sorted ``(key, value)`` tuples and lists as tuples."""
    if depth <= 0:
        return value
    if isinstance(value, Mapping):
        return tuple(sorted((key, _freeze(item, depth - 1)) for key, item in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(item, depth - 1) for item in value)
    return value


def hash_key(made: Any, node: str, given: Any = None) -> str:
    """The cache key for what a key function returned: a hex digest of its bytes
    (``given``: what the key function was given, for the error's example)."""
    if isinstance(made, str):
        made = made.encode()
    if not isinstance(made, (bytes, bytearray)):
        raise TypeError(
            f"Node {node!r}: its CachePolicy.key_func returned {type(made).__name__}; "
            f"a cache key must be a str or bytes. Return one, {_key_example(given)}."
        )
    return hashlib.blake2b(bytes(made), digest_size=16).hexdigest()


def _key_example(given: Any, before: str = "", after: str = "") -> str:
    """An example key function, reading a field of ``given`` when it is a state (a
    mapping): a field named whatever the state would not be there to read."""
    if isinstance(given, Mapping) and given and isinstance(field := next(iter(given)), str):
        return f"e.g. {before}key_func=lambda state: str(state[{field!r}]){after}"
    return "e.g. by wrapping what it returns in str()"


def node_namespace(node: str, action: Any) -> Namespace:
    """Where a node's writes are cached: LangGraph's namespace, which names the node's
    function by module and qualified name (``__dynamic__`` when it has none).

    >>> def shout(state): ...
    >>> node_namespace("a", shout)
    ('__pregel_ns_writes', 'graphkit.cache.base.shout', 'a')
    """
    return (WRITES_NAMESPACE, _identifier(action) or "__dynamic__", node)


def _identifier(action: Callable[..., Any] | Any) -> str | None:
    name = getattr(action, "__qualname__", None) or getattr(action, "__name__", None)
    module = getattr(action, "__module__", None)
    if name is None or module is None:
        return None
    return f"{module}.{name}"
