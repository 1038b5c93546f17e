"""A LangGraph store a converted graph keeps shows in graphkit's views: each graph runs on
LangGraph and converted, each with a store of its own, and both must give the same
results and leave the same items in the user's store, read with LangGraph's API; the
converted run's ``store`` table (and the debugger's store tab) lists what each task did."""

from __future__ import annotations

import asyncio
import datetime
import sqlite3
import warnings
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.config import get_store
from langgraph.graph import START, StateGraph
from langgraph.prebuilt import InjectedStore, create_react_agent
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore, GetOp, Item, PutOp
from langgraph.store.memory import InMemoryStore
from langgraph.store.sqlite import SqliteStore

from graphkit.bridge.convert import from_langgraph
from graphkit.bridge.stores import observed
from graphkit.prebuilt import ScriptedChatModel
from graphkit.store import memory as graphkit_memory
from graphkit.widgets import DebugSession


class Visit(TypedDict, total=False):
    user: str
    notes: list


def remember(state: Visit, *, store: BaseStore) -> dict[str, Any]:
    store.put(("memories", state["user"]), "tea", {"text": "likes tea"})
    store.put(("memories", state["user"]), "old", {"text": "gone soon"})
    return {}


def recall(state: Visit, runtime: Runtime) -> dict[str, Any]:
    found = runtime.store.search(("memories",), filter={"text": "likes tea"})
    return {"notes": [item.value["text"] for item in found]}


def tidy(state: Visit) -> dict[str, Any]:
    get_store().delete(("memories", state["user"]), "old")
    item = get_store().get(("memories", state["user"]), "tea")
    spaces = get_store().list_namespaces(prefix=("memories",), max_depth=2)
    return {"notes": [item.value["text"], *["/".join(space) for space in spaces]]}


async def atidy(state: Visit) -> dict[str, Any]:
    store = get_store()
    await store.adelete(("memories", state["user"]), "old")
    item = await store.aget(("memories", state["user"]), "tea")
    await store.aput(("memories", state["user"]), "seen", {"text": "visited"})
    found = await store.asearch(("memories", state["user"]))
    spaces = await store.alist_namespaces(max_depth=1)
    return {"notes": [item.value["text"], len(found), *["/".join(s) for s in spaces]]}


def _visit(last: Any, store: Any) -> Any:
    builder = StateGraph(Visit).add_node("remember", remember).add_node("recall", recall)
    builder.add_node("tidy", last).add_edge(START, "remember")
    builder.add_edge("remember", "recall").add_edge("recall", "tidy")
    return builder.compile(store=store)


def _items(store: Any) -> list[tuple[Any, ...]]:
    found = store.search((), limit=99)
    return sorted((tuple(item.namespace), item.key, item.value) for item in found)


def _rows(run: Any) -> list[list[Any]]:
    table = run.to_frame("store")[["step", "node", "op", "namespace", "key"]]
    return table.fillna("-").values.tolist()


def _sqlite_store() -> SqliteStore:
    connection = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    store = SqliteStore(connection)
    store.setup()
    return store


@pytest.mark.parametrize("make", [InMemoryStore, _sqlite_store], ids=["memory", "sqlite"])
def test_a_langgraph_stores_operations_show_in_the_store_table(make: Any) -> None:
    ours, theirs = make(), make()
    expected = _visit(tidy, theirs).invoke({"user": "ada"})
    converted = from_langgraph(_visit(tidy, ours))
    run = converted.trace({"user": "ada"})
    assert run.values == expected == {"user": "ada", "notes": ["likes tea", "memories/ada"]}
    assert _items(ours) == _items(theirs) == [(("memories", "ada"), "tea", {"text": "likes tea"})]
    assert _rows(run) == [
        [1, "remember", "put", "memories/ada", "tea"],
        [1, "remember", "put", "memories/ada", "old"],
        [2, "recall", "search", "memories", "-"],
        [3, "tidy", "delete", "memories/ada", "old"],
        [3, "tidy", "get", "memories/ada", "tea"],
        [3, "tidy", "list_namespaces", "", "-"],
    ]
    search, listing = run.step(2).execution.results[0].store_ops[0], run.step(3).execution
    assert (search.given, search.returned) == ({"filter": {"text": "likes tea"}}, ["tea"])
    assert listing.results[0].store_ops[2].returned == [("memories", "ada")]
    assert type(converted.store) is not type(ours) and isinstance(converted.store, type(ours))


def test_async_store_calls_of_a_converted_graph_show_too() -> None:
    ours, theirs = InMemoryStore(), InMemoryStore()
    expected = asyncio.run(_visit(atidy, theirs).ainvoke({"user": "ada"}))
    converted = from_langgraph(_visit(atidy, ours))
    assert asyncio.run(converted.ainvoke({"user": "ada"})) == expected
    assert _items(ours) == _items(theirs)
    run = asyncio.run(_traced(converted, {"user": "bo"}))
    assert [row[2:] for row in _rows(run) if row[1] == "tidy"] == [
        ["delete", "memories/bo", "old"],
        ["get", "memories/bo", "tea"],
        ["put", "memories/bo", "seen"],
        ["search", "memories/bo", "-"],
        ["list_namespaces", "", "-"],
    ]
    assert run.values["notes"] == ["likes tea", 2, "memories"]


async def _traced(app: Any, given: Any) -> Any:
    """``app.trace(given)`` with async nodes: run on this event loop, as ``ainvoke`` runs."""
    loop = asyncio.get_running_loop()
    return await asyncio.to_thread(lambda: app.stepper(given, loop=loop).run())


def test_a_ttl_goes_to_the_users_sqlite_store_as_on_langgraph() -> None:
    def keep(state: Visit, *, store: BaseStore) -> dict[str, Any]:
        store.put(("sessions",), state["user"], {"on": True}, ttl=5)
        return {"notes": [store.get(("sessions",), state["user"]).value]}

    def minutes(store: SqliteStore) -> list[Any]:
        return store.conn.execute("SELECT key, ttl_minutes FROM store").fetchall()

    ours, theirs = _sqlite_store(), _sqlite_store()
    app = StateGraph(Visit).add_node("keep", keep).add_edge(START, "keep")
    expected = app.compile(store=theirs).invoke({"user": "ada"})
    run = from_langgraph(app.compile(store=ours)).trace({"user": "ada"})
    assert run.values == expected
    assert minutes(ours) == minutes(theirs) == [("ada", 5.0)]
    assert [row[2] for row in _rows(run)] == ["put", "get"]


@tool
def save_fact(fact: str, store: Annotated[Any, InjectedStore()]) -> str:
    """Save a fact about the user."""
    store.put(("facts",), "allergy", {"fact": fact})
    return "saved"


def _agent(store: Any) -> Any:
    def answer(messages: list[Any]) -> Any:
        if messages[-1].type == "human":
            call = {"name": "save_fact", "args": {"fact": "peanuts"}, "id": "c1"}
            return AIMessage("", tool_calls=[call])
        return "noted"

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # create_react_agent's own deprecation
        model = ScriptedChatModel(responses=[answer] * 4)
        return create_react_agent(model, [save_fact], store=store)


def test_a_tools_injected_store_shows_and_keeps_its_items() -> None:
    ours, theirs = InMemoryStore(), InMemoryStore()
    given = {"messages": [("user", "I am allergic to peanuts")]}
    expected = _agent(theirs).invoke(given)
    run = from_langgraph(_agent(ours)).trace(given)
    assert [m.content for m in run.values["messages"]] == [m.content for m in expected["messages"]]
    assert _items(ours) == _items(theirs) == [(("facts",), "allergy", {"fact": "peanuts"})]
    assert _rows(run) == [[2, "tools", "put", "facts", "allergy"]]
    session = DebugSession(_agent(InMemoryStore()), given)
    for _ in range(4):  # the input, __start__, agent, then tools
        session.step()
    table = session.view().tables["store"]
    assert table[["node", "op", "namespace"]].values.tolist() == [["tools", "put", "facts"]]


class DictStore(BaseStore):
    """A user's own LangGraph store: a dict, and a verb of its own built on ``put``."""

    def __init__(self) -> None:
        self.data: dict[Any, Any] = {}

    def batch(self, ops: Any) -> list[Any]:
        results: list[Any] = []
        for op in ops:
            if isinstance(op, PutOp):
                self.data[(op.namespace, op.key)] = op.value
            found = self.data.get((op.namespace, op.key)) if isinstance(op, GetOp) else None
            now = datetime.datetime.now(datetime.UTC)
            results.append(found and Item(value=found, key=op.key, namespace=op.namespace,
                                          created_at=now, updated_at=now))  # fmt: skip
        return results

    async def abatch(self, ops: Any) -> list[Any]:
        return self.batch(ops)

    def remember(self, user: str, text: str) -> None:
        self.put(("notes", user), "last", {"text": text})
        self.last = text


def test_a_store_class_of_the_users_own_runs_its_own_code_on_its_own_data() -> None:
    def note(state: Visit) -> dict[str, Any]:
        store = get_store()
        store.remember(state["user"], "hello")
        item = store.get(("notes", state["user"]), "last")
        return {"notes": [item.value["text"], type(store).__name__, isinstance(store, DictStore)]}

    ours, theirs = DictStore(), DictStore()
    app = StateGraph(Visit).add_node("note", note).add_edge(START, "note")
    expected = app.compile(store=theirs).invoke({"user": "ada"})
    run = from_langgraph(app.compile(store=ours)).trace({"user": "ada"})
    assert run.values == expected == {"user": "ada", "notes": ["hello", "DictStore", True]}
    assert (ours.data, ours.last) == (theirs.data, theirs.last)
    rows = [row[2:] for row in _rows(run)]
    assert rows == [["put", "notes/ada", "last"], ["get", "notes/ada", "last"]]


def test_a_graphkit_store_given_to_a_langgraph_graph_shows_as_it_is() -> None:
    ours, theirs = graphkit_memory.InMemoryStore(), graphkit_memory.InMemoryStore()
    expected = _visit(tidy, theirs).invoke({"user": "ada"})
    converted = from_langgraph(_visit(tidy, ours))
    run = converted.trace({"user": "ada"})
    assert converted.store is ours
    assert run.values == expected
    ops = [row[2] for row in _rows(run)]
    assert ops == ["put", "put", "search", "delete", "get", "list_namespaces"]


def test_a_copied_or_pickled_view_is_a_view_of_the_same_store() -> None:
    # (copy and pickle read __reduce_ex__ from the instance: the store's made a bare
    # store of the view's copy, and a PicklingError of its pickle)
    import copy
    import pickle

    store = DictStore()
    view = from_langgraph(_visit(tidy, store)).store
    for again in (copy.copy(view), pickle.loads(pickle.dumps(view))):
        assert type(again) is type(view) and again is not view
    assert object.__getattribute__(copy.copy(view), "_graphkit_store") is store
    deep = object.__getattribute__(copy.deepcopy(view), "_graphkit_store")
    assert type(deep) is DictStore and deep is not store


def test_an_async_batched_stores_worker_belongs_to_the_users_store() -> None:
    """A store that batches its async calls in a task of its own (LangGraph's
    ``AsyncBatchedBaseStore``: ``AsyncSqliteStore``, ``AsyncPostgresStore``) starts that
    task on first use, holding a weak reference to the store that started it. Started
    by the view, it ended with the view, and the user's next ``await store.aget(...)``
    waited for ever: its worker took the call and found no store to run it on."""
    import gc

    from langgraph.store.base.batch import AsyncBatchedBaseStore
    from langgraph.store.memory import InMemoryStore

    class Batched(AsyncBatchedBaseStore):
        def __init__(self) -> None:
            super().__init__()
            self.inner = InMemoryStore()

        def batch(self, ops: Any) -> list[Any]:
            return self.inner.batch(ops)

        async def abatch(self, ops: Any) -> list[Any]:
            return self.inner.batch(ops)

    async def scenario() -> Any:
        store = Batched()
        store._task.cancel()  # (as a store made on another loop, or closed, has no worker)
        await asyncio.sleep(0)
        view = observed(store)
        await view.aput(("users",), "ada", {"theme": "dark"})
        del view
        gc.collect()
        return await asyncio.wait_for(store.aget(("users",), "ada"), timeout=5)

    assert asyncio.run(scenario()).value == {"theme": "dark"}
