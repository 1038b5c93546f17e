"""A reader's own copy of saved values, and which saved map each copy stands for.

LangGraph's savers decode every read from bytes, so a caller that edits what it was
given (a tool call in ``get_state(config).values``, before ``update_state``: LangGraph's
review pattern) changes no saved checkpoint. graphkit's savers keep objects (the values
put, or the rows decoded once), so they hand each reader a copy (``private_copy``,
``copy_values``) and remember, while the copy lives, which saved map it copies
(``Lent``): a checkpoint a resumed run derives from a copy is then still saved as a
delta of that map, not as a whole new set of values.

>>> saved = {"call": {"args": {"q": "sf"}}}
>>> read = private_copy(saved)
>>> read["call"]["args"]["q"] = "edited"
>>> saved
{'call': {'args': {'q': 'sf'}}}
"""

from __future__ import annotations

import copy
import dataclasses
import operator
import sys
import weakref
from collections.abc import Callable, Mapping
from typing import Any

from graphkit.checkpoint.delta_map import DeltaMap
from graphkit.checkpoint.serde import long_run_of
from graphkit.types import Send

__all__ = [
    "AtomList",
    "AtomRope",
    "Lent",
    "all_atoms",
    "atom_rope",
    "copy_seen",
    "copy_values",
    "kept_copy",
    "private_copy",
]

_ATOMS = frozenset({str, int, float, bool, complex, bytes, type(None)})
"""Immutable types that hold nothing mutable: shared, never copied."""


class AtomList(list):
    """A list a saver keeps whose items were all atoms when it was made (``kept_copy``):
    a reader's copy is a plain ``list`` of it, made without looking at the items again
    (a 10,000-int list is copied in a tenth of the time it takes to check). Only a saver
    holds one, and never changes it: readers get plain lists.

    >>> kept = kept_copy(list(range(10)))
    >>> type(kept).__name__, type(private_copy(kept)).__name__, private_copy(kept) == kept
    ('AtomList', 'list', True)
    """

    __slots__ = ()


def private_copy(value: Any) -> Any:
    """A deep copy of ``value`` that shares no mutable object with it.

    Lists, dicts, sets and tuples are walked here (a tuple copied as a list, as LangGraph
    gives it back; kept in a dict key or a set), and pydantic models (langchain-core's
    messages) are rebuilt as their own ``__deepcopy__`` rebuilds them, with their fields
    walked here too; anything else goes to ``copy.deepcopy``. Walking without
    ``deepcopy``'s memo and per-object dispatch costs 0.19 ms for 60 chat messages
    (``deepcopy``: 0.47 ms) and 0.06 ms for 60 small dicts (0.20 ms). Without the memo,
    an object held twice within one value is copied twice, as decoding it from bytes
    (LangGraph's read) gives two objects too.

    >>> from langchain_core.messages import AIMessage
    >>> saved = AIMessage("", tool_calls=[{"name": "search", "args": {"q": "sf"}, "id": "1"}])
    >>> read = private_copy(saved)
    >>> read == saved, read.tool_calls[0]["args"] is saved.tool_calls[0]["args"]
    (True, False)
    """
    try:
        return _copy(value)
    except RecursionError:  # a value that holds itself (PickleSerializer can store one)
        return copy.deepcopy(value)


def kept_copy(value: Any) -> Any:
    """``private_copy`` of a value a saver keeps: a long list of atoms is kept as an
    ``AtomList``, so that each reader's copy of it needs no check."""
    if _all_atoms(value):
        return AtomList(value)
    return private_copy(value)


class AtomRope:
    """A long list of atoms a saver keeps in two parts, ``head + tail`` (lists only it
    holds, never changed). A list that grows by a few items per checkpoint, read oldest
    first, is then kept with the time of its new items (``grown``), not of the whole
    list, and a reader's copy is ``head + tail``: one pass over the items.

    >>> rope = atom_rope(list(range(20))).grown([20, 21])
    >>> rope, type(private_copy(rope)).__name__, private_copy(rope) == list(range(22))
    (AtomRope(head=20, tail=2), 'list', True)
    """

    __slots__ = ("head", "tail")

    def __init__(self, head: list, tail: list) -> None:
        self.head, self.tail = head, tail

    def grown(self, added: list) -> AtomRope:
        """This list with the atoms ``added`` after it (the tail joins the head once it
        is an eighth of it, so that the copies add up to a few passes in all)."""
        tail = self.tail + added
        if len(tail) * 8 > len(self.head):
            return AtomRope(self.head + tail, [])
        return AtomRope(self.head, tail)

    def __repr__(self) -> str:
        return f"AtomRope(head={len(self.head)}, tail={len(self.tail)})"


def atom_rope(value: Any) -> Any:
    """``value``, as an ``AtomRope`` if it is a long list of atoms: for a list a saver
    decoded for itself, which needs no copy of its own."""
    return AtomRope(value, []) if _all_atoms(value) else value


def all_atoms(items: Any) -> bool:
    """Whether every item of ``items`` is an atom (checked in C)."""
    return _ATOMS.issuperset(map(type, items))


def _all_atoms(value: Any) -> bool:
    """Whether ``value`` is a list of more than 8 items, all atoms."""
    return type(value) is list and long_run_of(_ATOMS, value)


def copy_values(values: Mapping[str, Any]) -> DeltaMap:
    """A reader's own copy of a checkpoint's channel values."""
    # (a DeltaMap flattened in one walk, not looked up key by key through its chain)
    flat = values.to_dict() if isinstance(values, DeltaMap) else values
    return DeltaMap({channel: private_copy(value) for channel, value in flat.items()})


def copy_seen(versions_seen: Mapping[str, Mapping[str, int]]) -> DeltaMap:
    """A reader's own copy of a checkpoint's ``versions_seen``: each node's versions are
    a dict (the runtime never changes one it saved; a reader may)."""
    flat = versions_seen.to_dict() if isinstance(versions_seen, DeltaMap) else versions_seen
    return DeltaMap({node: dict(seen) for node, seen in flat.items()})


def _copy(value: Any) -> Any:
    kind = type(value)
    if kind in _ATOMS:
        return value
    if kind is list:
        if _all_atoms(value):
            return value.copy()
        return [item if type(item) in _ATOMS else _copy(item) for item in value]
    if kind is dict:
        return {
            key if type(key) in _ATOMS else _copy_key(key): item
            if type(item) in _ATOMS
            else _copy(item)
            for key, item in value.items()
        }
    if kind is tuple:
        # a list, as LangGraph's savers give a tuple back (decoded from msgpack)
        return [item if type(item) in _ATOMS else _copy(item) for item in value]
    if kind is set:
        return {item if type(item) in _ATOMS else _copy_key(item) for item in value}
    copier = _COPIERS.get(kind)
    if copier is None:
        copier = _COPIERS[kind] = _copier_for(kind)
    return copier(value)


def _copy_key(value: Any) -> Any:
    """A dict key's or set member's copy: a tuple stays a tuple (a list is no key), as
    LangGraph's savers keep it there."""
    if type(value) is tuple:
        items = tuple(item if type(item) in _ATOMS else _copy_key(item) for item in value)
        return value if all(map(operator.is_, items, value)) else items
    return _copy(value)


_COPIERS: weakref.WeakKeyDictionary[type, Callable[[Any], Any]] = weakref.WeakKeyDictionary()
"""How to copy each type ``_copy`` does not walk itself, decided once per type. Weak: a
class made at run time (a model per request, say) is not kept alive by having been read."""


_COPIERS[AtomList] = list
_COPIERS[AtomRope] = lambda rope: rope.head + rope.tail
# (a Send's argument walked, so that a tuple in it reads back as a list, as it does from
# LangGraph's savers and graphkit's SqliteSaver: deepcopy kept it a tuple)
_COPIERS[Send] = lambda send: Send(send.node, _copy(send.arg), timeout=send.timeout)


def _copier_for(kind: type) -> Callable[[Any], Any]:
    pydantic = sys.modules.get("pydantic")  # (a model's class imports it first)
    model = pydantic.BaseModel if pydantic is not None else None
    if model is not None and issubclass(kind, model) and kind.__deepcopy__ is model.__deepcopy__:
        return _copy_model
    own_copy = getattr(kind, "__deepcopy__", None) is not None
    if issubclass(kind, tuple) and hasattr(kind, "_fields") and not own_copy:
        return lambda value: kind(*map(_copy, value))  # (a named tuple: its fields walked)
    if dataclasses.is_dataclass(kind) and not own_copy:
        return _copy_dataclass
    return copy.deepcopy


def _copy_dataclass(obj: Any) -> Any:
    """A dataclass's copy, its fields walked by ``_copy`` (a tuple field read back as a
    list, as LangGraph's savers rebuild a dataclass from its decoded fields); attributes
    that are not fields are deep-copied."""
    new = copy.copy(obj)
    names = set()
    for field in dataclasses.fields(obj):
        names.add(field.name)
        if hasattr(obj, field.name):
            object.__setattr__(new, field.name, _copy(getattr(obj, field.name)))
    for name, item in getattr(obj, "__dict__", {}).items():
        if name not in names:
            object.__setattr__(new, name, copy.deepcopy(item))
    return new


def _copy_model(model: Any) -> Any:
    """What pydantic's ``BaseModel.__deepcopy__`` makes, the fields walked by ``_copy``."""
    if getattr(model, "__pydantic_private__", None) is not None:
        return copy.deepcopy(model)  # (private attributes: pydantic's own rules)
    cls = type(model)
    new = cls.__new__(cls)
    extra = model.__pydantic_extra__
    object.__setattr__(new, "__dict__", _copy_fields(model.__dict__))
    object.__setattr__(new, "__pydantic_extra__", None if extra is None else _copy(extra))
    object.__setattr__(new, "__pydantic_fields_set__", set(model.__pydantic_fields_set__))
    object.__setattr__(new, "__pydantic_private__", None)
    return new


def _copy_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """A model's fields copied, a tuple kept a tuple: LangGraph rebuilds a model by
    validating its decoded fields, so a field typed ``tuple`` is one again (a tuple held
    deeper, or in a field typed ``Any``, LangGraph reads as a list; kept here)."""
    return {
        name: _copy_key(value) if type(value) is tuple else _copy(value)
        for name, value in fields.items()
    }


class Lent:
    """Which saved map (or row) each reader's copy stands for, while the copy lives.

    A run resumed from a copy derives its checkpoints from it; a saver asks ``origin``
    to save such a checkpoint as a delta of the saved map. Without it, every copied
    value, equal to the saved one but not the same object, would count as changed, and
    be checked and stored again at every later run on a thread.

    >>> lent, saved = Lent(), DeltaMap({"a": [1]})
    >>> read = lent.lend(copy_values(saved), saved)
    >>> lent.origin(read) is saved, lent.origin(saved)
    (True, None)
    >>> del read
    >>> len(lent)  # (forgotten with the copy)
    0
    """

    def __init__(self) -> None:
        # id(copy) -> (the copy, weakly; what it stands for)
        self._origins: dict[int, tuple[weakref.KeyedRef, Any]] = {}

    def lend(self, copy: DeltaMap, origin: Any) -> DeltaMap:
        """Note that ``copy`` stands for ``origin`` while it lives; return ``copy``."""
        key = id(copy)
        # (a KeyedRef and a bound method: no closure per copy, for the collector to walk)
        self._origins[key] = (weakref.KeyedRef(copy, self._forget, key), origin)
        return copy

    def _forget(self, dead: weakref.KeyedRef) -> None:
        if self._origins.get(dead.key, (None,))[0] is dead:
            self._origins.pop(dead.key, None)

    def origin(self, copy: Any) -> Any:
        """What ``copy`` stands for (None if it is no copy lent, or None)."""
        lent = self._origins.get(id(copy)) if copy is not None else None
        return lent[1] if lent is not None and lent[0]() is copy else None

    def __len__(self) -> int:
        return len(self._origins)

    def __repr__(self) -> str:
        return f"Lent(copies={len(self)})"
