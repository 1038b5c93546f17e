"""Node caching (issue 15, item 1): ``add_node(..., cache_policy=CachePolicy(...))`` with
``compile(cache=...)``, as in LangGraph 1.2. The same graph runs on both libraries; they
must agree on the results, on which tasks ran (counted calls), on the stream chunks
(a cached task's update carries ``"__metadata__": {"cached": True}``, and it has no
task result in "tasks"/"debug"), with both caches, sync and async, with TTLs,
``clear_cache`` and key functions."""

from __future__ import annotations

import asyncio
import operator
import time
from typing import Annotated, Any, TypedDict

import pytest

from .harness import load_graphkit, load_langgraph


class State(TypedDict):
    x: int
    note: str
    log: Annotated[list, operator.add]


def cache_names(library: str) -> tuple[Any, Any, Any]:
    """``(CachePolicy, InMemoryCache, SqliteCache)`` of one library."""
    if library == "langgraph":
        from langgraph.cache.memory import InMemoryCache
        from langgraph.cache.sqlite import SqliteCache
        from langgraph.types import CachePolicy
    else:
        from graphkit.cache.memory import InMemoryCache
        from graphkit.cache.sqlite import SqliteCache
        from graphkit.types import CachePolicy
    return CachePolicy, InMemoryCache, SqliteCache


def make_cache(library: str, kind: str, tmp_path: Any) -> Any:
    _, memory, sqlite = cache_names(library)
    if kind == "memory":
        return memory()
    return sqlite(path=str(tmp_path / f"{library}-cache.db"))


LIBRARIES = ("langgraph", "graphkit")
CACHES = ("memory", "sqlite")


def chain(library: str, calls: list[str], *, policy: dict | None = None, **compile_: Any):
    """START -> a (cached) -> b (not cached) -> a router that ends."""
    lib = load_langgraph() if library == "langgraph" else load_graphkit()
    CachePolicy = cache_names(library)[0]

    def a(state: State) -> dict:
        calls.append("a")
        return {"x": state["x"] + 1, "log": ["a"]}

    def b(state: State) -> dict:
        calls.append("b")
        return {"log": ["b"]}

    builder = lib.StateGraph(State)
    builder.add_node("a", a, cache_policy=CachePolicy(**(policy or {})))
    builder.add_node("b", b)
    builder.add_edge(lib.START, "a").add_edge("a", "b")
    builder.add_conditional_edges("b", lambda state: lib.END)
    return builder.compile(**compile_)


def plain(chunk: Any) -> Any:
    """A stream chunk without what differs by design between runs (ids, timestamps)."""
    if isinstance(chunk, tuple):
        return tuple(plain(part) for part in chunk)
    if isinstance(chunk, dict):
        return {k: plain(v) for k, v in chunk.items() if k not in ("id", "timestamp")}
    return chunk


def observe_runs(library: str, cache_kind: str, tmp_path: Any, inputs: list[dict], **kw: Any):
    calls: list[str] = []
    app = chain(library, calls, cache=make_cache(library, cache_kind, tmp_path), **kw)
    results = [app.invoke(value) for value in inputs]
    return results, calls


INPUT = {"x": 1, "note": "n", "log": []}


@pytest.mark.parametrize("cache_kind", CACHES)
def test_a_second_run_with_the_same_input_is_served_from_the_cache(cache_kind, tmp_path):
    inputs = [INPUT, INPUT, {**INPUT, "x": 2}, INPUT]
    expected = observe_runs("langgraph", cache_kind, tmp_path, inputs)
    assert observe_runs("graphkit", cache_kind, tmp_path, inputs) == expected
    assert expected[1] == ["a", "b", "b", "a", "b", "b"]  # a ran for x=1 once, x=2 once


@pytest.mark.parametrize("modes", ["updates", ["updates", "values"], ["tasks", "debug"]])
def test_stream_chunks_mark_a_cached_task_as_langgraph_does(modes, tmp_path):
    def chunks(library: str) -> list[Any]:
        app = chain(library, [], cache=make_cache(library, "memory", tmp_path))
        first = [plain(c) for c in app.stream(INPUT, stream_mode=modes)]
        second = [plain(c) for c in app.stream(INPUT, stream_mode=modes)]
        return [first, second]

    expected = chunks("langgraph")
    assert chunks("graphkit") == expected
    if modes == "updates":
        assert expected[1][0] == {"a": {"x": 2, "log": ["a"]}, "__metadata__": {"cached": True}}


@pytest.mark.parametrize("cache_kind", CACHES)
def test_async_runs_agree(cache_kind, tmp_path):
    async def observe(library: str) -> Any:
        calls: list[str] = []
        app = chain(library, calls, cache=make_cache(library, cache_kind, tmp_path))
        first = await app.ainvoke(INPUT)
        chunks = [c async for c in app.astream(INPUT, stream_mode="updates")]
        await app.aclear_cache()
        third = await app.ainvoke(INPUT)
        return first, chunks, third, calls

    expected = asyncio.run(observe("langgraph"))
    assert asyncio.run(observe("graphkit")) == expected
    assert expected[3] == ["a", "b", "b", "a", "b"]


@pytest.mark.parametrize("cache_kind", CACHES)
def test_an_entry_expires_after_its_ttl(cache_kind, tmp_path):
    def observe(library: str) -> list[str]:
        calls: list[str] = []
        cache = make_cache(library, cache_kind, tmp_path)
        app = chain(library, calls, policy={"ttl": 0.3}, cache=cache)
        app.invoke(INPUT)
        app.invoke(INPUT)  # served
        time.sleep(0.45)
        app.invoke(INPUT)  # expired: runs again
        return calls

    expected = observe("langgraph")
    assert observe("graphkit") == expected == ["a", "b", "b", "a", "b"]


@pytest.mark.parametrize("cache_kind", CACHES)
def test_clear_cache_for_some_nodes_or_all(cache_kind, tmp_path):
    def observe(library: str) -> list[str]:
        calls: list[str] = []
        app = chain(library, calls, cache=make_cache(library, cache_kind, tmp_path))
        app.invoke(INPUT)
        app.clear_cache(["b"])  # b caches nothing: a is still served
        app.invoke(INPUT)
        app.clear_cache(["a"])
        app.invoke(INPUT)
        app.clear_cache()
        app.invoke(INPUT)
        return calls

    expected = observe("langgraph")
    assert observe("graphkit") == expected
    assert expected.count("a") == 3


@pytest.mark.parametrize("library", LIBRARIES)
def test_clear_cache_without_a_cache_is_a_value_error(library):
    app = chain(library, [])
    with pytest.raises(ValueError, match="No cache is set for this graph"):
        app.clear_cache()
    with pytest.raises(ValueError, match="No cache is set for this graph"):
        asyncio.run(app.aclear_cache())


@pytest.mark.parametrize("library", LIBRARIES)
def test_without_a_cache_a_policy_does_nothing(library):
    calls: list[str] = []
    app = chain(library, calls)
    app.invoke(INPUT), app.invoke(INPUT)
    assert calls == ["a", "b"] * 2


def test_a_key_function_decides_what_counts_as_the_same_input(tmp_path):
    def observe(library: str) -> Any:
        calls: list[str] = []
        policy = {"key_func": lambda state: str(state["x"])}  # the note does not matter
        app = chain(library, calls, policy=policy, cache=make_cache(library, "memory", tmp_path))
        results = [app.invoke({**INPUT, "note": note}) for note in ("p", "q")]
        return results, calls

    expected = observe("langgraph")
    assert observe("graphkit") == expected
    assert expected[1] == ["a", "b", "b"]


def test_the_default_key_ignores_key_order(tmp_path):
    def observe(library: str) -> list[str]:
        calls: list[str] = []
        app = chain(library, calls, cache=make_cache(library, "memory", tmp_path))
        app.invoke({"x": 1, "note": "n", "log": []})
        app.invoke({"log": [], "note": "n", "x": 1})
        return calls

    assert observe("graphkit") == observe("langgraph") == ["a", "b", "b"]


def _inner_value_runs(library: str, values: list[Any]) -> list[str]:
    """How many times a cached node ran for a state key holding each of ``values``."""
    policy, memory, _ = cache_names(library)
    lib = load_graphkit() if library == "graphkit" else load_langgraph()

    class Holding(TypedDict):
        v: Any

    calls: list[str] = []
    builder = lib.StateGraph(Holding)
    builder.add_node("n", lambda state: calls.append(repr(state["v"])), cache_policy=policy())
    builder.add_edge(lib.START, "n")
    app = builder.compile(cache=memory())
    for value in values:
        app.invoke({"v": value})
    return calls


@pytest.mark.parametrize(
    "values",
    [[{"a": 1, "b": 2}, {"b": 2, "a": 1}], [[1, 2], (1, 2)]],
    ids=["inner-key-order", "list-then-tuple"],
)
def test_the_default_key_reads_values_as_compatibility_md_says(values):
    """A known difference: graphkit's key sorts a mapping's keys and reads a list as a
    tuple at every depth; LangGraph's pickles the input as it is, so both miss there."""
    assert _inner_value_runs("langgraph", values) == [repr(v) for v in values]
    assert _inner_value_runs("graphkit", values) == [repr(values[0])]


def fan_out(library: str, calls: list[str], cache: Any) -> Any:
    """Send one ``work`` task per item; ``work`` is cached by its packet."""
    lib = load_langgraph() if library == "langgraph" else load_graphkit()
    CachePolicy = cache_names(library)[0]

    class Fan(TypedDict):
        items: list[int]
        done: Annotated[list, operator.add]

    def work(packet: dict) -> dict:
        calls.append(f"work{packet['item']}")
        return {"done": [packet["item"] * 10]}

    builder = lib.StateGraph(Fan)
    builder.add_node("work", work, cache_policy=CachePolicy())
    route = lambda state: [lib.Send("work", {"item": i}) for i in state["items"]]  # noqa: E731
    builder.add_conditional_edges(lib.START, route, ["work"])
    return builder.compile(cache=cache)


def test_sent_tasks_are_cached_by_their_packet(tmp_path):
    def observe(library: str) -> Any:
        calls: list[str] = []
        app = fan_out(library, calls, make_cache(library, "memory", tmp_path))
        first = app.invoke({"items": [1, 2], "done": []})
        chunks = [plain(c) for c in app.stream({"items": [2, 3], "done": []})]
        return first, chunks, calls

    expected = observe("langgraph")
    assert observe("graphkit") == expected
    assert expected[2] == ["work1", "work2", "work3"]


def test_a_failed_task_is_not_cached(tmp_path):
    def observe(library: str) -> Any:
        lib = load_langgraph() if library == "langgraph" else load_graphkit()
        CachePolicy = cache_names(library)[0]
        calls: list[str] = []

        def shaky(state: State) -> dict:
            calls.append("shaky")
            if len(calls) == 1:
                raise RuntimeError("first call fails")
            return {"log": ["ok"]}

        builder = lib.StateGraph(State).add_node("shaky", shaky, cache_policy=CachePolicy())
        app = builder.add_edge(lib.START, "shaky").compile(
            cache=make_cache(library, "memory", tmp_path)
        )
        outcomes = []
        for _ in range(3):
            try:
                outcomes.append(app.invoke(INPUT))
            except RuntimeError as error:
                outcomes.append(str(error))
        return outcomes, calls

    expected = observe("langgraph")
    assert observe("graphkit") == expected
    assert expected[1] == ["shaky", "shaky"]


def test_set_node_defaults_gives_nodes_without_one_a_cache_policy(tmp_path):
    def observe(library: str) -> list[str]:
        lib = load_langgraph() if library == "langgraph" else load_graphkit()
        CachePolicy = cache_names(library)[0]
        calls: list[str] = []
        builder = lib.StateGraph(State).set_node_defaults(cache_policy=CachePolicy())
        builder.add_node("a", lambda s: calls.append("a") or {"log": ["a"]})
        builder.add_edge(lib.START, "a")
        app = builder.compile(cache=make_cache(library, "memory", tmp_path))
        app.invoke(INPUT), app.invoke(INPUT)
        return calls

    assert observe("graphkit") == observe("langgraph") == ["a"]


def test_with_a_checkpointer_the_thread_history_agrees(tmp_path):
    def observe(library: str) -> Any:
        if library == "langgraph":
            from langgraph.checkpoint.memory import InMemorySaver
        else:
            from graphkit import InMemorySaver
        calls: list[str] = []
        cache = make_cache(library, "memory", tmp_path)
        app = chain(library, calls, cache=cache, checkpointer=InMemorySaver())
        for thread in ("1", "2"):
            app.invoke(INPUT, {"configurable": {"thread_id": thread}})
        history = app.get_state_history({"configurable": {"thread_id": "2"}})
        return calls, [(s.values, s.next, s.metadata["step"]) for s in history]

    expected = observe("langgraph")
    assert observe("graphkit") == expected
    assert expected[0] == ["a", "b", "b"]


# -- what graphkit records (LangGraph has no records to compare) -----------------------------


def test_the_records_say_which_tasks_the_cache_served():
    from graphkit.cache.memory import InMemoryCache

    app = chain("graphkit", [], cache=InMemoryCache())
    first, second = app.trace(INPUT), app.trace(INPUT)
    served = [
        (r.task.node, r.cached) for s in second.steps if s.execution for r in s.execution.results
    ]
    assert served == [("__input__", False), ("__start__", False), ("a", True), ("b", False)]
    assert not any(r.cached for s in first.steps if s.execution for r in s.execution.results)
    result = second.step(1).execution.results[0]
    assert (
        result.attempts == 0
        and repr(result) == "TaskResult(node='a', writes=['x', 'log', 'branch:to:b'], cached=True)"
    )
    assert second.values == first.values


def test_graphkit_refuses_a_bad_policy_or_cache_with_the_fix():
    lib = load_graphkit()
    with pytest.raises(
        TypeError, match=r"add_node\('a', ...\): cache_policy must be a CachePolicy"
    ):
        lib.StateGraph(State).add_node("a", lambda s: {}, cache_policy=3)
    with pytest.raises(TypeError, match=r"compile\(cache=...\) needs a cache"):
        chain("graphkit", [], cache=object())


def test_graphkit_refuses_the_class_of_a_policy_or_a_cache_where_an_instance_goes():
    # LangGraph fails when the node runs ("'member_descriptor' object is not callable",
    # "InMemoryCache.get() missing 1 required positional argument"); the class passes
    # the checks above, having their methods
    from graphkit.cache.memory import InMemoryCache
    from graphkit.types import CachePolicy

    lib = load_graphkit()
    with pytest.raises(TypeError, match=r"cache_policy=CachePolicy is the class; pass an inst"):
        lib.StateGraph(State).add_node("a", lambda s: {}, cache_policy=CachePolicy)
    with pytest.raises(TypeError, match=r"compile\(cache=InMemoryCache\) got the class; pass"):
        chain("graphkit", [], cache=InMemoryCache)


def test_a_key_function_must_return_text_or_bytes():
    from graphkit.cache.memory import InMemoryCache

    app = chain(
        "graphkit", [], policy={"key_func": lambda state: state["x"]}, cache=InMemoryCache()
    )
    with pytest.raises(
        TypeError, match="key_func returned int; a cache key must be a str or bytes"
    ):
        app.invoke(INPUT)


@pytest.mark.parametrize(
    ("module", "name", "langgraph_module"),
    [
        ("graphkit.types", "CachePolicy", "langgraph.types"),
        ("graphkit.cache.memory", "InMemoryCache", "langgraph.cache.memory"),
        ("graphkit.cache.sqlite", "SqliteCache", "langgraph.cache.sqlite"),
        ("graphkit.cache.base", "BaseCache", "langgraph.cache.base"),
    ],
)
def test_the_names_live_where_langgraph_keeps_them(module, name, langgraph_module):
    import importlib

    assert getattr(importlib.import_module(module), name) is not None
    assert getattr(importlib.import_module(langgraph_module), name) is not None


def test_langgraphs_cache_policy_defaults_are_graphkits():
    from langgraph.types import CachePolicy as Theirs

    from graphkit.types import CachePolicy as Ours

    assert Ours().ttl is Theirs().ttl is None
    assert [f for f in Ours.__dataclass_fields__] == [f for f in Theirs.__dataclass_fields__]


def test_a_key_function_that_raises_fails_the_run(tmp_path):
    def observe(library: str) -> Any:
        calls: list[str] = []
        policy = {"key_func": lambda state: state["missing"]}
        app = chain(library, calls, policy=policy, cache=make_cache(library, "memory", tmp_path))
        with pytest.raises(KeyError) as raised:
            app.invoke(INPUT)
        return raised.value.args, calls

    expected = observe("langgraph")
    assert observe("graphkit") == expected == (("missing",), [])


def test_writes_the_serializer_cannot_store_are_not_cached_and_graphkit_says_so():
    from graphkit.cache.memory import InMemoryCache
    from graphkit.errors import GraphkitWarning

    class Opaque:
        pass

    lib = load_graphkit()
    CachePolicy = cache_names("graphkit")[0]
    calls: list[str] = []
    builder = lib.StateGraph(State)
    builder.add_node(
        "a", lambda s: calls.append("a") or {"note": Opaque()}, cache_policy=CachePolicy()
    )
    app = builder.add_edge(lib.START, "a").compile(cache=InMemoryCache())
    with pytest.warns(GraphkitWarning, match=r"Node 'a' \(step 1\): its writes were not cached"):
        app.invoke(INPUT)
    with pytest.warns(GraphkitWarning):
        app.invoke(INPUT)
    assert calls == ["a", "a"]


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_task_that_wrote_nothing_is_cached_too(library):
    """docs/caching.md: a node that returns no update and has no edge out writes
    nothing, and that empty result is cached like any other, so the next call with the
    same input is served and the node does not run again."""
    lib = load_langgraph() if library == "langgraph" else load_graphkit()
    CachePolicy, InMemoryCache, _ = cache_names(library)
    calls = []

    def quiet(state: State) -> dict:
        calls.append("quiet")
        return {}

    builder = lib.StateGraph(State)
    builder.add_node("quiet", quiet, cache_policy=CachePolicy())
    builder.add_edge(lib.START, "quiet")
    app = builder.compile(cache=InMemoryCache())
    app.invoke({"x": 1})
    assert list(app.stream({"x": 1})) == [{"quiet": None, "__metadata__": {"cached": True}}]
    assert calls == ["quiet"]
