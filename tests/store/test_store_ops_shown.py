"""What each task did with the graph's store, as the records, the ``store`` table and
the debugger show it (issue 15, item 3: "a table of store operations per step")."""

from __future__ import annotations

import asyncio
from typing import TypedDict

import pytest

from graphkit import START, StateGraph
from graphkit.inspect.text import run_text
from graphkit.store.memory import InMemoryStore
from graphkit.store.sqlite import SqliteStore
from graphkit.widgets import DebugSession


class State(TypedDict):
    user: str
    theme: str


def remember(state: State, store) -> dict:
    store.put(("users", state["user"]), "prefs", {"theme": "dark"})
    return {}


def recall(state: State, store) -> dict:
    found = store.search(("users",), filter={"theme": "dark"})
    prefs = store.get(("users", state["user"]), "prefs")
    store.delete(("users", "nobody"), "prefs")
    store.list_namespaces(max_depth=1)
    return {"theme": prefs.value["theme"] if prefs and found else "none"}


def app_with(store):
    builder = StateGraph(State).add_node("remember", remember).add_node("recall", recall)
    builder.add_edge(START, "remember").add_edge("remember", "recall")
    return builder.compile(store=store)


def test_each_task_keeps_what_it_did_with_the_store_in_order():
    run = app_with(InMemoryStore()).trace({"user": "ada", "theme": ""})
    rows = run.to_frame("store")[["step", "node", "op", "namespace", "key"]]
    assert rows.fillna("-").values.tolist() == [
        [1, "remember", "put", "users/ada", "prefs"],
        [2, "recall", "search", "users", "-"],
        [2, "recall", "get", "users/ada", "prefs"],
        [2, "recall", "delete", "users/nobody", "prefs"],
        [2, "recall", "list_namespaces", "", "-"],
    ]
    ops = run.step(2).execution.results[0].store_ops
    assert ops[0].given == {"filter": {"theme": "dark"}} and ops[0].returned == ["prefs"]
    assert ops[1].returned == {"theme": "dark"}
    assert ops[3].given == {"max_depth": 1} and ops[3].returned == [("users",)]
    assert run.values["theme"] == "dark"


def test_the_sqlite_store_and_async_nodes_are_seen_too(tmp_path):
    async def aremember(state: State, store) -> dict:
        await store.aput(("users", state["user"]), "prefs", {"theme": "light"})
        item = await store.aget(("users", state["user"]), "prefs")
        return {"theme": item.value["theme"]}

    builder = StateGraph(State).add_node("remember", aremember).add_edge(START, "remember")
    app = builder.compile(store=SqliteStore(str(tmp_path / "store.db")))
    updates = asyncio.run(_updates(app))
    assert updates == [{"remember": {"theme": "light"}}]
    session = DebugSession(app_with(SqliteStore(str(tmp_path / "two.db"))), {"user": "bo"})
    run = session.run()
    assert run.to_frame("store")["op"].tolist()[:2] == ["put", "search"]


async def _updates(app):
    return [chunk async for chunk in app.astream({"user": "ada", "theme": ""})]


def test_the_debugger_has_a_store_tab_for_the_step():
    session = DebugSession(app_with(InMemoryStore()), {"user": "ada", "theme": ""})
    session.step()
    session.step()
    session.step()  # remember
    table = session.view().tables["store"]
    assert table[["node", "op", "namespace"]].values.tolist() == [["remember", "put", "users/ada"]]


def test_store_calls_outside_a_task_are_not_recorded():
    store = InMemoryStore()
    store.put(("a",), "k", {"v": 1})  # no task: nothing to record it in
    run = app_with(store).trace({"user": "ada", "theme": ""})
    assert "a" not in run.to_frame("store")["namespace"].tolist()


def test_why_says_a_failed_nodes_store_writes_stay():
    """A node that puts, then raises, leaves its put in the store (as on LangGraph: the
    store is written when the node calls it, not at the Update), while the step's writes
    to the state are dropped. ``why`` said only "none of step 2's writes were applied",
    which a learner read as the put being undone too."""
    from graphkit import InMemorySaver

    def save_then_fail(state: State, store) -> dict:
        store.put(("users", state["user"]), "prefs", {"theme": "dark"})
        store.get(("users", state["user"]), "prefs")
        raise ConnectionError("mail server down")

    builder = StateGraph(State).add_node("save", save_then_fail).add_edge(START, "save")
    store = InMemoryStore()
    app = builder.compile(store=store, checkpointer=InMemorySaver())
    try:
        app.trace({"user": "ada", "theme": ""}, {"configurable": {"thread_id": "1"}})
    except ConnectionError as error:
        run = error.run
    said = run.why("save").answers[0].reasons[-1].text
    assert "none of step 1's writes were applied" in said
    assert said.endswith(
        "Its store write (put users/ada · prefs) stays: a store is written when the node "
        "calls it, not at the Update."
    )
    assert store.get(("users", "ada"), "prefs").value == {"theme": "dark"}


def test_print_run_and_the_task_card_name_each_tasks_store_operations():
    """``print(run)`` said "EXECUTE remember wrote nothing" of a node that put an item:
    the store is no channel, so only the store table showed it. Each task's line (and its
    card) now ends with its store operations, briefly; a run without any is unchanged."""
    run = app_with(InMemoryStore()).trace({"user": "ada", "theme": ""})
    lines = run_text(run, width=None).splitlines()
    assert (
        "  EXECUTE  remember            wrote branch:to:recall; store: put users/ada · prefs"
        in lines
    )
    assert (
        "  EXECUTE  recall            wrote theme; store: search users; get users/ada · prefs; "
        "delete users/nobody · prefs; 1 more (the store table)"
    ) in lines
    card = run.step(1).execution.results[0]._repr_html_()
    assert "store: put users/ada · prefs" in card

    def plain(state: State) -> dict:
        return {"theme": "dark"}

    quiet = StateGraph(State).add_node("plain", plain).add_edge(START, "plain").compile()
    assert "store" not in str(quiet.trace({"user": "ada", "theme": ""}))


def test_print_run_says_a_failed_tasks_store_writes_are_not_undone():
    def save_then_fail(state: State, store) -> dict:
        for key in ("a", "b", "c", "d"):
            store.put(("users", state["user"]), key, {"n": 1})
        store.search(("users",))
        store.search(("users",))
        raise ConnectionError("mail server down")

    builder = StateGraph(State).add_node("save", save_then_fail).add_edge(START, "save")
    try:
        builder.compile(store=InMemoryStore()).trace({"user": "ada", "theme": ""})
    except ConnectionError as error:
        text = run_text(error.run, width=None)
    assert (
        "raised ConnectionError: mail server down; store: put users/ada · a, b, c +1; "
        "search users ×2 (not undone)" in text
    )


def test_a_retried_task_keeps_what_its_failed_attempts_put_in_the_store():
    # (only the last attempt's put was recorded, while the store kept all three: the
    # failed attempts' writes are not undone, as a failed task's are not)
    from graphkit.types import RetryPolicy

    class Flaky(Exception):
        pass

    calls = []

    def flaky(state: State, store) -> dict:
        calls.append(1)
        store.put(("tries",), f"try{len(calls)}", {"n": len(calls)})
        if len(calls) < 3:
            raise Flaky("again")
        return {"theme": "dark"}

    store = InMemoryStore()
    policy = RetryPolicy(initial_interval=0.0, jitter=False)
    builder = StateGraph(State).add_node("flaky", flaky, retry_policy=policy)
    run = builder.add_edge(START, "flaky").compile(store=store).trace({"user": "ada"})
    assert [item.key for item in store.search(("tries",))] == ["try1", "try2", "try3"]
    (result,) = run.step(1).execution.results
    assert [(op.key, op.attempt) for op in result.store_ops] == [
        ("try1", 1),
        ("try2", 2),
        ("try3", 3),
    ]
    rows = run.to_frame("store")
    assert rows[["key", "attempt"]].values.tolist() == [["try1", 1], ["try2", 2], ["try3", 3]]
    assert "store: put tries · try1, try2, try3 (2 by failed attempts, not undone)" in (
        " ".join(run_text(run).split())
    )


def test_a_subgraphs_store_operations_are_its_tasks_too():
    # (the parent's line read 'sub  wrote theme' and its store table was empty, while
    # the subgraph's node had put an item in the store both share)
    builder = StateGraph(State).add_node("remember", remember).add_edge(START, "remember")
    sub = builder.compile()
    parent = StateGraph(State).add_node("sub", sub).add_edge(START, "sub")
    store = InMemoryStore()
    run = parent.compile(store=store).trace({"user": "ada", "theme": ""})
    assert store.get(("users", "ada"), "prefs") is not None
    rows = run.to_frame("store")[["step", "node", "op", "namespace", "key"]]
    assert rows.values.tolist() == [[1, "sub → remember", "put", "users/ada", "prefs"]]
    line = next(line for line in run_text(run).splitlines() if "EXECUTE  sub" in line)
    assert line.endswith("store: put users/ada · prefs (in its subgraph)")
    assert "put users/ada · prefs (in its subgraph)" in run.step(1).execution._repr_html_()


def test_a_namespace_holding_a_separator_reads_apart_from_one_without():
    # (('a/b', 'c · d') with key 'k · e' printed 'a/b/c · d · k · e': which part was
    # the key, and how many parts there were, could not be told)
    def save(state: State, store) -> dict:
        store.put(("a/b", "c · d"), "k · e", {"n": 1})
        store.put(("a", "b", "c"), "d", {"n": 1})
        raise ConnectionError("mail server down")

    builder = StateGraph(State).add_node("save", save).add_edge(START, "save")
    try:
        builder.compile(store=InMemoryStore()).trace({"user": "ada", "theme": ""})
    except ConnectionError as error:
        run = error.run
    odd, plain = "'a/b'/'c · d' · 'k · e'", "a/b/c · d"
    assert f"store: put {odd}; put {plain} (not undone)" in run_text(run, width=None)
    card = run.step(1).execution.results[0]._repr_html_()
    assert "store: put &#x27;a/b&#x27;/&#x27;c · d&#x27; · &#x27;k · e&#x27;" in card
    said = run.why("save").answers[0].reasons[-1].text
    assert f"Its store writes (put {odd}, put {plain}) stay" in said


def _failing_parent(library: str):
    """A parent whose node runs a subgraph that puts an item, then fails after it."""
    if library == "langgraph":
        pytest.importorskip("langgraph")
        from langgraph.graph import START as LG_START
        from langgraph.graph import StateGraph as LGStateGraph
        from langgraph.store.memory import InMemoryStore as LGStore

        graph_class, start, store = LGStateGraph, LG_START, LGStore()
    else:
        graph_class, start, store = StateGraph, START, InMemoryStore()

    def fail(state: State) -> dict:
        raise ConnectionError("mail server down")

    sub = graph_class(State).add_node("remember", remember).add_node("fail", fail)
    sub = sub.add_edge(start, "remember").add_edge("remember", "fail").compile()
    parent = graph_class(State).add_node("sub", sub).add_edge(start, "sub")
    return parent.compile(store=store), store


@pytest.mark.parametrize("library", ["graphkit", "langgraph"])
def test_why_names_the_store_writes_a_failed_tasks_subgraph_made(library):
    # (why said only that none of the step's writes were applied: the put its
    # subgraph's node made stays in the store, as on LangGraph)
    app, store = _failing_parent(library)
    with pytest.raises(ConnectionError):
        app.invoke({"user": "ada", "theme": ""})
    assert store.get(("users", "ada"), "prefs").value == {"theme": "dark"}
    if library == "langgraph":
        from graphkit.bridge import from_langgraph

        app = from_langgraph(app)
    try:
        app.trace({"user": "ada", "theme": ""})
    except ConnectionError as error:
        run = error.run
    said = run.why("sub").answers[0].reasons[-1].text
    assert said.endswith(
        "Its store write (put users/ada · prefs, in its subgraph) stays: a store is "
        "written when the node calls it, not at the Update."
    )
