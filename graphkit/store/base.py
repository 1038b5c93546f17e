"""The Store interface: namespaced JSON documents that outlive a thread (LangGraph's
``BaseStore``).

A store keeps ``Item`` s under a *namespace* (a tuple of labels, like a folder path)
and a *key*. Every public verb — ``put``, ``get``, ``delete``, ``search``,
``list_namespaces`` and their async twins — builds one small operation record
(``PutOp``, ``GetOp``, ``SearchOp``, ``ListNamespacesOp``) and hands it to ``batch``,
the one method a store must write. ``abatch`` runs ``batch`` unless a store has a
better async path, so async is a thin layer, not a copy.

>>> from graphkit.store.memory import InMemoryStore
>>> store = InMemoryStore()
>>> store.put(("users", "ada"), "prefs", {"theme": "dark"})
>>> store.get(("users", "ada"), "prefs").value
{'theme': 'dark'}
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from contextvars import ContextVar
from typing import Any, Literal, NamedTuple, TypedDict

from graphkit.store.item import Item, SearchItem
from graphkit.store.paths import check_fields, split_path, texts_at_path
from graphkit.store.rules import (
    InvalidNamespaceError,
    matches_filter,
    matches_namespace,
    validate_labels,
    validate_namespace,
)

__all__ = [
    "NOT_PROVIDED",
    "AEmbeddingsFunc",
    "BaseStore",
    "EmbeddingsFunc",
    "GetOp",
    "IndexConfig",
    "InvalidNamespaceError",
    "Item",
    "ListNamespacesOp",
    "MatchCondition",
    "NamespaceMatchType",
    "NamespacePath",
    "NotProvided",
    "Op",
    "PutOp",
    "Result",
    "SearchItem",
    "SearchOp",
    "TTLConfig",
    "get_text_at_path",
    "matches_filter",
    "matches_namespace",
    "tokenize_path",
    "validate_namespace",
    "validate_op_namespace",
]

NamespacePath = tuple[str, ...]
"""A namespace pattern for ``list_namespaces``; the label ``"*"`` matches any label."""


NamespaceMatchType = Literal["prefix", "suffix"]
"""Which end of a namespace a ``MatchCondition`` matches."""

EmbeddingsFunc = Callable[[Sequence[str]], list[list[float]]]
"""A function embedding texts, as an index's ``embed`` may be."""

AEmbeddingsFunc = Callable[[Sequence[str]], Awaitable[list[list[float]]]]
"""An async function embedding texts, as an index's ``embed`` may be."""

tokenize_path = split_path
"""LangGraph's name for splitting an index field path into its steps."""


def get_text_at_path(value: Any, path: str | list[str]) -> list[str]:
    """The texts an index embeds for ``path`` (a field path, or its steps) in ``value``,
    as LangGraph's function of that name.

    >>> get_text_at_path({"who": [{"name": "ada"}, {"name": "bob"}]}, "who[*].name")
    ['ada', 'bob']
    """
    return texts_at_path(value, path if isinstance(path, str) else ".".join(path))


class NotProvided:
    """The ``ttl`` argument was left out (``None`` means "never expires")."""

    def __bool__(self) -> Literal[False]:
        return False

    def __repr__(self) -> str:
        return "NOT_PROVIDED"


NOT_PROVIDED: Any = NotProvided()


class TTLConfig(TypedDict, total=False):
    """How a store that ``supports_ttl`` expires items (times in minutes).

    ``default_ttl``: the TTL of a ``put`` that gives none; ``refresh_on_read``: reads
    restart an item's clock (``SqliteStore``, as LangGraph's, only when this is True; a
    read's ``refresh_ttl=False`` then leaves it); ``omit_expired`` (default False): reads hide
    expired items before a sweep deletes them; ``sweep_interval_minutes``: how often
    ``start_ttl_sweeper`` deletes expired items.
    """

    default_ttl: float | None
    refresh_on_read: bool
    omit_expired: bool
    sweep_interval_minutes: int | None


class IndexConfig(TypedDict, total=False):
    """Semantic search for a store: ``InMemoryStore(index={...})``.

    ``embed``: a function ``list[str] -> list[list[float]]``, an async one, a LangChain
    ``Embeddings`` or a ``"provider:model"`` string; ``dims``: the vectors' length;
    ``fields``: the paths of the text to embed (default ``["$"]``, the whole value).
    """

    dims: int
    embed: Any
    fields: list[str] | None


# The operation records: what each public verb asks of ``batch``.


class GetOp(NamedTuple):
    """Read the item at ``namespace`` / ``key``."""

    namespace: tuple[str, ...]
    key: str
    refresh_ttl: bool = True


class SearchOp(NamedTuple):
    """Find items under ``namespace_prefix`` whose values match ``filter``."""

    namespace_prefix: tuple[str, ...]
    filter: dict[str, Any] | None = None
    limit: int = 10
    offset: int = 0
    query: str | None = None
    refresh_ttl: bool = True


class MatchCondition(NamedTuple):
    """A namespace pattern: ``match_type`` is ``"prefix"`` or ``"suffix"``."""

    match_type: Literal["prefix", "suffix"]
    path: NamespacePath


class ListNamespacesOp(NamedTuple):
    """List the namespaces that hold items and match every condition."""

    match_conditions: tuple[MatchCondition, ...] | None = None
    max_depth: int | None = None
    limit: int = 100
    offset: int = 0


class PutOp(NamedTuple):
    """Store ``value`` at ``namespace`` / ``key``; a ``value`` of None deletes it."""

    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any] | None
    index: Literal[False] | list[str] | None = None
    ttl: float | None = None


Op = GetOp | SearchOp | ListNamespacesOp | PutOp


def validate_op_namespace(op: Op) -> None:
    """Check the namespace labels ``op`` carries, as LangGraph's function of that name
    (for a store whose ``batch`` is given ops directly, not through ``put``/``get``...):
    ``InvalidNamespaceError`` for a label that is empty, not a string, or holds a ``.``.

    >>> validate_op_namespace(GetOp(("users", "ada"), "prefs"))
    """
    if isinstance(op, GetOp | PutOp):
        validate_labels(op.namespace)
    elif isinstance(op, SearchOp):
        validate_labels(op.namespace_prefix)
    elif isinstance(op, ListNamespacesOp):
        for condition in op.match_conditions or ():
            validate_labels(condition.path)


Result = Item | list[SearchItem] | list[tuple[str, ...]] | None


def unknown_operation(op: object) -> ValueError:
    """The error for a ``batch`` given something that is no operation record (LangGraph's
    class, ``ValueError``)."""
    return ValueError(
        f"Unknown store operation {op!r}; expected a GetOp, SearchOp, ListNamespacesOp or PutOp."
    )


class BaseStore(ABC):
    """The Store interface; a store writes ``batch`` (and may write ``abatch``).

    ``supports_ttl`` says whether ``put(..., ttl=...)`` works; ``ttl_config`` holds the
    store's ``TTLConfig``.

    >>> from graphkit.store.memory import InMemoryStore
    >>> store = InMemoryStore()
    >>> store.put(("docs",), "a", {"n": 1})
    >>> [item.key for item in store.search(("docs",), filter={"n": {"$gte": 1}})]
    ['a']
    """

    supports_ttl: bool = False
    ttl_config: TTLConfig | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Every store's ``batch`` / ``abatch`` tells ``observer`` what ran."""
        super().__init_subclass__(**kwargs)
        if "batch" in cls.__dict__:
            cls.batch = _observed(cls.__dict__["batch"])  # type: ignore[method-assign]
        if "abatch" in cls.__dict__:
            cls.abatch = _observed_async(cls.__dict__["abatch"])  # type: ignore[method-assign]

    @abstractmethod
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` in order; one result per op (None for a ``PutOp``)."""

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """``batch``, awaited (a store with real async I/O overrides this)."""
        return self.batch(ops)

    # Building the ops: shared by the sync and async verbs.

    def _get_op(self, namespace: tuple[str, ...], key: str, refresh_ttl: bool | None) -> GetOp:
        validate_labels(namespace)
        return GetOp(tuple(namespace), str(key), self._refresh_on_read(refresh_ttl))

    def _search_op(self, namespace_prefix: tuple[str, ...], **options: Any) -> SearchOp:
        validate_labels(namespace_prefix)
        refresh_ttl = self._refresh_on_read(options.pop("refresh_ttl"))
        return SearchOp(tuple(namespace_prefix), refresh_ttl=refresh_ttl, **options)

    def _put_op(
        self, namespace: tuple[str, ...], key: str, value: dict[str, Any], index: Any, ttl: Any
    ) -> PutOp:
        validate_namespace(namespace)
        if value is None:  # LangGraph's put of None deletes the item
            return PutOp(tuple(namespace), str(key), None)
        if isinstance(value, Mapping) and not isinstance(value, dict):
            value = dict(value)  # (LangGraph's signature takes any Mapping, kept as a dict)
        if not isinstance(value, dict):
            raise TypeError(
                f"A store value must be a dict, got {type(value).__name__} for key {key!r} "
                f"in {namespace}. Wrap it, e.g. {{'value': ...}}."
            )
        if ttl not in (NOT_PROVIDED, None) and not self.supports_ttl:
            raise NotImplementedError(
                f"TTL is not supported by {type(self).__name__}. Use a store that "
                "supports TTL (graphkit.store.sqlite.SqliteStore) or pass ttl=None."
            )
        indexed = getattr(self, "index", None) is not None  # (without one, index= is unused)
        if index is not None and index is not False and indexed:
            check_fields(index, "put(..., index=...)")
        if ttl is NOT_PROVIDED:
            ttl = (self.ttl_config or {}).get("default_ttl")
        return PutOp(tuple(namespace), str(key), value, index=index, ttl=ttl)

    def _list_op(self, prefix: Any, suffix: Any, max_depth: Any, limit: int, offset: int) -> Op:
        conditions = []
        for match_type, path in (("prefix", prefix), ("suffix", suffix)):
            validate_labels(path or ())
            if path:
                conditions.append(MatchCondition(match_type, tuple(path)))
        return ListNamespacesOp(tuple(conditions), max_depth, limit, offset)

    def _refresh_on_read(self, refresh_ttl: bool | None) -> bool:
        if refresh_ttl is not None:
            return refresh_ttl
        return (self.ttl_config or {}).get("refresh_on_read", True)

    # The sync verbs.

    def get(
        self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None
    ) -> Item | None:
        """The item at ``namespace`` / ``key``, or None."""
        return self.batch([self._get_op(namespace, key, refresh_ttl)])[0]  # type: ignore[return-value]

    def search(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
    ) -> list[SearchItem]:
        """Items under ``namespace_prefix`` whose values match ``filter``, a page at a time.

        A filter maps a field to a value (equality; a dict value matches nested
        fields) or to operators: ``{"score": {"$gte": 3, "$lt": 9}}``.
        """
        op = self._search_op(
            namespace_prefix,
            filter=filter,
            limit=limit,
            offset=offset,
            query=query,
            refresh_ttl=refresh_ttl,
        )
        return self.batch([op])[0]  # type: ignore[return-value]

    def put(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any],
        index: Literal[False] | list[str] | None = None,
        *,
        ttl: float | None = NOT_PROVIDED,
    ) -> None:
        """Store ``value`` (a dict) at ``namespace`` / ``key``, replacing what was there."""
        self.batch([self._put_op(namespace, key, value, index, ttl)])

    def delete(self, namespace: tuple[str, ...], key: str) -> None:
        """Remove the item at ``namespace`` / ``key`` (nothing happens if there is none)."""
        validate_labels(namespace)
        self.batch([PutOp(tuple(namespace), str(key), None)])

    def list_namespaces(
        self,
        *,
        prefix: NamespacePath | None = None,
        suffix: NamespacePath | None = None,
        max_depth: int | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[tuple[str, ...]]:
        """The namespaces holding items, sorted, cut to ``max_depth`` labels, paged."""
        return self.batch([self._list_op(prefix, suffix, max_depth, limit, offset)])[0]  # type: ignore[return-value]

    # The async twins.

    async def aget(
        self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None
    ) -> Item | None:
        """``get``, awaited."""
        return (await self.abatch([self._get_op(namespace, key, refresh_ttl)]))[0]  # type: ignore[return-value]

    async def asearch(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
    ) -> list[SearchItem]:
        """``search``, awaited."""
        op = self._search_op(
            namespace_prefix,
            filter=filter,
            limit=limit,
            offset=offset,
            query=query,
            refresh_ttl=refresh_ttl,
        )
        return (await self.abatch([op]))[0]  # type: ignore[return-value]

    async def aput(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any],
        index: Literal[False] | list[str] | None = None,
        *,
        ttl: float | None = NOT_PROVIDED,
    ) -> None:
        """``put``, awaited."""
        await self.abatch([self._put_op(namespace, key, value, index, ttl)])

    async def adelete(self, namespace: tuple[str, ...], key: str) -> None:
        """``delete``, awaited."""
        validate_labels(namespace)
        await self.abatch([PutOp(tuple(namespace), str(key), None)])

    async def alist_namespaces(
        self,
        *,
        prefix: NamespacePath | None = None,
        suffix: NamespacePath | None = None,
        max_depth: int | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[tuple[str, ...]]:
        """``list_namespaces``, awaited."""
        op = self._list_op(prefix, suffix, max_depth, limit, offset)
        return (await self.abatch([op]))[0]  # type: ignore[return-value]


# -- who watches the stores -----------------------------------------------------------------

observer: Callable[[Sequence[Op], Sequence[Result]], None] | None = None
"""Told of each batch any graphkit store ran, with its results (graphkit's runtime
records them for the task that made them: ``run.to_frame("store")``)."""

_observing: ContextVar[bool] = ContextVar("graphkit_store_observing", default=False)


def _observed(batch: Callable[..., list[Result]]) -> Callable[..., list[Result]]:
    @functools.wraps(batch)
    def observed(self: BaseStore, ops: Iterable[Op]) -> list[Result]:
        if observer is None or _observing.get():  # (a batch run by another: told once)
            return batch(self, ops)
        ops = list(ops)
        token = _observing.set(True)
        try:
            results = batch(self, ops)
        finally:
            _observing.reset(token)
        observer(ops, results)
        return results

    return observed


def _observed_async(abatch: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(abatch)
    async def observed(self: BaseStore, ops: Iterable[Op]) -> list[Result]:
        if observer is None or _observing.get():
            return await abatch(self, ops)  # type: ignore[no-any-return]
        ops = list(ops)
        token = _observing.set(True)
        try:
            results = await abatch(self, ops)
        finally:
            _observing.reset(token)
        observer(ops, results)
        return results  # type: ignore[no-any-return]

    return observed
