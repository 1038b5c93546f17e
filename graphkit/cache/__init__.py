"""Node caches: where ``CachePolicy`` nodes keep their writes between runs, as in LangGraph.

``InMemoryCache`` (``graphkit.cache.memory``) and ``SqliteCache`` (``graphkit.cache.sqlite``)
share the small ``BaseCache`` interface of ``graphkit.cache.base``.
"""

from graphkit.cache.base import BaseCache, FullKey, Namespace, default_cache_key

__all__ = ["BaseCache", "FullKey", "Namespace", "default_cache_key"]
