"""private_copy shares no mutable object with what it copies; Lent remembers which
saved map a copy stands for only while the copy lives."""

from __future__ import annotations

import copy
import dataclasses
import gc
from typing import Any, NamedTuple

import pydantic
import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from graphkit.checkpoint.copies import (
    AtomList,
    Lent,
    atom_rope,
    copy_values,
    kept_copy,
    private_copy,
)
from graphkit.checkpoint.delta_map import DeltaMap

IMMUTABLE = (str, int, float, bool, complex, bytes, type(None), tuple, frozenset)


def mutable_parts(value, found=None):
    """The ids of every mutable object reachable from ``value``."""
    found = {} if found is None else found
    if id(value) in found:
        return found
    if not isinstance(value, IMMUTABLE):
        found[id(value)] = value
    if isinstance(value, dict):
        for key, item in value.items():
            mutable_parts(key, found)
            mutable_parts(item, found)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            mutable_parts(item, found)
    elif isinstance(value, pydantic.BaseModel):
        mutable_parts(value.__dict__, found)
        mutable_parts(value.__pydantic_private__, found)
    elif hasattr(value, "__dict__"):
        mutable_parts(vars(value), found)
    return found


@dataclasses.dataclass
class Box:
    items: list


class Model(pydantic.BaseModel):
    tags: list[str]
    box: dict


class WithPrivate(pydantic.BaseModel):
    name: str
    _seen: list = pydantic.PrivateAttr(default_factory=list)


class OwnCopy(pydantic.BaseModel):
    items: list

    def __deepcopy__(self, memo=None):
        return OwnCopy(items=["copied by its own rule"])


VALUES = {
    "nested containers": {"a": [1, {"b": {2, 3}}], ("k", 1): [{"in a list": []}]},
    "chat messages": [
        HumanMessage("hi", id="1"),
        AIMessage("", id="2", tool_calls=[{"name": "search", "args": {"q": "sf"}, "id": "c"}]),
        ToolMessage([{"type": "text", "text": "sunny"}], tool_call_id="c", id="3"),
    ],
    "a pydantic model": Model(tags=["x"], box={"y": [1]}),
    "a model with private attributes": WithPrivate(name="n"),
    "a dataclass": Box([[1], {"a": 2}]),
}


@pytest.mark.parametrize("value", VALUES.values(), ids=VALUES.keys())
def test_a_copy_is_equal_and_shares_no_mutable_object(value):
    copied = private_copy(value)
    assert copied == value
    assert type(copied) is type(value)
    assert not mutable_parts(copied).keys() & mutable_parts(value).keys()


def test_a_tuple_is_copied_as_a_list_as_langgraph_reads_it_back_but_not_in_a_key_or_a_set():
    saved = {
        ("k", (1,)): ({"in": (2,)},),
        "s": {(1, (2,))},
        "pair": Pair(1, (2,)),
        "box": Held((3,)),
    }
    copied = private_copy(saved)
    assert copied == {
        ("k", (1,)): [{"in": [2]}],
        "s": {(1, (2,))},
        "pair": Pair(1, [2]),
        "box": Held([3]),
    }
    assert type(next(iter(copied))) is tuple and type(copied["pair"]) is Pair
    assert saved["box"].inner == (3,)  # (the saved value is not changed)


class Span(pydantic.BaseModel):
    bounds: tuple[int, int]
    rows: list


def test_a_models_tuple_field_stays_a_tuple_as_langgraph_validates_it_back():
    copied = private_copy(Span(bounds=(1, 2), rows=[(3,)]))
    assert copied.bounds == (1, 2) and copied.rows == [[3]]


class Pair(NamedTuple):
    left: Any
    right: Any


@dataclasses.dataclass
class Held:
    inner: Any


def test_immutable_values_are_shared_and_a_models_own_deepcopy_is_used():
    atoms = ("text", 1, 2.5, None, b"bytes")
    assert all(private_copy(value) is value for value in atoms)
    assert private_copy(OwnCopy(items=[1])).items == ["copied by its own rule"]
    message = AIMessage("hi", id="1")
    copied = private_copy(message)
    assert copied.model_fields_set == message.model_fields_set
    copied.content = "edited"  # (assignment validates as on any model)
    assert message.content == "hi"


class Tally(int):
    """An int that carries a mutable attribute: not an atom, though ``isinstance`` of int."""

    def __new__(cls, value: int) -> Tally:
        tally = super().__new__(cls, value)
        tally.seen = []
        return tally


def test_a_list_of_atoms_is_copied_whole_and_any_other_item_still_copied():
    atoms = [1, "a", 2.5, None, True, b"x", 3j] * 3
    copied = private_copy(atoms)
    assert copied == atoms and copied is not atoms
    # atoms first, then one item that is not (exact types: an int subclass is not)
    tally = Tally(3)
    for last in ({"a": [2]}, [2], tally, Box([1])):
        mixed = [*range(20), last]
        copied = private_copy(mixed)
        assert copied == mixed and copied[-1] is not last
        assert not mutable_parts(copied).keys() & mutable_parts(mixed).keys()
    assert private_copy([*range(20), tally])[-1].seen is not tally.seen


def test_a_kept_list_of_atoms_is_marked_and_copied_out_as_a_plain_list():
    numbers = list(range(20))
    kept = kept_copy(numbers)
    assert type(kept) is AtomList and kept == numbers and kept is not numbers
    rope = atom_rope(numbers).grown([20]).grown([21, 22, 23])
    for marked, expected in ((kept, numbers), (rope, list(range(24)))):
        read = private_copy(marked)
        assert type(read) is list and read == expected and read is not marked
        read.append("edited by a reader")
        assert private_copy(marked) == expected
    assert private_copy({"kept": kept})["kept"].__class__ is list
    for other in ([1, 2], [*range(20), [1]], [*range(20), Tally(3)], "text", {"a": 1}):
        assert type(kept_copy(other)) is type(other) and atom_rope(other) is other


def test_a_rope_grown_again_and_again_stays_the_list_it_stands_for():
    rope, expected = atom_rope(list(range(9))), list(range(9))
    for step in range(200):
        before = private_copy(rope)
        rope, expected = rope.grown([step, "s"]), [*expected, step, "s"]
        assert private_copy(rope) == expected and before == expected[:-2]
    assert len(rope.tail) * 8 <= len(rope.head)


def test_a_value_that_holds_itself_is_copied_with_its_cycle():
    looped: list = [1]
    looped.append(looped)
    copied = private_copy(looped)
    assert copied is not looped and copied[1] is copied


def test_copy_values_copies_each_channel_into_a_new_map():
    saved = DeltaMap({"messages": [{"text": "hi"}], "count": 1})
    read = copy_values(saved)
    read["messages"][0]["text"] = "edited"
    assert isinstance(read, DeltaMap) and saved["messages"] == [{"text": "hi"}]


def test_lent_names_the_origin_only_of_the_copy_itself_while_it_lives():
    lent, saved = Lent(), DeltaMap({"a": [1]})
    read = lent.lend(copy_values(saved), saved)
    equal = copy.copy(read)
    assert lent.origin(read) is saved
    assert lent.origin(equal) is None and lent.origin(None) is None
    del read
    gc.collect()
    assert len(lent) == 0


def test_a_class_made_at_run_time_is_not_kept_alive_by_a_copy_of_its_instance():
    import weakref

    model = pydantic.create_model("PerRequest", answer=(int, 0))
    plain = type("PerRequestPlain", (), {})
    copied = private_copy({"model": model(answer=4), "plain": plain()})
    assert copied["model"].answer == 4 and type(copied["plain"]) is plain
    classes = [weakref.ref(model), weakref.ref(plain)]
    del model, plain, copied
    gc.collect()
    assert [ref() for ref in classes] == [None, None]
