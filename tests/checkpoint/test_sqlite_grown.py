"""GrownLists: a blob that adds items to the list read before it is decoded as that list
plus its new items, and only then; the lists it keeps are never a reader's."""

from __future__ import annotations

import dataclasses
import operator
import sqlite3
import sys
import types
from typing import Annotated, TypedDict

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from graphkit import END, START, StateGraph
from graphkit.checkpoint import Checkpoint, SqliteSaver
from graphkit.checkpoint.copies import private_copy
from graphkit.checkpoint.deltas import RowMemory
from graphkit.checkpoint.serde import JsonPlusSerializer
from graphkit.checkpoint.sqlite.grown import GrownLists
from tests.checkpoint.chains import derive, thread

serde = JsonPlusSerializer()
KEY = ("t", "", "log")


def read_all(values):
    """Each value written then read in turn, as a history reads its rows oldest first:
    (what was read, how many were read as a kept list plus new items)."""
    lists = GrownLists()
    read = [lists.read(KEY, serde.dumps_typed(value), serde) for value in values]
    return read, lists.grown


@pytest.mark.parametrize(
    "values",
    [
        [[1, 2], [1, 23]],  # the last item's text goes on: not an added item
        [[1, 2], [1, 3, 4]],  # an earlier item changed
        [[1, 2], [1, 2.0, 3]],  # changed to an equal one
        [["a]", "b"], ["a]", "b,", "c"]],  # brackets and commas inside strings
        [[[1]], [[1, 2]]],  # a nested list grew, not the list
        [[1, 2], (1, 2, 3)],  # a tuple now (read back as a list, as in LangGraph)
        [[1, 2], []],
        [[], [1]],
    ],
)
def test_a_list_that_did_not_only_grow_is_read_whole_and_as_written(values):
    read, grown = read_all(values)
    expected = [list(value) if type(value) is tuple else value for value in values]
    assert read == expected and [type(value) for value in read] == [type(v) for v in expected]
    assert grown == 0


def test_a_list_that_grew_is_read_as_the_kept_one_plus_its_new_items():
    messages = [HumanMessage("hi", id="1"), AIMessage("", id="2")]
    values = [[1], [1, {"a": [2]}], [1, {"a": [2]}, "x"], messages[:1], messages]
    read, grown = read_all(values)
    assert read == values and type(read[-1][-1]) is AIMessage
    assert grown == 3  # [1] -> [1, {...}] -> [1, {...}, "x"], and the messages


def test_a_kept_list_is_not_changed_by_reading_the_next_one():
    lists = GrownLists()
    first = lists.read(KEY, ("json", b"[1,2]"), serde)
    second = lists.read(KEY, ("json", b"[1,2,3]"), serde)
    assert first == [1, 2] and second == [1, 2, 3] and second is not first


def test_a_long_list_of_atoms_is_kept_marked_as_it_grows_and_never_changed():
    lists, kept = GrownLists(), []
    for length in (3, 12, 13, 14):
        typed = serde.dumps_typed(list(range(length)))
        kept.append(lists.read(KEY, typed, serde))
    assert [type(value).__name__ for value in kept] == ["list", *["AtomRope"] * 3]
    assert kept[0] == [0, 1, 2] and lists.grown == 3
    copies = [private_copy(value) for value in kept]
    assert copies == [list(range(length)) for length in (3, 12, 13, 14)]
    with_a_dict = lists.read(KEY, serde.dumps_typed([*range(14), {"a": 1}]), serde)
    assert with_a_dict == [*range(14), {"a": 1}] and type(with_a_dict) is list
    assert [private_copy(value) for value in kept] == copies


class LastTen(JsonPlusSerializer):
    """A subclass with a reading rule of its own: a list comes back as its last 10 items."""

    def loads_typed(self, data):
        value = super().loads_typed(data)
        return value[-10:] if type(value) is list else value


def test_a_serializer_subclass_that_reads_lists_its_own_way_is_asked_for_each_blob():
    saver, config = SqliteSaver(sqlite3.connect(":memory:"), serde=LastTen()), thread("t")
    checkpoint = Checkpoint.empty()
    for n in (12, 13):
        checkpoint = derive(checkpoint, {"log": list(range(n))})
        saver.put(config, checkpoint, {}, {})
    saver._memory = RowMemory()  # (the rows decoded anew: their blobs are read in turn)
    read = [saved.checkpoint.channel_values["log"] for saved in saver.list(config)]
    assert read == [list(range(3, 13)), list(range(2, 12))] and saver._lists.grown == 0


@dataclasses.dataclass
class Thing:
    n: int


def test_a_list_read_before_its_class_could_be_built_is_not_kept(monkeypatch):
    """Read while its module is not imported, a class comes back as its plain data; read
    after, it is built: a grown list must not hold both (nor a wider copy of the
    serializer reuse a list the narrower one read)."""
    module = types.ModuleType("grown_things")
    module.Thing = Thing
    monkeypatch.setattr(Thing, "__module__", module.__name__)
    monkeypatch.delenv("LANGGRAPH_STRICT_MSGPACK", raising=False)
    reader = JsonPlusSerializer()  # (built without the variable: reads imported modules)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    blobs = [reader.dumps_typed([Thing(i) for i in range(n)]) for n in (1, 2, 3, 4)]
    monkeypatch.delitem(sys.modules, module.__name__)
    lists = GrownLists()
    assert lists.read(KEY, blobs[0], reader) == [{"n": 0}]  # (and a warning is logged)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    assert lists.read(KEY, blobs[1], reader) == [Thing(0), Thing(1)]
    assert lists.read(KEY, blobs[2], reader) == [Thing(0), Thing(1), Thing(2)]
    assert lists.grown == 1
    strict = JsonPlusSerializer(allowed_msgpack_modules=None)  # (builds no class of ours)
    wider = strict.with_msgpack_allowlist([Thing])  # (a saver's copy from compile(), say)
    assert lists.read(KEY, blobs[2], wider) == [Thing(0), Thing(1), Thing(2)]
    assert lists.read(KEY, blobs[3], strict) == [{"n": i} for i in range(4)]


def test_a_malformed_blob_is_read_whole_for_the_error_that_names_it():
    lists = GrownLists()
    lists.read(KEY, ("json", b"[1,2]"), serde)
    with pytest.raises(ValueError, match="corrupt JSON"):
        lists.read(KEY, ("json", b"[1,2,}]"), serde)


def test_the_kept_lists_are_bounded_and_forgotten_with_their_thread():
    lists = GrownLists(limit=2)
    for name in ("a", "b", "c"):
        lists.read((name, "", "log"), ("json", b"[1]"), serde)
    assert repr(lists) == "GrownLists(kept=2, grown=0)"
    lists.forget_thread("c")
    assert repr(lists) == "GrownLists(kept=1, grown=0)"


class Log(TypedDict):
    n: int
    log: Annotated[list, operator.add]


@pytest.mark.parametrize("item", [lambda n: {"step": n}, lambda n: n], ids=["dicts", "ints"])
def test_a_history_of_a_growing_list_reads_each_checkpoint_as_saved(tmp_path, item):
    def step(state: Log) -> dict:
        return {"n": state["n"] + 1, "log": [item(state["n"])]}

    builder = StateGraph(Log).add_node("f", step).add_edge(START, "f")
    builder.add_conditional_edges("f", lambda state: "f" if state["n"] < 12 else END)
    config = {"configurable": {"thread_id": "t"}, "recursion_limit": 20}
    path = tmp_path / "grown.db"
    builder.compile(checkpointer=SqliteSaver(sqlite3.connect(path))).invoke(
        {"n": 0, "log": []}, config
    )
    saver = SqliteSaver(sqlite3.connect(path))
    app = builder.compile(checkpointer=saver)
    history = list(app.get_state_history(config))
    logs = [[item(i) for i in range(len(state.values.get("log", [])))] for state in history]
    assert [state.values.get("log", []) for state in history] == logs and len(logs[0]) == 12
    assert all(type(state.values.get("log", [])) is list for state in history)
    assert saver._lists.grown >= 10
    for state in history:  # a reader's edits change no saved checkpoint
        log = state.values.get("log", [])
        for entry in log:
            if isinstance(entry, dict):
                entry["step"] = "edited"
        log.append("edited")
    for reader in (saver, SqliteSaver(sqlite3.connect(path))):
        read = list(builder.compile(checkpointer=reader).get_state_history(config))
        assert [state.values.get("log", []) for state in read] == logs
