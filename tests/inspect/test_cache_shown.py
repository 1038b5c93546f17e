"""A task served from the node cache, as the tables and the debugger show it: the tasks
table's ``cached`` column, the superstep table's "from the cache" rows, the debugger's
tasks tab (issue 15, item 1)."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

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


def _pricing(library, cache, calls: list[str]):
    """A quote node cached by its input, reading the customer's tier from the run's
    context: the key leaves the context out, so a second customer gets the first's price."""
    from dataclasses import dataclass

    @dataclass
    class Customer:
        name: str
        tier: str

    class Item(TypedDict):
        item: str
        price: float

    def quote(state: Item, runtime) -> dict:
        calls.append(runtime.context.name)
        return {"price": 800.0 if runtime.context.tier == "gold" else 1000.0}

    builder = library.StateGraph(Item, context_schema=Customer)
    builder.add_node("quote", quote, cache_policy=library.CachePolicy())
    builder.add_edge(library.START, "quote")
    return builder.compile(checkpointer=library.InMemorySaver(), cache=cache), Customer


def test_why_says_a_cached_node_did_not_run_and_what_its_key_leaves_out():
    from graphkit import open_langgraph_thread

    langgraph, LangGraphCache = _langgraph()
    ada, bob = ({"configurable": {"thread_id": name}} for name in ("ada", "bob"))
    their_calls: list[str] = []
    theirs, Customer = _pricing(langgraph, LangGraphCache(), their_calls)
    theirs.invoke({"item": "laptop"}, ada, context=Customer("Ada", "gold"))
    served = theirs.invoke({"item": "laptop"}, bob, context=Customer("Bob", "basic"))
    our_calls: list[str] = []
    graphkit = _graphkit()
    ours, Customer = _pricing(graphkit, InMemoryCache(), our_calls)
    ours.invoke({"item": "laptop"}, ada, context=Customer("Ada", "gold"))
    run = ours.trace({"item": "laptop"}, bob, context=Customer("Bob", "basic"))
    assert their_calls == our_calls == ["Ada"]  # Bob was served Ada's price
    assert served["price"] == run.values["price"] == 800.0
    key = (
        "The key is made from quote's input alone (the policy's key_func, by default the "
        "whole input): what else it reads (the run's Customer context, its config, the "
        "store) is not part of it, so a run that differs only there is served the writes "
        "cached first."
    )
    answer = run.why("quote", graph=ours).answers[0]
    assert answer.summary == (
        "quote was planned at step 1 because __start__ wrote branch:to:quote in step 0; the "
        "node cache served its writes, so it did not run."
    )
    assert [r.kind for r in answer.reasons] == ["edge", "cached"]
    assert key in answer.reasons[-1].text.replace("\n", " ")
    # LangGraph saves no word of the cache: with the graph, why says it may have served it
    imported = open_langgraph_thread(theirs, bob)
    answer = imported.why("quote", graph=theirs).answers[0]
    assert answer.summary.endswith(
        "; or the node cache served its writes: LangGraph does not save which."
    )
    assert answer.reasons[-1].kind == "cached" and key in answer.reasons[-1].text
    assert all(r.kind != "cached" for r in imported.why("quote").answers[0].reasons)


def test_a_langgraph_task_that_raised_or_asked_is_not_said_maybe_served_by_the_cache():
    # LangGraph caches only a task that finished (not an error, not an interrupt): why
    # said of quote, which raised, "quote may not have run" beside "quote raised"
    import pytest

    pytest.importorskip("langgraph")
    from langgraph.cache.memory import InMemoryCache as LangGraphCache
    from langgraph.checkpoint.memory import InMemorySaver as LangGraphSaver
    from langgraph.graph import START as LANGGRAPH_START
    from langgraph.graph import StateGraph as LangGraphStateGraph
    from langgraph.types import CachePolicy as LangGraphPolicy
    from langgraph.types import interrupt

    from graphkit import open_langgraph_thread

    class Order(TypedDict):
        n: int
        out: str

    def quote(state: Order) -> dict:
        if state["n"] < 0:
            raise ValueError("a negative amount")
        return {"out": f"quote {state['n']}"}

    def approve(state: Order) -> dict:
        return {"out": interrupt(f"approve {state['out']}?")}

    builder = LangGraphStateGraph(Order)
    builder.add_node("quote", quote, cache_policy=LangGraphPolicy())
    builder.add_node("approve", approve, cache_policy=LangGraphPolicy())
    builder.add_edge(LANGGRAPH_START, "quote").add_edge("quote", "approve")
    app = builder.compile(checkpointer=LangGraphSaver(), cache=LangGraphCache())
    failed, asked = ({"configurable": {"thread_id": name}} for name in ("failed", "asked"))
    with pytest.raises(ValueError):
        app.invoke({"n": -1, "out": ""}, failed)
    app.invoke({"n": 1, "out": ""}, asked)
    for config, node, step in ((asked, "approve", 2), (failed, "quote", 1)):
        answer = open_langgraph_thread(app, config).why(node, step=step, graph=app).answers[0]
        assert "cache" not in answer.summary
        assert [r.kind for r in answer.reasons if r.kind == "cached"] == []


def test_the_tasks_table_of_a_langgraph_thread_does_not_claim_a_task_ran():
    # LangGraph saves no word of the cache: bob's quote was served ada's writes, and the
    # imported tasks table read cached False. It is "unknown" where the cache may have
    # served the task, False where it cannot have (no policy, no cache, an error)
    from graphkit import open_langgraph_thread

    langgraph, LangGraphCache = _langgraph()
    graphkit = _graphkit()
    ada, bob = ({"configurable": {"thread_id": name}} for name in ("ada", "bob"))

    def cached_column(run) -> list[tuple[str, object]]:
        return [(r["node"], r["cached"]) for r in task_rows(run.steps)]

    ours, Customer = _pricing(graphkit, InMemoryCache(), [])
    ours.invoke({"item": "laptop"}, ada, context=Customer("Ada", "gold"))
    mine = ours.trace({"item": "laptop"}, bob, context=Customer("Bob", "basic"))
    assert cached_column(mine) == [("__input__", False), ("__start__", False), ("quote", True)]
    for cache, quote in ((None, False), (LangGraphCache(), "unknown")):
        theirs, Customer = _pricing(langgraph, cache, [])
        theirs.invoke({"item": "laptop"}, ada, context=Customer("Ada", "gold"))
        theirs.invoke({"item": "laptop"}, bob, context=Customer("Bob", "basic"))
        imported = open_langgraph_thread(theirs, bob)
        assert cached_column(imported) == [
            ("__input__", False),
            ("__start__", False),
            ("quote", quote),
        ]
        readable = imported.to_frame(readable=True)
        assert readable["cached"].tolist()[-1] == quote
    failed = {"configurable": {"thread_id": "failed"}}
    with pytest.raises(AttributeError):  # (a new item, no context: quote ran and raised)
        theirs.invoke({"item": "phone"}, failed)
    assert cached_column(open_langgraph_thread(theirs, failed))[-1] == ("quote", False)


def _langgraph() -> tuple[Any, Any]:
    """LangGraph's classes ``_pricing`` builds with, and its cache class."""
    import types

    import pytest

    langgraph_graph = pytest.importorskip("langgraph.graph")
    from langgraph.cache.memory import InMemoryCache as LangGraphCache
    from langgraph.checkpoint.memory import InMemorySaver as LangGraphSaver
    from langgraph.types import CachePolicy as LangGraphPolicy

    langgraph = types.SimpleNamespace(
        StateGraph=langgraph_graph.StateGraph,
        START=langgraph_graph.START,
        InMemorySaver=LangGraphSaver,
        CachePolicy=LangGraphPolicy,
    )
    return langgraph, LangGraphCache


def _graphkit() -> Any:
    """graphkit's classes ``_pricing`` builds with."""
    import types

    from graphkit import InMemorySaver

    return types.SimpleNamespace(
        StateGraph=StateGraph, START=START, InMemorySaver=InMemorySaver, CachePolicy=CachePolicy
    )
