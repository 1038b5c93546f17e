"""A task served from the node cache, as the tables and the debugger show it: the tasks
table's ``cached`` column, the superstep table's "from the cache" rows, the debugger's
tasks tab (issue 15, item 1)."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from graphkit import START, StateGraph
from graphkit.cache.memory import InMemoryCache
from graphkit.inspect.tables import superstep_rows, task_rows
from graphkit.types import CachePolicy


class State(TypedDict):
    x: int
    log: Annotated[list, operator.add]


def cached_app():
    builder = StateGraph(State)
    builder.add_node("a", lambda s: {"x": s["x"] + 1, "log": ["a"]}, cache_policy=CachePolicy())
    builder.add_node("b", lambda s: {"log": ["b"]})
    builder.add_edge(START, "a").add_edge("a", "b")
    return builder.compile(cache=InMemoryCache())


INPUT = {"x": 1, "log": []}


def test_the_tasks_rows_say_which_task_the_cache_served():
    app = cached_app()
    first, second = app.trace(INPUT), app.trace(INPUT)
    assert [(r["node"], r["cached"]) for r in task_rows(first.steps)] == [
        ("__input__", False),
        ("__start__", False),
        ("a", False),
        ("b", False),
    ]
    rows = task_rows(second.steps)
    assert [(r["node"], r["cached"], r["attempts"]) for r in rows] == [
        ("__input__", False, 1),
        ("__start__", False, 1),
        ("a", True, 0),
        ("b", False, 1),
    ]


def test_the_superstep_table_says_the_writes_came_from_the_cache():
    app = cached_app()
    app.trace(INPUT)
    step = app.trace(INPUT).step(1)
    execute = [(r["node"], r["channel"], r["detail"]) for r in superstep_rows(step)]
    execute = [row for row in execute if row[0] == "a" and row[1] in ("x", "log")]
    assert execute[:2] == [
        ("a", "x", "from the cache (not run)"),
        ("a", "log", "from the cache (not run)"),
    ]


def test_a_task_not_yet_run_has_no_cached_value():
    app = cached_app()
    stepper = app.stepper(INPUT)
    stepper.step(), stepper.step(), stepper.plan()
    assert [r["cached"] for r in task_rows(stepper.run_so_far.steps)][-1] is None


def test_the_debugger_tasks_tab_shows_the_cached_column():
    from graphkit.widgets import DebugSession

    app = cached_app()
    app.invoke(INPUT)
    session = DebugSession(app, INPUT)
    for _ in range(3):
        session.step()
    tasks = session.view().tables["tasks"]
    assert "cached" in tasks.columns
    assert tasks[["node", "cached", "attempts"]].values.tolist() == [["a", "True", "0"]]


def test_the_picture_draws_a_cached_task_apart_from_one_that_ran():
    from graphkit.render.highlight import highlight

    app = cached_app()
    first, second = app.trace(INPUT), app.trace(INPUT)
    svg = app.get_graph().draw_svg(engine="python")

    def classes(run, phase):
        marked = highlight(svg, run.step(1), phase)
        return marked.split('<g id="node-a" class="')[1].split('"')[0].split()

    assert "cached" not in classes(first, "execute") and "wrote" in classes(first, "execute")
    assert {"cached", "wrote"} <= set(classes(second, "execute"))
    assert "cached" in classes(second, "update")
