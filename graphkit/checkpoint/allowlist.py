"""Which stored classes a serializer may build when it reads a checkpoint.

A checkpoint row names a class by module and qualified name. Building it runs the
class's code, and finding it may mean importing its module, so a serializer builds
only classes it was told about; LangGraph calls this the msgpack allow-list. This
module holds that policy (``ClassPolicy``), the classes always allowed
(``SAFE_CLASSES``: langchain-core messages and documents), and the walk that
``compile()`` uses to allow the classes a graph's schemas declare (``schema_classes``).

>>> from dataclasses import dataclass
>>> from typing import TypedDict
>>> @dataclass
... class Point:
...     x: int
>>> State = TypedDict("State", {"where": list[Point], "count": int})
>>> sorted(schema_classes(State))
[('graphkit.checkpoint.allowlist', 'Point')]
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import logging
import os
import sys
import types
import typing
from collections.abc import Iterable
from typing import Any

__all__ = [
    "SAFE_CLASSES",
    "ClassPolicy",
    "allow_schema_classes",
    "class_keys",
    "find_class",
    "schema_classes",
]

logger = logging.getLogger("graphkit.checkpoint")

_MESSAGES = ("human", "ai", "system", "chat", "tool", "function")
_KINDS = ("Human", "AI", "System", "Chat", "Tool", "Function")
SAFE_CLASSES: frozenset[tuple[str, str]] = frozenset(
    {("langchain_core.messages.base", "BaseMessage")}
    | {("langchain_core.messages.base", "BaseMessageChunk")}
    | {("langchain_core.messages.modifier", "RemoveMessage")}
    | {("langchain_core.documents.base", "Document")}
    | {("graphkit.types", "Overwrite"), ("graphkit.types", "Interrupt")}
    | {
        (f"langchain_core.messages.{module}", f"{kind}Message{chunk}")
        for module, kind in zip(_MESSAGES, _KINDS, strict=True)
        for chunk in ("", "Chunk")
    }
)
"""Classes every serializer builds, importing their module if needed (LangGraph's safe
list, less what graphkit tags itself: datetimes, sets, ``Send``, ``Command``...)."""


def class_keys(entries: Iterable[Any]) -> frozenset[tuple[str, str]]:
    """``(module, qualified name)`` pairs for allow-list entries: classes or pairs.

    >>> import decimal
    >>> sorted(class_keys([decimal.Decimal, ("uuid", "UUID")]))
    [('decimal', 'Decimal'), ('uuid', 'UUID')]
    """
    keys = set()
    for entry in entries:
        if isinstance(entry, type):
            keys.add((entry.__module__, entry.__qualname__))
        elif isinstance(entry, tuple) and len(entry) == 2 and all(type(x) is str for x in entry):
            keys.add(entry)
        else:
            raise TypeError(
                f"Cannot allow {entry!r}: an allow-list entry is a class or a "
                "(module, name) pair, e.g. allowed_msgpack_modules=[('my_app.state', 'Order')]."
            )
    return frozenset(keys)


class ClassPolicy:
    """Which classes a reader builds. ``mode`` is ``"strict"`` (``SAFE_CLASSES`` and
    ``allowed`` only), ``"imported"`` (also, with a warning, classes of modules already
    imported) or ``"all"`` (any class, importing its module, with a warning).
    ``read_as_data`` counts the classes it refused: what was read then may read
    otherwise later (a module imported since), so a cache of decoded values checks it."""

    __slots__ = ("allowed", "mode", "read_as_data")

    def __init__(self, mode: str, allowed: frozenset[tuple[str, str]] = frozenset()) -> None:
        self.mode = mode
        self.allowed = allowed
        self.read_as_data = 0

    def __repr__(self) -> str:
        return f"ClassPolicy({self.mode!r}, allowed={sorted(self.allowed)})"

    def widened(self, extra: frozenset[tuple[str, str]]) -> ClassPolicy:
        """This policy allowing ``extra`` too (itself when nothing is new)."""
        if self.mode == "all" or extra <= self.allowed:
            return self
        return ClassPolicy(self.mode, self.allowed | extra)

    def resolve(self, ref: str) -> type | None:
        """The class ``module:qualname`` names, or None when it is not allowed.

        Raises ``LookupError`` when the name leads to no class, ``ImportError`` when an
        allowed class's module cannot be imported."""
        module_name, _, qualname = ref.partition(":")
        key = (module_name, qualname)
        if key not in self.allowed and key not in SAFE_CLASSES:
            if self.mode == "strict" or (
                self.mode == "imported" and module_name not in sys.modules
            ):
                _warn_once((*key, self.mode), _blocked(key, self.mode))
                self.read_as_data += 1
                return None
            _warn_once((*key, "built"), _unregistered(key))
        module = sys.modules.get(module_name)
        if module is None:
            # allowed by name (or everything is): importing it is the user's choice
            module = importlib.import_module(module_name)
        found = find_class(module, ref)
        if found is None:
            raise LookupError(f"{ref} does not name a class")
        return found


def find_class(module: types.ModuleType, ref: str) -> type | None:
    """The class ``ref`` names inside ``module``, or None.

    Looks in ``__dict__``s rather than with ``getattr``, so that a module's lazy
    ``__getattr__`` (which may import things) is never called.
    """
    found: Any = module
    for part in ref.partition(":")[2].split("."):
        found = vars(found).get(part) if hasattr(found, "__dict__") else None
    if not isinstance(found, type) or f"{found.__module__}:{found.__qualname__}" != ref:
        return None
    return found


def strict_from_environment() -> bool:
    """True when ``LANGGRAPH_STRICT_MSGPACK`` asks for strict reading (LangGraph's switch)."""
    return os.environ.get("LANGGRAPH_STRICT_MSGPACK", "").lower() in ("1", "true", "yes")


_warned: set[tuple[str, ...]] = set()


def _warn_once(key: tuple[str, ...], message: str) -> None:
    if key not in _warned:
        _warned.add(key)
        logger.warning(message)


def _blocked(key: tuple[str, str], mode: str) -> str:
    why = (
        f"module {key[0]!r} is not imported (the serializer imports no module a row names)"
        if mode == "imported"
        else "it is not in the serializer's allow-list"
    )
    return (
        f"Checkpoint value of class {key[0]}.{key[1]} read back as its plain data: {why}. "
        f"Allow it with JsonPlusSerializer(allowed_msgpack_modules=[{key!r}]) or "
        f"saver.with_allowlist([{key!r}]), or declare it in the graph's state schema."
    )


def _unregistered(key: tuple[str, str]) -> str:
    return (
        f"Building class {key[0]}.{key[1]} from a checkpoint although it is not in the "
        "allow-list. Allow it explicitly with JsonPlusSerializer(allowed_msgpack_modules="
        f"[{key!r}]), or set LANGGRAPH_STRICT_MSGPACK=true to read such values as plain data."
    )


# -- the classes a graph's schemas declare -----------------------------------------------


def schema_classes(*schemas: Any) -> frozenset[tuple[str, str]]:
    """The dataclasses, pydantic models, enums and named tuples that ``schemas`` (state,
    input, output, context types) mention, however deeply nested."""
    found: set[tuple[str, str]] = set()
    seen: set[int] = set()
    for schema in schemas:
        _visit(schema, found, seen)
    return frozenset(found)


def _visit(hint: Any, found: set[tuple[str, str]], seen: set[int]) -> None:
    if id(hint) in seen:
        return
    seen.add(id(hint))
    if typing.get_origin(hint) is not None or isinstance(hint, types.UnionType):
        for arg in typing.get_args(hint):  # Annotated, unions, list[...], dict[...]...
            _visit(arg, found, seen)
        return
    if not isinstance(hint, type):
        return
    if _is_storable_class(hint):
        found.add((hint.__module__, hint.__qualname__))
    elif not _is_typeddict(hint):
        return
    for field in _field_hints(hint):
        _visit(field, found, seen)


def _is_typeddict(cls: type) -> bool:
    # by shape, not typing.is_typeddict: before Python 3.12 that misses a
    # typing_extensions.TypedDict, the class LangGraph's own examples import
    return issubclass(cls, dict) and hasattr(cls, "__required_keys__")


def _is_storable_class(cls: type) -> bool:
    pydantic = sys.modules.get("pydantic")
    return (
        issubclass(cls, enum.Enum)
        or dataclasses.is_dataclass(cls)
        or (issubclass(cls, tuple) and hasattr(cls, "_fields"))
        or (pydantic is not None and issubclass(cls, pydantic.BaseModel))
    )


def _field_hints(cls: type) -> list[Any]:
    if issubclass(cls, enum.Enum):
        return []
    try:
        return list(typing.get_type_hints(cls, include_extras=True).values())
    except Exception:  # a forward reference that does not resolve: use what is there
        fields = getattr(cls, "model_fields", None)
        if fields is not None:
            return [field.annotation for field in fields.values()]
        return list(getattr(cls, "__annotations__", {}).values())


def allow_schema_classes(checkpointer: Any, schemas: Iterable[Any]) -> Any:
    """``checkpointer`` allowing the classes ``schemas`` declare (``compile()`` calls
    this); other checkpointer values (None, True, False) are returned unchanged."""
    widen = getattr(checkpointer, "with_allowlist", None)
    keys = schema_classes(*schemas) if widen is not None else frozenset()
    return widen(keys) if keys else checkpointer
