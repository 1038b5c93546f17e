"""The low-level ``Pregel``'s options beyond nodes and channels (issue 15, item 5): a node
cache (``cache=``, ``cache_policy=``, ``NodeBuilder.add_cache_policy``), node timeouts
(``NodeBuilder.set_timeout``) and ``step_timeout``, ``copy`` / ``with_config``, and a
``Pregel`` used as a node of a ``StateGraph``: the same program on LangGraph and graphkit
gives the same results, chunks and calls."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from types import ModuleType
from typing import Any, TypedDict

import pytest
from langchain_core.runnables import RunnableConfig

from .harness import canonical, normalise_stream, tidy

LIBRARIES = ("langgraph", "graphkit")


@dataclass(frozen=True)
class Side:
    Pregel: Any
    NodeBuilder: Any
    channels: ModuleType
    InMemoryCache: Any
    CachePolicy: Any
    NodeTimeoutError: Any
    StateGraph: Any
    START: Any


def side(library: str) -> Side:
    if library == "langgraph":
        import langgraph.channels as channels
        from langgraph.cache.memory import InMemoryCache
        from langgraph.errors import NodeTimeoutError
        from langgraph.graph import START, StateGraph
        from langgraph.pregel import NodeBuilder, Pregel
        from langgraph.types import CachePolicy
    else:
        import graphkit.channels as channels
        from graphkit import START, StateGraph
        from graphkit.cache.memory import InMemoryCache
        from graphkit.errors import NodeTimeoutError
        from graphkit.pregel import NodeBuilder, Pregel
        from graphkit.types import CachePolicy
    return Side(Pregel, NodeBuilder, channels, InMemoryCache, CachePolicy, NodeTimeoutError,
                StateGraph, START)  # fmt: skip


def doubling(lib: Side, calls: list[int], node: Any = None, **options: Any) -> Any:
    def double(x: int) -> int:
        calls.append(x)
        return x * 2

    node = node or lib.NodeBuilder().subscribe_only("a").do(double).write_to("b")
    channels = {"a": lib.channels.EphemeralValue(int), "b": lib.channels.LastValue(int)}
    return lib.Pregel(nodes={"double": node}, channels=channels, input_channels="a",
                      output_channels="b", **options)  # fmt: skip


def seen(app: Any, given: Any, **kwargs: Any) -> list[str]:
    chunks = app.stream(given, stream_mode=["updates", "values", "tasks"], **kwargs)
    return normalise_stream(tidy(chunks))


@pytest.mark.parametrize("where", ["graph", "node"])
def test_a_cache_serves_the_second_run(where):
    def observed(library: str) -> list:
        lib, calls = side(library), []
        if where == "graph":
            app = doubling(lib, calls, cache=lib.InMemoryCache(), cache_policy=lib.CachePolicy())
        else:
            node = lib.NodeBuilder().subscribe_only("a").do(lambda x: calls.append(x) or x * 2)
            node = node.write_to("b").add_cache_policy(lib.CachePolicy())
            app = doubling(lib, calls, node, cache=lib.InMemoryCache())
        return [app.invoke(3), seen(app, 3), app.invoke(4), calls]

    assert observed("graphkit") == observed("langgraph")


def test_a_node_timeout_and_a_step_timeout_fail_alike():
    async def slow(x: int) -> int:
        await asyncio.sleep(0.5)
        return x

    def observed(library: str) -> list[str]:
        lib = side(library)
        timed = lib.NodeBuilder().subscribe_only("a").do(slow).write_to("b").set_timeout(0.05)
        outcomes = []
        for app in (doubling(lib, [], timed),
                    doubling(lib, [], lib.NodeBuilder().subscribe_only("a").do(slow).write_to("b"),
                             step_timeout=0.05)):  # fmt: skip
            try:
                asyncio.run(app.ainvoke(1))
            except Exception as error:
                outcomes.append(type(error).__name__)
        return outcomes

    assert observed("graphkit") == observed("langgraph") == ["NodeTimeoutError", "TimeoutError"]


def test_a_sync_node_with_a_timeout_is_refused_alike():
    for library in LIBRARIES:
        lib = side(library)
        timed = lib.NodeBuilder().subscribe_only("a").do(lambda x: x).write_to("b").set_timeout(1)
        with pytest.raises(ValueError, match="only supported for async nodes"):
            doubling(lib, [], timed).invoke(1)


def test_the_options_read_back_alike():
    def observed(library: str) -> list:
        app = doubling(side(library), [], step_timeout=2.0, stream_eager=True)
        copied = app.copy({"step_timeout": 5.0})
        return [app.step_timeout, app.stream_eager, dict(app.trigger_to_nodes),
                copied.step_timeout, type(copied).__name__, copied.invoke(2)]  # fmt: skip

    assert observed("graphkit") == observed("langgraph")


@pytest.mark.parametrize("given", [{}, {"interrupt_before_nodes": ["double"],
                                   "interrupt_after_nodes": "*", "name": "mine"}])  # fmt: skip
@pytest.mark.parametrize("policy", ["none", "one", "two"])
def test_what_pregel_was_given_reads_back_alike(given, policy):
    def observed(library: str) -> list:
        from langgraph.types import RetryPolicy as Theirs

        from graphkit.types import RetryPolicy as Ours

        made = Ours if library == "graphkit" else Theirs
        policies = {"none": (), "one": made(max_attempts=2), "two": [made(), made()]}[policy]
        app = doubling(side(library), [], retry_policy=policies, **given)
        return [app.input_channels, app.output_channels, app.stream_channels,
                app.interrupt_before_nodes, app.interrupt_after_nodes, app.get_name("x"),
                [(p.max_attempts, p.initial_interval) for p in app.retry_policy]]  # fmt: skip

    assert observed("graphkit") == observed("langgraph")


def test_with_config_gives_every_run_its_defaults():
    def observed(library: str) -> list:
        lib = side(library)

        def tagged(x: int, config: RunnableConfig) -> str:
            return f"{x}:{config['configurable'].get('user')}:{sorted(config.get('tags', []))}"

        node = lib.NodeBuilder().subscribe_only("a").do(tagged).write_to("b")
        app = doubling(lib, [], node).with_config(configurable={"user": "ada"}, tags=["t1"])
        again = app.invoke(2, {"tags": ["t1", "t2"]})  # (a tag given twice is kept twice)
        return [app.invoke(1), again, app.config.get("configurable")]

    ours, theirs = observed("graphkit"), observed("langgraph")
    assert ours == theirs


def test_a_pregel_made_with_a_config_gives_every_run_its_defaults():
    def observed(library: str) -> list:
        lib = side(library)

        def tagged(x: int, config: RunnableConfig) -> str:
            return f"{x}:{config['configurable'].get('user')}:{config.get('recursion_limit')}"

        node = lib.NodeBuilder().subscribe_only("a").do(tagged).write_to("b")
        config = {"configurable": {"user": "ada"}, "recursion_limit": 7}
        app = doubling(lib, [], node, config=config)
        given = app.invoke(2, {"configurable": {"user": "bo"}})
        again = app.with_config(recursion_limit=9).invoke(3)
        return [app.invoke(1), given, again, app.config]

    assert observed("graphkit") == observed("langgraph")


class Outer(TypedDict):
    x: int
    x_out: int


@pytest.mark.parametrize("run_async", [False, True], ids=["sync", "async"])
def test_a_pregel_is_a_node_of_a_state_graph(run_async):
    def observed(library: str) -> list:
        lib = side(library)
        node = lib.NodeBuilder().subscribe_only("x").do(lambda x: x * 10).write_to("x_out")
        inner = lib.Pregel(
            nodes={"times_ten": node},
            channels={"x": lib.channels.EphemeralValue(int), "x_out": lib.channels.LastValue(int)},
            input_channels=["x"],
            output_channels=["x_out"],
        )
        app = lib.StateGraph(Outer).add_node("inner", inner).add_edge(lib.START, "inner").compile()
        if run_async:
            return [asyncio.run(app.ainvoke({"x": 3}))]
        chunks = app.stream({"x": 3}, stream_mode="updates", subgraphs=True)
        return [app.invoke({"x": 3}), canonical(tidy([(ns, "updates", c) for ns, c in chunks]))]

    assert observed("graphkit") == observed("langgraph")
