"""What graphkit says when something is wrong, kept out of the loop it guards.

The runtime decides *that* a write, a graph, a thread or a config is wrong; the
functions here say *what* was wrong, where (node, edge, channel, step) and how to fix
it, and check a declared graph before it compiles. Reading the core, a call such as
``diagnose.unknown_channel(...)`` is all you need to see (each core module imports
its area's module as ``diagnose``); ``docs/bad-input.md`` shows the messages in
context. Nothing here imports the runtime.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["some_names"]

SHOWN_NAMES = 20
"""A message lists this many names at most; past it, the first ten and how many more."""


def some_names(names: Iterable[str]) -> str:
    """``names`` sorted, as a list a message can show: with 5,000 nodes, "its nodes are
    [...]" made a 60 KB message, so a long list shows its first ten and a count.

    >>> some_names(["b", "a"])
    "['a', 'b']"
    >>> some_names(f"n{i:02}" for i in range(23))
    "['n00', 'n01', 'n02', 'n03', 'n04', 'n05', 'n06', 'n07', 'n08', 'n09', ... 13 more]"
    """
    ordered = sorted(names)
    if len(ordered) <= SHOWN_NAMES:
        return repr(ordered)
    return f"[{', '.join(map(repr, ordered[:10]))}, ... {len(ordered) - 10} more]"
