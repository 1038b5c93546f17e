"""Graphs run inside a node, and streams closed early, on both libraries: a graph
invoked in a node gets the node's config (thread, ``configurable`` keys, tags,
metadata); a sync ``invoke`` of a graph with an ``async def`` node, from an async node,
raises LangGraph's ``TypeError`` (it used to hang); and a stream closed early under
``durability="exit"`` saves where it was, so ``invoke(None)`` goes on."""

import asyncio
import operator
import threading
import time
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.runnables import RunnableConfig

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import _memory_saver

LIBS = [load_langgraph, load_graphkit]


class Seen(TypedDict):
    seen: dict


class Log(TypedDict):
    log: Annotated[list, operator.add]


def _looking(lib: Lib) -> Any:
    def look(state: Seen) -> dict[str, Any]:
        config = lib.get_config()
        configurable = config["configurable"]
        return {
            "seen": {
                "thread_id": configurable.get("thread_id"),
                "user": configurable.get("user"),
                "tags": config.get("tags"),
                "metadata": config.get("metadata", {}).get("k"),
            }
        }

    return look


@pytest.mark.parametrize("how", ["sync", "async", "as-node"])
def test_a_graph_invoked_in_a_node_gets_the_nodes_config(how: str) -> None:
    config = {
        "configurable": {"thread_id": "t", "user": "ada"},
        "tags": ["T"],
        "metadata": {"k": "v"},
    }
    seen = []
    for load in LIBS:
        lib = load()
        inner = lib.StateGraph(Seen).add_node("look", _looking(lib))
        sub = inner.add_edge(lib.START, "look").compile()

        async def call_async(state: Seen, sub: Any = sub) -> dict[str, Any]:
            return {"seen": (await sub.ainvoke(state))["seen"]}

        def call(state: Seen, sub: Any = sub) -> dict[str, Any]:
            return {"seen": sub.invoke(state)["seen"]}

        node = {"sync": call, "async": call_async, "as-node": sub}[how]
        outer = lib.StateGraph(Seen).add_node("call", node).add_edge(lib.START, "call")
        app = outer.compile()
        given = {"seen": {}}
        result = (
            asyncio.run(app.ainvoke(given, config)) if how == "async" else app.invoke(given, config)
        )
        seen.append(result["seen"])
    assert seen[0] == seen[1] == {"thread_id": "t", "user": "ada", "tags": ["T"], "metadata": "v"}


def test_a_sync_invoke_of_an_async_graph_inside_an_async_node_raises() -> None:
    """LangGraph: a sync run cannot run an ``async def`` node (``TypeError``). graphkit's
    inner run waited for the event loop its own caller was holding, for ever."""
    raised = []
    for load in LIBS:
        lib = load()

        async def plus(state: dict) -> dict:
            return {"x": state["x"] + 1}

        inner = lib.StateGraph(TypedDict("X", {"x": int})).add_node("plus", plus)
        inner = inner.add_edge(lib.START, "plus").compile()

        async def call(state: dict, inner: Any = inner) -> dict:
            return inner.invoke(state)

        outer = lib.StateGraph(TypedDict("X", {"x": int})).add_node("call", call)
        app = outer.add_edge(lib.START, "call").compile()
        raised.append(_outcome_within(lambda app=app: asyncio.run(app.ainvoke({"x": 1}))))
    assert raised == ["TypeError", "TypeError"]


def _outcome_within(run: Any, seconds: float = 30) -> str:
    """The class name of what ``run()`` raised, in a daemon thread, or "hung" (a run
    that waits for the event loop its caller holds never ends: the test must)."""
    outcome = ["hung"]

    def target() -> None:
        try:
            run()
            outcome[0] = "returned"
        except Exception as error:
            outcome[0] = type(error).__name__

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(seconds)
    return outcome[0]


def _chain(lib: Lib, saver: Any, asynchronous: bool) -> Any:
    if asynchronous:

        async def a(state: Log) -> dict:
            return {"log": ["a"]}

        async def b(state: Log) -> dict:
            await asyncio.sleep(0.2)
            return {"log": ["b"]}
    else:

        def a(state: Log) -> dict:
            return {"log": ["a"]}

        def b(state: Log) -> dict:
            time.sleep(0.2)  # (still running when the stream closes: not a timing assertion)
            return {"log": ["b"]}

    builder = lib.StateGraph(Log).add_node("a", a).add_node("b", b)
    builder.add_node("c", lambda state: {"log": ["c"]})
    builder.add_edge(lib.START, "a").add_edge("a", "b").add_edge("b", "c")
    return builder.compile(checkpointer=saver)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["stream", "astream"])
def test_a_stream_closed_early_under_exit_durability_saves_where_it_was(
    asynchronous: bool,
) -> None:
    config = {"configurable": {"thread_id": "t"}}
    seen = []
    for load in LIBS:
        lib = load()
        with _memory_saver(lib.name) as saver:
            app = _chain(lib, saver, asynchronous)
            options = {"stream_mode": "updates", "durability": "exit"}
            if asynchronous:

                async def first_then_close(app: Any = app, options: dict = options) -> Any:
                    chunks = app.astream({"log": []}, config, **options)
                    first = await chunks.__anext__()
                    await chunks.aclose()
                    return first

                first = asyncio.run(first_then_close())
            else:
                chunks = app.stream({"log": []}, config, **options)
                first = next(chunks)
                chunks.close()
            state = app.get_state(config)
            rest = (
                asyncio.run(_collect(app, config))
                if asynchronous
                else list(app.stream(None, config, stream_mode="updates"))
            )
            seen.append((first, state.values, state.next, rest))
    assert seen[0] == seen[1]
    assert seen[1][1:3] == ({"log": ["a"]}, ("b",))


async def _collect(app: Any, config: Any) -> list[Any]:
    return [chunk async for chunk in app.astream(None, config, stream_mode="updates")]


class Count(TypedDict):
    x: int


def test_a_graph_run_in_a_node_on_a_thread_of_its_own_is_a_run_of_its_own() -> None:
    """A config naming its own ``thread_id`` addresses its own checkpoints: the graph runs
    as a root graph, with its own saver, store and thread, not as the task's subgraph."""
    seen = []
    for load in LIBS:
        lib = load()
        Store = __import__(f"{lib.name}.store.memory", fromlist=["InMemoryStore"]).InMemoryStore
        stores: list[Any] = []
        with _memory_saver(lib.name) as own_saver, _memory_saver(lib.name) as outer_saver:

            def plus(
                state: Count, store, stores: list = stores
            ) -> dict:  # (LangGraph: unannotated)
                stores.append(type(store).__name__)
                return {"x": state["x"] + 1}

            other = lib.StateGraph(Count).add_node("plus", plus).add_edge(lib.START, "plus")
            other = other.compile(checkpointer=own_saver, store=Store())

            def call(state: Count, other: Any = other) -> dict:
                return other.invoke(state, {"configurable": {"thread_id": "other"}})

            app = lib.StateGraph(Count).add_node("call", call).add_edge(lib.START, "call")
            app = app.compile(checkpointer=outer_saver)
            app.invoke({"x": 1}, {"configurable": {"thread_id": "main"}})
            threads = sorted({t.config["configurable"]["thread_id"] for t in own_saver.list(None)})
            namespaces = sorted(
                {t.config["configurable"]["checkpoint_ns"] for t in outer_saver.list(None)}
            )
            mine = other.get_state({"configurable": {"thread_id": "other"}}).values
            seen.append((stores, threads, namespaces, mine))
    assert seen[0] == seen[1] == (["InMemoryStore"], ["other"], [""], {"x": 2})


def test_a_partial_config_given_in_a_node_is_merged_over_the_nodes() -> None:
    seen = []
    for load in LIBS:
        lib = load()
        found: dict[str, Any] = {}

        def look(state: Count, config: RunnableConfig, found: dict = found) -> dict:
            found["configurable"] = {
                key: config["configurable"].get(key) for key in ("user", "extra", "thread_id")
            }
            found["tags"] = sorted(tag for tag in config.get("tags", []) if ":" not in tag)
            found["metadata"] = {key: config["metadata"].get(key) for key in ("owner", "m")}
            return {"x": state["x"] + 1}

        inner = lib.StateGraph(Count).add_node("look", look).add_edge(lib.START, "look").compile()
        given = {"configurable": {"extra": 1}, "tags": ["mine"], "metadata": {"m": 1}}

        def call(state: Count, inner: Any = inner, given: dict = given) -> dict:
            return inner.invoke(state, given)

        app = lib.StateGraph(Count).add_node("call", call).add_edge(lib.START, "call").compile()
        config = {
            "configurable": {"thread_id": "t", "user": "u"},
            "tags": ["outer"],
            "metadata": {"owner": "me"},
        }
        app.invoke({"x": 1}, config)
        seen.append(found)
    assert seen[0] == seen[1]
    assert seen[1]["configurable"] == {"user": "u", "extra": 1, "thread_id": "t"}
