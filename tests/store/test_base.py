"""graphkit.store.base: the records and the verbs built on ``batch``."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graphkit.store.base import Item, SearchItem

WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def test_item_repr_is_exact() -> None:
    item = Item(value={"a": 1}, key="k", namespace=("n",), created_at=WHEN, updated_at=WHEN)
    assert repr(item) == (
        "Item(namespace=['n'], key='k', value={'a': 1}, "
        "created_at='2026-01-02T03:04:05+00:00', updated_at='2026-01-02T03:04:05+00:00')"
    )


def test_items_compare_by_fields_and_hash_by_address() -> None:
    iso = WHEN.isoformat()
    first = Item(value={"a": 1}, key="k", namespace=["n"], created_at=iso, updated_at=iso)
    second = SearchItem(("n",), "k", {"a": 1}, WHEN, WHEN, score=0.5)
    assert first == second and hash(first) == hash(second)
    assert first.namespace == ("n",) and first.created_at == WHEN
    assert second.dict()["score"] == 0.5
    assert first != "not an item"


def test_put_refuses_a_value_that_is_not_a_dict() -> None:
    from graphkit.store.memory import InMemoryStore

    with pytest.raises(TypeError, match=r"must be a dict, got list .* e.g. \{'value': ...\}"):
        InMemoryStore().put(("a",), "k", [1, 2])  # type: ignore[arg-type]
