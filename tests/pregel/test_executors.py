"""Any concurrent.futures.Executor runs a superstep's tasks, a distributed one included."""

from __future__ import annotations

import operator
import os
from typing import Annotated, TypedDict

import pytest

from graphkit import START, Send, StateGraph


class State(TypedDict):
    log: Annotated[list, operator.add]
    pids: Annotated[list, operator.add]


def square(n):
    return {"log": [(n, n * n)], "pids": [os.getpid()]}


def fan_out(**compile_options):
    builder = StateGraph(State).add_node("split", lambda s: {"log": ["split"]})
    builder.add_node("square", square).add_edge(START, "split")
    builder.add_conditional_edges("split", lambda s: [Send("square", i) for i in range(6)])
    return builder.compile(**compile_options)


@pytest.fixture(scope="module")
def dask_executor():
    import distributed  # a dev dependency: missing it is a failure, not a skip

    with (
        distributed.LocalCluster(
            n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client.get_executor()


def test_a_dask_cluster_runs_the_tasks_in_other_processes_with_the_same_result(dask_executor):
    expected = fan_out().invoke({"log": [], "pids": []})
    run = fan_out().stepper({"log": [], "pids": []}, executor=dask_executor).run()
    assert run.values["log"] == expected["log"]
    assert set(run.values["pids"]) - {os.getpid()}  # node functions crossed a process boundary
    workers = [r.worker for r in run.step(2).execution.results]
    assert any("Dask" in worker for worker in workers)


def test_an_executor_given_at_compile_time_is_used(dask_executor):
    app = fan_out(executor=dask_executor)
    assert set(app.invoke({"log": [], "pids": []})["pids"]) - {os.getpid()}


def test_a_long_run_crosses_the_process_boundary_every_step(dask_executor):
    # past 32 steps the checkpoint's maps flatten themselves; the state shipped to the
    # workers must still pickle
    class Pair(TypedDict):
        x: int
        y: int

    builder = StateGraph(Pair)
    builder.add_node("inc_x", lambda s: {"x": s["x"] + 1})
    builder.add_node("inc_y", lambda s: {"y": s["y"] + 1})
    builder.add_edge(START, "inc_x").add_edge(START, "inc_y")
    builder.add_conditional_edges("inc_x", lambda s: "inc_x" if s["x"] < 40 else "__end__")
    builder.add_conditional_edges("inc_y", lambda s: "inc_y" if s["y"] < 40 else "__end__")
    app = builder.compile(executor=dask_executor)
    assert app.invoke({"x": 0, "y": 0}, {"recursion_limit": 100}) == {"x": 40, "y": 40}


def test_a_graph_with_a_cache_runs_on_another_process(dask_executor):
    # the cache (a lock, or an open SQLite file) stays with the run: only the stepper
    # reads and writes it, so what a worker is shipped leaves it out
    from graphkit.cache.memory import InMemoryCache
    from graphkit.types import CachePolicy

    builder = StateGraph(State).add_node("split", lambda s: {"log": ["split"]})
    builder.add_node("square", square, cache_policy=CachePolicy())
    builder.add_edge(START, "split")
    builder.add_conditional_edges("split", lambda s: [Send("square", i) for i in range(3)])
    app = builder.compile(cache=InMemoryCache(), executor=dask_executor)
    first = app.invoke({"log": [], "pids": []})
    assert set(first["pids"]) - {os.getpid()}
    # (a cached run too; its writes read back from the cache, a tuple as a list, as in LangGraph)
    as_cached = [list(item) if type(item) is tuple else item for item in first["log"]]
    assert app.invoke({"log": [], "pids": []})["log"] == as_cached
