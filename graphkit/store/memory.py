"""InMemoryStore: a Store kept in a dict, for tests, notebooks and one process
(LangGraph's ``InMemoryStore``), with optional semantic search."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from graphkit.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    matches_filter,
    matches_namespace,
    unknown_operation,
)
from graphkit.store.index import IndexedStore, Vectors, rank

__all__ = ["BaseStore", "InMemoryStore"]


class InMemoryStore(IndexedStore):
    """A Store in memory: namespaces in the order first written, keys in the order put.

    In one ``batch``, reads see the store as it was before the batch's writes; the
    writes then apply in order (LangGraph's rule). Items never expire (``put`` with a
    ``ttl`` raises ``NotImplementedError``, as in LangGraph). With ``index=`` (see
    ``IndexConfig``), ``put`` embeds the items' text and ``search(query=...)`` ranks
    them by similarity.

    >>> store = InMemoryStore()
    >>> store.put(("users", "ada"), "prefs", {"theme": "dark"})
    >>> store.put(("users", "bob"), "prefs", {"theme": "light"})
    >>> [item.namespace for item in store.search(("users",), filter={"theme": "dark"})]
    [('users', 'ada')]
    >>> store.list_namespaces(max_depth=1)
    [('users',)]
    >>> store
    InMemoryStore(namespaces=2, items=2)

    Semantic search (here a toy embedder that counts words):

    >>> def embed(texts):
    ...     return [[text.count("cat"), text.count("dog"), 1.0] for text in texts]
    >>> pets = InMemoryStore(index={"dims": 3, "embed": embed, "fields": ["text"]})
    >>> pets.put(("pets",), "a", {"text": "a dog"})
    >>> pets.put(("pets",), "b", {"text": "a cat and a cat"})
    >>> [(item.key, round(item.score, 3)) for item in pets.search(("pets",), query="cat")]
    [('b', 0.949), ('a', 0.5)]
    """

    def __init__(self, *, index: IndexConfig | None = None) -> None:
        self.use_index(index)
        # Emptied namespaces keep their place, so a later put lands where it was.
        self._data: dict[tuple[str, ...], dict[str, Item]] = {}
        # Each item's vectors by field path; replaced on every put.
        self._vectors: dict[tuple[tuple[str, ...], str], dict[str, list[float]]] = {}

    def __repr__(self) -> str:
        items = sum(len(keyed) for keyed in self._data.values())
        namespaces = sum(1 for keyed in self._data.values() if keyed)
        return f"InMemoryStore(namespaces={namespaces}, items={items})"

    def apply(self, ops: list[Op], vectors: Vectors) -> list[Result]:
        """Run ``ops`` (embedded already): the reads first, then the writes."""
        results = [self._read(op, vectors) for op in ops]
        for op in ops:
            if isinstance(op, PutOp):
                self._write(op, vectors)
        return results

    def _read(self, op: Op, vectors: Vectors) -> Result:
        if isinstance(op, GetOp):
            return self._data.get(op.namespace, {}).get(op.key)
        if isinstance(op, SearchOp):
            return self._search(op, vectors)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        if isinstance(op, PutOp):
            return None
        raise unknown_operation(op)

    def _write(self, op: PutOp, vectors: Vectors) -> None:
        keyed = self._data.setdefault(op.namespace, {})
        address = (op.namespace, op.key)
        self._vectors.pop(address, None)
        if op.value is None:
            keyed.pop(op.key, None)
            return
        if vectors.items.get(address):
            self._vectors[address] = vectors.items[address]
        now = datetime.now(UTC)
        keyed[op.key] = Item(
            value=dict(op.value),
            key=op.key,
            namespace=op.namespace,
            created_at=now,
            updated_at=now,
        )

    def _search(self, op: SearchOp, vectors: Vectors) -> list[SearchItem]:
        size = len(op.namespace_prefix)
        found = [
            item
            for namespace, keyed in self._data.items()
            if namespace[:size] == op.namespace_prefix
            for item in keyed.values()
            if matches_filter(item.value, op.filter)
        ]
        if op.query in vectors.queries:
            candidates = [
                (item, self._vectors.get((item.namespace, item.key), {})) for item in found
            ]
            ranked = rank(candidates, vectors.queries[op.query])
        else:
            ranked = [(item, None) for item in found]
        return [_found(item, score) for item, score in ranked[op.offset : op.offset + op.limit]]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        namespaces = [
            namespace
            for namespace, keyed in self._data.items()
            if keyed and all(matches_namespace(c, namespace) for c in op.match_conditions or ())
        ]
        return cut_and_page(namespaces, op)


def _found(item: Item, score: float | None) -> SearchItem:
    return SearchItem(item.namespace, item.key, item.value, item.created_at, item.updated_at, score)


def cut_and_page(namespaces: Iterable[tuple[str, ...]], op: ListNamespacesOp) -> list[Any]:
    """Namespaces cut to ``op.max_depth`` labels (duplicates merged), sorted, paged.

    >>> op = ListNamespacesOp(max_depth=1, limit=5)
    >>> cut_and_page([("b", "x"), ("a",), ("b", "y")], op)
    [('a',), ('b',)]
    """
    if op.max_depth is not None:
        namespaces = {namespace[: op.max_depth] for namespace in namespaces}
    return sorted(namespaces)[op.offset : op.offset + op.limit]
