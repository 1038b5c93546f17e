"""A saver's own read API as LangGraph code uses it: the checkpoint read as a dict
(``saved.checkpoint["channel_values"]``), ``get`` / ``aget``, and ``SqliteSaver.setup()``."""

from __future__ import annotations

import asyncio
import operator
import uuid
from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS, _interrupt

THREAD = {"configurable": {"thread_id": "t"}}


class State(TypedDict):
    x: int
    log: Annotated[list, operator.add]


def observe(lib: Lib, saver_kind: str) -> list[Any]:
    with SAVERS[saver_kind](lib.name) as saver:
        builder = lib.StateGraph(State).add_node("a", lambda state: {"x": state["x"] + 1})
        builder = builder.add_node("b", lambda state: {"log": ["b"]})
        app = builder.add_edge(lib.START, "a").add_edge("a", "b").compile(checkpointer=saver)
        app.invoke({"x": 1, "log": []}, THREAD)
        saved = saver.get_tuple(THREAD)
        checkpoint = saved.checkpoint
        # (versions and versions seen are each library's own bookkeeping: only read here)
        history = [
            (dict(c.checkpoint["channel_values"]), isinstance(c.checkpoint["versions_seen"], dict))
            for c in saver.list(THREAD)
        ]
        return [
            checkpoint["id"] == saved.config["configurable"]["checkpoint_id"],
            dict(checkpoint["channel_values"]),
            sorted(checkpoint["channel_versions"]),
            isinstance(checkpoint["ts"], str),
            sorted(checkpoint.get("updated_channels") or ()),
            checkpoint.get("no such key", "default"),
            ["channel_values" in checkpoint, "no such key" in checkpoint],
            sorted(dict(checkpoint)) == sorted(checkpoint.keys()),
            history,
            dict(saver.get(THREAD)["channel_values"]),
            dict(asyncio.run(saver.aget(THREAD))["channel_values"]) if saver_kind == "memory"
            else None,
        ]  # fmt: skip


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_a_saved_checkpoint_reads_as_langgraphs_dict(saver):
    assert observe(load_graphkit(), saver) == observe(load_langgraph(), saver)


def test_sqlite_savers_setup_can_be_called_as_on_langgraph():
    for lib in (load_langgraph(), load_graphkit()):
        with SAVERS["sqlite"](lib.name) as saver:
            assert saver.setup() is None
            assert saver.setup() is None  # again: nothing changes
            assert list(saver.list(None)) == []


def writes_seen(lib: Lib, saver_kind: str, edit: str) -> list[Any]:
    """The pending writes a saver lists on the checkpoint a call starts from."""
    with SAVERS[saver_kind](lib.name) as saver:
        builder = lib.StateGraph(State).add_node("a", lambda state: {"x": state["x"] + 1})
        builder = builder.add_node("b", lambda state: {"log": ["b"]})
        app = builder.add_edge(lib.START, "a").add_edge("a", "b").compile(checkpointer=saver)
        app.invoke({"x": 1, "log": []}, THREAD)
        before = saver.get_tuple(THREAD)
        if edit == "invoke again":
            app.invoke({"x": 5, "log": []}, THREAD)
        elif edit == "update as a node":
            app.update_state(THREAD, {"x": 10}, as_node="a")
        elif edit == "update with no node":
            app.update_state(THREAD, {"x": 10})
        else:
            app.update_state(THREAD, {"x": 9, "log": []}, as_node="__input__")
        parent = uuid.UUID(before.checkpoint["id"])
        names = {str(uuid.uuid5(parent, name)): name for name in ("__interrupt__", "__input__")}
        pending = saver.get_tuple(before.config).pending_writes
        return [(names.get(task, task), channel, value) for task, channel, value in pending]


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
@pytest.mark.parametrize(
    "edit", ["invoke again", "update as a node", "update with no node", "update as input"]
)
def test_the_writes_saved_on_the_checkpoint_a_call_starts_from_match_langgraphs(saver, edit):
    # an update's writes under LangGraph's uuid5 task ids; a run's input under none
    assert writes_seen(load_graphkit(), saver, edit) == writes_seen(load_langgraph(), saver, edit)


def test_put_writes_without_a_checkpoint_id_is_refused_rather_than_lost():
    # LangGraph's savers raise a KeyError; graphkit's a ValueError saying what to pass
    for saver_kind in ("memory", "sqlite"):
        with SAVERS[saver_kind]("graphkit") as saver, pytest.raises(ValueError, match="belong"):
            saver.put_writes(THREAD, [("x", 5)], "task")
        with SAVERS[saver_kind]("langgraph") as saver, pytest.raises(KeyError):
            saver.put_writes(THREAD, [("x", 5)], "task")


@pytest.mark.parametrize("saver_kind", ["memory", "sqlite"])
@pytest.mark.parametrize(
    ("method", "args"),
    [("delete_for_runs", (["run"],)), ("copy_thread", ("t", "u")), ("prune", (["t"],))],
)
def test_the_savers_leave_langgraphs_unimplemented_thread_methods_unimplemented(
    saver_kind, method, args
):
    for lib in (load_langgraph(), load_graphkit()):
        with SAVERS[saver_kind](lib.name) as saver:
            with pytest.raises(NotImplementedError):
                getattr(saver, method)(*args)
            with pytest.raises(NotImplementedError):
                asyncio.run(getattr(saver, f"a{method}")(*args))


def test_an_in_memory_saver_opens_as_a_context_manager():
    # LangGraph's test_memory_saver: `with InMemorySaver() as saver` and `async with`
    async def opened_async(saver: Any) -> bool:
        async with saver as opened:
            return opened is saver

    for lib in (load_langgraph(), load_graphkit()):
        with SAVERS["memory"](lib.name) as saver:
            with saver as opened:
                assert opened is saver, lib
            assert asyncio.run(opened_async(saver)), lib


def put_with_config_metadata(lib: Lib, saver_kind: str) -> list[Any]:
    """LangGraph's test_combined_metadata: a checkpoint `put` directly, its config
    carrying `metadata` and `configurable` keys, then read back and searched."""
    with SAVERS[saver_kind](lib.name) as saver:
        app = lib.StateGraph(State).add_node("a", lambda state: {"x": 2})
        app = app.add_edge(lib.START, "a").compile(checkpointer=saver)
        app.invoke({"x": 1, "log": []}, THREAD)
        checkpoint = saver.get_tuple(THREAD).checkpoint
        config = {
            "configurable": {"thread_id": "t2", "checkpoint_ns": "", "user": "ada", "__x": 1},
            "metadata": {"run_id": "my_run_id", "step": 9, "tags": ["not", "carried"]},
        }
        saver.put(config, checkpoint, {"source": "loop", "step": 1, "writes": {}}, {})
        by_user = saver.list(None, filter={"user": "ada"})
        return [
            saver.get_tuple(config).metadata,
            [t.config["configurable"]["thread_id"] for t in by_user],
            len(list(saver.list(None, filter={"run_id": "my_run_id"}))),
        ]


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_put_saves_what_the_config_carries_in_the_metadata(saver):
    assert put_with_config_metadata(load_graphkit(), saver) == put_with_config_metadata(
        load_langgraph(), saver
    )


def filtered(lib: Lib, saver_kind: str) -> list[Any]:
    """LangGraph's test_metadata_filter_keys_with_hyphens_and_digits and
    test_checkpoint_search_sql_injection_prevention: which checkpoints a filter finds."""
    with SAVERS[saver_kind](lib.name) as saver:
        app = lib.StateGraph(State).add_node("a", lambda state: {"x": 2})
        app = app.add_edge(lib.START, "a").compile(checkpointer=saver)
        app.invoke({"x": 1, "log": []}, THREAD)
        checkpoint = saver.get_tuple(THREAD).checkpoint
        metadata = {
            "access-level": "public",
            "123abc": "ok",
            "score": None,
            "user": {"access-level": "nested", "123abc": "ok2"},
            "user.name": "dotted",
        }
        other_thread = {"configurable": {"thread_id": "m", "checkpoint_ns": ""}}
        saver.put(other_thread, checkpoint, metadata, {})
        found = []
        for query in [
            {"access-level": "public"}, {"123abc": "ok"}, {"user.access-level": "nested"},
            {"user.123abc": "ok2"}, {"user": {"access-level": "nested", "123abc": "ok2"}},
            {"user.name": "dotted"}, {"user.nothing.deeper": None}, {"score": None},
            {"x') OR '1'='1": "dummy"}, {"user name": 1},
        ]:  # fmt: skip
            try:
                threads = [
                    t.config["configurable"]["thread_id"] for t in saver.list(None, filter=query)
                ]
            except ValueError as error:
                found.append(("ValueError", str(error).split(":")[0]))
            else:
                found.append(sorted(threads))
        return found


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_a_filter_finds_what_langgraphs_finds_and_refuses_what_it_refuses(saver):
    # SQLite: a dotted key names a nested item; a key SQL could not quote is refused
    assert filtered(load_graphkit(), saver) == filtered(load_langgraph(), saver)


def namespaces_listed(lib: Lib, saver_kind: str) -> list[Any]:
    """What ``list`` shows of a thread whose subgraph saved before its root did
    (``durability="exit"``), and the threads ``list(None)`` shows after one was read
    before it was written."""
    interrupt = _interrupt(lib.name)
    inner = lib.StateGraph(State).add_node("ask", lambda state: {"x": interrupt("x?")})
    inner = inner.add_edge(lib.START, "ask").compile()
    builder = lib.StateGraph(State).add_node("inner", inner).add_edge(lib.START, "inner")
    with SAVERS[saver_kind](lib.name) as saver:
        app = builder.compile(checkpointer=saver)
        later = {"configurable": {"thread_id": "later"}}
        app.get_state(later)  # read before anything is saved for it
        app.invoke({"x": 1, "log": []}, THREAD, durability="exit")
        app.invoke({"x": 2, "log": []}, later)
        return [
            [
                (c.config["configurable"]["checkpoint_ns"].partition(":")[0], c.metadata["step"])
                for c in saver.list(THREAD)
            ],
            [c.config["configurable"]["thread_id"] for c in saver.list(None)],
        ]


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_list_orders_namespaces_and_threads_as_langgraph(saver):
    # LangGraph's InMemorySaver lists namespace by namespace in the order each was first
    # read or written: a run reads its own before its subgraphs save theirs
    assert namespaces_listed(load_graphkit(), saver) == namespaces_listed(load_langgraph(), saver)
