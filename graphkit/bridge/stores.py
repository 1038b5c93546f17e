"""A LangGraph store, kept by a converted graph, that tells graphkit what each task did
with it.

graphkit's own stores tell ``graphkit.store.base.observer`` of every batch they run, and
the runtime records it for the task that ran it (``run.to_frame("store")``, the
debugger's store tab). A LangGraph store does not, so ``observed`` gives the converted
graph a *view* of it: an instance of a subclass of the store's own class (same name,
``isinstance`` holds) that holds no state. Reading or setting an attribute on the view
reads or sets the user's store's; the store's methods run on the view, so that the
verbs LangGraph's ``BaseStore`` builds on ``batch`` / ``abatch`` call the view's, which
run the store's own and report each batch (LangGraph's operation records translated to
graphkit's). So every item lives in the store the user holds and reads back with
LangGraph's API; ``get``, ``search``, ``put`` (with its TTL), ``delete``,
``list_namespaces``, their async twins and a store's own methods built on them are all
seen. A verb a store class writes without calling ``batch`` / ``abatch`` is not.
"""

from __future__ import annotations

import contextlib
import inspect
import types
from collections.abc import Iterable, Iterator
from typing import Any

from graphkit.store import base as graphkit_store

__all__ = ["observed"]

_VIEWS: dict[type, type] = {}
"""A LangGraph store class -> its observed subclass (made once per class)."""

_OPS = ("GetOp", "SearchOp", "ListNamespacesOp", "PutOp")


def observed(store: Any) -> Any:
    """``store`` as the converted graph keeps it: a view reporting its batches when it is
    LangGraph's kind of store, else ``store`` itself (None, or a graphkit store, which
    reports on its own).

    >>> from langgraph.store.memory import InMemoryStore
    >>> store = InMemoryStore()
    >>> view = observed(store)
    >>> type(view).__name__, isinstance(view, InMemoryStore), view is store
    ('InMemoryStore', True, False)
    >>> view.put(("users",), "ada", {"theme": "dark"})
    >>> store.get(("users",), "ada").value
    {'theme': 'dark'}
    """
    if store is None or type(store) in _VIEWS.values():
        return store
    from langgraph.store.base import BaseStore

    if not isinstance(store, BaseStore):
        return store
    kind = type(store)
    view = object.__new__(_VIEWS.get(kind) or _VIEWS.setdefault(kind, _view_class(kind)))
    object.__setattr__(view, "_graphkit_store", store)
    return view


def _view_class(kind: type) -> type:
    """A subclass of ``kind``, under its name, whose instances are views of a store."""
    methods: dict[str, bool] = {}  # name -> a plain function of the class (run on the view)

    def is_method(name: str) -> bool:
        if name not in methods:
            found = inspect.getattr_static(kind, name, None)
            methods[name] = isinstance(found, types.FunctionType)
        return methods[name]

    def __getattribute__(self: Any, name: str) -> Any:
        if name in _OWN or (is_method(name) and name not in _ON_THE_STORE):
            return object.__getattribute__(self, name)
        return getattr(object.__getattribute__(self, "_graphkit_store"), name)

    def __setattr__(self: Any, name: str, value: Any) -> None:
        setattr(self._graphkit_store, name, value)

    def __delattr__(self: Any, name: str) -> None:
        delattr(self._graphkit_store, name)

    def batch(self: Any, ops: Iterable[Any]) -> list[Any]:
        ops = list(ops)
        if not _watching():
            return kind.batch(self, ops)  # type: ignore[no-any-return]
        with _reported(ops) as results:
            results.extend(kind.batch(self, ops))
        return results

    async def abatch(self: Any, ops: Iterable[Any]) -> list[Any]:
        ops = list(ops)
        if not _watching():
            return await kind.abatch(self, ops)  # type: ignore[no-any-return]
        with _reported(ops) as results:
            results.extend(await kind.abatch(self, ops))
        return results

    def __repr__(self: Any) -> str:
        return repr(self._graphkit_store)

    def __del__(self: Any) -> None:  # (the store's own would close what the user holds)
        return None

    def __reduce_ex__(self: Any, protocol: Any) -> Any:  # (pickled, copied: a view again)
        return observed, (self._graphkit_store,)

    namespace = {
        "__slots__": ("_graphkit_store",),
        "__getattribute__": __getattribute__,
        "__setattr__": __setattr__,
        "__delattr__": __delattr__,
        "batch": batch,
        "abatch": abatch,
        "__repr__": __repr__,
        "__del__": __del__,
        "__reduce_ex__": __reduce_ex__,
        "__module__": kind.__module__,
        "__qualname__": kind.__qualname__,
        "__doc__": kind.__doc__,
    }
    return type(kind)(kind.__name__, (kind,), namespace)


_OWN = frozenset({"_graphkit_store", "__class__", "batch", "abatch", "__reduce_ex__"})
"""What the view answers itself (everything else but the class's methods is the store's;
pickle and copy read ``__reduce_ex__`` from the instance, not its class)."""

_ON_THE_STORE = frozenset({"_ensure_task"})
"""Methods that run on the user's store, not the view: LangGraph's batching stores
(``AsyncBatchedBaseStore``) start their worker there with a weak reference to ``self``,
and a worker holding the view would end with it, leaving the store's next call unserved."""


def _watching() -> bool:
    """True when a batch is to be reported: someone listens, and no batch around this
    one (which reports it as part of itself) is being run."""
    return graphkit_store.observer is not None and not graphkit_store._observing.get()


@contextlib.contextmanager
def _reported(ops: list[Any]) -> Iterator[list[Any]]:
    """Report ``ops`` with the results the block puts in the list it is given, when the
    block succeeds; batches run inside it are not reported again."""
    results: list[Any] = []
    token = graphkit_store._observing.set(True)
    try:
        yield results
    finally:
        graphkit_store._observing.reset(token)
    observer = graphkit_store.observer
    if observer is not None:
        observer([_graphkit_op(op) for op in ops], results)


def _graphkit_op(op: Any) -> Any:
    """LangGraph's operation record as graphkit's (the same fields, in the same order)."""
    name = type(op).__name__
    if name not in _OPS or not isinstance(op, tuple):
        return op
    if name == "ListNamespacesOp" and op.match_conditions:
        conditions = tuple(graphkit_store.MatchCondition(*item) for item in op.match_conditions)
        op = op._replace(match_conditions=conditions)
    return getattr(graphkit_store, name)(*op)
