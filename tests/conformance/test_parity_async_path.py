"""The async path, found by a differential hunt over ``ainvoke`` / ``astream`` / the async
savers: programs written for LangGraph's async API that must run on graphkit by renaming
their imports.

``AsyncSqliteSaver`` (``langgraph.checkpoint.sqlite.aio``) is the saver LangGraph's
persistence guide gives async apps: ``async with AsyncSqliteSaver.from_conn_string(path)
as saver``. graphkit's ``SqliteSaver`` serves async runs itself, and the module at the same
path gives that saver under LangGraph's name, opened by an async context manager;
``AsyncSqliteStore`` (``langgraph.store.sqlite.aio``) likewise for ``SqliteStore``.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import operator
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

from .harness import CHECKOUT

pytest.importorskip("langgraph.checkpoint.sqlite.aio")  # needs aiosqlite on LangGraph's side


class State(TypedDict, total=False):
    topic: str
    log: Annotated[list, operator.add]


def _snapshot(snapshot: Any) -> dict[str, Any]:
    return {
        "values": snapshot.values,
        "next": snapshot.next,
        "interrupts": [i.value for i in snapshot.interrupts],
        "step": snapshot.metadata["step"],
        "source": snapshot.metadata["source"],
    }


async def _async_sqlite_program(root: str, path: Path) -> list[Any]:
    """A LangGraph program as its persistence guide writes it, imports from ``root``."""
    aio = importlib.import_module(f"{root}.checkpoint.sqlite.aio")
    graph_module = importlib.import_module(f"{root}.graph")
    types = importlib.import_module(f"{root}.types")
    seen: list[Any] = []

    async def draft(state):
        await asyncio.sleep(0)
        return {"log": [f"draft on {state['topic']}"]}

    async def review(state):
        verdict = types.interrupt({"check": state["log"][-1]})
        return {"log": [f"review: {verdict}"]}

    builder = graph_module.StateGraph(State)
    builder.add_node("draft", draft)
    builder.add_node("review", review)
    builder.add_edge(graph_module.START, "draft")
    builder.add_edge("draft", "review")
    config = {"configurable": {"thread_id": "essay"}}
    async with aio.AsyncSqliteSaver.from_conn_string(str(path)) as saver:
        await saver.setup()
        app = builder.compile(checkpointer=saver)
        seen.append(await app.ainvoke({"topic": "owls"}, config))
        seen.append(_snapshot(await app.aget_state(config)))
        seen.append([chunk async for chunk in app.astream(types.Command(resume="ok"), config)])
        seen.append([_snapshot(s) async for s in app.aget_state_history(config)])
        saved = await saver.aget_tuple(config)
        seen.append((saved.metadata["step"], saved.checkpoint["channel_values"]["log"]))
        seen.append([s.metadata["source"] async for s in saver.alist(config, limit=2)])
    async with aio.AsyncSqliteSaver.from_conn_string(str(path)) as again:  # the file keeps it
        app = builder.compile(checkpointer=again)
        seen.append(_snapshot(await app.aget_state(config)))
        await again.adelete_thread("essay")
        seen.append(await again.aget_tuple(config))
    return [_tidy(item) for item in seen]


def _tidy(value: Any) -> Any:
    """Interrupt ids differ between the libraries: keep the value."""
    if isinstance(value, dict) and "__interrupt__" in value:
        return {**value, "__interrupt__": [i.value for i in value["__interrupt__"]]}
    if isinstance(value, list):
        return [_tidy(item) for item in value]
    return value


def test_an_async_sqlite_saver_program_runs_on_graphkit_by_renaming_its_imports(
    tmp_path: Path,
) -> None:
    theirs = asyncio.run(_async_sqlite_program("langgraph", tmp_path / "theirs.sqlite"))
    ours = asyncio.run(_async_sqlite_program("graphkit", tmp_path / "ours.sqlite"))
    assert ours == theirs


async def _async_sqlite_store_program(root: str, path: Path) -> list[Any]:
    """The store of an async app, as LangGraph's store guide opens it, imports from ``root``."""
    aio = importlib.import_module(f"{root}.store.sqlite.aio")
    graph_module = importlib.import_module(f"{root}.graph")
    config_module = importlib.import_module(f"{root}.config")
    seen: list[Any] = []

    async def remember(state, *, store):
        await store.aput(("notes",), state["topic"], {"log": state.get("log", [])})
        found = await config_module.get_store().asearch(("notes",))
        return {"log": [f"{len(found)} notes"]}

    builder = graph_module.StateGraph(State)
    builder.add_node("remember", remember)
    builder.add_edge(graph_module.START, "remember")
    ttl = {"default_ttl": 60, "sweep_interval_minutes": 10}
    async with aio.AsyncSqliteStore.from_conn_string(str(path), ttl=ttl) as store:
        await store.setup()
        await store.start_ttl_sweeper()
        app = builder.compile(store=store)
        seen.append(await app.ainvoke({"topic": "owls"}))
        seen.append(await app.ainvoke({"topic": "bats", "log": ["x"]}))
        item = await store.aget(("notes",), "bats")
        seen.append((item.key, item.namespace, item.value))
        seen.append(sorted(i.key for i in await store.asearch(("notes",))))
        seen.append(await store.alist_namespaces())
        await store.adelete(("notes",), "owls")
        seen.append(await store.aget(("notes",), "owls"))
        seen.append(await store.stop_ttl_sweeper())
    async with aio.AsyncSqliteStore.from_conn_string(str(path)) as again:  # the file keeps it
        seen.append([i.key for i in await again.asearch(("notes",))])
    return seen


def test_an_async_sqlite_store_program_runs_on_graphkit_by_renaming_its_imports(
    tmp_path: Path,
) -> None:
    theirs = asyncio.run(_async_sqlite_store_program("langgraph", tmp_path / "theirs.sqlite"))
    ours = asyncio.run(_async_sqlite_store_program("graphkit", tmp_path / "ours.sqlite"))
    assert ours == theirs


def test_graphkit_refuses_a_run_keyword_that_langgraph_ignores() -> None:
    """``abatch(inputs, max_concurrency=1)`` hands the keyword to each ``ainvoke``: LangGraph
    drops it without a word (no limit is applied), graphkit says where it goes."""

    def build(root: str) -> Any:
        graph_module = importlib.import_module(f"{root}.graph")
        builder = graph_module.StateGraph(State)
        builder.add_node("note", lambda state: {"log": [state["topic"]]})
        builder.add_edge(graph_module.START, "note")
        return builder.compile()

    inputs = [{"topic": "owls"}, {"topic": "bats"}]
    theirs = asyncio.run(build("langgraph").abatch(inputs, max_concurrency=1))
    assert theirs == [{"topic": "owls", "log": ["owls"]}, {"topic": "bats", "log": ["bats"]}]
    with pytest.raises(TypeError, match=r"put max_concurrency in the config instead"):
        asyncio.run(build("graphkit").abatch(inputs, max_concurrency=1))
    assert asyncio.run(build("graphkit").abatch(inputs, {"max_concurrency": 1})) == theirs


def _saver_with_async_twins(root: str, log: list[str]) -> Any:
    """A saver written for LangGraph's async runs: its work is in ``aput`` /
    ``aput_writes`` / ``aget_tuple`` (as a database saver's is), each logged."""
    memory = importlib.import_module(f"{root}.checkpoint.memory")

    class Audited(memory.InMemorySaver):
        async def aget_tuple(self, config):
            log.append("aget_tuple")
            return self.get_tuple(config)

        async def aput(self, config, checkpoint, metadata, new_versions):
            log.append(f"aput step {metadata['step']}")
            await asyncio.sleep(0.05)  # (a cancelled run waits for it)
            return self.put(config, checkpoint, metadata, new_versions)

        async def aput_writes(self, config, writes, task_id, task_path=""):
            channels = [channel for channel, _ in writes]
            if channels != ["__error__"]:  # (a cancelled task's: see compatibility.md)
                log.append(f"aput_writes {channels}")
            self.put_writes(config, writes, task_id, task_path)

    return Audited()


async def _audited_runs(root: str) -> list[Any]:
    graph_module = importlib.import_module(f"{root}.graph")
    log: list[Any] = []

    async def slow(state):
        await asyncio.sleep(0.5)
        return {"log": ["slow"]}

    builder = graph_module.StateGraph(State)
    builder.add_node("note", lambda state: {"log": [state["topic"]]})
    builder.add_edge(graph_module.START, "note")
    graph = builder.compile(checkpointer=_saver_with_async_twins(root, log))
    config = {"configurable": {"thread_id": "1"}}
    log.append(await graph.ainvoke({"topic": "owls"}, config, durability="sync"))
    chunks = graph.astream({"topic": "bats"}, config, durability="sync")
    log.append([chunk async for chunk in chunks])

    builder = graph_module.StateGraph(State)
    builder.add_node("note", lambda state: {"log": [state["topic"]]})
    builder.add_node("slow", slow)
    builder.add_edge(graph_module.START, "note")
    builder.add_edge("note", "slow")
    graph = builder.compile(checkpointer=_saver_with_async_twins(root, log))
    run = asyncio.create_task(graph.ainvoke({"topic": "cats"}, config, durability="exit"))
    await asyncio.sleep(0.2)
    run.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await run
    log.append(_snapshot(await graph.aget_state(config)))  # the put after the cancel, whole
    return log


def test_an_async_run_calls_the_async_methods_a_saver_wrote() -> None:
    """LangGraph's ``ainvoke`` / ``astream`` read and save through the saver's ``aget_tuple``
    / ``aput`` / ``aput_writes``: a saver subclass that overrides them (its own async
    database calls) is called through them, and what a cancelled ``durability="exit"`` run
    saves is saved whole."""
    theirs = asyncio.run(_audited_runs("langgraph"))
    assert "aput step 0" in theirs and "aput_writes ['log']" in theirs
    assert asyncio.run(_audited_runs("graphkit")) == theirs


def _sync_run_in_an_async_node(root: str) -> list[str]:
    """An async node runs a graph with ``invoke`` (holding up the event loop); that graph
    runs two ``checkpointer=True`` subgraphs side by side, whose runs save in pool threads."""
    graph_module = importlib.import_module(f"{root}.graph")
    log: list[str] = []
    leaf = graph_module.StateGraph(State)
    leaf.add_node("x", lambda state: {"log": ["x"]})
    leaf.add_edge(graph_module.START, "x")
    leaf = leaf.compile(checkpointer=True)
    middle = graph_module.StateGraph(State)
    middle.add_node("a", leaf)
    middle.add_node("b", leaf)
    middle.add_edge(graph_module.START, "a")
    middle.add_edge(graph_module.START, "b")
    middle = middle.compile(checkpointer=_saver_with_async_twins(root, log))

    async def outer(state):
        return {"log": middle.invoke({"log": []}, {"configurable": {"thread_id": "in"}})["log"]}

    top = graph_module.StateGraph(State)
    top.add_node("outer", outer)
    top.add_edge(graph_module.START, "outer")
    log.extend(asyncio.run(top.compile().ainvoke({"log": []}))["log"])
    return log


def test_a_sync_run_inside_an_async_node_saves_through_the_sync_methods() -> None:
    """LangGraph's ``invoke`` saves through ``put``, even inside an async run; graphkit's
    subgraph runs there awaited the saver's ``aput`` on the event loop the node held up
    (a hang). Run in a thread, so that a hang fails the test instead of the suite."""
    results: dict[str, list[str]] = {}

    def run(root: str) -> None:
        results[root] = _sync_run_in_an_async_node(root)

    for root in ("langgraph", "graphkit"):
        worker = threading.Thread(target=run, args=(root,), daemon=True)
        worker.start()
        worker.join(20)
        assert not worker.is_alive(), f"{root}: the run hung"
    assert results["graphkit"] == results["langgraph"] == ["x", "x"]


async def _audited_update(root: str) -> list[Any]:
    graph_module = importlib.import_module(f"{root}.graph")
    log: list[Any] = []
    builder = graph_module.StateGraph(State)
    builder.add_node("note", lambda state: {"log": [state["topic"]]})
    builder.add_edge(graph_module.START, "note")
    graph = builder.compile(checkpointer=_saver_with_async_twins(root, log))
    config = {"configurable": {"thread_id": "1"}}
    await graph.ainvoke({"topic": "owls"}, config)
    del log[:]
    await graph.aupdate_state(config, {"log": ["edited"]}, as_node="note")
    log.append(_snapshot(await graph.aget_state(config)))
    return log


def test_aupdate_state_calls_the_async_methods_a_saver_wrote() -> None:
    """LangGraph's ``aupdate_state`` reads and saves through ``aget_tuple`` / ``aput`` /
    ``aput_writes`` too; graphkit's went around them, to ``get_tuple`` / ``put``."""
    theirs = asyncio.run(_audited_update("langgraph"))
    assert "aput step 2" in theirs
    assert asyncio.run(_audited_update("graphkit")) == theirs


def _nested_awaits(root: str, depth: int) -> dict[str, Any]:
    """A graph whose node awaits a graph whose node awaits another... ``depth`` deep."""
    graph_module = importlib.import_module(f"{root}.graph")
    leaf = graph_module.StateGraph(State)
    leaf.add_node("leaf", lambda state: {"log": ["leaf"]})
    leaf.add_edge(graph_module.START, "leaf")
    app = leaf.compile()
    for _ in range(depth):

        async def wrap(state: State, inner: Any = app) -> Any:
            return await inner.ainvoke({"log": []})

        graph = graph_module.StateGraph(State)
        graph.add_node("wrap", wrap)
        graph.add_edge(graph_module.START, "wrap")
        app = graph.compile()
    return asyncio.run(app.ainvoke({"log": []}))


def test_graphs_awaited_inside_nodes_eight_deep_finish() -> None:
    """Each graphkit async run steps in a thread of its own while the runs it awaits
    step in theirs: taken from the event loop's default executor (cpu count + 4
    workers), a run 6 deep waited for a worker that none would give back (a hang).
    Run in a thread, so that a hang fails the test instead of the suite."""
    results: dict[str, Any] = {}

    def run(root: str) -> None:
        results[root] = _nested_awaits(root, 8)

    for root in ("langgraph", "graphkit"):
        worker = threading.Thread(target=run, args=(root,), daemon=True)
        worker.start()
        worker.join(60)
        assert not worker.is_alive(), f"{root}: the run hung"
    assert results["graphkit"] == results["langgraph"] == {"log": ["leaf"]}


_ABANDONED = textwrap.dedent(
    """
    import asyncio, json, operator, sys
    from typing import Annotated, TypedDict
    graph = __import__(sys.argv[1] + ".graph", fromlist=["StateGraph"])

    class Count(TypedDict):
        value: Annotated[int, operator.add]

    async def add(state):
        await asyncio.sleep(0)
        return {"value": 1}

    app = (
        graph.StateGraph(Count)
        .add_node("add", add)
        .add_node("again", add)
        .add_edge(graph.START, "add")
        .add_edge("add", "again")
        .compile()
    )

    async def first_chunk():
        global chunks  # (kept: never closed, not even when collected)
        chunks = app.astream({"value": 0})
        async for chunk in chunks:
            return chunk

    loop = asyncio.new_event_loop()
    chunk = loop.run_until_complete(first_chunk())
    loop.close()  # (no shutdown_asyncgens: the stream is left open)
    print(json.dumps(chunk))
    """
)


def test_a_stream_abandoned_with_its_loop_lets_the_process_exit():
    """An ``astream`` left open when its loop closed: graphkit's stepper thread waits for
    that loop for ever, and as a ``ThreadPoolExecutor``'s worker, Python joined it at
    exit, so the process never ended. LangGraph's stream is a coroutine of the loop."""
    for root in ("langgraph", "graphkit"):
        done = subprocess.run(
            [sys.executable, "-c", _ABANDONED, root], capture_output=True, text=True,
            env={**os.environ, "PYTHONPATH": str(CHECKOUT)}, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == {"add": {"value": 1}}, root
