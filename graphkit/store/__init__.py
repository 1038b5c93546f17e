"""The Store: namespaced documents that outlive a thread, handed to nodes as ``store``
(LangGraph's ``langgraph.store``).

``InMemoryStore`` (``graphkit.store.memory``) and ``SqliteStore``
(``graphkit.store.sqlite``) share the ``BaseStore`` interface of ``graphkit.store.base``.
"""

from graphkit.store.base import BaseStore, InvalidNamespaceError, Item, SearchItem, TTLConfig

__all__ = ["BaseStore", "InvalidNamespaceError", "Item", "SearchItem", "TTLConfig"]
