"""graphkit.store.memory.InMemoryStore, where it knowingly differs from LangGraph's."""

from __future__ import annotations

import pytest
from langgraph.store.memory import InMemoryStore as LangGraphStore

from graphkit.store.base import GetOp, PutOp, SearchOp
from graphkit.store.memory import InMemoryStore


@pytest.mark.parametrize("touch", ["get", "delete", "emptied"])
def test_only_namespaces_with_items_are_listed(touch: str) -> None:
    """LangGraph's InMemoryStore also lists a namespace a get or delete touched, or one
    emptied by deleting its items; graphkit lists the namespaces that hold items."""
    listed = []
    for store in (LangGraphStore(), InMemoryStore()):
        store.put(("kept",), "k", {"v": 1})
        if touch == "get":
            store.get(("ghost",), "k")
        elif touch == "delete":
            store.delete(("ghost",), "k")
        else:
            store.put(("ghost",), "k", {"v": 1})
            store.delete(("ghost",), "k")
        listed.append(store.list_namespaces())
    assert listed == [[("ghost",), ("kept",)], [("kept",)]]


def test_an_emptied_namespace_keeps_its_place_in_search_order() -> None:
    store = InMemoryStore()
    store.put(("a",), "1", {})
    store.put(("b",), "2", {})
    store.delete(("a",), "1")
    store.put(("a",), "3", {})
    assert [item.key for item in store.search(())] == ["3", "2"]


def test_a_batch_reads_before_it_writes() -> None:
    store = InMemoryStore()
    results = store.batch(
        [
            PutOp(("a",), "k", {"v": 1}),
            GetOp(("a",), "k"),
            SearchOp(("a",)),
            PutOp(("a",), "k", {"v": 2}),
        ]
    )
    assert results == [None, None, [], None]
    assert store.get(("a",), "k").value == {"v": 2}


def test_unknown_operations_are_named() -> None:
    with pytest.raises(ValueError, match="Unknown store operation 'get'"):
        InMemoryStore().batch(["get"])  # type: ignore[list-item]


def test_values_are_copied_on_put_and_the_repr_counts() -> None:
    store = InMemoryStore()
    value = {"v": 1}
    store.put(("a", "b"), "k", value)
    value["v"] = 2
    assert store.get(("a", "b"), "k").value == {"v": 1}
    assert repr(store) == "InMemoryStore(namespaces=1, items=1)"
