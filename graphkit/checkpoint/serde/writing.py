"""Writing a checkpoint value: the value as plain JSON data, then as compact JSON text.

``_encode`` turns what JSON cannot express (tuples, sets, bytes, datetimes, enums,
dataclasses, pydantic models, ...) into tagged objects (``{TAG: "tuple", "v": [...]}``),
naming classes by module and qualified name; ``_check`` and ``_is_plain`` answer
whether a value is storable, or plain already, without building that data; and
``plain_json`` writes the result. ``reading`` turns the tagged objects back.

>>> plain_json(_encode({"when": (1, "a")}))
'{"when":{"__gk__":"tuple","v":[1,"a"]}}'
"""

from __future__ import annotations

import base64
import collections
import dataclasses
import datetime
import decimal
import enum
import inspect
import ipaddress
import json
import pathlib
import re
import sys
import uuid
import zoneinfo
from collections.abc import Callable
from typing import Any

from graphkit.channels.base import EMPTY
from graphkit.checkpoint.allowlist import find_class
from graphkit.checkpoint.base import Checkpoint
from graphkit.checkpoint.delta_map import DeltaMap
from graphkit.types import Command, Send, TimeoutPolicy

__all__ = ["JSON_SCALARS", "MAX_NESTING", "TAG", "long_run_of", "plain_json"]


TAG = "__gk__"
"""The key that marks a JSON object as a tagged value rather than a plain dict."""


def _encode(obj: Any) -> Any:
    """``obj`` as plain JSON data (dicts, lists, str, numbers, None)."""
    kind = type(obj)
    if kind in JSON_SCALARS:
        return obj
    encoder = _ENCODERS.get(kind)
    if encoder is not None:
        return encoder(obj)
    for applies, encoder in _ENCODERS_BY_KIND:
        if applies(obj):
            return encoder(obj)
    if inspect.isawaitable(obj):  # what an async function returns when it is not awaited
        # (a task's future: a sync entrypoint or node reads it with .result())
        fix = (
            "call .result() on it (value = call(...).result()), or await it in async code"
            if callable(getattr(obj, "result", None))
            else "add the missing await (value = await call(...))"
        )
        raise TypeError(
            f"Cannot checkpoint a value of type {_name(kind)!r}: a node or task wrote an "
            f"awaitable, not its result. To write the result, {fix}."
        )
    raise TypeError(
        f"Cannot checkpoint a value of type {_name(kind)!r}: the default serializer only "
        "writes JSON-able types (str, numbers, lists, dicts, tuples, sets, deques, bytes, "
        "datetimes, UUID, Decimal, paths, IP addresses, compiled patterns, enums, dataclasses, "
        "pydantic models, langchain-core messages, numpy arrays). "
        f"Make {kind.__name__} a dataclass or a pydantic model, or opt in to pickle with "
        "serde=PickleSerializer() if nobody untrusted can write the checkpoint database."
    )


JSON_SCALARS = frozenset({str, int, float, bool, type(None)})
"""The types JSON writes as they are: every serializer stores them."""


def long_run_of(kinds: frozenset[type], items: list | tuple) -> bool:
    """Whether ``items`` are more than 8, each of a type in ``kinds``. Checked in C (a
    tenth of a Python loop over 10,000 ints); the first item settles a list of messages
    or dicts at once (``issuperset`` of an iterator reads it all before answering), and
    a loop is quicker over 8 items.

    >>> long_run_of(JSON_SCALARS, list(range(9))), long_run_of(JSON_SCALARS, [{}] * 9)
    (True, False)
    """
    return len(items) > 8 and type(items[0]) in kinds and kinds.issuperset(map(type, items))


_HOLDS_ITSELF = (
    "Cannot checkpoint a value that holds itself (a list or dict inside itself), or one "
    "nested deeper than Python's recursion limit: store a copy without the cycle, or ids "
    "that point to the shared parts."
)


MAX_NESTING = 255
"""How deep dicts, lists and tuples may nest in a value ``InMemorySaver`` keeps:
LangGraph's serializer refuses deeper ones, and a reader's copy of a deeper one could
overflow Python's stack (``copies.private_copy``), leaving its thread unreadable."""


_TOO_DEEP = (
    "Cannot checkpoint a value that holds itself (a list or dict inside itself) or whose "
    f"dicts, lists or tuples nest more than {MAX_NESTING} levels deep (LangGraph's "
    "serializer refuses both, and reading it back could overflow Python's stack): store "
    "a copy without the cycle, or a flatter one, e.g. a list of (parent, item) pairs."
)


def _check(obj: Any, depth: int = 1) -> None:
    """Raise what ``_encode(obj)`` would, without building its output for the common
    containers (a dict, list or tuple of storable items is storable), or refuse them
    nested past ``MAX_NESTING``."""
    kind = type(obj)
    if (kind is dict or kind is list or kind is tuple) and depth > MAX_NESTING:
        raise TypeError(_TOO_DEEP)
    if kind is dict:
        for key, value in obj.items():
            if type(key) not in JSON_SCALARS:
                _check(key, depth + 1)
            if type(value) not in JSON_SCALARS:
                _check(value, depth + 1)
    elif kind is list or kind is tuple:
        # (as ``_encode_list`` checks; the length first: a call would cost a short list a
        # tenth more)
        if len(obj) > 8 and long_run_of(JSON_SCALARS, obj):
            return
        for item in obj:
            if type(item) not in JSON_SCALARS:
                _check(item, depth + 1)
    elif kind not in JSON_SCALARS:
        _encode(obj)


def _is_plain(obj: Any, depth: int = 1) -> bool:
    """Whether ``_encode(obj)`` would give ``obj`` back as it is: a JSON scalar, or a list
    or a dict of text keys (none of them ``TAG``) holding only such values. The delta and
    the metadata of every checkpoint are such data: checked in place, they are not
    rebuilt a container at a time. Small containers are checked item by item (quicker
    than a set built of their types), long ones a type at a time in C.

    >>> _is_plain({"seen": [{"n": {"c": 1}}, []]}), _is_plain({"s": (1,)}), _is_plain({1: 2})
    (True, False, False)

    Containers nested past ``MAX_NESTING`` are not plain: ``_encode`` takes them, and
    refuses them as it did (its two frames a level reach the recursion limit well before
    the C encoder does; written, a value ~500 levels deep read back as a RecursionError).
    """
    kind = type(obj)
    if kind is dict:
        if TAG in obj or depth > MAX_NESTING:
            return False
        if len(obj) > 8:
            if not _TEXT.issuperset(map(type, obj)):
                return False
            if JSON_SCALARS.issuperset(map(type, obj.values())):
                return True
        for key, value in obj.items():
            if type(key) is not str:
                return False
            if type(value) not in JSON_SCALARS and not _is_plain(value, depth + 1):
                return False
        return True
    if kind is list:
        if depth > MAX_NESTING:
            return False
        if long_run_of(JSON_SCALARS, obj):
            return True
        for item in obj:  # (a loop: all() would make a generator per list)
            if type(item) not in JSON_SCALARS and not _is_plain(item, depth + 1):
                return False
        return True
    return kind in JSON_SCALARS


def _encode_list(obj: list | tuple) -> list | tuple:
    """A list's (or tuple's) items encoded; the list itself when it is a long run of
    str, numbers, bools or None (the JSON encoder reads it as it is)."""
    if long_run_of(JSON_SCALARS, obj):
        return obj
    return [_encode(item) for item in obj]


def _tagged(tag: str, value: Any, **extra: Any) -> dict[str, Any]:
    return {TAG: tag, "v": value, **extra}


def _encode_dict(obj: dict) -> Any:
    if TAG not in obj and _TEXT.issuperset(map(type, obj)):
        # (a dict of text keys and scalars, such as a checkpoint's versions, is written
        # as it is: its types checked in C, not a call per value)
        if JSON_SCALARS.issuperset(map(type, obj.values())):
            return obj
        return {key: _encode(value) for key, value in obj.items()}
    return _tagged("dict", [[_encode(key), _encode(value)] for key, value in obj.items()])


_COMMAND_FIELDS = ("update", "goto", "graph", "resume")
"""The order a saved ``Command`` lists its fields in (files written before keep it)."""


def _encode_send(send: Send) -> dict[str, Any]:
    policy = TimeoutPolicy.coerce(send.timeout)  # (in seconds, even if set after it was made)
    if policy is None:  # (as written before Sends had timeouts)
        return _tagged("send", [_encode(send.node), _encode(send.arg)])
    timeout = [policy.run_timeout, policy.idle_timeout, policy.refresh_on]
    return _tagged("send", [_encode(send.node), _encode(send.arg)], timeout=timeout)


def _encode_checkpoint(record: Checkpoint) -> dict[str, Any]:
    """graphkit's checkpoint record, field by field, its maps as dicts: what a saver
    written as LangGraph's community savers are stores with ``dumps_typed(checkpoint)``.
    graphkit's own class, so reading it back needs no allow-list."""
    fields = {
        "id": record.id,
        "step": record.step,
        "source": record.source,
        "parent_id": record.parent_id,
        "channel_values": _encode_dict(_flat(record.channel_values)),
        "channel_versions": _encode_dict(_flat(record.channel_versions)),
        "versions_seen": {
            node: _encode_dict(dict(seen)) for node, seen in _flat(record.versions_seen).items()
        },
        "updated_channels": sorted(record.updated_channels),
        "created_at": record.created_at,
    }
    return _tagged("checkpoint", fields)


def _flat(values: Any) -> dict[str, Any]:
    return values.to_dict() if type(values) is DeltaMap else dict(values)


def _encode_tzinfo(tz: datetime.tzinfo | None) -> Any:
    if tz is None or type(tz) in (datetime.timezone, zoneinfo.ZoneInfo):
        return _encode(tz)
    raise TypeError(
        f"Cannot checkpoint a time zone of type {_name(type(tz))!r}: use datetime.timezone "
        "or zoneinfo.ZoneInfo."
    )


def _encode_clock(tag: str, obj: datetime.datetime | datetime.time) -> dict[str, Any]:
    naive = obj.replace(tzinfo=None, fold=0).isoformat()
    return _tagged(tag, naive, tz=_encode_tzinfo(obj.tzinfo), fold=obj.fold)


def _class_ref(cls: type) -> str:
    """``module:qualname``, checked to lead back to ``cls`` when read. A class standing
    in for another (``__graphkit_saved_as__``: the bridge's copy of a LangGraph state
    schema, with graphkit's channels) is saved as that one, which LangGraph would build."""
    cls = cls.__dict__.get("__graphkit_saved_as__", cls)
    ref = f"{cls.__module__}:{cls.__qualname__}"
    module = sys.modules.get(cls.__module__)
    if module is None or find_class(module, ref) is not cls:
        raise TypeError(
            f"Cannot checkpoint an instance of {cls.__qualname__!r}: a checkpoint names a "
            f"class by module and name ({ref}), and that does not lead back to this class. "
            "Define it at module level (not inside a function)."
        )
    return ref


def _encode_dataclass(obj: Any) -> dict[str, Any]:
    fields = {field.name: _encode(getattr(obj, field.name)) for field in dataclasses.fields(obj)}
    return _tagged("dataclass", fields, cls=_class_ref(type(obj)))


def _is_pydantic(obj: Any) -> bool:
    pydantic = sys.modules.get("pydantic")
    return pydantic is not None and isinstance(obj, pydantic.BaseModel)


def _encode_pydantic(obj: Any) -> dict[str, Any]:
    names = type(obj).model_fields
    fields = {name: _encode(getattr(obj, name)) for name in names}
    fields.update((name, _encode(value)) for name, value in (obj.model_extra or {}).items())
    return _tagged("pydantic", fields, cls=_class_ref(type(obj)))


def _is_named_tuple(obj: Any) -> bool:
    return isinstance(obj, tuple) and hasattr(type(obj), "_fields")


def _encode_named_tuple(obj: tuple) -> dict[str, Any]:
    """Its values by field name, so that a reader the class is not allowed for gets a
    dict of its fields, as from LangGraph (rows written before 2026-12-07 hold a list)."""
    fields = type(obj)._fields  # type: ignore[attr-defined]
    if len(fields) != len(obj) or not all(isinstance(name, str) for name in fields):
        return _tagged("namedtuple", [_encode(x) for x in obj], cls=_class_ref(type(obj)))
    values = {name: _encode(x) for name, x in zip(fields, obj, strict=True)}
    return _tagged("namedtuple", values, cls=_class_ref(type(obj)))


def _is_array(obj: Any) -> bool:
    numpy = sys.modules.get("numpy")  # (never imported to write: an array needs it loaded)
    return numpy is not None and isinstance(obj, numpy.ndarray)


def _encode_array(obj: Any) -> dict[str, Any]:
    """A numpy array as its dtype, shape, memory order and raw bytes, as LangGraph keeps
    it. An array of Python objects has no bytes to keep: refused (LangGraph's reads back
    None)."""
    if obj.dtype.hasobject:
        raise TypeError(
            f"Cannot checkpoint a numpy array of dtype {obj.dtype} (it holds Python "
            "objects, not numbers): store a list instead (array.tolist()), or an array of "
            "a numeric or string dtype."
        )
    order = "F" if obj.flags.f_contiguous and not obj.flags.c_contiguous else "C"
    data = base64.b64encode(obj.tobytes(order=order)).decode()
    return _tagged("ndarray", data, dtype=obj.dtype.str, shape=list(obj.shape), order=order)


def _is_store_item(obj: Any) -> bool:
    item = sys.modules.get("graphkit.store.item")  # (loaded whenever an Item exists)
    return item is not None and isinstance(obj, item.Item)


def _encode_store_item(obj: Any) -> dict[str, Any]:
    """A store's ``Item`` (or ``SearchItem``, with its score), as a node keeps the result
    of ``store.get`` or ``store.search`` in the state; LangGraph's serializer writes them."""
    fields = [obj.namespace, obj.key, obj.value, obj.created_at, obj.updated_at]
    extra = {"score": _encode(obj.score)} if hasattr(obj, "score") else {}
    return _tagged("item", [_encode(field) for field in fields], **extra)


def _is_secret(obj: Any) -> bool:
    pydantic = sys.modules.get("pydantic")
    return pydantic is not None and isinstance(obj, (pydantic.SecretStr, pydantic.SecretBytes))


_IP_CLASSES: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        *(ipaddress.IPv4Address, ipaddress.IPv6Address),
        *(ipaddress.IPv4Network, ipaddress.IPv6Network),
        *(ipaddress.IPv4Interface, ipaddress.IPv6Interface),
    )
}


_ENCODERS: dict[type, Callable[[Any], Any]] = {
    list: _encode_list,
    dict: _encode_dict,
    tuple: lambda obj: _tagged("tuple", _encode_list(obj)),
    set: lambda obj: _tagged("set", [_encode(item) for item in obj]),
    frozenset: lambda obj: _tagged("frozenset", [_encode(item) for item in obj]),
    bytes: lambda obj: _tagged("bytes", base64.b64encode(obj).decode()),
    bytearray: lambda obj: _tagged("bytearray", base64.b64encode(obj).decode()),
    memoryview: lambda obj: _tagged("bytes", base64.b64encode(obj.tobytes()).decode()),
    datetime.datetime: lambda obj: _encode_clock("datetime", obj),
    datetime.time: lambda obj: _encode_clock("time", obj),
    datetime.date: lambda obj: _tagged("date", obj.isoformat()),
    datetime.timedelta: lambda obj: _tagged("timedelta", [obj.days, obj.seconds, obj.microseconds]),
    datetime.timezone: lambda obj: _tagged(
        "timezone", [_encode(arg) for arg in obj.__getinitargs__()]
    ),
    zoneinfo.ZoneInfo: lambda obj: _tagged("zoneinfo", obj.key),
    uuid.UUID: lambda obj: _tagged("uuid", str(obj)),
    decimal.Decimal: lambda obj: _tagged("decimal", str(obj)),
    Send: lambda obj: _encode_send(obj),
    Checkpoint: _encode_checkpoint,
    DeltaMap: lambda obj: _encode_dict(obj.to_dict()),  # (read back as a dict)
    Command: lambda obj: _tagged(
        "command", [_encode(getattr(obj, name)) for name in _COMMAND_FIELDS]
    ),
    type(EMPTY): lambda obj: _tagged("empty", None),
    collections.deque: lambda obj: _tagged(
        "deque", [_encode(item) for item in obj], maxlen=obj.maxlen
    ),
    re.Pattern: lambda obj: _tagged("pattern", _encode(obj.pattern), flags=obj.flags),
    **dict.fromkeys(
        (pathlib.PosixPath, pathlib.WindowsPath), lambda obj: _tagged("path", str(obj))
    ),
    **dict.fromkeys(
        _IP_CLASSES.values(), lambda obj: _tagged("ip", str(obj), kind=type(obj).__name__)
    ),
}


# Checked in order for types not in _ENCODERS: IntEnum is an int, a named tuple a tuple.
_ENCODERS_BY_KIND: list[tuple[Callable[[Any], bool], Callable[[Any], Any]]] = [
    (
        lambda obj: isinstance(obj, enum.Enum),
        lambda obj: _tagged("enum", _encode(obj.value), cls=_class_ref(type(obj))),
    ),
    (
        lambda obj: dataclasses.is_dataclass(obj) and not isinstance(obj, type),
        _encode_dataclass,
    ),
    (_is_pydantic, _encode_pydantic),
    (_is_secret, lambda obj: _tagged("secret", _encode(obj.get_secret_value()))),
    (_is_store_item, _encode_store_item),
    (_is_named_tuple, _encode_named_tuple),
    # an OrderedDict, defaultdict, Counter...: read back as a dict, as in LangGraph
    (lambda obj: isinstance(obj, dict), _encode_dict),
    # other str, int and list subclasses (langchain-core's `message.text` is a str one):
    # read back as the plain value, as LangGraph's msgpack stores them
    (lambda obj: isinstance(obj, str), str.__str__),
    (lambda obj: isinstance(obj, int), int.__int__),
    (lambda obj: isinstance(obj, list), lambda obj: [_encode(item) for item in obj]),
    (_is_array, _encode_array),
    # an exception (a node keeping the error it caught): its repr, as LangGraph keeps it
    (lambda obj: isinstance(obj, BaseException), repr),
]


_JSON_ENCODER = json.JSONEncoder(separators=(",", ":"))
_TEXT = frozenset({str})


# The C encoder JSONEncoder.encode builds anew for each call, built once: a put writes
# several small values (its metadata, its delta, a blob per changed channel). Without
# its check for cycles, which _encode's data cannot hold (it rebuilds every container
# but the dicts and lists of scalars it hands over as they are).
_C_ENCODER = (
    json.encoder.c_make_encoder(
        None,
        _JSON_ENCODER.default,
        json.encoder.encode_basestring_ascii,
        None,
        ":",
        ",",
        False,
        False,
        True,
    )
    if json.encoder.c_make_encoder is not None
    else None
)


def plain_json(data: Any) -> str:
    """Compact ASCII JSON text of plain data without cycles (what ``_encode`` returns:
    dicts, lists, text, numbers, None), as ``_JSON_ENCODER.encode(data)`` writes it,
    without building the C encoder anew as ``json.dumps`` does at each call.

    >>> plain_json({"n": [1, None], "s": "x"})
    '{"n":[1,null],"s":"x"}'
    """
    if _C_ENCODER is None or type(data) is str:
        return _JSON_ENCODER.encode(data)
    return "".join(_C_ENCODER(data, 0))


def _name(cls: type) -> str:
    return (
        cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"
    )
