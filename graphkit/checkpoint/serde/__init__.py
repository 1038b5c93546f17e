"""Serializers: how checkpoint values become bytes and back, without running code.

A saver hands every value it stores (channel values, metadata, pending writes) to a
serializer with LangGraph's two methods, ``dumps_typed(obj) -> (type, bytes)`` and
``loads_typed((type, bytes))``.

The default, ``JsonPlusSerializer``, writes JSON. Values JSON cannot express (tuples,
sets, bytes, datetimes, dataclasses, pydantic models, enums, ...) become small tagged
objects such as ``{"__gk__": "tuple", "v": [1, 2]}``. Classes (dataclasses, pydantic
models, enums, named tuples) are named by module and qualified name; reading builds one
only if it is *allowed* (see ``JsonPlusSerializer``), and otherwise gives back its plain
data and logs a warning naming the fix, as LangGraph does. Reading never unpickles and
never imports a module a row names unless that class was allowed by name. A database is
data; opening one must not run code you did not choose.

``PickleSerializer`` is the opt-in for arbitrary objects: JSON where it can, pickle
where it must. Use it only for databases that nobody untrusted can write to.

>>> serde = JsonPlusSerializer()
>>> serde.dumps_typed((1, "a"))
('json', b'{"__gk__":"tuple","v":[1,"a"]}')
>>> serde.loads_typed(serde.dumps_typed({"when": datetime.date(2024, 5, 1), 1: {2, 3}}))
{'when': datetime.date(2024, 5, 1), 1: {2, 3}}
"""

from __future__ import annotations

import base64
import collections
import copy
import dataclasses
import datetime
import decimal
import enum
import inspect
import ipaddress
import json
import pathlib
import pickle
import re
import sys
import uuid
import zoneinfo
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any, Protocol

from graphkit.channels.base import EMPTY
from graphkit.checkpoint.allowlist import (
    ClassPolicy,
    class_keys,
    find_class,
    strict_from_environment,
)
from graphkit.types import Command, Send, TimeoutPolicy

__all__ = [
    "JSON_SCALARS",
    "CheckpointDecodeError",
    "JsonPlusSerializer",
    "PickleSerializer",
    "SerializerProtocol",
    "is_json_plus",
    "long_run_of",
    "plain_json",
]

TAG = "__gk__"
"""The key that marks a JSON object as a tagged value rather than a plain dict."""

_DEFAULT: Any = object()
"""``allowed_msgpack_modules`` not given: the default policy (see JsonPlusSerializer)."""


class SerializerProtocol(Protocol):
    """What a saver needs from a serializer (LangGraph's method names)."""

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]: ...

    def loads_typed(self, data: tuple[str, bytes]) -> Any: ...


class CheckpointDecodeError(ValueError):
    """A stored value that cannot be read back: corrupt bytes, an unknown tag or class,
    or a pickle payload offered to a serializer that does not unpickle."""


class JsonPlusSerializer:
    """The default serializer: JSON with tagged encodings for an allow-list of types.

    Written: ``None``, ``bool``, ``int``, ``float``, ``str``, ``list``, ``dict`` (any
    hashable keys), ``tuple``, ``set``, ``frozenset``, ``bytes``, ``bytearray``,
    ``datetime``/``date``/``time``/``timedelta``/``timezone``/``ZoneInfo``, ``UUID``,
    ``Decimal``, ``Enum`` members, named tuples, dataclass instances, pydantic v2 models
    (langchain-core messages among them) and their ``SecretStr``/``SecretBytes``, a
    store's ``Item`` and ``SearchItem``, and graphkit's ``Send``, ``Command`` and
    ``EMPTY``. Classes must be defined at module level. Anything else raises a
    ``TypeError`` saying how to make it storable.

    Read back, a stored class is built only when allowed (LangGraph's argument name):

    * default: langchain-core messages and ``Document`` (imported if needed), the classes
      passed to ``with_msgpack_allowlist`` (``compile()`` passes the schemas' classes),
      and, with a logged warning, other classes whose module is *already imported*;
      ``LANGGRAPH_STRICT_MSGPACK=true`` in the environment drops the last group;
    * ``allowed_msgpack_modules=[("module", "Class"), SomeClass, ...]`` or ``None``:
      strict, only those (and the messages); their modules are imported if needed;
    * ``allowed_msgpack_modules=True``: every stored class, importing its module
      (LangGraph's permissive mode; only for databases nobody untrusted can write).

    A class that is not allowed comes back as its plain data (a dataclass or model as
    a dict of fields, an enum as its value), with a warning saying how to allow it.

    ``pickle_fallback=True`` (LangGraph's argument) pickles what JSON cannot hold, and
    reads pickles back: ``PickleSerializer``, for databases nobody untrusted can write.

    >>> JsonPlusSerializer().dumps_typed(object())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: Cannot checkpoint a value of type 'object': ...
    >>> strict = JsonPlusSerializer(allowed_msgpack_modules=None)
    >>> strict.loads_typed(strict.dumps_typed(datetime.timezone.utc))
    datetime.timezone.utc
    """

    def __init__(
        self, *, pickle_fallback: bool = False, allowed_msgpack_modules: Any = _DEFAULT
    ) -> None:
        self.pickle_fallback = pickle_fallback
        if allowed_msgpack_modules is _DEFAULT:
            mode = "strict" if strict_from_environment() else "imported"
            allowed: Any = ()
        elif allowed_msgpack_modules is True:
            mode, allowed = "all", ()
        else:
            mode, allowed = "strict", allowed_msgpack_modules or ()
        self._classes = ClassPolicy(mode, class_keys(allowed))
        self._tagged_decoder = json.JSONDecoder(object_hook=partial(_decode_tagged, self._classes))

    def with_msgpack_allowlist(self, extra_allowlist: Iterable[Any]) -> JsonPlusSerializer:
        """A copy that also builds the classes in ``extra_allowlist`` (classes or
        ``(module, name)`` pairs); ``self`` when that adds nothing (LangGraph's method).

        >>> serde = JsonPlusSerializer(allowed_msgpack_modules=None)
        >>> wider = serde.with_msgpack_allowlist([("decimal", "Decimal")])
        >>> wider is serde, wider.with_msgpack_allowlist([("decimal", "Decimal")]) is wider
        (False, True)
        """
        policy = self._classes.widened(class_keys(extra_allowlist))
        if policy is self._classes:
            return self
        clone = copy.copy(self)
        clone._classes = policy
        clone._tagged_decoder = json.JSONDecoder(object_hook=partial(_decode_tagged, policy))
        return clone

    @property
    def allowed_classes(self) -> frozenset[tuple[str, str]]:
        """The ``(module, name)`` pairs allowed by name (beyond the built-in ones)."""
        return self._classes.allowed

    @property
    def classes_read_as_data(self) -> int:
        """How many class objects this serializer has read back as their plain data (not
        allowed): a cache of what it decoded must not keep those, since the same bytes
        read after the class's module is imported build the class."""
        return self._classes.read_as_data

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        try:
            return "json", plain_json(obj if _is_plain(obj) else _encode(obj)).encode()
        except RecursionError:
            if not self.pickle_fallback:
                raise TypeError(_HOLDS_ITSELF) from None
        except TypeError:
            if not self.pickle_fallback:
                raise
        return "pickle", pickle.dumps(obj)

    def check_storable(self, obj: Any) -> None:
        """Raise the ``TypeError`` that ``dumps_typed`` would, without making the bytes
        (what ``InMemorySaver`` calls: it keeps copies of the values, so needs only the verdict)."""
        if self.pickle_fallback:
            self.dumps_typed(obj)
        elif type(obj) not in JSON_SCALARS:
            try:
                _check(obj)
            except RecursionError:
                raise TypeError(_HOLDS_ITSELF) from None

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        type_, payload = data
        if type_ == "pickle" and self.pickle_fallback:
            try:
                return pickle.loads(payload)
            except Exception as error:
                raise CheckpointDecodeError(f"corrupt pickle payload: {error!r}") from error
        if type_ == "pickle":
            raise CheckpointDecodeError(
                "the value is a pickle, and this serializer never unpickles (unpickling can "
                "run arbitrary code). If you wrote it yourself, read it with "
                "serde=PickleSerializer(), and only if nobody untrusted can write the database."
            )
        if type_ != "json":
            raise CheckpointDecodeError(f"unknown payload type {type_!r} (expected 'json')")
        try:
            # Without the tag anywhere, no object in it needs the (slower) tag hook.
            decoder = self._tagged_decoder if _TAG_BYTES in payload else _PLAIN_DECODER
            text = payload.decode()
            value, end = decoder.raw_decode(text)
            if end != len(text):
                raise ValueError(f"extra data after the value, at character {end}")
            return value
        except CheckpointDecodeError:
            raise
        except (ValueError, TypeError, RecursionError) as error:
            raise CheckpointDecodeError(f"corrupt JSON payload: {error}") from error


def is_json_plus(serde: object) -> bool:
    """Whether ``serde`` checks, writes and reads as ``JsonPlusSerializer`` does (a
    ``PickleSerializer`` or a copy with a wider allow-list does): the savers' shortcuts
    for long lists rely on that. A subclass that overrides one of those methods has rules
    of its own (a value it refuses, a list it reads otherwise), so it is asked each time.

    >>> class Strict(JsonPlusSerializer):
    ...     def check_storable(self, obj): raise TypeError("nothing")
    >>> is_json_plus(PickleSerializer()), is_json_plus(Strict())
    (True, False)
    """
    kind = type(serde)
    return isinstance(serde, JsonPlusSerializer) and (
        kind.check_storable is JsonPlusSerializer.check_storable
        and kind.dumps_typed is JsonPlusSerializer.dumps_typed
        and kind.loads_typed is JsonPlusSerializer.loads_typed
    )


class PickleSerializer(JsonPlusSerializer):
    """Opt-in serializer for arbitrary objects: JSON for the allow-listed types (so
    those stay readable by the default serializer), pickle for everything else; the same
    as LangGraph's ``JsonPlusSerializer(pickle_fallback=True)``.

    Reading a pickle runs whatever code its author chose; use this only for databases
    that nobody untrusted can write to.

    >>> serde = PickleSerializer()
    >>> serde.dumps_typed([1])[0], serde.dumps_typed(range(3))[0]
    ('json', 'pickle')
    >>> serde.loads_typed(serde.dumps_typed(range(3)))
    range(0, 3)
    """

    def __init__(self, *, allowed_msgpack_modules: Any = _DEFAULT) -> None:
        super().__init__(pickle_fallback=True, allowed_msgpack_modules=allowed_msgpack_modules)


# -- writing ------------------------------------------------------------------------------


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
        raise TypeError(
            f"Cannot checkpoint a value of type {_name(kind)!r}: a node or task wrote an "
            "awaitable, not its result. Add the missing await (value = await call(...))."
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


def _decode_timeout(fields: Any) -> TimeoutPolicy | None:
    return None if fields is None else TimeoutPolicy(*fields)


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


def _decode_array(obj: dict[str, Any]) -> Any:
    """The array back, read-only over its bytes, as LangGraph's (numpy is the only
    module a row can make graphkit import, and only when the row holds an array)."""
    import numpy

    data = base64.b64decode(obj["v"], validate=True)
    array = numpy.frombuffer(data, dtype=numpy.dtype(obj["dtype"]))
    return array.reshape(obj["shape"], order=obj["order"])


def _is_store_item(obj: Any) -> bool:
    item = sys.modules.get("graphkit.store.item")  # (loaded whenever an Item exists)
    return item is not None and isinstance(obj, item.Item)


def _encode_store_item(obj: Any) -> dict[str, Any]:
    """A store's ``Item`` (or ``SearchItem``, with its score), as a node keeps the result
    of ``store.get`` or ``store.search`` in the state; LangGraph's serializer writes them."""
    fields = [obj.namespace, obj.key, obj.value, obj.created_at, obj.updated_at]
    extra = {"score": _encode(obj.score)} if hasattr(obj, "score") else {}
    return _tagged("item", [_encode(field) for field in fields], **extra)


def _decode_store_item(obj: dict[str, Any]) -> Any:
    from graphkit.store.item import Item, SearchItem  # (graphkit's own class: safe to build)

    if "score" in obj:
        return SearchItem(*obj["v"], score=obj["score"])
    namespace, key, value, created_at, updated_at = obj["v"]
    return Item(
        value=value, key=key, namespace=namespace, created_at=created_at, updated_at=updated_at
    )


def _is_secret(obj: Any) -> bool:
    pydantic = sys.modules.get("pydantic")
    return pydantic is not None and isinstance(obj, (pydantic.SecretStr, pydantic.SecretBytes))


def _decode_secret(obj: dict[str, Any]) -> Any:
    """A pydantic ``SecretStr`` or ``SecretBytes`` back (a model's field, or a value of its
    own), as LangGraph's serializer reads them; stored as its secret, like LangGraph's."""
    import pydantic

    secret = obj["v"]
    return pydantic.SecretBytes(secret) if isinstance(secret, bytes) else pydantic.SecretStr(secret)


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
    (
        _is_named_tuple,
        lambda obj: _tagged("namedtuple", [_encode(x) for x in obj], cls=_class_ref(type(obj))),
    ),
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


# -- reading ------------------------------------------------------------------------------

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


def _build_dataclass(cls: Any, values: dict[str, Any]) -> Any:
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


_CLASS_DECODERS: dict[str, tuple[str, Callable[[Any, Any], Any]]] = {
    "enum": ("an Enum", lambda cls, value: cls(value)),
    "dataclass": ("a dataclass", _build_dataclass),
    "pydantic": ("a pydantic model", _build_pydantic),
    "namedtuple": ("a named tuple", lambda cls, values: cls(*values)),
}
"""Tags that name a class: (the kind it must be, how to build it from the stored data)."""


def _decode_clock(obj: dict[str, Any]) -> Any:
    kind = datetime.datetime if obj[TAG] == "datetime" else datetime.time
    return kind.fromisoformat(obj["v"]).replace(tzinfo=obj["tz"], fold=obj["fold"])


_DECODERS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "dict": lambda obj: dict(obj["v"]),
    "tuple": lambda obj: tuple(obj["v"]),
    "set": lambda obj: set(obj["v"]),
    "frozenset": lambda obj: frozenset(obj["v"]),
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


def _name(cls: type) -> str:
    return (
        cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"
    )
