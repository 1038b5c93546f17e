"""`Runtime.execution_info`, `Runtime.override()` and `Runtime.merge()` as in LangGraph 1.2
(issue 14, item 14): the same graphs run on both libraries, and what each node saw of its
execution info is compared after the random parts (ids, times) are checked and named.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
import tempfile
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any, TypedDict

import pytest

LIBRARIES = ("langgraph", "graphkit")
RUN_ID = "11111111-1111-1111-1111-111111111111"


class State(TypedDict, total=False):
    x: int


def load(library: str) -> SimpleNamespace:
    if library == "langgraph":
        from langgraph.checkpoint.memory import InMemorySaver
        from langgraph.checkpoint.sqlite import SqliteSaver
        from langgraph.graph import START, StateGraph
        from langgraph.runtime import Runtime, get_runtime
        from langgraph.types import RetryPolicy
    else:
        from graphkit import START, StateGraph
        from graphkit.checkpoint import InMemorySaver
        from graphkit.checkpoint.sqlite import SqliteSaver
        from graphkit.pregel.runtime import Runtime, get_runtime
        from graphkit.types import RetryPolicy
    return SimpleNamespace(
        name=library,
        START=START,
        StateGraph=StateGraph,
        Runtime=Runtime,
        get_runtime=get_runtime,
        RetryPolicy=RetryPolicy,
        InMemorySaver=InMemorySaver,
        SqliteSaver=SqliteSaver,
    )


@contextlib.contextmanager
def saver(lib: SimpleNamespace, kind: str) -> Iterator[Any]:
    if kind == "none":
        yield None
    elif kind == "memory":
        yield lib.InMemorySaver()
    else:
        with (
            tempfile.TemporaryDirectory() as folder,
            lib.SqliteSaver.from_conn_string(os.path.join(folder, "t.sqlite")) as checkpointer,
        ):
            yield checkpointer


def retry_graph(lib: SimpleNamespace, seen: list, checkpointer: Any, use_async: bool = False):
    """START -> flaky (fails twice, retried; takes `runtime`) -> plain (uses get_runtime())."""
    failures = {"left": 2}

    def record(runtime: Any) -> None:
        seen.append((runtime.execution_info, lib.get_runtime().execution_info))
        if failures["left"]:
            failures["left"] -= 1
            raise ConnectionError("flaky")

    def flaky(state: State, runtime: lib.Runtime) -> State:
        record(runtime)
        return {"x": 1}

    async def aflaky(state: State, runtime: lib.Runtime) -> State:
        await asyncio.sleep(0)
        record(runtime)
        return {"x": 1}

    def plain(state: State) -> State:
        info = lib.get_runtime().execution_info
        seen.append((info, info))
        return {"x": 2}

    policy = lib.RetryPolicy(initial_interval=0.001, jitter=False, retry_on=ConnectionError)
    graph = lib.StateGraph(State)
    graph.add_node("flaky", aflaky if use_async else flaky, retry_policy=policy)
    graph.add_node("plain", plain)
    graph.add_edge(lib.START, "flaky")
    graph.add_edge("flaky", "plain")
    return graph.compile(checkpointer=checkpointer)


def describe(seen: list, app: Any, config: dict, started: float) -> list[dict]:
    """What each attempt saw, with ids and times checked against the run and named."""
    checkpoints = {}  # task id -> the checkpoint whose step planned it
    if "thread_id" in config.get("configurable", {}):
        for snapshot in app.get_state_history(config):
            for task in snapshot.tasks:
                checkpoints[task.id] = snapshot.config["configurable"]["checkpoint_id"]
    rows, first_times = [], {}
    for info, from_get_runtime in seen:
        node, _, task_id = info.checkpoint_ns.partition(":")
        first = first_times.setdefault(task_id, info.node_first_attempt_time)
        rows.append(
            {
                "node": node,
                "attempt": info.node_attempt,
                "same as get_runtime()": info == from_get_runtime,
                "task_id in ns": task_id == info.task_id,
                "checkpoint planned the task": checkpoints.get(info.task_id, "")
                == info.checkpoint_id,
                "thread_id": info.thread_id,
                "run_id": info.run_id,
                "first attempt time kept": info.node_first_attempt_time == first,
                "first attempt in run": started <= first <= time.time(),
            }
        )
    return rows


def run_sync(library: str, kind: str, config: dict) -> list[dict]:
    lib, seen = load(library), []
    with saver(lib, kind) as checkpointer:
        app = retry_graph(lib, seen, checkpointer)
        started = time.time()
        assert app.invoke({"x": 0}, config) == {"x": 2}
        return describe(seen, app, config, started)


def run_async(library: str, config: dict) -> list[dict]:
    lib, seen = load(library), []
    app = retry_graph(lib, seen, lib.InMemorySaver(), use_async=True)
    started = time.time()
    assert asyncio.run(app.ainvoke({"x": 0}, config)) == {"x": 2}
    return describe(seen, app, config, started)


CONFIGS = {
    "thread": {"configurable": {"thread_id": "t1"}},
    "thread+run_id": {"configurable": {"thread_id": "t1"}, "run_id": RUN_ID},
}


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
@pytest.mark.parametrize("config", CONFIGS.values(), ids=CONFIGS.keys())
def test_execution_info_in_nodes_matches_langgraph(kind, config):
    observed = {library: run_sync(library, kind, config) for library in LIBRARIES}
    assert [row["attempt"] for row in observed["langgraph"]] == [1, 2, 3, 1]
    assert observed["graphkit"] == observed["langgraph"]


@pytest.mark.parametrize("config", CONFIGS.values(), ids=CONFIGS.keys())
def test_execution_info_in_async_nodes_matches_langgraph(config):
    observed = {library: run_async(library, config) for library in LIBRARIES}
    assert [row["attempt"] for row in observed["langgraph"]] == [1, 2, 3, 1]
    assert observed["graphkit"] == observed["langgraph"]


def test_execution_info_without_a_checkpointer():
    """Without a checkpointer LangGraph still names an unsaved checkpoint; graphkit, which
    has none to name, gives "" (the known difference); the rest matches."""
    observed = {}
    for library in LIBRARIES:
        lib, seen = load(library), []
        retry_graph(lib, seen, None).invoke({"x": 0})
        observed[library] = [
            (info.checkpoint_ns.partition(":")[0], info.node_attempt, info.thread_id, info.run_id)
            for info, _ in seen
        ]
        assert all(isinstance(info.checkpoint_id, str) for info, _ in seen)
    assert observed["graphkit"] == observed["langgraph"]


def subgraph_run(library: str) -> list[tuple]:
    """outer (runs a graph itself) -> sub (a subgraph node); what their nodes saw."""
    lib, seen = load(library), []

    def inner(state: State, runtime: lib.Runtime) -> State:
        seen.append(runtime.execution_info)
        return {"x": state["x"] + 1}

    def outer(state: State, runtime: lib.Runtime) -> State:
        seen.append(runtime.execution_info)
        result = child.invoke(state)
        seen.append(lib.get_runtime().execution_info)  # still this node's
        return result

    child = lib.StateGraph(State).add_node("inner", inner)
    child = child.add_edge(lib.START, "inner").compile()
    parent = lib.StateGraph(State).add_node("outer", outer).add_node("sub", child)
    parent = parent.add_edge(lib.START, "outer").add_edge("outer", "sub")
    app = parent.compile(checkpointer=lib.InMemorySaver())
    app.invoke({"x": 0}, {"configurable": {"thread_id": "t"}})
    saved = {}  # checkpoint id -> the namespace it was saved in
    for entry in app.checkpointer.list(None):
        configurable = entry.config["configurable"]
        saved[configurable["checkpoint_id"]] = configurable["checkpoint_ns"]
    return [
        (
            [part.partition(":")[0] for part in info.checkpoint_ns.split("|")],
            info.checkpoint_ns.rpartition(":")[2] == info.task_id,
            saved.get(info.checkpoint_id) == info.checkpoint_ns.rpartition("|")[0],
            info.thread_id,
        )
        for info in seen
    ]


def test_subgraph_nodes_see_their_nested_namespace():
    observed = {library: subgraph_run(library) for library in LIBRARIES}
    assert observed["graphkit"] == observed["langgraph"]


def runtime_api(lib: SimpleNamespace) -> dict[str, Any]:
    """override() and merge() outside a run, and a runtime's execution_info there."""

    def writer(chunk: Any) -> None:
        return None

    base = lib.Runtime(context={"user": "ada"}, store="store", stream_writer=writer)
    merged = base.merge(lib.Runtime(context=0))
    over = base.override(context={"user": "bob"})
    try:
        base.override(contxt=1)
        misspelt = "accepted"
    except TypeError:
        misspelt = "TypeError"
    return {
        "default execution_info": lib.Runtime().execution_info,
        "override context": over.context,
        "override keeps store": over.store,
        "override keeps writer": over.stream_writer is writer,
        "override leaves original": base.context,
        "merge falsy context": merged.context,
        "merge store": merged.store,
        "merge writer": merged.stream_writer is writer,
        "merge other wins": base.merge(lib.Runtime(store="other")).store,
        "misspelt override": misspelt,
    }


def test_override_and_merge_match_langgraph():
    observed = {library: runtime_api(load(library)) for library in LIBRARIES}
    assert observed["graphkit"] == observed["langgraph"]


def merged_in_node(library: str) -> list[bool]:
    """Whether merge() and override() of a node's runtime keep its execution_info."""
    lib, seen = load(library), []

    def node(state: State, runtime: lib.Runtime) -> State:
        info = runtime.execution_info
        seen.append(lib.Runtime(context=1).merge(runtime).execution_info == info)
        seen.append(runtime.merge(lib.Runtime(context=1)).execution_info == info)
        seen.append(runtime.override(context=2).execution_info == info)
        return {"x": 1}

    graph = lib.StateGraph(State).add_node("n", node).add_edge(lib.START, "n")
    graph.compile().invoke({"x": 0})
    return seen


def test_merge_and_override_keep_execution_info():
    observed = {library: merged_in_node(library) for library in LIBRARIES}
    assert observed["graphkit"] == observed["langgraph"] == [True, True, True]


def parallel_retries(library: str, use_async: bool) -> list[tuple]:
    """START -> a and b at once, each failing once, reading only get_runtime()."""
    lib, seen = load(library), []
    left = {"a": 1, "b": 1}

    def attempt(name: str) -> State:
        info = lib.get_runtime().execution_info
        timed = info.node_first_attempt_time is not None
        seen.append((name, info.node_attempt, timed, info.checkpoint_ns.startswith(name)))
        if left[name]:
            left[name] -= 1
            raise ConnectionError("flaky")
        return {}

    policy = lib.RetryPolicy(initial_interval=0.001, jitter=False, retry_on=ConnectionError)
    graph = lib.StateGraph(State)
    for name in ("a", "b"):
        if use_async:

            async def node(state: State, name: str = name) -> State:
                return attempt(name)
        else:

            def node(state: State, name: str = name) -> State:
                return attempt(name)

        graph.add_node(name, node, retry_policy=policy)
        graph.add_edge(lib.START, name)
    app = graph.compile()
    if use_async:
        asyncio.run(app.ainvoke({"x": 0}))
    else:
        app.invoke({"x": 0})
    return sorted(seen)


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
def test_parallel_retries_through_get_runtime(use_async):
    observed = {library: parallel_retries(library, use_async) for library in LIBRARIES}
    assert [row[1] for row in observed["langgraph"]] == [1, 2, 1, 2]
    assert observed["graphkit"] == observed["langgraph"]


class AuthUser:
    """A user as a LangGraph server hands it over: an object with an ``identity``."""

    identity = "ada"

    def __getitem__(self, key: str) -> str:
        return {"display_name": "Ada"}[key]


class FullUser(AuthUser):
    """A user with every member of LangGraph's ``BaseUser`` protocol."""

    display_name, is_authenticated, permissions = "Ada", True, ("read",)

    def __contains__(self, key: str) -> bool:
        return key == "display_name"

    def __iter__(self):
        return iter(["display_name"])


SERVER_CONFIGURABLES = {
    "both ids": {"assistant_id": "asst", "graph_id": "g"},
    "assistant only": {"assistant_id": "asst"},
    "an int graph id": {"graph_id": 7},
    "a user": {"langgraph_auth_user": AuthUser(), "assistant_id": "a", "graph_id": "g"},
    "a user alone": {"langgraph_auth_user": AuthUser()},
    "a dict as the user": {"langgraph_auth_user": {"identity": "d"}},
    "nothing": {},
}


def server_info_seen(library: str) -> dict[str, Any]:
    """What ``runtime.server_info`` a root node and a subgraph's node see for each config,
    and what ``ServerInfo`` itself does."""
    lib = load(library)
    server_info_class = importlib.import_module(f"{library}.runtime").ServerInfo
    seen: list = []

    def shown(runtime: Any) -> Any:
        info = runtime.server_info
        if info is None:
            return None
        user = info.user and (info.user.identity, info.user["display_name"])
        return (type(info).__name__, info.assistant_id, info.graph_id, user)

    def node(state: State, runtime: lib.Runtime) -> State:
        seen.append(shown(runtime))
        return {"x": 1}

    sub = lib.StateGraph(State).add_node("inner", node).add_edge(lib.START, "inner").compile()
    graph = lib.StateGraph(State).add_node("n", node).add_node("sub", sub)
    app = graph.add_edge(lib.START, "n").add_edge("n", "sub").compile()
    observed: dict[str, Any] = {}
    for name, configurable in SERVER_CONFIGURABLES.items():
        seen.clear()
        app.invoke({"x": 0}, {"configurable": configurable})
        observed[name] = list(seen)
    base_user = importlib.import_module(f"{library}.runtime").BaseUser
    observed["BaseUser"] = [isinstance(user, base_user) for user in (FullUser(), AuthUser(), {})]
    info = server_info_class(assistant_id="a1", graph_id="g1")
    observed["repr"] = repr(info)
    observed["merge keeps"] = lib.Runtime(server_info=info).merge(lib.Runtime()).server_info is info
    with pytest.raises(AttributeError):
        info.assistant_id = "a2"
    return observed


def test_server_info_comes_from_the_config_as_in_langgraph():
    observed = {library: server_info_seen(library) for library in LIBRARIES}
    assert observed["langgraph"]["both ids"] == [("ServerInfo", "asst", "g", None)] * 2
    assert observed["graphkit"] == observed["langgraph"]
