"""The Store (issue 15, item 3): the same operations on LangGraph's ``InMemoryStore``
(the oracle) and on graphkit's ``InMemoryStore`` and ``SqliteStore``, sync and async,
must give the same results (timestamps checked for shape, then left out); and a graph
whose nodes use the store must run the same on both libraries."""

from __future__ import annotations

import asyncio
import operator
from datetime import datetime
from typing import Annotated, Any, TypedDict

import pytest

from .harness import load_graphkit, load_langgraph

LIBRARIES = ("langgraph", "graphkit-memory", "graphkit-sqlite")
GRAPHKIT_STORES = ("graphkit-memory", "graphkit-sqlite")


def make_store(kind: str, tmp_path: Any) -> Any:
    if kind == "langgraph":
        from langgraph.store.memory import InMemoryStore

        return InMemoryStore()
    if kind == "graphkit-memory":
        from graphkit.store.memory import InMemoryStore as GraphkitMemoryStore

        return GraphkitMemoryStore()
    from graphkit.store.sqlite import SqliteStore

    return SqliteStore(str(tmp_path / "store.db"))


def plain(result: Any) -> Any:
    """A result with its timestamps checked and dropped, so two runs can be compared."""
    if isinstance(result, list):
        return [plain(entry) for entry in result]
    if hasattr(result, "created_at") and hasattr(result, "value"):
        assert isinstance(result.created_at, datetime) and result.created_at.tzinfo
        assert isinstance(result.updated_at, datetime) and result.updated_at.tzinfo
        assert result.created_at <= result.updated_at
        fields = result.dict()
        del fields["created_at"], fields["updated_at"]
        return (type(result).__name__, fields)
    return result


# Each step: (verb, positional arguments, keyword arguments).
SCRIPTS: dict[str, list[tuple[str, tuple, dict]]] = {
    "put-get-update-delete": [
        ("put", (("users", "ada"), "prefs", {"theme": "dark", "size": 3}), {}),
        ("get", (("users", "ada"), "prefs"), {}),
        ("get", (("users", "ada"), "missing"), {}),
        ("put", (("users", "ada"), "prefs", {"theme": "light"}), {}),
        ("get", (("users", "ada"), "prefs"), {}),
        ("put", (("users", "ada"), 7, {"number": True}), {}),
        ("get", (("users", "ada"), 7), {}),
        ("delete", (("users", "ada"), "prefs"), {}),
        ("get", (("users", "ada"), "prefs"), {}),
        ("delete", (("users", "ada"), "prefs"), {}),
        ("search", (("users",),), {}),
        ("put", (("users", "ada"), 7, None), {}),  # a put of None deletes, as a delete
        ("get", (("users", "ada"), 7), {}),
        ("put", (("users", "ada"), 7, None), {}),
        ("put", (("langgraph",), "k", None), {}),
    ],
    "search-order-and-pages": [
        ("put", (("a", "x"), "1", {"n": 1}), {}),
        ("put", (("b",), "2", {"n": 2}), {}),
        ("put", (("a", "y"), "3", {"n": 3}), {}),
        ("put", (("a", "x"), "4", {"n": 4}), {}),
        ("put", (("a", "x"), "1", {"n": 10}), {}),
        ("search", (("a",),), {}),
        ("search", ((),), {}),
        ("search", (("a",),), {"limit": 2}),
        ("search", (("a",),), {"limit": 2, "offset": 2}),
        ("search", (("a", "x"),), {"offset": 5}),
        ("search", (("a", "z"),), {}),
        ("search", (("a",),), {"query": "ignored without an index"}),
        ("delete", (("a", "x"), "1"), {}),
        ("put", (("a", "x"), "1", {"n": 11}), {}),
        ("search", (("a",),), {}),
    ],
    "filters": [
        ("put", (("docs",), "a", {"n": 1, "tag": "x", "who": {"name": "ada", "age": 36}}), {}),
        ("put", (("docs",), "b", {"n": 5, "tag": "y", "list": [1, 2]}), {}),
        ("put", (("docs",), "c", {"n": "7", "tag": "x"}), {}),
        ("search", (("docs",),), {"filter": {"tag": "x"}}),
        ("search", (("docs",),), {"filter": {"tag": {"$eq": "y"}}}),
        ("search", (("docs",),), {"filter": {"tag": {"$ne": "x"}}}),
        ("search", (("docs",),), {"filter": {"n": {"$gt": 1}}}),
        ("search", (("docs",),), {"filter": {"n": {"$gte": 1, "$lt": 7}}}),
        ("search", (("docs",),), {"filter": {"n": {"$lte": 5}}}),
        ("search", (("docs",),), {"filter": {"who": {"name": "ada"}}}),
        ("search", (("docs",),), {"filter": {"who": {"age": {"$gt": 30}}}}),
        ("search", (("docs",),), {"filter": {"list": [1, 2]}}),
        ("search", (("docs",),), {"filter": {"who.name": "ada"}}),  # no dotted paths
        ("search", (("docs",),), {"filter": {"tag": "x", "n": 1}}),
        ("search", (("docs",),), {"filter": {"tag": "nothing"}}),
        ("search", (("docs",),), {"filter": {"n": {"$in": [1]}}}),
    ],
    "namespaces": [
        ("put", (("a", "b", "c"), "k", {"v": 1}), {}),
        ("put", (("a", "b", "d", "e"), "k", {"v": 1}), {}),
        ("put", (("a", "b", "d", "i"), "k", {"v": 1}), {}),
        ("put", (("a", "b", "f"), "k", {"v": 1}), {}),
        ("put", (("a", "c", "f"), "k", {"v": 1}), {}),
        ("put", (("z",), "k", {"v": 1}), {}),
        ("list_namespaces", (), {}),
        ("list_namespaces", (), {"prefix": ("a", "b"), "max_depth": 3}),
        ("list_namespaces", (), {"suffix": ("f",)}),
        ("list_namespaces", (), {"prefix": ("a", "*", "f")}),
        ("list_namespaces", (), {"prefix": ("a",), "suffix": ("*",), "max_depth": 2}),
        ("list_namespaces", (), {"max_depth": 1}),
        ("list_namespaces", (), {"limit": 2, "offset": 1}),
        ("list_namespaces", (), {"prefix": ("nothing",)}),
    ],
    "invalid": [
        ("put", ((), "k", {"v": 1}), {}),
        ("put", (("a.b",), "k", {"v": 1}), {}),
        ("put", (("",), "k", {"v": 1}), {}),
        ("put", (("a", 1), "k", {"v": 1}), {}),
        ("put", (("langgraph",), "k", {"v": 1}), {}),
        ("put", (("a\x00",), "k", {"v": 1}), {}),
        ("get", (("a.b",), "k"), {}),
        ("search", (("a.b",),), {}),
        ("delete", (("",), "k"), {}),
        ("list_namespaces", (), {"prefix": ("a.b",)}),
        ("list_namespaces", (), {"suffix": ("",)}),
        ("put", (("a",), "k", [1, 2]), {}),
        ("list_namespaces", (), {}),
    ],
}


def run_script(store: Any, script: list[tuple[str, tuple, dict]], run_async: bool) -> list[Any]:
    observed = []
    for verb, args, kwargs in script:
        try:
            if run_async:
                result = asyncio.run(getattr(store, "a" + verb)(*args, **kwargs))
            else:
                result = getattr(store, verb)(*args, **kwargs)
            observed.append(plain(result))
        except Exception as error:  # the class is compared, the wording is graphkit's
            observed.append(("raised", type(error).__name__))
    return observed


@pytest.mark.parametrize("run_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("kind", GRAPHKIT_STORES)
@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_store_operations_match_langgraph(script, kind, run_async, tmp_path):
    expected = run_script(make_store("langgraph", tmp_path), SCRIPTS[script], run_async)
    actual = run_script(make_store(kind, tmp_path), SCRIPTS[script], run_async)
    assert actual == expected


@pytest.mark.parametrize("kind", LIBRARIES)
def test_ttl_on_a_store_without_ttl_support(kind, tmp_path):
    """LangGraph's InMemoryStore refuses a TTL; graphkit's InMemoryStore too, its
    SqliteStore takes it (as LangGraph's SqliteStore does)."""
    store = make_store(kind, tmp_path)
    store.put(("a",), "none", {"v": 1}, ttl=None)
    if kind == "graphkit-sqlite":
        store.put(("a",), "k", {"v": 1}, ttl=5)
        assert store.get(("a",), "k").value == {"v": 1}
    else:
        assert store.supports_ttl is False
        with pytest.raises(NotImplementedError, match="TTL is not supported by InMemoryStore"):
            store.put(("a",), "k", {"v": 1}, ttl=5)


def test_ttl_matches_langgraph_sqlite_store(tmp_path):
    """Expiry, refresh on read, sweeping: LangGraph's SqliteStore and graphkit's agree."""
    import sqlite3

    from langgraph.store.sqlite import SqliteStore as LangGraphSqliteStore

    from graphkit.store.sqlite import SqliteStore

    oracle = LangGraphSqliteStore(
        sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    )
    oracle.setup()
    ours = SqliteStore(":memory:")
    observed = []
    for store in (oracle, ours):
        store.put(("t",), "gone", {"v": 1}, ttl=-1)  # already expired
        store.put(("t",), "kept", {"v": 2}, ttl=60)
        store.put(("t",), "forever", {"v": 3})
        listed = sorted(item.key for item in store.search(("t",)))
        swept = store.sweep_ttl()
        left = sorted(item.key for item in store.search(("t",)))
        observed.append((listed, swept, left, store.get(("t",), "gone")))
    assert observed[0] == observed[1]


# (store's ttl config, how the item is read): each item expires 3 s after its put
READS_THAT_MAY_REFRESH = [
    ({"default_ttl": 0.05}, "get"),
    ({"default_ttl": 0.05}, "search"),
    ({"default_ttl": 0.05, "refresh_on_read": True}, "get"),
    ({"default_ttl": 0.05, "refresh_on_read": True}, "search"),
    ({"default_ttl": 0.05, "refresh_on_read": True}, "get-no-refresh"),
    ({"default_ttl": 0.05, "refresh_on_read": False}, "get-refresh"),
    ({"default_ttl": 0.05, "refresh_on_read": False}, "search-refresh"),
]


def test_a_read_restarts_the_ttl_clock_only_where_langgraphs_sqlite_store_does(tmp_path):
    """graphkit's SqliteStore restarted an item's clock on every read unless told not to;
    LangGraph's does only when the store's ``ttl`` says ``refresh_on_read=True``, as its
    own ``test_ttl.py`` pins (``test_ttl_override_default``): a read's ``refresh_ttl=True``
    does not override a store that never refreshes."""
    import sqlite3
    import time

    from langgraph.store.sqlite import SqliteStore as LangGraphSqliteStore

    from graphkit.store.sqlite import SqliteStore

    def langgraph_store(ttl: Any) -> Any:
        connection = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        store = LangGraphSqliteStore(connection, ttl=ttl)
        store.setup()
        return store

    def read(store: Any, how: str) -> None:
        refresh = {"get-refresh": True, "get-no-refresh": False, "search-refresh": True}
        if how.startswith("search"):
            store.search(("t",), refresh_ttl=refresh.get(how))
        else:
            store.get(("t",), "k", refresh_ttl=refresh.get(how))

    stores = {
        (index, library): make(ttl)
        for index, (ttl, _) in enumerate(READS_THAT_MAY_REFRESH)
        for library, make in (
            ("langgraph", langgraph_store),
            ("graphkit", lambda ttl: SqliteStore(":memory:", ttl=ttl)),
        )
    }
    for store in stores.values():
        store.put(("t",), "k", {"v": 1})
    time.sleep(2.2)
    for (index, _), store in stores.items():
        read(store, READS_THAT_MAY_REFRESH[index][1])
    time.sleep(2.3)  # (past the put's 3 s and LangGraph's rounding to whole seconds)
    kept: dict[str, list[bool]] = {"langgraph": [], "graphkit": []}
    for (_, library), store in stores.items():
        store.sweep_ttl()
        kept[library].append(store.get(("t",), "k", refresh_ttl=False) is not None)
    assert kept["graphkit"] == kept["langgraph"]
    assert kept["langgraph"] == [False, False, True, True, False, False, False]


# A graph whose nodes use the store: as a `store` parameter, as `runtime.store` and
# through `get_runtime().store`.


class State(TypedDict):
    user: str
    note: str
    seen: Annotated[list, operator.add]


def store_graph(library: str) -> Any:
    lib = load_langgraph() if library == "langgraph" else load_graphkit()
    if library == "langgraph":
        from langgraph.runtime import Runtime, get_runtime
        from langgraph.store.base import BaseStore
    else:
        from graphkit import get_runtime
        from graphkit.pregel.runtime import Runtime
        from graphkit.store.base import BaseStore

    def remember(state: State, *, store: BaseStore) -> dict:
        namespace = ("memories", state["user"])
        count = len(store.search(namespace))
        store.put(namespace, f"note-{count}", {"text": state["note"], "n": count})
        return {"seen": [f"put note-{count}"]}

    def recall(state: State, runtime: Runtime) -> dict:
        found = runtime.store.search(("memories", state["user"]), filter={"n": {"$gte": 1}})
        return {"seen": [item.value["text"] for item in found]}

    def tidy(state: State) -> dict:
        store = get_runtime().store
        if state["note"] == "plays chess":
            store.delete(("memories", state["user"]), "note-0")
        return {"seen": [ns for ns in store.list_namespaces(prefix=("memories",))]}

    graph = lib.StateGraph(State)
    graph.add_node("remember", remember)
    graph.add_node("recall", recall)
    graph.add_edge(lib.START, "remember")
    graph.add_node("tidy", tidy)
    graph.add_edge("remember", "recall")
    graph.add_edge("recall", "tidy")
    graph.add_edge("tidy", lib.END)
    return graph


def run_store_graph(library: str, kind: str, run_async: bool, tmp_path: Any) -> Any:
    store = make_store(kind, tmp_path)
    app = store_graph(library).compile(store=store)
    outputs = []
    for note in ("likes tea", "lives in London", "plays chess"):
        given = {"user": "ada", "note": note, "seen": []}
        if run_async:
            outputs.append(asyncio.run(app.ainvoke(given)))
        else:
            outputs.append(app.invoke(given))
    contents = [(item.key, item.value) for item in store.search(("memories",))]
    return outputs, contents, store.list_namespaces()


@pytest.mark.parametrize("run_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("kind", GRAPHKIT_STORES)
def test_nodes_use_the_store_as_in_langgraph(kind, run_async, tmp_path):
    expected = run_store_graph("langgraph", "langgraph", run_async, tmp_path / "oracle")
    actual = run_store_graph("graphkit", kind, run_async, tmp_path)
    assert actual == expected
    assert expected[1][-1] == ("note-2", {"text": "plays chess", "n": 2})
