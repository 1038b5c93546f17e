"""Semantic search in the Store (issue 15, item 3): the same program on LangGraph's
``InMemoryStore`` (the oracle) and on graphkit's ``InMemoryStore`` and ``SqliteStore``,
sync and async, with every kind of embedder, must find the same items in the same
order with the same scores (to 1e-9), and call the embedder with the same texts.

LangGraph's ``SqliteStore`` needs the ``sqlite-vec`` extension, which this Python's
``sqlite3`` cannot load (no ``enable_load_extension``); its test skips when that is so.
"""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Any

import pytest
from langchain_core.embeddings import Embeddings

GRAPHKIT_STORES = ("graphkit-memory", "graphkit-sqlite")
WORDS = ("cat", "dog", "bird")


def count_words(text: str) -> list[float]:
    """A toy embedding: how often each animal is named, plus a constant."""
    lowered = text.lower()
    return [float(lowered.count(word)) for word in WORDS] + [1.0]


class Recorder:
    """Embedders of every kind that log the texts they were given."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, ...]] = []

    def sync(self, texts: list[str]) -> list[list[float]]:
        self.calls.append(tuple(texts))
        return [count_words(text) for text in texts]

    async def async_(self, texts: list[str]) -> list[list[float]]:
        await asyncio.sleep(0)
        return self.sync(texts)

    def embeddings(self) -> Embeddings:
        recorder = self

        class CountEmbeddings(Embeddings):
            def embed_documents(self, texts: list[str]) -> list[list[float]]:
                return recorder.sync(texts)

            def embed_query(self, text: str) -> list[float]:
                # A query vector unlike a document's: proves embed_query is used.
                recorder.calls.append(("query", text))
                return [*count_words(text)[:3], 0.5]

        return CountEmbeddings()

    def embed(self, kind: str) -> Any:
        return {"function": self.sync, "async": self.async_, "embeddings": self.embeddings()}[kind]


def make_store(library: str, index: dict[str, Any] | None, tmp_path: Any) -> Any:
    if library == "langgraph":
        from langgraph.store.memory import InMemoryStore

        return InMemoryStore(index=index)
    if library == "graphkit-memory":
        from graphkit.store.memory import InMemoryStore

        return InMemoryStore(index=index)
    from graphkit.store.sqlite import SqliteStore

    return SqliteStore(str(tmp_path / "store.db"), index=index)


def plain(result: Any) -> Any:
    """Search results as (namespace, key, value, score); anything else as is."""
    if isinstance(result, list):
        return [plain(entry) for entry in result]
    if hasattr(result, "score"):
        return (result.namespace, result.key, result.value, result.score)
    if hasattr(result, "value"):
        return (result.namespace, result.key, result.value)
    return result


PETS = [
    ("put", (("pets", "home"), "a", {"text": "cat cat", "n": 1}), {}),
    ("put", (("pets", "farm"), "b", {"text": "dog", "n": 2}), {}),
    ("put", (("pets",), "c", {"other": "cat"}), {}),  # no 'text': no vector
    ("put", (("pets", "home"), "d", {"text": "cat dog", "n": 3}), {"index": False}),
    ("put", (("pets", "home"), "e", {"text": ["cat", "dog dog"]}), {"index": ["text[*]"]}),
    ("put", (("pets",), "f", {"text": "dog", "n": 2}), {}),  # ties with b
    (
        "put",
        (("pets",), "g", {"text": "Cat", "title": "bird dog", "n": 5}),
        {"index": ["text", "title"]},
    ),
]

SCRIPTS: dict[str, list[tuple[str, tuple, dict]]] = {
    "ranking-ties-and-pages": [
        *PETS,
        ("search", (("pets",),), {"query": "cat"}),
        ("search", (("pets",),), {"query": "dog"}),
        ("search", (("pets",),), {"query": "cat dog"}),
        ("search", (("pets",),), {"query": "fish"}),
        ("search", (("pets",),), {"query": "dog", "limit": 2}),
        ("search", (("pets",),), {"query": "dog", "limit": 2, "offset": 2}),
        ("search", (("pets",),), {"query": "dog", "limit": 3, "offset": 1}),
        ("search", (("pets",),), {"query": "dog", "limit": 3, "offset": 5}),  # edge of scored
        ("search", (("pets", "home"),), {"query": "cat"}),
        ("search", (("pets",),), {"query": "cat", "filter": {"n": 2}}),
        ("search", (("pets",),), {"query": "cat", "filter": {"n": 99}}),
        ("search", (("pets",),), {"query": ""}),  # an empty query ranks nothing
        ("search", (("pets",),), {}),
        ("search", (("nothing",),), {"query": "cat"}),
    ],
    "updates-and-deletes": [
        ("put", (("notes",), "a", {"text": "cat"}), {}),
        ("put", (("notes",), "b", {"text": "dog"}), {}),
        ("search", (("notes",),), {"query": "dog"}),
        ("put", (("notes",), "a", {"text": "dog dog"}), {}),  # re-embedded
        ("search", (("notes",),), {"query": "dog"}),
        ("delete", (("notes",), "b"), {}),
        ("search", (("notes",),), {"query": "dog"}),
        ("put", (("notes",), "b", {"text": "bird"}), {}),
        ("search", (("notes",),), {"query": "bird"}),
        ("get", (("notes",), "a"), {}),
    ],
    "paths": [
        ("put", (("p",), "nested", {"a": {"b": "cat"}, "c": "dog"}), {"index": ["a.b"]}),
        ("put", (("p",), "group", {"a": {"b": "dog"}, "c": "bird"}), {"index": ["{a.b,c}"]}),
        (
            "put",
            (("p",), "first", {"items": [{"t": "bird"}, {"t": "cat"}]}),
            {"index": ["items[0].t"]},
        ),
        (
            "put",
            (("p",), "last", {"items": [{"t": "bird"}, {"t": "cat"}]}),
            {"index": ["items[-1].t"]},
        ),
        (
            "put",
            (("p",), "each", {"items": [{"t": "bird"}, {"t": "dog"}]}),
            {"index": ["items[*].t"]},
        ),
        ("put", (("p",), "star", {"x": "cat", "y": "dog dog"}), {"index": ["*"]}),
        (
            "put",
            (("p",), "number", {"n": 7, "flag": True, "list": ["cat"]}),
            {"index": ["n", "flag", "list"]},
        ),
        ("put", (("p",), "missing", {"a": {}}), {"index": ["a.b", "items[3]"]}),
        ("put", (("p",), "empty", {"text": "cat"}), {"index": []}),
        ("search", (("p",),), {"query": "cat"}),
        ("search", (("p",),), {"query": "dog"}),
        ("search", (("p",),), {"query": "bird", "limit": 20}),
    ],
    "default-fields-whole-value": [
        ("put", (("w",), "a", {"text": "cat", "tag": "dog"}), {}),
        ("put", (("w",), "b", {"zeta": "bird", "alpha": "cat"}), {}),
        ("search", (("w",),), {"query": "dog"}),
    ],
}
FIELDS = {"default-fields-whole-value": None}


def run_script(store: Any, script: list[tuple[str, tuple, dict]], run_async: bool) -> list[Any]:
    observed = []
    for verb, args, kwargs in script:
        if run_async:
            result = asyncio.run(getattr(store, "a" + verb)(*args, **kwargs))
        else:
            result = getattr(store, verb)(*args, **kwargs)
        observed.append(plain(result))
    return observed


def run(library: str, script: str, embed_kind: str, run_async: bool, tmp_path: Any) -> Any:
    recorder = Recorder()
    fields = FIELDS.get(script, ["text"])
    index = {"dims": 4, "embed": recorder.embed(embed_kind), "fields": fields}
    store = make_store(library, index, tmp_path)
    return run_script(store, SCRIPTS[script], run_async), sorted(recorder.calls)


def assert_same(actual: Any, expected: Any) -> None:
    """Equal, except that scores (floats) may differ by 1e-9."""
    assert _same(actual, expected), f"\n  graphkit:  {actual}\n  langgraph: {expected}"


def _same(actual: Any, expected: Any) -> bool:
    if isinstance(expected, float) and isinstance(actual, float):
        return abs(actual - expected) <= 1e-9
    if isinstance(expected, list | tuple):
        return (
            type(actual) is type(expected)
            and len(actual) == len(expected)
            and all(_same(a, e) for a, e in zip(actual, expected, strict=True))
        )
    return actual == expected


@pytest.mark.parametrize(
    ("embed_kind", "run_async"),
    [
        ("function", False),
        ("embeddings", False),
        ("function", True),
        ("async", True),
        ("embeddings", True),
    ],
    ids=["sync-function", "sync-embeddings", "async-function", "async-async", "async-embeddings"],
)
@pytest.mark.parametrize("kind", GRAPHKIT_STORES)
@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_semantic_search_matches_langgraph(script, kind, embed_kind, run_async, tmp_path):
    expected = run("langgraph", script, embed_kind, run_async, tmp_path / "oracle")
    actual = run(kind, script, embed_kind, run_async, tmp_path)
    assert_same(actual[0], expected[0])
    assert actual[1] == expected[1]  # the embedder saw the same texts
    assert any(
        item[3] is not None for result in expected[0] if isinstance(result, list) for item in result
    )


@pytest.mark.parametrize("kind", GRAPHKIT_STORES)
def test_a_batch_embeds_once_and_reads_before_it_writes(kind, tmp_path):
    from langgraph.store.base import PutOp as LangGraphPut
    from langgraph.store.base import SearchOp as LangGraphSearch

    from graphkit.store.base import PutOp, SearchOp

    observed = []
    for library, put, search in (
        ("langgraph", LangGraphPut, LangGraphSearch),
        (kind, PutOp, SearchOp),
    ):
        recorder = Recorder()
        index = {"dims": 4, "embed": recorder.sync, "fields": ["text"]}
        store = make_store(library, index, tmp_path)
        store.put(("n",), "old", {"text": "bird"})
        ops = [
            put(("n",), "a", {"text": "cat"}),
            search(("n",), query="cat"),
            put(("n",), "b", {"text": "cat"}),  # the same text: embedded once
            put(("n",), "a", {"text": "dog"}),  # the last put of 'a' is the one embedded
        ]
        results = [plain(result) for result in store.batch(ops)]
        after = plain(store.search(("n",), query="dog"))
        observed.append((results, after, recorder.calls[1:]))
    assert_same(observed[1][:2], observed[0][:2])
    assert sorted(observed[1][2]) == sorted(observed[0][2])


@pytest.mark.parametrize("kind", ("langgraph", *GRAPHKIT_STORES))
def test_without_an_index_a_query_ranks_nothing(kind, tmp_path):
    store = make_store(kind, None, tmp_path)
    store.put(("n",), "a", {"text": "cat"}, index=["text"])  # ignored without an index
    store.put(("n",), "b", {"text": "dog"}, index=False)
    found = store.search(("n",), query="cat")
    assert [(item.key, item.score) for item in found] == [("a", None), ("b", None)]


@pytest.mark.parametrize("kind", ("langgraph", *GRAPHKIT_STORES))
def test_an_async_embedder_refuses_the_sync_verbs(kind, tmp_path):
    recorder = Recorder()
    store = make_store(kind, {"dims": 4, "embed": recorder.async_}, tmp_path)
    with pytest.raises(ValueError, match="async"):
        store.put(("n",), "a", {"text": "cat"})
    assert store.get(("n",), "a") is None


def test_scores_match_langgraphs_sqlite_store(tmp_path):
    """LangGraph's SqliteStore (with sqlite-vec, float32 vectors) against graphkit's, on
    what both do alike: every item embedded whole (it reads 'text_fields', not
    'fields'), a first page."""
    from langgraph.store.sqlite import SqliteStore as LangGraphSqliteStore

    from graphkit.store.sqlite import SqliteStore

    connection = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    if not hasattr(connection, "enable_load_extension"):
        pytest.skip("this Python's sqlite3 cannot load sqlite-vec (LangGraph's vector search)")
    index = {"dims": 4, "embed": Recorder().sync}
    oracle = LangGraphSqliteStore(connection, index=index)
    oracle.setup()
    observed = []
    for store in (oracle, SqliteStore(tmp_path / "s.db", index=index)):
        for key, text in (("a", "cat cat"), ("b", "dog"), ("c", "cat dog bird")):
            store.put(("n",), key, {"text": text})
        found = store.search(("n",), query="dog", limit=3)
        observed.append([(item.key, item.score) for item in found])
    assert [key for key, _ in observed[1]] == [key for key, _ in observed[0]]
    assert [score for _, score in observed[1]] == pytest.approx(
        [score for _, score in observed[0]], abs=1e-6
    )
