"""What graphkit says about node caching: a bad ``CachePolicy``, a bad cache, a
``clear_cache`` with no cache to clear, a task whose writes cannot be cached."""

from __future__ import annotations

from numbers import Real
from typing import Any

from graphkit.diagnostics import some_names


def check_cache_policy(where: str, policy: Any) -> None:
    """Refuse what is not a ``CachePolicy`` (anything with a callable ``key_func`` and a
    ``ttl`` of None or seconds >= 0, so LangGraph's own works too)."""
    if policy is None:
        return
    if isinstance(policy, type):  # (its fields' defaults make the class look like one)
        raise TypeError(
            f"{where}: cache_policy={policy.__name__} is the class; pass an instance: "
            f"cache_policy={policy.__name__}() (or {policy.__name__}(ttl=60))."
        )
    key_func, ttl = getattr(policy, "key_func", None), getattr(policy, "ttl", 0)
    if not callable(key_func):
        raise TypeError(
            f"{where}: cache_policy must be a CachePolicy, got {type(policy).__name__}. "
            "Write cache_policy=CachePolicy(ttl=60) (from graphkit.types import CachePolicy)."
        )
    if ttl is not None and (not isinstance(ttl, Real) or isinstance(ttl, bool) or ttl < 0):
        raise ValueError(
            f"{where}: CachePolicy(ttl={ttl!r}) must be seconds >= 0 or None (never expires)."
        )


def check_cache(cache: Any) -> None:
    """Refuse a ``compile(cache=...)`` that is not a cache (get / set / clear)."""
    if cache is None:
        return
    if isinstance(cache, type):  # (the class has the methods, unbound)
        raise TypeError(
            f"compile(cache={cache.__name__}) got the class; pass a cache, an instance of "
            f"it: compile(cache={cache.__name__}())."
        )
    missing = [name for name in ("get", "set", "clear") if not callable(getattr(cache, name, None))]
    if missing:
        raise TypeError(
            f"compile(cache=...) needs a cache with get/set/clear, got {type(cache).__name__} "
            f"(no {', '.join(missing)}). Pass e.g. compile(cache=InMemoryCache()) "
            "(from graphkit.cache.memory import InMemoryCache)."
        )


def no_cache(method: str) -> ValueError:
    """``clear_cache()`` on a graph compiled without a cache (LangGraph's ValueError)."""
    return ValueError(
        f"No cache is set for this graph. Cannot clear cache: {method}() needs a graph "
        "compiled with one, e.g. builder.compile(cache=InMemoryCache())."
    )


def unknown_nodes(method: str, nodes: Any, known: Any) -> str:
    """``clear_cache(nodes=[...])`` naming nodes the graph does not have."""
    return (
        f"{method}(nodes={list(nodes)!r}): the graph has no node named "
        f"{', '.join(repr(n) for n in nodes)}, so there is nothing to clear for it; "
        f"its nodes are {some_names(known)}."
    )


def not_cacheable(node: str, step: int, error: Exception) -> str:
    """A task's writes the cache could not store: the run goes on without caching them."""
    return (
        f"Node {node!r} (step {step}): its writes were not cached ({type(error).__name__}: "
        f"{error}). The run goes on; the node will run again next time. Return values "
        "graphkit's serializer can write (JSON, dataclasses, pydantic models...), or "
        "give the cache a serializer that can, e.g. InMemoryCache(serde=PickleSerializer())."
    )
