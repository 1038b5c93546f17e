"""An imported functional-API thread shows the ``@task`` calls its entrypoint made, as
graphkit's own run of the same program does, and a graph-level ``cache_policy`` makes
an imported task's ``cached`` unknown (``open_langgraph_thread``)."""

from __future__ import annotations

from typing import Any

from graphkit.bridge.threads import UNKNOWN, open_langgraph_thread
from graphkit.inspect.tables import task_rows


def _program(entrypoint: Any, task: Any, saver: Any, cache: Any, policy: Any) -> Any:
    @task(cache_policy=policy())
    def quote(x: int) -> int:
        return x * 2

    @task
    def inner(x: int) -> int:
        return x + 1

    @task
    def outer(x: int) -> int:
        return inner(x).result() * 10

    @entrypoint(checkpointer=saver(), cache=cache())
    def main(x: int) -> int:
        return quote(x).result() + outer(x).result()

    return main


def _rows(run: Any) -> list[tuple[Any, ...]]:
    return [
        (row["step"], row["node"], row["kind"], row["started_by"], row["cached"])
        for row in task_rows(run.steps)
    ]


def _executed(run: Any) -> list[str]:
    return [" ".join(line.split()) for line in str(run).splitlines() if "EXECUTE" in line]


def test_an_imported_entrypoint_shows_the_tasks_it_called():
    # the called tasks ran and LangGraph saved their results, yet the imported run's
    # tasks table had the entrypoint's task only
    from langgraph.cache.memory import InMemoryCache as TheirCache
    from langgraph.checkpoint.memory import InMemorySaver as TheirSaver
    from langgraph.func import entrypoint as their_entrypoint
    from langgraph.func import task as their_task
    from langgraph.types import CachePolicy as TheirPolicy

    from graphkit import InMemorySaver
    from graphkit.cache.memory import InMemoryCache
    from graphkit.func import entrypoint, task
    from graphkit.types import CachePolicy

    ours = _program(entrypoint, task, InMemorySaver, InMemoryCache, CachePolicy)
    theirs = _program(their_entrypoint, their_task, TheirSaver, TheirCache, TheirPolicy)
    first, second = ({"configurable": {"thread_id": t}} for t in ("1", "2"))
    our_run = ours.trace(3, first)
    assert theirs.invoke(3, first) == our_run.values["__end__"] == 46
    theirs.invoke(3, second)
    imported = open_langgraph_thread(theirs, first)
    assert (
        _executed(imported)
        == _executed(our_run)
        == [
            "EXECUTE __input__ wrote __start__",
            "EXECUTE main wrote __end__, __previous__",
            "EXECUTE quote wrote __return__",
            "EXECUTE outer wrote __return__",
            "EXECUTE inner wrote __return__",
        ]
    )
    expected = [
        (-1, "__input__", "input", None, False),
        (0, "main", "pull", None, False),
        (0, "quote", "call", "main", False),
        (0, "outer", "call", "main", False),
        (0, "inner", "call", "outer", False),
    ]
    assert _rows(our_run) == expected
    # the cache may have served quote (it did, on the second thread): not saved
    assert _rows(imported) == [
        (*row[:4], "unknown" if row[1] == "quote" else False) for row in expected
    ]
    results = imported.step(0).execution.results
    assert [(r.task.node, r.output) for r in results] == [
        ("main", 46),
        ("quote", 6),
        ("outer", 40),
        ("inner", 4),
    ]
    assert [r.cached for r in open_langgraph_thread(theirs, second).step(0).execution.results] == [
        False,
        UNKNOWN,
        False,
        False,
    ]


def test_a_graph_level_cache_policy_makes_cached_unknown():
    # entrypoint(cache_policy=...) covers the entrypoint's task and each task it calls
    # that has none, as a node's own policy does
    from langgraph.cache.memory import InMemoryCache
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.func import entrypoint, task
    from langgraph.types import CachePolicy

    calls: list[int] = []

    @task
    def quote(x: int) -> int:
        calls.append(x)
        return x * 2

    @entrypoint(checkpointer=InMemorySaver(), cache=InMemoryCache(), cache_policy=CachePolicy())
    def main(x: int) -> int:
        return quote(x).result()

    for thread in ("1", "2"):
        main.invoke(3, {"configurable": {"thread_id": thread}})
    assert calls == [3]  # the second thread's main came from the cache
    first = open_langgraph_thread(main, {"configurable": {"thread_id": "1"}})
    assert _rows(first) == [
        (-1, "__input__", "input", None, False),
        (0, "main", "pull", None, "unknown"),
        (0, "quote", "call", "main", "unknown"),
    ]
    second = open_langgraph_thread(main, {"configurable": {"thread_id": "2"}})
    assert _rows(second) == _rows(first)[:2]


def test_a_pregel_cache_policy_makes_a_nodes_cached_unknown():
    from langgraph.cache.memory import InMemoryCache
    from langgraph.channels import LastValue
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.pregel import NodeBuilder, Pregel
    from langgraph.types import CachePolicy

    double = NodeBuilder().subscribe_only("a").do(lambda x: x * 2).write_to("b")
    app = Pregel(
        nodes={"double": double},
        channels={"a": LastValue(int), "b": LastValue(int)},
        input_channels="a",
        output_channels="b",
        checkpointer=InMemorySaver(),
        cache=InMemoryCache(),
        cache_policy=CachePolicy(),
    )
    config = {"configurable": {"thread_id": "1"}}
    assert app.invoke(2, config) == 4
    run = open_langgraph_thread(app, config)
    assert [(r["node"], r["cached"]) for r in task_rows(run.steps)][-1] == ("double", "unknown")
