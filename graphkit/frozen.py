"""``frozen_record``: a frozen, slotted dataclass that is cheap to create.

A run creates several records per superstep (tasks, results, channel changes,
checkpoints). A frozen dataclass's generated ``__init__`` sets each field through
``object.__setattr__``, which costs about four times a plain attribute store; on a
small graph that was a sixth of the time of a whole ``invoke``. This decorator keeps
everything else ``dataclass(frozen=True, slots=True)`` gives (fields, ``replace``,
equality, ``FrozenInstanceError`` on assignment) and replaces only ``__init__`` with
one that stores each field through its slot descriptor, which is allowed on a
frozen instance and about twice as fast.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["frozen_record"]

T = TypeVar("T")


class _Factory:
    """Stands for "use the field's default factory" in a generated signature."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY: Any = _Factory()


def frozen_record(*, repr: bool = True) -> Callable[[type[T]], type[T]]:
    """Make ``cls`` a frozen, slotted dataclass with a fast ``__init__``.

    >>> @frozen_record()
    ... class Point:
    ...     x: int
    ...     y: int = 0
    >>> Point(1), Point(1, 2) == Point(x=1, y=2)
    (Point(x=1, y=0), True)
    >>> Point(1).x = 5
    Traceback (most recent call last):
    dataclasses.FrozenInstanceError: cannot assign to field 'x'
    """

    def decorate(cls: type[T]) -> type[T]:
        built = dataclasses.dataclass(frozen=True, slots=True, repr=repr)(cls)
        if "__post_init__" in built.__dict__:
            raise TypeError(f"{built.__name__}: frozen_record does not run __post_init__")
        built.__init__ = _slot_init(built)  # type: ignore[misc]
        return built

    return decorate


def _slot_init(cls: type) -> Callable[..., None]:
    """An ``__init__`` with the dataclass's signature that stores each field through
    its slot descriptor (dataclasses builds its own methods the same way, from text)."""
    namespace: dict[str, Any] = {"_FACTORY": _FACTORY}
    parameters, body = [], []
    for field in dataclasses.fields(cls):
        name = field.name
        setter = f"_set_{name}"
        namespace[setter] = getattr(cls, name).__set__
        if field.default is not dataclasses.MISSING:
            namespace[f"_default_{name}"] = field.default
            parameters.append(f"{name}=_default_{name}")
        elif field.default_factory is not dataclasses.MISSING:
            namespace[f"_factory_{name}"] = field.default_factory
            parameters.append(f"{name}=_FACTORY")
            body.append(f"    if {name} is _FACTORY: {name} = _factory_{name}()")
        else:
            parameters.append(name)
        body.append(f"    {setter}(self, {name})")
    source = f"def __init__(self, {', '.join(parameters)}):\n" + "\n".join(body or ["    pass"])
    exec(source, namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init  # type: ignore[no-any-return]
