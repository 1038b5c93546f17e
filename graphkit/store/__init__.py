"""The Store: namespaced documents that outlive a thread, handed to nodes as ``store``
(LangGraph's ``langgraph.store``).

``InMemoryStore`` (``graphkit.store.memory``) and ``SqliteStore``
(``graphkit.store.sqlite``) share the ``BaseStore`` interface of ``graphkit.store.base``.
Given an ``index``, both rank ``search(query=...)`` results by similarity: the index is
read and applied by ``graphkit.store.index``, texts are found by ``graphkit.store.paths``
and embedded by ``graphkit.store.embed``.
"""

from graphkit.store.base import BaseStore, InvalidNamespaceError, Item, SearchItem, TTLConfig

__all__ = ["BaseStore", "InvalidNamespaceError", "Item", "SearchItem", "TTLConfig"]
