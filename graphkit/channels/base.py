"""The channel protocol: the one small interface every channel kind implements. Update
hands a channel *all* the writes of a step at once, so the runtime, not thread timing,
orders them."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar, Generic, Self, TypeVar

from graphkit.errors import EmptyChannelError

Value = TypeVar("Value")
Update = TypeVar("Update")
Saved = TypeVar("Saved")
"""What ``checkpoint()`` returns (LangGraph's third type argument, ``Checkpoint``)."""


class _Empty:
    """The value of a channel that holds nothing (distinct from ``None``)."""

    def __repr__(self) -> str:
        return "<empty>"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "EMPTY"  # pickle and copy give back the one EMPTY


EMPTY: Any = _Empty()
"""Sentinel for "no value": what ``checkpoint()`` returns for an empty channel."""

MISSING: Any = EMPTY
"""LangGraph's name for ``EMPTY``, which channels written for it compare with."""


class Channel(ABC, Generic[Value, Update, Saved]):
    """One piece of state, updated once per superstep with all of that step's writes.

    A kind implements reading (``get``, ``checkpoint``), writing (``update``, maybe
    ``consume`` and ``finish``) and ``from_checkpoint``.

    >>> from graphkit.channels import LastValue
    >>> channel = LastValue(int)
    >>> channel.update([3]), channel.get()
    (True, 3)
    """

    volatile: ClassVar[bool] = False
    """True when a step without a write can change the value (an ephemeral value clears):
    the runtime then calls ``update([])`` on later steps."""

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

    def checkpoint(self) -> Any:
        """Return the state that ``from_checkpoint`` restores (``EMPTY`` for none): by
        default the value, which a kind whose state is more than its value overrides."""
        try:
            return self.get()
        except EmptyChannelError:
            return EMPTY

    def saved_empty(self) -> Any:
        """What a saved checkpoint holds for this channel once it has a version but no
        state (``checkpoint()`` is ``EMPTY``): by default nothing (``EMPTY``); a kind
        whose LangGraph twin saves its empty state (a barrier's ``set()``, a topic's
        ``[]``) returns that, so a reader of ``channel_values`` sees LangGraph's keys."""
        return EMPTY

    @property
    def ValueType(self) -> Any:  # LangGraph's name, read by code written for it
        """The type ``get()`` returns: the type the channel was made with."""
        return self.typ

    @property
    def UpdateType(self) -> Any:
        """The type of one write ``update()`` takes."""
        return self.typ

    # -- write --------------------------------------------------------------------

    @abstractmethod
    def update(self, values: Sequence[Update]) -> bool:
        """Apply all writes of one step (``[]`` for none) in order; True if it changed."""

    def consume(self) -> bool:
        """A task this channel woke has run; True if it changed (a barrier resets)."""
        return False

    def finish(self) -> bool:
        """The run would otherwise end; True if the channel changed."""
        return False

    # -- lifecycle ----------------------------------------------------------------

    @abstractmethod
    def from_checkpoint(self, checkpoint: Any) -> Self:
        """Return a new channel with this one's configuration and the saved state."""

    def copy(self) -> Self:
        """Return an independent channel with the same configuration and state."""
        return self.from_checkpoint(self.checkpoint())

    def empty_copy(self) -> Self:
        """Return a channel with this one's configuration and no state."""
        return self.from_checkpoint(EMPTY)

    # -- comparison and display ---------------------------------------------------

    def _config(self) -> tuple[Any, ...]:
        """The constructor's positional arguments before ``key``, in its order."""
        return (self.typ,)

    def _options(self) -> dict[str, Any]:
        """The constructor's keyword-only arguments besides ``key`` (most kinds: none)."""
        return {}

    def _empty_like(self) -> Self:
        """A new, empty channel of this one's configuration: where ``from_checkpoint``
        starts, so ``_config()`` and ``_options()`` must fit the constructor."""
        return type(self)(*self._config(), **self._options(), key=self.key)

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is type(self)
            and self._config() == other._config()  # type: ignore[attr-defined]
            and self._options() == other._options()  # type: ignore[attr-defined]
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


BaseChannel = Channel
"""LangGraph's name for the protocol: a channel written for LangGraph subclasses it."""
