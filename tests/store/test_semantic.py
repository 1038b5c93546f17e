"""Semantic search in both stores (graphkit.store.index, .embed, .paths): the index
config and its errors, embedding, persistence, and where graphkit knowingly differs
from LangGraph's InMemoryStore."""

from __future__ import annotations

import asyncio
import sys
import types
from typing import Any

import pytest
from langgraph.store.memory import InMemoryStore as LangGraphStore

from graphkit.store.embed import Embedder
from graphkit.store.index import Index
from graphkit.store.memory import InMemoryStore
from graphkit.store.paths import split_path, texts_at_path
from graphkit.store.sqlite import SqliteStore

WORDS = ("cat", "dog")


def embed(texts: list[str]) -> list[list[float]]:
    return [[text.count("cat"), text.count("dog"), 1.0] for text in texts]


def index(**extra: Any) -> dict[str, Any]:
    return {"dims": 3, "embed": embed, "fields": ["text"], **extra}


def found(store: Any, query: str, **options: Any) -> list[tuple[str, float | None]]:
    results = store.search(("n",), query=query, **options)
    return [(item.key, None if item.score is None else round(item.score, 4)) for item in results]


STORES = [lambda config: InMemoryStore(index=config), lambda config: SqliteStore(index=config)]
STORE_IDS = ["memory", "sqlite"]

# The index config and its errors.


@pytest.mark.parametrize(
    ("config", "error", "message"),
    [
        ("openai", TypeError, "index must be a dict like"),
        ({"dims": 3}, ValueError, "index needs 'embed'"),
        ({"dims": 0, "embed": embed}, ValueError, "'dims' must be a positive int"),
        ({"dims": "3", "embed": embed}, ValueError, "'dims' must be a positive int"),
        ({"dims": True, "embed": embed}, ValueError, "'dims' must be a positive int"),
        ({"embed": embed, "text_fields": ["a"]}, ValueError, r"Unknown index key\(s\) \['text_"),
        ({"embed": embed, "fields": "text"}, TypeError, "fields must be a list of field paths"),
        ({"embed": embed, "fields": ["text", ""]}, TypeError, "list of field paths"),
        ({"embed": 42}, TypeError, "'embed' must be a function"),
        ({"embed": "no-colon"}, ValueError, "must name a provider and a model"),
    ],
)
@pytest.mark.parametrize("make", STORES, ids=STORE_IDS)
def test_bad_index_configs_say_how_to_fix_them(make, config, error, message) -> None:
    with pytest.raises(error, match=message):
        make(config)


def test_a_provider_string_names_what_to_install(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "langchain", None)  # as if it were not installed
    with pytest.raises(ValueError, match="pip install langchain langchain-openai"):
        InMemoryStore(index={"dims": 3, "embed": "openai:text-embedding-3-small"})


def test_a_provider_string_is_loaded_by_init_embeddings(monkeypatch) -> None:
    loaded = []

    class Loaded:
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return embed(texts)

        def embed_query(self, text: str) -> list[float]:
            return embed([text])[0]

    def init_embeddings(name: str) -> Loaded:
        loaded.append(name)
        return Loaded()

    module = types.ModuleType("langchain.embeddings")
    module.init_embeddings = init_embeddings  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "langchain", types.ModuleType("langchain"))
    monkeypatch.setitem(sys.modules, "langchain.embeddings", module)
    store = InMemoryStore(index={"dims": 3, "embed": "fake:model", "fields": ["text"]})
    store.put(("n",), "a", {"text": "cat"})
    assert loaded == ["fake:model"] and found(store, "cat") == [("a", 1.0)]


@pytest.mark.parametrize("make", STORES, ids=STORE_IDS)
def test_the_config_is_kept_and_shown(make) -> None:
    store = make(index())
    assert store.index_config == index() and store.index_config is not index()
    assert repr(store.index) == "Index(dims=3, fields=['text'])"
    assert repr(store.embeddings) == "Embedder(embed, sync)"
    assert Index.read({"embed": embed}).fields == ["$"]  # default: the whole value
    assert make(None).index is None and make(None).embeddings is None


@pytest.mark.parametrize("bad", ["text", True, ["text", 3]])
def test_put_index_must_be_false_or_a_list_of_paths(bad) -> None:
    with pytest.raises(TypeError, match=r"put\(..., index=...\) must be a list of field paths"):
        InMemoryStore(index=index()).put(("n",), "a", {"text": "cat"}, index=bad)


# Embedding.


@pytest.mark.parametrize("make", STORES, ids=STORE_IDS)
def test_a_wrong_embedder_is_caught_before_anything_is_written(make) -> None:
    store = make({"dims": 4, "embed": embed})
    with pytest.raises(ValueError, match=r"vector of 3 numbers .* dims=4. Set 'dims'"):
        store.put(("n",), "a", {"text": "cat"})
    assert store.get(("n",), "a") is None
    short = make({"embed": lambda texts: [[1.0]]})
    with pytest.raises(ValueError, match="returned 1 vectors for 2 texts; it must return one"):
        short.batch(_two_puts())
    assert short.search(("n",)) == []


@pytest.mark.parametrize("make", STORES, ids=STORE_IDS)
def test_vectors_may_be_numpy_arrays_but_must_hold_numbers(make) -> None:
    import numpy

    store = make(index(embed=lambda texts: [numpy.array(vector) for vector in embed(texts)]))
    store.put(("n",), "a", {"text": "cat"})
    assert found(store, "cat") == [("a", 1.0)]
    words = make(index(embed=lambda texts: [["cat"] * 3 for _ in texts]))
    with pytest.raises(ValueError, match="must be a list of numbers"):
        words.put(("n",), "a", {"text": "cat"})


def _two_puts() -> list[Any]:
    from graphkit.store.base import PutOp

    return [PutOp(("n",), "a", {"text": "cat"}), PutOp(("n",), "b", {"text": "dog"})]


@pytest.mark.parametrize("make", STORES, ids=STORE_IDS)
def test_async_verbs_await_an_async_embedder(make) -> None:
    async def aembed(texts: list[str]) -> list[list[float]]:
        return embed(texts)

    store = make(index(embed=aembed))

    async def program() -> list[Any]:
        await store.aput(("n",), "a", {"text": "dog"})
        await store.aput(("n",), "b", {"text": "cat"})
        return [
            (item.key, round(item.score, 4)) for item in await store.asearch(("n",), query="cat")
        ]

    assert asyncio.run(program()) == [("b", 1.0), ("a", 0.5)]
    with pytest.raises(ValueError, match="is async, so the sync verbs"):
        store.search(("n",), query="cat")


def test_an_embeddings_object_embeds_queries_with_embed_query() -> None:
    class Asymmetric:
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return embed(texts)

        def embed_query(self, text: str) -> list[float]:
            return [0.0, 0.0, 1.0]  # only the constant: every document scores alike

    store = InMemoryStore(index=index(embed=Asymmetric()))
    store.put(("n",), "a", {"text": "cat cat"})
    store.put(("n",), "b", {"text": "dog"})
    assert found(store, "cat") == [("b", 0.7071), ("a", 0.4472)]
    assert repr(Embedder(Asymmetric())) == "Embedder(Asymmetric, embeddings)"


# Persistence (SqliteStore).


def test_vectors_survive_reopening_the_file(tmp_path) -> None:
    path = tmp_path / "store.db"
    first = SqliteStore(path, index=index())
    first.put(("n",), "a", {"text": "cat"})
    first.put(("n",), "b", {"text": "dog"})
    calls = []
    reopened = SqliteStore(
        path, index=index(embed=lambda texts: calls.append(texts) or embed(texts))
    )
    assert found(reopened, "dog") == [("b", 1.0), ("a", 0.5)]
    assert calls == [["dog"]]  # only the query was embedded again
    assert found(SqliteStore(path), "dog") == [("a", None), ("b", None)]  # no index: no ranking


def test_a_changed_embedder_is_named_when_searching(tmp_path) -> None:
    path = tmp_path / "store.db"
    SqliteStore(path, index=index()).put(("n",), "a", {"text": "cat"})
    wider = SqliteStore(path, index={"dims": 4, "embed": lambda texts: [[1.0] * 4 for _ in texts]})
    with pytest.raises(ValueError, match="vectors of 3: the embedder changed"):
        wider.search(("n",), query="cat")


def test_deletes_and_sweeps_remove_vectors() -> None:
    store = SqliteStore(index=index())
    store.put(("n",), "a", {"text": "cat"})
    store.put(("n",), "old", {"text": "cat"}, ttl=-1)
    store.put(("n",), "b", {"text": ["cat", "dog"]}, index=["text[*]"])
    rows = store.conn.execute("SELECT key, field FROM store_vectors ORDER BY rowid").fetchall()
    assert rows == [("a", "text"), ("old", "text"), ("b", "text[*].0"), ("b", "text[*].1")]
    store.delete(("n",), "a")
    assert store.sweep_ttl() == 1
    assert store.conn.execute("SELECT DISTINCT key FROM store_vectors").fetchall() == [("b",)]


# Where graphkit differs from LangGraph's InMemoryStore, on purpose.


@pytest.mark.parametrize("update", ["index-false", "field-gone"])
def test_an_update_replaces_the_items_vectors(update) -> None:
    """LangGraph keeps an item's old vectors when an update is not indexed (or lacks
    the field), so it is still found by text it no longer has; graphkit drops them."""
    observed = []
    for store in (LangGraphStore(index=index()), InMemoryStore(index=index())):
        store.put(("n",), "a", {"text": "cat"})
        if update == "index-false":
            store.put(("n",), "a", {"text": "dog"}, index=False)
        else:
            store.put(("n",), "a", {"title": "dog"})
        observed.append(found(store, "cat"))
    assert observed == [[("a", 1.0)], [("a", None)]]


def test_pages_past_the_ranked_items_continue_with_the_unranked_ones() -> None:
    """LangGraph restarts the unranked items on every page past the ranked ones (so
    they repeat); graphkit pages through one list: ranked, then unranked."""
    observed = []
    for store in (LangGraphStore(index=index()), InMemoryStore(index=index())):
        store.put(("n",), "a", {"text": "cat"})
        for key in ("x", "y", "z"):
            store.put(("n",), key, {"other": key})
        observed.append([found(store, "cat", limit=2, offset=offset) for offset in (0, 2)])
    assert observed[0] == [[("a", 1.0), ("x", None)], [("x", None), ("y", None)]]
    assert observed[1] == [[("a", 1.0), ("x", None)], [("y", None), ("z", None)]]


def test_put_index_dollar_embeds_the_whole_value() -> None:
    """'$' means the whole value in ``fields`` and in ``put(..., index=['$'])``;
    LangGraph's InMemoryStore embeds nothing for the latter."""
    observed = []
    for store in (LangGraphStore(index=index()), InMemoryStore(index=index())):
        store.put(("n",), "a", {"body": "cat"}, index=["$"])
        observed.append(found(store, "cat"))
    assert observed == [[("a", None)], [("a", 1.0)]]


# Field paths.


def test_paths_split_and_find_text() -> None:
    value = {"a": {"b": "x"}, "items": [{"t": "p"}, {"t": "q"}], "n": 1.5, "none": None}
    assert split_path("items[*].t") == ["items", "[*]", "t"]
    assert split_path("{a.b,n}") == ["{a.b,n}"]
    assert texts_at_path(value, "items[*].t") == ["p", "q"]
    assert texts_at_path(value, "items[-1].t") == ["q"]
    assert texts_at_path(value, "items[5].t") == texts_at_path(value, "items[x]") == []
    assert texts_at_path(value, "{a.b,n,none,missing}") == ["x", "1.5"]
    assert texts_at_path(value, "items") == ['[{"t": "p"}, {"t": "q"}]']
    assert texts_at_path(value, "none") == texts_at_path(value, "n.deeper") == []
    assert texts_at_path({"x": "1", "y": [2]}, "*") == ["1", "[2]"]
    assert texts_at_path({"é": "ü"}, "$") == ['{"é": "ü"}']  # not ASCII-escaped
