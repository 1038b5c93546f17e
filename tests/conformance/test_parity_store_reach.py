"""Which store a graph run inside a node uses, and the Store API's edges, on both
libraries: a subgraph (a node, invoked in a node, run by an entrypoint) uses its
caller's store, whatever it was compiled with; any ``Mapping`` is a value; an empty
``index={}`` is no index and ``put(..., index=...)`` on a store without one is ignored;
LangGraph's helper names in ``store.base``; an empty ``retry_on`` retries nothing."""

import importlib
import operator
from types import MappingProxyType
from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph

LIBS = [load_langgraph, load_graphkit]


class Log(TypedDict):
    log: Annotated[list, operator.add]


def _store_class(lib: Lib) -> Any:
    return importlib.import_module(f"{lib.name}.store.memory").InMemoryStore


def _which(stores: dict[str, Any], store: Any) -> str:
    return next((name for name, known in stores.items() if known is store), repr(store))


def _looking(stores: dict[str, Any]) -> Any:
    def look(state: Log, store) -> dict[str, list[str]]:  # (LangGraph injects it unannotated)
        return {"log": [_which(stores, store)]}

    return look


@pytest.mark.parametrize("how", ["node", "invoked", "own-store", "parent-without"])
def test_a_subgraph_uses_its_callers_store(how: str) -> None:
    seen = []
    for load in LIBS:
        lib = load()
        Store = _store_class(lib)
        stores = {"parent": Store(), "own": Store()}

        inner = lib.StateGraph(Log).add_node("look", _looking(stores)).add_edge(lib.START, "look")
        sub = inner.compile(store=stores["own"] if how in ("own-store", "parent-without") else None)
        outer = lib.StateGraph(Log)
        if how == "invoked":
            outer.add_node("sub", lambda state, sub=sub: {"log": sub.invoke({"log": []})["log"]})
        else:
            outer.add_node("sub", sub)
        outer.add_edge(lib.START, "sub")
        parent_store = None if how == "parent-without" else stores["parent"]
        seen.append(outer.compile(store=parent_store).invoke({"log": []}))
    assert seen[0] == seen[1]
    assert seen[1]["log"][-1] in ("parent", "None")


def test_a_graph_run_by_an_entrypoint_uses_its_store() -> None:
    seen = []
    for load in LIBS:
        lib = load()
        entrypoint = importlib.import_module(f"{lib.name}.func").entrypoint
        store = _store_class(lib)()
        look = _looking({"entrypoint's": store})
        sub = lib.StateGraph(Log).add_node("look", look).add_edge(lib.START, "look").compile()
        seen.append(_entrypoint_running(entrypoint, store, sub).invoke(1))
    assert seen == [["entrypoint's"], ["entrypoint's"]]


def _entrypoint_running(entrypoint: Any, store: Any, graph: Any) -> Any:
    @entrypoint(store=store)
    def run(given: int) -> list[Any]:
        return graph.invoke({"log": []})["log"]

    return run


@pytest.mark.parametrize("value", [MappingProxyType({"a": 1}), {"a": 1}])
def test_any_mapping_is_a_value(value: Any) -> None:
    seen = []
    for load in LIBS:
        store = _store_class(load())()
        store.put(("n",), "k", value)
        seen.append(store.get(("n",), "k").value)
    assert seen == [{"a": 1}, {"a": 1}]


def test_an_empty_index_is_none_and_put_index_without_one_is_ignored() -> None:
    seen = []
    for load in LIBS:
        Store = _store_class(load())
        empty = Store(index={})
        empty.put(("a",), "k", {"t": "x"})
        plain = Store()
        plain.put(("a",), "k", {"t": "x"}, index=["t"])
        found = [item.key for item in empty.search(("a",), query="x")]
        seen.append((found, plain.get(("a",), "k").value))
    assert seen[0] == seen[1] == (["k"], {"t": "x"})


def test_langgraphs_store_helper_names() -> None:
    value = {"who": [{"name": "ada"}, {"name": "bob"}]}
    seen = []
    for root in ("langgraph", "graphkit"):
        base = importlib.import_module(f"{root}.store.base")
        names = ("NotProvided", "NamespaceMatchType", "EmbeddingsFunc", "AEmbeddingsFunc")
        assert all(hasattr(base, name) for name in names), root
        base.validate_op_namespace(base.GetOp(("users", "ada"), "prefs"))
        with pytest.raises(ValueError):
            base.validate_op_namespace(base.SearchOp(("users", "a.b")))
        seen.append(
            (
                base.tokenize_path("who[*].name"),
                base.get_text_at_path(value, "who[*].name"),
                base.get_text_at_path(value, ["who", "[0]", "name"]),
            )
        )
    assert seen[0] == seen[1] == (["who", "[*]", "name"], ["ada", "bob"], ["ada"])


def test_an_empty_retry_on_retries_nothing() -> None:
    seen = []
    for load in LIBS:
        lib = load()
        calls: list[int] = []

        def fail(state: Log, calls: list = calls) -> dict[str, list[str]]:
            calls.append(1)
            raise KeyError("k")

        policy = lib.RetryPolicy(retry_on=(), initial_interval=0, jitter=False)
        builder = lib.StateGraph(Log).add_node("n", fail, retry_policy=policy)
        with pytest.raises(KeyError):
            builder.add_edge(lib.START, "n").compile().invoke({"log": []})
        seen.append(len(calls))
    assert seen == [1, 1]
