"""The channel protocol: the one small interface every channel kind implements.

A channel holds one piece of graph state between supersteps. Nodes never touch a
channel directly: the Update phase hands each channel *all* the writes it got in one
step at once (``update(values)``), so the reducer logic lives inside the channel and
the order of writes is decided by the runtime, not by thread timing.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar, Generic, Self, TypeVar

from graphkit.errors import EmptyChannelError

__all__ = ["EMPTY", "Channel"]

Value = TypeVar("Value")
Update = TypeVar("Update")


class _Empty:
    """The value of a channel that holds nothing (distinct from ``None``)."""

    _instance: _Empty | None = None

    def __new__(cls) -> _Empty:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "<empty>"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "EMPTY"


EMPTY: Any = _Empty()
"""Sentinel for "no value": what ``checkpoint()`` returns for an empty channel."""


class Channel(ABC, Generic[Value, Update]):
    """One piece of state, updated once per superstep with all of that step's writes.

    Subclasses implement the read group (``get``, ``is_available``, ``checkpoint``)
    and the write group (``update``, optionally ``consume`` and ``finish``), plus
    ``from_checkpoint`` to rebuild a channel of the same configuration.

    >>> from graphkit.channels import LastValue
    >>> channel = LastValue(int)
    >>> channel.update([3])
    True
    >>> channel.get()
    3
    """

    volatile: ClassVar[bool] = False
    """True when the value can change on a step that brings the channel no write
    (e.g. an ephemeral value is cleared). The runtime notifies such channels with
    ``update([])`` on every step after they were written."""

    __slots__ = ("key", "typ")

    def __init__(self, typ: Any, key: str = "") -> None:
        self.typ = typ
        self.key = key

    # -- read ---------------------------------------------------------------------

    @abstractmethod
    def get(self) -> Value:
        """Return the current value, or raise ``EmptyChannelError`` if there is none."""

    def is_available(self) -> bool:
        """True when ``get()`` would return a value."""
        try:
            self.get()
        except EmptyChannelError:
            return False
        return True

    @abstractmethod
    def checkpoint(self) -> Any:
        """Return a value from which ``from_checkpoint`` rebuilds this channel's state
        (``EMPTY`` when there is nothing to save)."""

    # -- write --------------------------------------------------------------------

    @abstractmethod
    def update(self, values: Sequence[Update]) -> bool:
        """Apply all writes of one step, in the runtime's order; return True if the
        channel changed. ``values`` is empty when the step brought no write."""

    def consume(self) -> bool:
        """Called after a task subscribed to this channel ran; return True if the
        channel changed (e.g. a barrier resets)."""
        return False

    def finish(self) -> bool:
        """Called when the run would otherwise end; return True if the channel changed."""
        return False

    # -- lifecycle ----------------------------------------------------------------

    @abstractmethod
    def from_checkpoint(self, checkpoint: Any) -> Self:
        """Return a new channel with this one's configuration and the saved state."""

    def copy(self) -> Self:
        """Return an independent channel with the same configuration and state."""
        return self.from_checkpoint(self.checkpoint())

    replaces_its_value: ClassVar[bool] = False
    """True when ``update`` only rebinds the channel's attributes (never mutates a
    container it holds), so a copy may share them."""

    _state_slots: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._state_slots = tuple(
            name for klass in cls.__mro__ for name in klass.__dict__.get("__slots__", ())
        )
        # A copy() written by hand, in this class or one it inherits from, always wins;
        # otherwise the class gets the copy its slots allow.
        inherited = next(
            klass.__dict__["copy"] for klass in cls.__mro__ if "copy" in klass.__dict__
        )
        if inherited is Channel.__dict__["copy"] or getattr(inherited, "_slot_copier", False):
            cls.copy = (  # type: ignore[method-assign]
                _slot_copier(cls._state_slots) if cls.replaces_its_value else Channel.copy
            )

    def empty_copy(self) -> Self:
        """Return a channel with this one's configuration and no state."""
        return self.from_checkpoint(EMPTY)

    # -- comparison and display ---------------------------------------------------

    def _config(self) -> tuple[Any, ...]:
        """The constructor arguments that make two channels of one kind differ."""
        return (self.typ,)

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is type(self)
            and self._config() == other._config()  # type: ignore[attr-defined]
            and self.checkpoint() == other.checkpoint()  # type: ignore[attr-defined]
        )

    def __hash__(self) -> int:
        return hash(type(self))  # consistent with __eq__, which ignores the key

    def __repr__(self) -> str:
        name = f" {self.key!r}" if self.key else ""
        return f"{type(self).__name__}{name}({self.checkpoint()!r})"

    @classmethod
    def _empty_error(cls) -> EmptyChannelError:
        return EmptyChannelError(f"{cls.__name__} channel is empty")


def _slot_copier(slots: tuple[str, ...]) -> Any:
    """A ``copy`` method that copies ``slots`` one by one, written out as plain
    assignments. Update copies every channel it writes, every step; for channels that
    only ever replace their value, sharing the attributes is a correct copy, and
    straight-line assignments are several times faster than a getattr/setattr loop
    (the technique ``dataclasses`` uses for its generated methods)."""
    lines = ["def copy(self):", "    clone = new(type(self))"]
    lines += [f"    clone.{name} = self.{name}" for name in slots if not name.startswith("__")]
    lines.append("    return clone")
    namespace: dict[str, Any] = {"new": object.__new__}
    exec("\n".join(lines), namespace)
    copy = namespace["copy"]
    copy.__doc__ = Channel.copy.__doc__
    copy._slot_copier = True  # made here, so a subclass gets one for its own slots
    return copy
