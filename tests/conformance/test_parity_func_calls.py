"""Where a called task sits, as LangGraph places it: its namespace is nested under its
caller's (in its config, its runtime, the chunks it streams and the graphs it runs), and
what a caller hands its calls (``previous``, the run's ``max_concurrency``, the cache a
graph was compiled with) reaches them too."""

from __future__ import annotations

import re
from typing import Any, TypedDict

from .func_programs import side
from .harness import load_graphkit, load_langgraph
from .scenarios import SAVERS

_IDS = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _shape(namespace: Any) -> Any:
    """A namespace with its task ids left out (they are random in both libraries)."""
    if isinstance(namespace, str):
        return _IDS.sub("<id>", namespace)
    return tuple(_shape(part) for part in namespace)


def _library(name: str) -> Any:
    return load_langgraph() if name == "langgraph" else load_graphkit()


def _get_config(name: str) -> Any:
    if name == "langgraph":
        from langgraph.config import get_config
    else:
        from graphkit.config import get_config
    return get_config


def _get_runtime(name: str) -> Any:
    if name == "langgraph":
        from langgraph.runtime import get_runtime
    else:
        from graphkit.runtime import get_runtime
    return get_runtime


class Count(TypedDict):
    x: int


def _nested_calls(name: str) -> dict[str, Any]:
    s, get_config = side(name), _get_config(name)
    seen: list[tuple[str, str]] = []

    @s.task
    def inner(x: int) -> int:
        seen.append(("inner", get_config()["configurable"]["checkpoint_ns"]))
        info = _get_runtime(name)().execution_info
        seen.append(("inner runtime", info.checkpoint_ns))
        s.get_stream_writer()("from inner")
        return x

    @s.task
    def outer(x: int) -> int:
        seen.append(("outer", get_config()["configurable"]["checkpoint_ns"]))
        s.get_stream_writer()("from outer")
        return inner(x).result()

    @s.entrypoint()
    def main(x: int) -> int:
        s.get_stream_writer()("from main")
        return outer(x).result()

    plain = list(main.stream(1, stream_mode="custom"))
    nested = list(main.stream(1, stream_mode="custom", subgraphs=True))
    lib = _library(name)
    builder = lib.StateGraph(Count).add_node(
        "node", lambda state: {"x": outer(state["x"]).result()}
    )
    graph = builder.add_edge(lib.START, "node").compile()
    from_node = list(graph.stream({"x": 1}, stream_mode="custom", subgraphs=True))
    return {
        "config and runtime namespaces": _shape(sorted(set(seen))),
        "custom chunks": plain,
        "custom chunks, subgraphs": [(_shape(ns), chunk) for ns, chunk in nested],
        "custom chunks of a node's call": [(_shape(ns), chunk) for ns, chunk in from_node],
    }


def test_a_called_task_is_nested_under_its_caller():
    expected = _nested_calls("langgraph")
    assert _nested_calls("graphkit") == expected
    assert ("outer", "main:<id>|outer:<id>") in expected["config and runtime namespaces"]


def _graph_in_a_call(name: str) -> dict[str, Any]:
    s, lib = side(name), _library(name)
    builder = lib.StateGraph(Count).add_node("step", lambda state: {"x": state["x"] + 1})
    graph = builder.add_edge(lib.START, "step").compile()

    @s.task
    def runs_graph(x: int) -> int:
        return graph.invoke({"x": x})["x"]

    with SAVERS["memory"](name) as saver:

        @s.entrypoint(checkpointer=saver)
        def main(x: int) -> int:
            return runs_graph(x).result()

        config = {"configurable": {"thread_id": "t"}}
        chunks = [(_shape(ns), chunk) for ns, chunk in main.stream(1, config, subgraphs=True)]
        saved = sorted(
            {_shape(t.config["configurable"]["checkpoint_ns"]) for t in saver.list(None)}
        )
    return {"chunks": chunks, "saved namespaces": saved}


def test_a_graph_run_by_a_called_task_is_nested_under_the_call():
    expected = _graph_in_a_call("langgraph")
    assert _graph_in_a_call("graphkit") == expected
    assert ("main:<id>|runs_graph:<id>") in expected["saved namespaces"]


def _previous_everywhere(name: str) -> list[tuple[str, Any]]:
    s, get_runtime = side(name), _get_runtime(name)
    seen: list[tuple[str, Any]] = []

    @s.task
    def called(x: Any, runtime: Any) -> Any:
        seen.append(("task parameter", runtime.previous))
        seen.append(("task get_runtime()", get_runtime().previous))
        return x

    with SAVERS["memory"](name) as saver:

        @s.entrypoint(checkpointer=saver)
        def main(x: Any, *, runtime: Any, previous: Any = None) -> Any:
            seen.append(("previous", previous))
            seen.append(("entrypoint parameter", runtime.previous))
            seen.append(("entrypoint get_runtime()", get_runtime().previous))
            return called(x).result()

        config = {"configurable": {"thread_id": "t"}}
        main.invoke("first", config)
        main.invoke("second", config)
    return seen


def test_previous_is_in_every_runtime_of_the_run():
    expected = _previous_everywhere("langgraph")
    assert _previous_everywhere("graphkit") == expected
    assert ("task get_runtime()", "first") in expected


def _cached_call_in_a_node(name: str) -> dict[str, Any]:
    s, lib = side(name), _library(name)
    if name == "langgraph":
        from langgraph.cache.memory import InMemoryCache
        from langgraph.types import CachePolicy
    else:
        from graphkit.cache.memory import InMemoryCache
        from graphkit.types import CachePolicy
    runs: list[int] = []

    @s.task(cache_policy=CachePolicy())
    def double(x: int) -> int:
        runs.append(x)
        return x * 2

    builder = lib.StateGraph(Count).add_node(
        "node", lambda state: {"x": double(state["x"]).result()}
    )
    graph = builder.add_edge(lib.START, "node").compile(cache=InMemoryCache())
    streams = [list(graph.stream({"x": 2})) for _ in range(2)]
    return {"streams": streams, "runs": runs}


def test_a_task_called_by_a_node_uses_the_graphs_cache():
    expected = _cached_call_in_a_node("langgraph")
    assert _cached_call_in_a_node("graphkit") == expected
    assert expected["runs"] == [2]


def test_a_task_of_a_partial_is_named_by_its_function():
    import functools

    def observe(name: str) -> list[Any]:
        s = side(name)

        def subtract(a: int, b: int) -> int:
            return a - b

        minus = s.task(functools.partial(subtract, 10))

        @s.entrypoint()
        def main(x: int) -> int:
            return minus(x).result()

        return list(main.stream(1))

    expected = observe("langgraph")
    assert observe("graphkit") == expected
    assert expected[0] == {"subtract": 9}


def test_a_called_tasks_chunk_namespace_is_a_plain_tuple():
    """As LangGraph's: it pickles and copies like any namespace (v1 and v2 streams)."""
    import copy
    import pickle

    s = side("graphkit")

    @s.task
    def speaks(x: int) -> int:
        s.get_stream_writer()("hi")
        return x

    @s.entrypoint()
    def main(x: int) -> int:
        return speaks(x).result()

    (ns, _), *_ = main.stream(1, stream_mode="custom", subgraphs=True)
    part = next(iter(main.stream(1, stream_mode="custom", version="v2")))
    for namespace in (ns, part["ns"]):
        assert type(namespace) is tuple and len(namespace) == 1
        assert pickle.loads(pickle.dumps(namespace)) == copy.deepcopy(namespace) == namespace


def _called_tasks_message_namespace(name: str) -> list[tuple[Any, Any]]:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    s, lib = side(name), _library(name)

    @s.task
    def ask(x: int) -> str:
        return GenericFakeChatModel(messages=iter([AIMessage("hi")])).invoke("q").content

    builder = lib.StateGraph(Count).add_node("node", lambda state: {"x": len(ask(1).result())})
    graph = builder.add_edge(lib.START, "node").compile()
    return [
        (_shape(meta["langgraph_checkpoint_ns"]), meta["langgraph_node"])
        for _, meta in graph.stream({"x": 0}, stream_mode="messages")
    ]


def test_a_called_tasks_messages_carry_the_nested_namespace():
    """The docs once listed a task's namespace (`ask:<id>`) as a difference: both nest it."""
    expected = _called_tasks_message_namespace("langgraph")
    assert _called_tasks_message_namespace("graphkit") == expected
    assert expected == [("node:<id>|ask:<id>", "ask")]
