"""InMemorySaver: each reader gets its own copy of what was saved, and a run resumed
from such a copy still keeps only what its steps changed."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest

from graphkit import START, InMemorySaver, StateGraph
from graphkit.checkpoint import Checkpoint, JsonPlusSerializer, PickleSerializer
from tests.checkpoint.chains import derive, thread


class Notes(TypedDict):
    document: dict
    notes: Annotated[list, operator.add]


class CountingSerde(JsonPlusSerializer):
    """Counts how often the saver checks a value with a ``"pages"`` key (the document)."""

    checked = 0

    def check_storable(self, obj):
        if isinstance(obj, dict) and "pages" in obj:
            self.checked += 1
        super().check_storable(obj)


def notes_app(saver):
    builder = StateGraph(Notes)
    builder.add_node("note", lambda state: {"notes": [f"note {len(state['notes'])}"]})
    builder.add_edge(START, "note")
    return builder.compile(checkpointer=saver)


def saved_documents(saver):
    """The document each checkpoint of thread "t" keeps (the objects themselves)."""
    kept = saver._checkpoints[("t", "")].values()
    return [checkpoint.channel_values.get("document") for checkpoint, _ in kept]


def test_a_value_read_from_the_saver_is_the_readers_own():
    """Values, pending writes and metadata: editing what ``get_tuple``, ``list`` or
    their async twins hand out changes nothing saved."""
    saver = InMemorySaver()
    first = derive(Checkpoint.empty(), {"call": {"args": {"q": "sf"}}}, source="input")
    config = saver.put(thread("t"), first, {"source": "input", "parents": {}}, {})
    saver.put_writes(config, [("found", [{"tags": ["city"]}])], "task")

    def edit(saved):
        saved.checkpoint.channel_values["call"]["args"]["q"] = "edited"
        saved.pending_writes[0][2][0]["tags"].append("edited")
        saved.metadata["parents"][""] = "edited"

    async def read_async():
        edit(await saver.aget_tuple(thread("t")))
        async for saved in saver.alist(thread("t")):
            edit(saved)

    edit(saver.get_tuple(thread("t")))
    edit(next(saver.list(thread("t"))))
    asyncio.run(read_async())
    saved = saver.get_tuple(thread("t"))
    assert saved.checkpoint.channel_values["call"] == {"args": {"q": "sf"}}
    assert saved.pending_writes == [("task", "found", [{"tags": ["city"]}])]
    assert saved.metadata == {"source": "input", "parents": {}}


def test_a_long_list_of_atoms_is_kept_marked_and_read_as_a_plain_list_of_the_readers_own():
    """The saver keeps its copy of a long list of atoms as an ``AtomList`` (its readers'
    copies then need no check); a reader gets a plain list, and editing it, or the list
    put, changes nothing saved."""
    saver, numbers = InMemorySaver(), list(range(20))
    first = derive(Checkpoint.empty(), {"numbers": numbers}, source="input")
    config = saver.put(thread("t"), first, {"source": "input", "parents": {}}, {})
    saver.put_writes(config, [("found", numbers)], "task")
    numbers.append("edited after the put")
    for _ in range(2):
        saved = saver.get_tuple(thread("t"))
        read, written = saved.checkpoint.channel_values["numbers"], saved.pending_writes[0][2]
        assert type(read) is list and type(written) is list
        assert read == written == list(range(20))
        read.append("edited by a reader")
        written.append("edited by a reader")
    kept = saver._checkpoints["t", ""][first.id][0].channel_values["numbers"]
    assert type(kept).__name__ == "AtomList"


class ShortListsOnly:
    """A serializer of its own, which refuses lists of more than 10 items."""

    def dumps_typed(self, obj):
        if isinstance(obj, list) and len(obj) > 10:
            raise TypeError("too long for this serializer")
        return JsonPlusSerializer().dumps_typed(obj)

    def loads_typed(self, data):
        return JsonPlusSerializer().loads_typed(data)


class NoLongListsJson(JsonPlusSerializer):
    """The JSON serializer with a rule of its own: no list of more than 10 items."""

    def check_storable(self, obj):
        if isinstance(obj, list) and len(obj) > 10:
            raise TypeError("too long for this serializer")
        super().check_storable(obj)


def test_a_long_list_of_numbers_skips_only_the_json_serializers_check():
    """The JSON serializers store any list of str, numbers, bools and None, so the saver
    does not ask them; another serializer is asked, as SqliteSaver would ask it, and so
    is a subclass of the JSON one with a check of its own."""
    checkpoint = derive(Checkpoint.empty(), {"numbers": list(range(20))}, source="input")
    metadata = {"source": "input", "parents": {}}
    for serde in (ShortListsOnly(), NoLongListsJson()):
        with pytest.raises(TypeError, match=r"channel 'numbers'\. too long for this serializer"):
            InMemorySaver(serde=serde).put(thread("t"), checkpoint, metadata, {})
    serde, asked = JsonPlusSerializer(), []
    serde.check_storable = asked.append  # (on the instance: the class's rules are kept)
    InMemorySaver(serde=serde).put(thread("t"), checkpoint, metadata, {})
    assert asked == [metadata]


@pytest.mark.parametrize(("durability", "kept"), [("sync", 10), ("async", 10), ("exit", 5)])
def test_a_long_lived_unchanged_channel_is_kept_once_across_invokes(durability, kept):
    """Each invoke on a thread resumes from a copy of its latest values; its checkpoints
    still keep the one saved document (not a copy per run), and the saver checks the
    document with its serializer once, when it was written, not again at each run.
    With ``durability="exit"`` a run puts only its last checkpoint, derived from the
    copy through every step the run took (it was kept whole, a copy per run)."""
    serde = CountingSerde()
    saver = InMemorySaver(serde=serde)
    app = notes_app(saver)
    document = {"pages": [f"page {index}" for index in range(100)]}
    app.invoke({"document": document, "notes": []}, thread("t"), durability=durability)
    for _ in range(4):
        app.invoke({"notes": []}, thread("t"), durability=durability)
    documents = [saved for saved in saved_documents(saver) if saved is not None]
    assert len(documents) >= kept  # (sync, async: an input and a loop checkpoint per run)
    assert len({id(saved) for saved in documents}) == 1
    assert serde.checked == (2 if durability != "exit" else 1)  # (+ its input write)
    assert app.get_state(thread("t")).values["notes"] == [f"note {index}" for index in range(5)]


def test_a_fork_and_a_copy_keep_the_saved_values():
    """Replaying an older checkpoint (a fork) and ``update_state(..., as_node="__copy__")``
    save checkpoints whose values are a reader's copies: the saver keeps the values it
    already had instead."""
    saver = InMemorySaver()
    app = notes_app(saver)
    app.invoke({"document": {"pages": ["one"]}, "notes": []}, thread("t"))
    older = list(app.get_state_history(thread("t")))[1]  # (the input checkpoint)
    app.invoke(None, older.config)  # replayed: a fork
    app.update_state(thread("t"), None, as_node="__copy__")
    app.invoke({"notes": []}, thread("t"))
    documents = [saved for saved in saved_documents(saver) if saved is not None]
    assert len({id(saved) for saved in documents}) == 1
    assert app.get_state(thread("t")).values["document"] == {"pages": ["one"]}


def test_a_resumed_run_keeps_the_saved_versions_seen_it_did_not_change():
    """The versions seen a reader is given are its own copy, yet a run resumed from one
    keeps its checkpoints' versions seen as the saved map plus the step's changes (not
    a whole copy per run): each checkpoint's map is derived from its saved parent's."""
    saver = InMemorySaver()
    app = notes_app(saver)
    app.invoke({"document": {"pages": []}, "notes": []}, thread("t"))
    app.invoke({"notes": []}, thread("t"))
    kept = {saved.id: saved for saved, _ in saver._checkpoints[("t", "")].values()}
    for saved in kept.values():
        if saved.parent_id is not None:
            assert saved.versions_seen.derived_from() is kept[saved.parent_id].versions_seen


def test_a_value_too_deep_to_copy_is_refused_at_the_write_saying_where():
    """300 objects, each holding the next, pass the pickle serializer's check but
    overflow the saver's copy (``copy.deepcopy``, some frames a level): the run failed
    with a bare RecursionError (before the saver copied at put, every later read of the
    thread did)."""

    def nest(state: Deep) -> dict:
        value: Any = 1
        for _ in range(300):
            value = Link(value)
        return {"value": value}

    app = StateGraph(Deep).add_node("nest", nest).add_edge(START, "nest")
    app = app.compile(checkpointer=InMemorySaver(serde=PickleSerializer()))
    with pytest.raises(TypeError, match=r"of thread 't', channel 'value': its value nests too"):
        app.invoke({"value": 0}, {"configurable": {"thread_id": "t"}})


class Link:
    def __init__(self, inner: Any) -> None:
        self.inner = inner


class Deep(TypedDict, total=False):
    value: Any
