"""Reading a checkpoint value: the tagged JSON objects ``writing`` made, back into values.

``_decode_tagged`` is the JSON decoder's object hook; a class a row names is built only
if the serializer's ``ClassPolicy`` allows it, and is otherwise given back as its plain
data. Anything it cannot read raises ``CheckpointDecodeError``.

A tuple reads back as a list, as LangGraph's serializer gives it back (msgpack has no
tuple), except where only a hashable value fits: a dict key, a set's member.

>>> from graphkit.checkpoint.allowlist import ClassPolicy
>>> policy = ClassPolicy("strict", frozenset())
>>> _decode_tagged(policy, {"__gk__": "tuple", "v": [1, "a"]})
[1, 'a']
>>> _decode_tagged(policy, {"__gk__": "dict", "v": [[[1, [2, 3]], "v"]]})
{(1, (2, 3)): 'v'}
"""

from __future__ import annotations

import base64
import collections
import dataclasses
import datetime
import decimal
import enum
import json
import pathlib
import re
import sys
import uuid
import zoneinfo
from collections.abc import Callable
from typing import Any

from graphkit.channels.base import EMPTY
from graphkit.checkpoint.allowlist import ClassPolicy
from graphkit.checkpoint.base import Checkpoint
from graphkit.checkpoint.delta_map import DeltaMap
from graphkit.checkpoint.serde.writing import _COMMAND_FIELDS, _IP_CLASSES, TAG
from graphkit.types import Command, Send, TimeoutPolicy

__all__ = ["CheckpointDecodeError"]


class CheckpointDecodeError(ValueError):
    """A stored value that cannot be read back: corrupt bytes, an unknown tag or class,
    or a pickle payload offered to a serializer that does not unpickle."""


def _decode_timeout(fields: Any) -> TimeoutPolicy | None:
    return None if fields is None else TimeoutPolicy(*fields)


def _decode_array(obj: dict[str, Any]) -> Any:
    """The array back, read-only over its bytes, as LangGraph's (numpy is the only
    module a row can make graphkit import, and only when the row holds an array)."""
    import numpy

    data = base64.b64decode(obj["v"], validate=True)
    array = numpy.frombuffer(data, dtype=numpy.dtype(obj["dtype"]))
    return array.reshape(obj["shape"], order=obj["order"])


def _decode_store_item(obj: dict[str, Any]) -> Any:
    from graphkit.store.item import Item, SearchItem  # (graphkit's own class: safe to build)

    if "score" in obj:
        return SearchItem(*obj["v"], score=obj["score"])
    namespace, key, value, created_at, updated_at = obj["v"]
    return Item(
        value=value, key=key, namespace=namespace, created_at=created_at, updated_at=updated_at
    )


def _decode_secret(obj: dict[str, Any]) -> Any:
    """A pydantic ``SecretStr`` or ``SecretBytes`` back (a model's field, or a value of its
    own), as LangGraph's serializer reads them; stored as its secret, like LangGraph's."""
    import pydantic

    secret = obj["v"]
    return pydantic.SecretBytes(secret) if isinstance(secret, bytes) else pydantic.SecretStr(secret)


def _decode_checkpoint(obj: dict[str, Any]) -> Checkpoint:
    """graphkit's checkpoint record back, its maps ``DeltaMap``s as a saver's are."""
    fields = obj["v"]
    if type(fields) is not dict:
        raise CheckpointDecodeError(
            f"malformed 'checkpoint' value: its fields are a {type(fields).__name__}, not a dict"
        )
    return _checkpoint_from(fields)


def _checkpoint_from(fields: dict[str, Any]) -> Checkpoint:
    """The record from its stored fields, each checked first: stored bytes are not
    trusted, and a field of the wrong type would otherwise fail steps later, or never."""
    where = f"malformed 'checkpoint' value {fields.get('id')!r}"
    missing = [name for name in _CHECKPOINT_FIELDS if name not in fields]
    unknown = [name for name in fields if name not in _CHECKPOINT_FIELDS]
    if missing or unknown:
        named = [f"missing field {n!r}" for n in missing]
        named += [f"unknown field {n!r}" for n in unknown]
        raise CheckpointDecodeError(f"{where}: {', '.join(named)}{_NOT_OURS}")
    for name, (fits, expected) in _CHECKPOINT_FIELDS.items():
        value = fields[name]
        if not fits(value):
            held = f"{type(value).__name__} {_short(value)}"
            raise CheckpointDecodeError(
                f"{where}: its {name!r} holds {held}, where {expected} belongs{_NOT_OURS}"
            )
    seen = {node: dict(versions) for node, versions in fields["versions_seen"].items()}
    return Checkpoint(
        id=fields["id"],
        step=fields["step"],
        source=fields["source"],
        parent_id=fields["parent_id"],
        channel_values=DeltaMap(fields["channel_values"]),
        channel_versions=DeltaMap(fields["channel_versions"]),
        versions_seen=DeltaMap(seen),
        updated_channels=frozenset(fields["updated_channels"]),
        created_at=fields["created_at"],
    )


def _short(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 40 else f"{shown[:37]}..."


def _is(*kinds: type) -> Callable[[Any], bool]:
    return lambda value: type(value) in kinds


def _str_keyed(fits: Callable[[Any], bool]) -> Callable[[Any], bool]:
    """A dict whose keys are str (channel or node names) and whose values ``fits``."""
    return lambda value: (
        type(value) is dict and all(type(key) is str and fits(item) for key, item in value.items())
    )


_is_version = _is(int, float, str)  # (graphkit's are ints; a LangGraph thread's, str)
_CHECKPOINT_FIELDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "id": (_is(str), "a str"),
    "step": (_is(int), "an int"),
    "source": (_is(str), "a str"),
    "parent_id": (_is(str, type(None)), "a str or None"),
    "channel_values": (_str_keyed(lambda _: True), "a dict keyed by channel name"),
    "channel_versions": (_str_keyed(_is_version), "a dict of channel name to version"),
    "versions_seen": (
        _str_keyed(_str_keyed(_is_version)),
        "a dict of node name to a dict of channel name to version",
    ),
    "updated_channels": (
        lambda value: type(value) is list and all(type(n) is str for n in value),
        "a list of channel names",
    ),
    "created_at": (_is(int, float), "a number (a POSIX time)"),
}
"""The stored record's fields: whether a value fits, and what belongs there."""
_NOT_OURS = "; the row is corrupt, or was not written by graphkit's serializer"


def _hashable(value: Any) -> Any:
    """A dict key or set member as it was written: JSON has no tuple, and a list cannot
    be a key, so a list there was a tuple (its inner tuples too, as LangGraph keeps
    them in a key). Only a list or a tuple is rebuilt: anything else is as read."""
    if type(value) is list or type(value) is tuple:
        return tuple(_hashable(item) for item in value)
    return value


_PLAIN_DECODER = json.JSONDecoder()
_TAG_BYTES = f'"{TAG}"'.encode()


def _decode_tagged(classes: ClassPolicy, obj: dict[str, Any]) -> Any:
    """json's object hook: turn a tagged object back into its value (inner values first)."""
    tag = obj.get(TAG)
    if tag is None:
        return obj
    decoder = _DECODERS.get(tag)
    try:
        if decoder is not None:
            return decoder(obj)
        builder = _CLASS_DECODERS.get(tag)
        if builder is None:
            raise CheckpointDecodeError(f"unknown type tag {tag!r}")
        cls = _allowed_class(classes, obj["cls"], tag)
        return builder[1](cls, obj["v"]) if cls is not None else obj["v"]
    except CheckpointDecodeError:
        raise
    except Exception as error:
        raise CheckpointDecodeError(f"malformed {tag!r} value: {error!r}") from error


def _allowed_class(classes: ClassPolicy, ref: str, tag: str) -> type | None:
    """The class a row names, if ``classes`` allows it (None: give back the plain data)."""
    try:
        found = classes.resolve(ref)
    except ImportError as error:
        raise CheckpointDecodeError(
            f"class {ref} is allowed, but its module cannot be imported: {error}"
        ) from error
    except LookupError as error:
        raise CheckpointDecodeError(str(error)) from error
    kind, _ = _CLASS_DECODERS[tag]
    if found is not None and not _KINDS[kind](found):
        raise CheckpointDecodeError(f"{ref} is not {kind}; refusing to build it")
    return found


def _pydantic_class(cls: type) -> bool:
    pydantic = sys.modules.get("pydantic")
    return pydantic is not None and issubclass(cls, pydantic.BaseModel)


_KINDS: dict[str, Callable[[type], bool]] = {
    "an Enum": lambda cls: issubclass(cls, enum.Enum),
    "a dataclass": dataclasses.is_dataclass,
    "a pydantic model": _pydantic_class,
    "a named tuple": lambda cls: issubclass(cls, tuple) and hasattr(cls, "_fields"),
}


def _build_enum(cls: Any, value: Any) -> Any:
    """The member whose value was saved; a tuple value was read as a list, so it is looked
    up as a tuple again (LangGraph's serializer fails there and gives back the list)."""
    try:
        return cls(value)
    except ValueError:
        if type(value) is not list:
            raise
        return cls(_hashable(value))


def _build_dataclass(cls: Any, values: dict[str, Any]) -> Any:
    if cls is Checkpoint:  # (graphkit's record named as a class: checked as its own tag is)
        return _checkpoint_from(values)
    fields = {field.name: field for field in dataclasses.fields(cls)}
    instance = cls(**{name: values[name] for name, field in fields.items() if field.init})
    for name, field in fields.items():
        if not field.init and name in values:
            object.__setattr__(instance, name, values[name])
    return instance


def _build_pydantic(cls: Any, values: dict[str, Any]) -> Any:
    import pydantic

    root = getattr(cls, "__pydantic_root_model__", False)
    try:
        if root:
            return cls.model_validate(values["root"])
        return cls.model_validate(values, by_alias=False, by_name=True)
    except pydantic.ValidationError:
        # What was saved is read back, valid or not (a model_construct()ed value, a
        # validator made stricter since), as LangGraph's serializer does: refusing it
        # would leave the whole thread unreadable.
        return cls.model_construct(values["root"]) if root else cls.model_construct(**values)


def _build_named_tuple(cls: type, values: Any) -> Any:
    """From its values by field name (a list in rows written before 2026-12-07); a class
    whose own ``__new__`` takes them in order only gets them in order, as it did before."""
    if type(values) is not dict:
        return cls(*values)
    try:
        return cls(**values)
    except TypeError:
        return cls(*values.values())


_CLASS_DECODERS: dict[str, tuple[str, Callable[[Any, Any], Any]]] = {
    "enum": ("an Enum", lambda cls, value: _build_enum(cls, value)),
    "dataclass": ("a dataclass", _build_dataclass),
    "pydantic": ("a pydantic model", _build_pydantic),
    "namedtuple": ("a named tuple", lambda cls, v: _build_named_tuple(cls, v)),
}
"""Tags that name a class: (the kind it must be, how to build it from the stored data)."""


def _decode_clock(obj: dict[str, Any]) -> Any:
    kind = datetime.datetime if obj[TAG] == "datetime" else datetime.time
    return kind.fromisoformat(obj["v"]).replace(tzinfo=obj["tz"], fold=obj["fold"])


_DECODERS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "dict": lambda obj: {_hashable(key): value for key, value in obj["v"]},
    "tuple": lambda obj: obj["v"],  # (a list: see the module's docstring)
    "set": lambda obj: set(map(_hashable, obj["v"])),
    "frozenset": lambda obj: frozenset(map(_hashable, obj["v"])),
    "bytes": lambda obj: base64.b64decode(obj["v"], validate=True),
    "bytearray": lambda obj: bytearray(base64.b64decode(obj["v"], validate=True)),
    "datetime": _decode_clock,
    "time": _decode_clock,
    "date": lambda obj: datetime.date.fromisoformat(obj["v"]),
    "timedelta": lambda obj: datetime.timedelta(*obj["v"]),
    "timezone": lambda obj: datetime.timezone(*obj["v"]),
    "zoneinfo": lambda obj: zoneinfo.ZoneInfo(obj["v"]),
    "uuid": lambda obj: uuid.UUID(obj["v"]),
    "decimal": lambda obj: decimal.Decimal(obj["v"]),
    "checkpoint": _decode_checkpoint,
    "send": lambda obj: Send(*obj["v"], timeout=_decode_timeout(obj.get("timeout"))),
    "command": lambda obj: Command(**dict(zip(_COMMAND_FIELDS, obj["v"], strict=True))),
    "empty": lambda obj: EMPTY,
    "deque": lambda obj: collections.deque(obj["v"], obj["maxlen"]),
    "pattern": lambda obj: re.compile(obj["v"], obj["flags"]),
    "path": lambda obj: pathlib.Path(obj["v"]),
    "ip": lambda obj: _IP_CLASSES[obj["kind"]](obj["v"]),
    "ndarray": _decode_array,
    "item": _decode_store_item,
    "secret": _decode_secret,
}
