"""The saver contract, run on every saver: InMemorySaver is the reference, and
SqliteSaver (in memory and on a file) must be observably the same — explicit
scenarios, then random sequences of operations applied to both and compared."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphkit.checkpoint import Checkpoint, InMemorySaver, SqliteSaver
from tests.checkpoint.chains import chain, derive, put_chain, thread

SAVERS = ["memory", "sqlite", "sqlite-file"]


@pytest.fixture(params=SAVERS)
def saver(request, tmp_path):
    if request.param == "memory":
        yield InMemorySaver()
        return
    path = str(tmp_path / "checkpoints.db") if request.param == "sqlite-file" else ":memory:"
    with SqliteSaver.from_conn_string(path) as sqlite_saver:
        yield sqlite_saver


def ids(tuples):
    return [saved.checkpoint.id for saved in tuples]


# -- get_tuple and put --------------------------------------------------------------------


def test_an_unknown_thread_has_no_checkpoint(saver):
    assert saver.get_tuple(thread("nobody")) is None
    assert saver.get(thread("nobody")) is None
    assert list(saver.list(thread("nobody"))) == []


def test_put_returns_the_config_that_names_the_checkpoint(saver):
    (first,) = chain(3, 1)
    config = saver.put(thread("t"), first, {"step": -1}, {})
    assert config == {
        "configurable": {"thread_id": "t", "checkpoint_ns": "", "checkpoint_id": first.id}
    }


def test_get_tuple_reads_back_exactly_what_was_put(saver):
    checkpoints = chain(20, 12)
    configs = put_chain(saver, checkpoints)
    latest = saver.get_tuple(thread("t"))
    assert latest.checkpoint == checkpoints[-1]
    assert latest.config == configs[-1]
    assert latest.parent_config == configs[-2]
    assert latest.metadata == {"source": "loop", "step": checkpoints[-1].step, "parents": {}}
    for checkpoint, config in zip(checkpoints, configs, strict=True):
        saved = saver.get_tuple(config)
        assert saved.checkpoint == checkpoint
        assert dict(saved.checkpoint.channel_values) == dict(checkpoint.channel_values)
        assert dict(saved.checkpoint.versions_seen) == dict(checkpoint.versions_seen)
    assert saver.get_tuple(configs[0]).parent_config is None


def test_get_tuple_of_an_unknown_checkpoint_id_is_none(saver):
    put_chain(saver, chain(3, 2))
    assert saver.get_tuple(thread("t", checkpoint_id="no-such-id")) is None


def test_a_thread_id_is_required(saver):
    with pytest.raises(ValueError, match="thread_id"):
        saver.get_tuple({"configurable": {}})
    with pytest.raises(ValueError, match="thread_id"):
        saver.put({}, Checkpoint.empty(), {}, {})


def test_putting_a_checkpoint_again_replaces_it(saver):
    first, second = chain(3, 2)
    put_chain(saver, [first, second])
    saver.put(thread("t"), second, {"step": 99, "again": True}, {})
    assert ids(saver.list(thread("t"))) == [second.id, first.id]
    assert saver.get_tuple(thread("t")).metadata == {"step": 99, "again": True}
    assert saver.get_tuple(thread("t")).checkpoint == second


def test_emptied_channels_are_gone_from_the_read_checkpoint(saver):
    first = derive(Checkpoint.empty(), {"a": 1, "b": 2, "c": 3}, source="input")
    second = derive(first, {"a": 10}, removed=["b"])
    third = derive(second, {"b": 20})
    put_chain(saver, [first, second, third])
    assert dict(
        saver.get_tuple(thread("t", checkpoint_id=second.id)).checkpoint.channel_values
    ) == {
        "a": 10,
        "c": 3,
    }
    assert dict(saver.get_tuple(thread("t")).checkpoint.channel_values) == {
        "a": 10,
        "b": 20,
        "c": 3,
    }


def test_a_fork_keeps_both_branches(saver):
    first, second, third = chain(5, 3)
    fork = derive(second, {"c1": "fork"})
    put_chain(saver, [first, second, third, fork])
    assert saver.get_tuple(thread("t", checkpoint_id=third.id)).checkpoint == third
    forked = saver.get_tuple(thread("t", checkpoint_id=fork.id))
    assert (
        forked.checkpoint == fork
        and forked.parent_config["configurable"]["checkpoint_id"] == second.id
    )


# -- list -----------------------------------------------------------------------------------


def test_list_is_newest_first_with_before_limit_and_filter(saver):
    checkpoints = chain(4, 6)
    put_chain(saver, checkpoints)
    newest_first = [checkpoint.id for checkpoint in reversed(checkpoints)]
    assert ids(saver.list(thread("t"))) == newest_first
    assert ids(saver.list(thread("t"), limit=2)) == newest_first[:2]
    assert ids(saver.list(thread("t"), limit=0)) == []
    before = thread("t", checkpoint_id=checkpoints[3].id)
    assert ids(saver.list(thread("t"), before=before)) == newest_first[3:]
    assert ids(saver.list(thread("t"), filter={"step": 2})) == [checkpoints[3].id]
    assert ids(saver.list(thread("t"), filter={"source": "loop"}, limit=1)) == newest_first[:1]
    assert ids(saver.list(thread("t"), filter={"step": 2, "source": "input"})) == []


def test_list_without_a_thread_covers_every_thread_and_namespace(saver):
    put_chain(saver, chain(2, 2, seed=1), "a")
    put_chain(saver, chain(2, 2, seed=2), "b")
    put_chain(saver, chain(2, 2, seed=3), "a", namespace="child")
    everything = list(saver.list(None))
    newest_first = [saved.checkpoint.id for saved in everything]
    where = [
        (saved.config["configurable"]["thread_id"], saved.config["configurable"]["checkpoint_ns"])
        for saved in everything
    ]
    if isinstance(saver, InMemorySaver):  # LangGraph's: by thread, then namespace
        assert where == [("a", "")] * 2 + [("a", "child")] * 2 + [("b", "")] * 2
        assert all(newest_first[i] > newest_first[i + 1] for i in (0, 2, 4))
    else:  # LangGraph's SQLite saver: newest first overall
        assert len(where) == 6 and newest_first == sorted(newest_first, reverse=True)
    assert len(list(saver.list(thread("a")))) == 4
    assert len(list(saver.list(thread("a", namespace="")))) == 2
    assert len(list(saver.list(thread("a", namespace="child")))) == 2
    assert len(list(saver.list({"configurable": {"checkpoint_ns": "child"}}))) == 2


def test_one_checkpoint_in_two_threads_lists_in_thread_order(saver):
    (first,) = chain(2, 1)
    saver.put(thread("z"), first, {"in": "z"}, {})
    saver.put(thread("a"), first, {"in": "a"}, {})
    assert [saved.metadata["in"] for saved in saver.list(None)] == ["z", "a"]


# -- pending writes -------------------------------------------------------------------------


def test_a_saved_write_stays_and_special_slots_are_replaced(saver):
    # LangGraph's rule: a task's regular writes, once saved, stay (a resumed task that
    # saves again does not change them); its interrupt / resume / error slots are fixed
    # and replaced, so an interrupt survives the task's later successful writes. They come
    # back in LangGraph's order: by task (path, then id), then index, where the special
    # slots are negative (resume -4, interrupt -3).
    (first,) = chain(2, 1)
    config = saver.put(thread("t"), first, {}, {})
    saver.put_writes(config, [("a", 1), ("b", 2)], "task-1")
    saver.put_writes(config, [("c", 3)], "task-2")
    saver.put_writes(config, [("a", 10)], "task-1")
    saver.put_writes(config, [("__interrupt__", "first"), ("__resume__", [])], "task-3")
    saver.put_writes(config, [("__interrupt__", "second")], "task-3")
    saver.put_writes(config, [("d", 4)], "task-3")
    assert saver.get_tuple(config).pending_writes == [
        ("task-1", "a", 1),
        ("task-1", "b", 2),
        ("task-2", "c", 3),
        ("task-3", "__resume__", []),
        ("task-3", "__interrupt__", "second"),
        ("task-3", "d", 4),
    ]


def test_pending_writes_come_back_by_task_path_then_task_id_whatever_order_they_came_in(saver):
    # as LangGraph's savers list them; task paths are put_writes's task_path, "" for writes
    # no task made (and for callers that pass none)
    (first,) = chain(2, 1)
    config = saver.put(thread("t"), first, {}, {})
    saver.put_writes(config, [("x", "send 10")], "t1", "~__pregel_push, 0000000010, 0000000000")
    saver.put_writes(config, [("x", "send 9")], "t2", "~__pregel_push, 0000000009, 0000000000")
    saver.put_writes(config, [("x", "b"), ("y", "b")], "t3", "~__pregel_pull, b")
    saver.put_writes(config, [("x", "a, second id")], "t5", "~__pregel_pull, a")
    saver.put_writes(config, [("x", "a, first id")], "t4", "~__pregel_pull, a")
    saver.put_writes(config, [("x", "no task")], "t6")
    assert [value for _, _, value in saver.get_tuple(config).pending_writes] == [
        "no task",
        "a, first id",
        "a, second id",
        "b",
        "b",
        "send 9",
        "send 10",
    ]


def test_writes_belong_to_the_checkpoint_they_name(saver):
    first, second = chain(2, 2)
    early = thread("t", namespace="", checkpoint_id=second.id)
    saver.put_writes(early, [("x", "before the checkpoint")], "task")
    put_chain(saver, [first])
    saver.put(thread("t"), second, {}, {})
    assert saver.get_tuple(early).pending_writes == [("task", "x", "before the checkpoint")]
    assert saver.get_tuple(thread("t", checkpoint_id=first.id)).pending_writes == [
        ("task", "c0", first.step),
        ("task", "log", ["t", first.id]),
    ]


# -- delete_thread and the async twins --------------------------------------------------------


def test_delete_thread_forgets_only_that_thread(saver):
    put_chain(saver, chain(3, 3, seed=1), "a")
    put_chain(saver, chain(3, 3, seed=2), "b")
    saver.delete_thread("a")
    assert saver.get_tuple(thread("a")) is None and list(saver.list(thread("a"))) == []
    assert len(list(saver.list(None))) == 3
    again = chain(3, 2, seed=4)
    put_chain(saver, again, "a")
    assert saver.get_tuple(thread("a")).checkpoint == again[-1]


def test_async_twins_do_the_same(saver):
    first, second = chain(3, 2)

    async def run():
        config = await saver.aput(thread("t"), first, {"step": 0}, {})
        await saver.aput_writes(config, [("a", 1)], "task")
        await saver.aput(thread("t"), second, {"step": 1}, {})
        listed = [saved async for saved in saver.alist(thread("t"))]
        read = await saver.aget_tuple(config)
        await saver.adelete_thread("t")
        return listed, read, await saver.aget_tuple(thread("t"))

    listed, read, after_delete = asyncio.run(run())
    assert ids(listed) == [second.id, first.id]
    assert read.pending_writes == [("task", "a", 1)] and after_delete is None


# -- random operations, both savers side by side ---------------------------------------------

operations = st.lists(
    st.one_of(
        st.tuples(st.just("put"), st.sampled_from("ab"), st.integers(0, 30), st.integers(0, 3)),
        st.tuples(st.just("writes"), st.sampled_from("ab"), st.integers(0, 30), st.integers(0, 2)),
        st.tuples(st.just("delete"), st.sampled_from("ab")),
        st.tuples(st.just("list"), st.sampled_from(["a", "b", None]), st.integers(-1, 4)),
    ),
    max_size=25,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(operations)
def test_random_operations_read_the_same_from_both_savers(steps):
    reference = InMemorySaver()
    saver = SqliteSaver(sqlite3.connect(":memory:", check_same_thread=False))
    heads = {"a": [Checkpoint.empty()], "b": [Checkpoint.empty()]}
    for step in steps:
        if step[0] == "put":  # derive from some earlier checkpoint of the thread (a fork)
            _, name, pick, change = step
            parent = heads[name][pick % len(heads[name])]
            checkpoint = derive(parent, {f"c{change}": pick}, removed=["c0"] if change == 3 else [])
            heads[name].append(checkpoint)
            for each in (reference, saver):
                each.put(thread(name), checkpoint, {"step": checkpoint.step, "pick": pick}, {})
        elif step[0] == "writes":
            _, name, pick, task = step
            target = thread(name, "", heads[name][pick % len(heads[name])].id)
            for each in (reference, saver):
                each.put_writes(target, [("w", pick), ("v", {pick})], f"task-{task}")
        elif step[0] == "delete":
            heads[step[1]] = [Checkpoint.empty()]
            for each in (reference, saver):
                each.delete_thread(step[1])
        else:
            _, name, limit = step
            if limit is not None and limit < 0:  # LangGraph's: none in memory, all in SQLite
                config = thread(name) if name else None
                assert list(reference.list(config, limit=limit)) == []
                assert list(saver.list(config, limit=limit)) == list(saver.list(config))
            elif name:
                config = thread(name)
                assert list(saver.list(config, limit=limit)) == list(
                    reference.list(config, limit=limit)
                )
            else:
                assert list(saver.list(None))[:limit] == _newest_first(reference.list(None))[:limit]
    for name in "ab":
        assert saver.get_tuple(thread(name)) == reference.get_tuple(thread(name))
    assert list(saver.list(None)) == _newest_first(reference.list(None))


def _newest_first(listed):
    """The in-memory saver lists thread by thread (as LangGraph's); SQLite, newest first
    overall (as LangGraph's): the same tuples, in the other order."""
    return sorted(listed, key=lambda saved: saved.checkpoint.id, reverse=True)


def test_the_versions_a_reader_is_given_are_its_own(saver):
    """Each node's seen versions in ``get_tuple``'s and ``list``'s checkpoints are the
    reader's own dicts, as LangGraph's savers decode them: editing one changes nothing
    saved (both savers handed out the saved dicts themselves)."""
    first = derive(Checkpoint.empty(), {"a": 1}, node="n")
    saver.put(thread("t"), first, {"step": 0}, {})
    saver.get_tuple(thread("t")).checkpoint.versions_seen["n"]["a"] = 99
    next(saver.list(thread("t"))).checkpoint.versions_seen["n"]["b"] = 1
    assert dict(saver.get_tuple(thread("t")).checkpoint.versions_seen["n"]) == {"a": 0}
