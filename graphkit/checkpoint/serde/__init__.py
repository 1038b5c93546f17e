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

This module holds the serializers; ``writing`` turns a value into plain JSON data and
``reading`` turns the tagged objects back into values.

>>> import datetime
>>> serde = JsonPlusSerializer()
>>> serde.dumps_typed((1, "a"))
('json', b'{"__gk__":"tuple","v":[1,"a"]}')
>>> serde.loads_typed(serde.dumps_typed({"when": datetime.date(2024, 5, 1), 1: {2, 3}}))
{'when': datetime.date(2024, 5, 1), 1: {2, 3}}
"""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Iterable
from functools import partial
from typing import Any, Protocol, runtime_checkable

from graphkit.checkpoint.allowlist import (
    ClassPolicy,
    class_keys,
    strict_from_environment,
)
from graphkit.checkpoint.serde.reading import (
    _PLAIN_DECODER,
    _TAG_BYTES,
    CheckpointDecodeError,
    _decode_tagged,
)
from graphkit.checkpoint.serde.writing import (
    _HOLDS_ITSELF,
    JSON_SCALARS,
    _check,
    _encode,
    _is_plain,
    long_run_of,
    plain_json,
)

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


_DEFAULT: Any = object()
"""``allowed_msgpack_modules`` not given: the default policy (see JsonPlusSerializer)."""


@runtime_checkable
class SerializerProtocol(Protocol):
    """What a saver needs from a serializer (LangGraph's method names); checkable with
    ``isinstance``, as LangGraph's is."""

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]: ...

    def loads_typed(self, data: tuple[str, bytes]) -> Any: ...


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

    A class that is not allowed comes back as its plain data (a dataclass, model or named
    tuple as a dict of fields, an enum as its value), with a warning saying how to allow it.

    ``pickle_fallback=True`` (LangGraph's argument) pickles what JSON cannot hold, and
    reads pickles back: ``PickleSerializer``, for databases nobody untrusted can write.

    >>> JsonPlusSerializer().dumps_typed(object())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: Cannot checkpoint a value of type 'object': ...
    >>> import datetime
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
