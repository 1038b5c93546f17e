"""Semantic search shared by the stores: reading an ``index`` config, embedding a batch's
texts and queries, and ranking search results by similarity.

A store with an index embeds before it reads or writes: ``IndexedStore.batch`` asks the
``Index`` for the vectors a batch needs (the texts of its puts, the queries of its
searches), then hands them to the store's ``apply``; ``abatch`` does the same with the
async embedder. So a failing embedder leaves the store untouched, and async stays a
thin layer.

>>> index = Index.read({"dims": 2, "embed": lambda texts: [[1.0, 0.0] for _ in texts],
...                     "fields": ["text"]})
>>> index
Index(dims=2, fields=['text'])
>>> from graphkit.store.base import PutOp, SearchOp
>>> index.embed([PutOp(("docs",), "a", {"text": "cats"}), SearchOp(("docs",), query="cat")])
Vectors(queries=['cat'], items={(('docs',), 'a'): ['text']})
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable
from typing import Any, NamedTuple, TypeVar

from graphkit.store.base import BaseStore, IndexConfig, Op, PutOp, Result, SearchOp
from graphkit.store.embed import Embedder, cosine
from graphkit.store.paths import check_fields, texts_at_path

__all__ = ["Index", "IndexedStore", "Vectors", "rank"]

Address = tuple[tuple[str, ...], str]
"""Where an item lives: (namespace, key)."""

_KEYS = ("dims", "embed", "fields")
T = TypeVar("T")


class Vectors(NamedTuple):
    """The embeddings one batch needs: each query's vector, and each put item's vectors
    by field path (an item put with ``index=False`` or without text has ``{}``)."""

    queries: dict[str, list[float]]
    items: dict[Address, dict[str, list[float]]]

    def __repr__(self) -> str:
        items = {address: list(fields) for address, fields in self.items.items()}
        return f"Vectors(queries={list(self.queries)}, items={items})"


NO_VECTORS = Vectors({}, {})


class _Wanted(NamedTuple):
    """What a batch asks of the embedder."""

    queries: list[str]  # each query once, in order
    texts: list[tuple[Address, str, str]]  # (address, field name, text) of each text found
    distinct: list[str]  # each text once, in order
    puts: list[Address]  # every address the batch puts or deletes


class Index:
    """A checked ``index`` config: its ``dims``, ``fields`` and ``embedder``."""

    def __init__(self, embedder: Embedder, fields: list[str], dims: int | None) -> None:
        self.embedder = embedder
        self.fields = fields
        self.dims = dims

    def __repr__(self) -> str:
        return f"Index(dims={self.dims}, fields={self.fields})"

    @classmethod
    def read(cls, config: IndexConfig | None) -> Index | None:
        """The ``Index`` of a store's ``index=`` argument (None: no semantic search);
        a wrong config raises an error that says how to fix it."""
        if config is None or config == {}:  # (an empty one is none, as in LangGraph)
            return None
        if not isinstance(config, dict):
            raise TypeError(
                f"index must be a dict like {{'dims': 1536, 'embed': embed, 'fields': "
                f"['text']}}; got {type(config).__name__}."
            )
        unknown = sorted(set(config) - set(_KEYS))
        if unknown:
            raise ValueError(
                f"Unknown index key(s) {unknown}; an index takes {list(_KEYS)} (embedded "
                "text comes from 'fields', e.g. 'fields': ['text'])."
            )
        if config.get("embed") is None:
            raise ValueError(
                "index needs 'embed': a function list[str] -> list[list[float]], an async "
                "one, a LangChain Embeddings or a 'provider:model' string."
            )
        dims = config.get("dims")
        if dims is not None and (not isinstance(dims, int) or isinstance(dims, bool) or dims < 1):
            raise ValueError(
                f"index 'dims' must be a positive int (the length of each vector); got {dims!r}."
            )
        return cls(
            Embedder(config["embed"]), check_fields(config.get("fields"), "fields") or ["$"], dims
        )

    # What a batch needs embedded.

    def _wanted(self, ops: list[Op]) -> _Wanted:
        # Only the last put of an address counts: it is the one that stays.
        last_puts = {(op.namespace, op.key): op for op in ops if isinstance(op, PutOp)}
        texts = [
            (address, name, text)
            for address, op in last_puts.items()
            if op.value is not None and op.index is not False
            for path in (self.fields if op.index is None else op.index)
            for name, text in _named_texts(op.value, path)
        ]
        queries = [op.query for op in ops if isinstance(op, SearchOp) and op.query]
        return _Wanted(
            queries=list(dict.fromkeys(queries)),
            texts=texts,
            distinct=list(dict.fromkeys(text for _, _, text in texts)),  # embedded once each
            puts=list(last_puts),
        )

    def embed(self, ops: list[Op]) -> Vectors:
        """The vectors ``ops`` need, from the sync embedder."""
        wanted = self._wanted(ops)
        asked = [self.embedder.embed_query(query) for query in wanted.queries]
        documents = self.embedder.embed_documents(wanted.distinct) if wanted.distinct else []
        return self._collect(wanted, asked, documents)

    async def aembed(self, ops: list[Op]) -> Vectors:
        """The vectors ``ops`` need, from the async embedder."""
        wanted = self._wanted(ops)
        asked = [await self.embedder.aembed_query(query) for query in wanted.queries]
        documents = await self.embedder.aembed_documents(wanted.distinct) if wanted.distinct else []
        return self._collect(wanted, asked, documents)

    def _collect(self, wanted: _Wanted, asked: list[Any], documents: list[Any]) -> Vectors:
        if len(documents) != len(wanted.distinct):
            raise ValueError(
                f"The index's embedder returned {len(documents)} vectors for "
                f"{len(wanted.distinct)} texts; it must return one vector per text, in order."
            )
        by_text = {
            text: self._checked(text, vector)
            for text, vector in zip(wanted.distinct, documents, strict=True)
        }
        by_query = {
            query: self._checked(query, vector)
            for query, vector in zip(wanted.queries, asked, strict=True)
        }
        items: dict[Address, dict[str, list[float]]] = {address: {} for address in wanted.puts}
        for address, name, text in wanted.texts:
            items[address][name] = by_text[text]
        return Vectors(by_query, items)

    def _checked(self, text: str, vector: Any) -> list[float]:
        """``vector`` as a list of floats (an embedder may return numpy arrays), checked."""
        try:
            numbers = [float(number) for number in vector]
        except (TypeError, ValueError):
            raise ValueError(
                f"The index's embedder returned {vector!r:.60} for {text[:40]!r}; a vector "
                "must be a list of numbers."
            ) from None
        if self.dims is not None and len(numbers) != self.dims:
            raise ValueError(
                f"The index's embedder returned a vector of {len(numbers)} numbers for "
                f"{text[:40]!r}, but the index says dims={self.dims}. Set 'dims' to the "
                "embedder's vector length."
            )
        return numbers


def _named_texts(value: Any, path: str) -> list[tuple[str, str]]:
    """The texts at ``path``, named by the path (``path.0``, ``path.1``... when several)."""
    found = texts_at_path(value, path)
    if len(found) == 1:
        return [(path, found[0])]
    return [(f"{path}.{number}", text) for number, text in enumerate(found)]


def rank(
    candidates: list[tuple[T, dict[str, list[float]]]], query: list[float]
) -> list[tuple[T, float | None]]:
    """Candidates (an item and its vectors by field) by similarity to ``query``, best
    first; then those with no vectors (score None), in store order. An item with several
    vectors scores its best one; equal scores keep store order.

    >>> candidates = [("a", {"$": [0.0, 1.0]}), ("b", {}), ("c", {"x": [1, 0], "y": [1, 1]})]
    >>> rank(candidates, [1.0, 0.0])
    [('c', 1.0), ('a', 0.0), ('b', None)]
    """
    scored = []
    for item, vectors in candidates:
        if vectors:
            scored.append((item, max(_similarity(query, vector) for vector in vectors.values())))
    scored.sort(key=lambda pair: pair[1], reverse=True)  # sort is stable: ties keep order
    return [*scored, *((item, None) for item, vectors in candidates if not vectors)]


def _similarity(query: list[float], vector: list[float]) -> float:
    if len(query) != len(vector):
        raise ValueError(
            f"A search query was embedded into {len(query)} numbers, but stored items have "
            f"vectors of {len(vector)}: the embedder changed since they were put. Put them "
            "again, or search with the embedder they were put with."
        )
    return cosine(query, vector)


class IndexedStore(BaseStore):
    """A store that may embed: ``batch`` / ``abatch`` embed first, then ``apply``.

    A subclass calls ``use_index`` in its constructor and writes ``apply``.
    """

    index: Index | None = None
    index_config: IndexConfig | None = None
    """The store's ``index`` config, as given (LangGraph's attribute)."""

    def use_index(self, config: IndexConfig | None) -> None:
        """Check ``config`` and keep it (None: no semantic search)."""
        self.index = Index.read(config)
        self.index_config = None if self.index is None else IndexConfig(**config)  # type: ignore[arg-type]

    @property
    def embeddings(self) -> Any:
        """What embeds the store's texts: the LangChain ``Embeddings`` the index was given
        (as LangGraph's stores show it), else an ``Embedder`` with the same methods; None
        without an index."""
        if self.index is None:
            return None
        embedder = self.index.embedder
        return embedder.source if embedder.kind == "embeddings" else embedder

    @abstractmethod
    def apply(self, ops: list[Op], vectors: Vectors) -> list[Result]:
        """Run ``ops`` with the embeddings they need already made."""

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` in order; one result per op (None for a ``PutOp``)."""
        ops = list(ops)
        return self.apply(ops, self.index.embed(ops) if self.index else NO_VECTORS)

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """``batch``, awaited: an async embedder is awaited, then ``apply`` runs."""
        ops = list(ops)
        return self.apply(ops, await self.index.aembed(ops) if self.index else NO_VECTORS)
