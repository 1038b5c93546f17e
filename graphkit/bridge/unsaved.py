"""Who made a change of a step whose tasks' writes a LangGraph process never saved.

LangGraph saves a step's checkpoint and, apart from it and in the background, each
task's writes. A process that ended between the two left a step whose changes are
known (the checkpoint) and tasks with no write saved (``graphkit.unsaved.NotSaved``).
A change no saved write explains was made by those tasks; which of them is told so:

- a channel a task writes whenever it finishes, with a value fixed when the graph was
  compiled (an edge's ``branch:to:b``, its part of a waiting edge ``join:a+b:c``), was
  written by each such task, with that value;
- else a channel only one of them may write (one such task, or one whose writers name
  the channel) is credited to it, its value unknown;
- else the change names every task that may have made it, no value: the views read
  "one of a, b (not saved)" (a plain key) or "one or more of a, b (not saved)" (a
  reducer's), never "(runtime)", nor a claim that each of them wrote it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["NodeWrites", "node_writes", "unsaved_writers"]


class NodeWrites:
    """What a compiled LangGraph node may write: ``fixed``, each channel it writes
    whenever it finishes with its value; ``named``, the channels its writers name (the
    fixed ones, and those written with its output); ``free``: whether it may write any
    other channel (a state update, a ``Command``, a router's choice)."""

    __slots__ = ("fixed", "free", "named")

    def __init__(self, fixed: Mapping[str, Any], named: frozenset[str], free: bool) -> None:
        self.fixed, self.named, self.free = fixed, named, free

    def may_write(self, channel: str) -> bool:
        return self.free or channel in self.named


def node_writes(node: Any) -> NodeWrites:
    """Read ``node``'s writers (a LangGraph ``PregelNode``'s ``ChannelWrite``s)."""
    from langgraph.pregel._write import PASSTHROUGH, SKIP_WRITE

    fixed: dict[str, Any] = {}
    named: set[str] = set()
    free = False
    for writer in getattr(node, "writers", ()) or ():
        entries = getattr(writer, "writes", None)
        if entries is None:  # a router, or any runnable: it writes what it decides
            free = True
            continue
        for entry in entries:
            channel = getattr(entry, "channel", None)
            if not isinstance(channel, str):  # a state update's keys, a Send, a Command
                free = True
                continue
            named.add(channel)
            value = getattr(entry, "value", PASSTHROUGH)
            always = getattr(entry, "mapper", None) is None and not getattr(entry, "skip_none", 0)
            if always and value is not PASSTHROUGH and value is not SKIP_WRITE:
                fixed[channel] = value
    return NodeWrites(fixed, frozenset(named), free)


def unsaved_writers(
    channel: str,
    saved: tuple[list[str], list[Any]],
    unsaved: Sequence[str],
    writes: Mapping[str, NodeWrites],
) -> tuple[list[str], list[Any]]:
    """The writers and values of ``channel``'s change, given the ``saved`` writes that
    made it and the nodes of the step's ``unsaved`` tasks (the module says how).

    >>> edge = NodeWrites({"branch:to:c": None}, frozenset({"branch:to:c"}), True)
    >>> plain = NodeWrites({}, frozenset(), True)
    >>> writes = {"a": edge, "b": plain}
    >>> unsaved_writers("branch:to:c", ([], []), ["a", "b"], writes)
    (['a'], [None])
    >>> unsaved_writers("log", ([], []), ["a", "b"], writes)
    (['a', 'b'], [])
    >>> unsaved_writers("log", (["d"], [[1]]), ["a", "b"], writes)
    (['d'], [[1]])
    """
    writers, values = saved
    unknown = NodeWrites({}, frozenset(), True)
    sure = [node for node in unsaved if channel in writes.get(node, unknown).fixed]
    if sure and len(writers) == len(values):  # (every write's value is known)
        return [*writers, *sure], [*values, *(writes[node].fixed[channel] for node in sure)]
    if writers:  # saved writes made it: what else wrote to a reducer's is not known
        return writers, values
    able = [node for node in dict.fromkeys(unsaved) if writes.get(node, unknown).may_write(channel)]
    return (able or list(unsaved)), []
