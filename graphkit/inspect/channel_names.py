"""The names of the runtime's own channels: which are the runtime's, which node a
``branch:to:<node>`` channel wakes, and what a waiting edge's ``join:`` channel holds.

The records name channels as the runtime does; these read those names (and a waiting
edge's saved value) back into nodes, so the views can say "an edge of planner" or
"the waiting edge [weather, news] → summarize" without the compiled graph.
``graphkit.inspect.values`` imports them for the modules that read them from there.
"""

from __future__ import annotations

from typing import Any

from graphkit.channels import EMPTY
from graphkit.constants import END, PREVIOUS
from graphkit.graph.schema import ROOT

__all__ = [
    "USER_STATE_CHANNELS",
    "barrier_parts",
    "barrier_seen",
    "branch_target",
    "is_internal",
]


def is_internal(channel: str) -> bool:
    """True for the runtime's own channels: ``__start__``, ``branch:to:*``, ``join:*``
    (a single-value state's one channel, ``__root__``, is the state, not the runtime's;
    so are a functional program's ``__end__``, what it returned, and ``__previous__``,
    what it saved for the next call).

    >>> [is_internal(c) for c in ("weather", "branch:to:news", "join:a+b:c", "__start__")]
    [False, True, True, True]
    >>> [is_internal(c) for c in ("__root__", "__end__", "__previous__")]
    [False, False, False]
    """
    return channel not in USER_STATE_CHANNELS and channel.startswith(("branch:", "join:", "__"))


USER_STATE_CHANNELS = frozenset({ROOT, END, PREVIOUS})
"""Channels named like the runtime's that hold the state a user reads."""


def branch_target(channel: str) -> str | None:
    """The node a ``branch:to:<node>`` channel wakes, or None for another channel.

    >>> branch_target("branch:to:weather"), branch_target("weather")
    ('weather', None)
    """
    prefix = "branch:to:"
    return channel[len(prefix) :] if channel.startswith(prefix) else None


def barrier_parts(channel: str) -> tuple[tuple[str, ...], str] | None:
    """The sources and target of a waiting edge's ``join:<a>+<b>:<node>`` channel.

    Node names cannot contain ``:``; a name containing ``+`` makes the split
    ambiguous, so pass the compiled graph to ``why`` for such graphs.

    >>> barrier_parts("join:weather+news:summarize")
    (('weather', 'news'), 'summarize')
    >>> barrier_parts("branch:to:x") is None
    True
    """
    if not channel.startswith("join:"):
        return None
    sources, _, target = channel[len("join:") :].rpartition(":")
    return tuple(sources.split("+")), target


def barrier_seen(value: Any) -> set[str]:
    """The sources a waiting edge's barrier has seen, from its saved value: a set, or
    ``(set, finished)`` for a waiting edge into a deferred node, which a checkpoint read
    back holds as ``[set, finished]`` (a saver gives a tuple back as a list).

    >>> sorted(barrier_seen({"a", "b"})), barrier_seen(({"a"}, False)), barrier_seen(EMPTY)
    (['a', 'b'], {'a'}, set())
    >>> barrier_seen([{"a"}, False])
    {'a'}
    """
    if value is EMPTY or value is None:
        return set()
    pair = isinstance(value, tuple | list) and len(value) == 2
    if pair and isinstance(value[1], bool) and not isinstance(value[0], str):
        return set(value[0])
    return set(value)
