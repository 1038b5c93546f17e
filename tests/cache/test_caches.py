"""graphkit.cache: InMemoryCache and SqliteCache keep to one interface (get / set /
clear and async twins), expire entries after their TTL, and store values with graphkit's
serializer (never pickle); the default key ignores key order; keys hash a str or bytes."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from graphkit.cache import base
from graphkit.cache.base import default_cache_key, hash_key, node_namespace
from graphkit.cache.memory import InMemoryCache
from graphkit.cache.sqlite import SqliteCache

NS = ("__pregel_ns_writes", "m.f", "a")


@pytest.fixture(params=["memory", "sqlite"])
def cache(request, tmp_path):
    if request.param == "memory":
        return InMemoryCache()
    return SqliteCache(str(tmp_path / "cache.db"))


def test_set_get_and_clear(cache):
    other = ("__pregel_ns_writes", "m.g", "b")
    cache.set({(NS, "k"): ([("x", 1), ("log", ["a"])], None), (other, "k"): ({"y": 2}, None)})
    # (a pair reads back as a list, as from LangGraph's cache: its serializer has no tuple)
    assert cache.get([(NS, "k"), (NS, "missing")]) == {(NS, "k"): [["x", 1], ["log", ["a"]]]}
    cache.clear([NS])
    assert cache.get([(NS, "k"), (other, "k")]) == {(other, "k"): {"y": 2}}
    cache.clear()
    assert cache.get([(other, "k")]) == {}


def test_an_entry_expires_after_its_ttl(cache, monkeypatch):
    now = [1000.0]
    monkeypatch.setattr("time.time", lambda: now[0])
    cache.set({(NS, "short"): (1, 10), (NS, "forever"): (2, None)})
    now[0] += 9.9
    assert cache.get([(NS, "short"), (NS, "forever")]) == {(NS, "short"): 1, (NS, "forever"): 2}
    now[0] += 0.2
    assert cache.get([(NS, "short"), (NS, "forever")]) == {(NS, "forever"): 2}


def test_the_async_twins(cache):
    async def use() -> list:
        await cache.aset({(NS, "k"): ("v", None)})
        found = await cache.aget([(NS, "k")])
        await cache.aclear()
        return [found, await cache.aget([(NS, "k")])]

    assert asyncio.run(use()) == [{(NS, "k"): "v"}, {}]


def test_a_value_the_serializer_cannot_write_is_refused_not_pickled(cache):
    class Opaque:
        pass

    with pytest.raises(Exception, match="Opaque"):
        cache.set({(NS, "k"): (Opaque(), None)})


def test_a_stored_value_is_a_copy(cache):
    value = {"log": ["a"]}
    cache.set({(NS, "k"): (value, None)})
    value["log"].append("changed later")
    assert cache.get([(NS, "k")])[(NS, "k")] == {"log": ["a"]}


def test_a_sqlite_cache_outlives_its_connection(tmp_path):
    path = str(tmp_path / "cache.db")
    first = SqliteCache(path)
    first.set({(NS, "k"): ([("x", 1)], None)})
    first.close()
    assert SqliteCache(path=path).get([(NS, "k")]) == {(NS, "k"): [["x", 1]]}


def test_reprs():
    cache = InMemoryCache()
    cache.set({(NS, "k"): (1, None)})
    assert repr(cache) == "InMemoryCache(entries=1)"
    assert repr(SqliteCache(":memory:")) == "SqliteCache(path=':memory:')"


@dataclasses.dataclass
class Point:
    x: int


def test_the_default_key_ignores_key_order_and_tells_lists_from_values():
    assert default_cache_key({"a": 1, "b": {"c": 2, "d": 3}}) == default_cache_key(
        {"b": {"d": 3, "c": 2}, "a": 1}
    )
    assert default_cache_key({"a": [1]}) != default_cache_key({"a": [2]})
    assert default_cache_key(Point(1)) != default_cache_key(Point(2))


def test_the_default_key_says_how_to_fix_an_input_it_cannot_write():
    with pytest.raises(TypeError, match=r"CachePolicy\(key_func=lambda state"):
        default_cache_key({"a": object()})


def test_a_keys_example_names_a_field_of_the_input_it_was_given():
    """The fix's example names a field the state has ('question' was named whatever the
    state); with no state to read, it names none."""
    with pytest.raises(TypeError, match=r"e\.g\. key_func=lambda state: str\(state\['text'\]\)"):
        hash_key(("hi", "fr"), "translate", {"text": "hi", "language": "fr"})
    with pytest.raises(TypeError) as raised:
        hash_key(("hi", "fr"), "translate")
    assert "state[" not in str(raised.value) and "str()" in str(raised.value)
    with pytest.raises(TypeError, match=r"str\(state\['a'\]\)"):
        default_cache_key({"a": object()})


def test_keys_hash_text_or_bytes_alike():
    assert hash_key("abc", "a") == hash_key(b"abc", "a")
    assert len(hash_key("abc", "a")) == 32
    with pytest.raises(TypeError, match=r"Node .a.: its CachePolicy\.key_func returned int"):
        hash_key(3, "a")


def test_a_namespace_names_the_node_function_as_langgraph_does():
    def shout(state):
        return state

    assert node_namespace("n", shout) == (
        base.WRITES_NAMESPACE,
        f"{__name__}.test_a_namespace_names_the_node_function_as_langgraph_does.<locals>.shout",
        "n",
    )
    assert node_namespace("n", object())[1] == "__dynamic__"
