"""What drawing reads of a low-level ``Pregel``: which node's writes wake which node.

A node's write entries say which channels it can write: a ``ChannelWriteEntry`` names
its channel, a ``Send`` the node it starts, and a ``ChannelWriteTupleEntry`` declares its
channels in ``static`` (with labels). A tuple entry without ``static`` only says so when
its mapper runs: drawing runs it on the empty input LangGraph's drawing gives it (None),
and if that fails, the entry could write any channel.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from graphkit.constants import END, START, TASKS
from graphkit.pregel.node_builder import PASSTHROUGH, ChannelWriteEntry, ChannelWriteTupleEntry
from graphkit.types import Send

if TYPE_CHECKING:
    from graphkit.pregel.lowlevel import Pregel

__all__ = ["ChannelWiring", "NodeDeclaration"]

Pair = tuple[str, str]


@dataclass(frozen=True, slots=True)
class NodeDeclaration:
    """What drawing reads of a node: its function, metadata, and no Command routes."""

    action: Any
    metadata: Mapping[str, Any] = field(default_factory=dict)
    destinations: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ChannelWiring:
    """A ``Pregel`` graph as drawing sees a builder: an edge ``a -> b`` where ``a``
    writes a channel (or sends a task) that wakes ``b``; ``START`` feeds the nodes its
    input channels wake, and a node writing an output channel leads to ``END``.
    ``edge_channels`` names, per edge, the channels whose writes travel along it (what
    the debugger lights up when ``a`` writes them); ``edge_labels`` are the labels a
    tuple entry's ``static`` declares, or a node's ``meta(edge_labels={target: label})``
    gives (e.g. a weighted graph's weights); ``edge_kinds`` marks the ``conditional``
    edges: those only a ``Send``, a declared (``static``) write, or a tuple entry whose
    writes are unknown takes."""

    nodes: Mapping[str, NodeDeclaration]
    edges: frozenset[Pair]
    waiting_edges: tuple[Any, ...] = ()
    branches: Mapping[str, Any] = field(default_factory=dict)
    edge_channels: Mapping[Pair, tuple[str, ...]] = field(default_factory=dict)
    edge_labels: Mapping[Pair, str] = field(default_factory=dict)
    edge_kinds: Mapping[Pair, str] = field(default_factory=dict)

    @classmethod
    def of(cls, app: Pregel) -> ChannelWiring:
        found = _Edges(app)
        for name, node in app.nodes.items():
            for entry in node.writes:
                found.add_entry(name, entry)
        declarations = {
            name: NodeDeclaration(node.functions[-1] if node.functions else None, node.metadata)
            for name, node in app.nodes.items()
        }
        channels = {edge: tuple(sorted(names)) for edge, names in found.via.items()}
        labels = {**_first_labels(found.labels), **_edge_labels(app, found.via)}
        kinds = {edge: "conditional" for edge in found.via if edge not in found.plain}
        return cls(
            declarations,
            frozenset(found.via),
            edge_channels=channels,
            edge_labels=labels,
            edge_kinds=kinds,
        )


class _Edges:
    """The edges found so far: the channels along each, which ones some plain write
    takes (the others are conditional), and every label ``static`` declarations give
    each edge."""

    def __init__(self, app: Pregel) -> None:
        self.woken: dict[str, set[str]] = {}
        for name, node in app.nodes.items():
            for channel in node.triggers:
                self.woken.setdefault(channel, set()).add(name)
        self.outputs = set(_names(app.output_channels))
        self.channels = tuple(app.channels)
        self.via: dict[Pair, set[str]] = {}
        self.plain: set[Pair] = set()
        self.labels: dict[Pair, set[str]] = {}
        for channel in _names(app.input_channels):
            self.write(START, channel)

    def write(self, source: str, channel: str, *, conditional: bool = False) -> None:
        targets = set(self.woken.get(channel, ()))
        targets |= {END} if channel in self.outputs else set()
        for target in targets:
            self.add(source, target, conditional, channel)

    def add(self, source: str, target: str, conditional: bool, *channels: str) -> None:
        self.via.setdefault((source, target), set()).update(channels)
        if not conditional:  # (a plain write takes the edge whatever else might)
            self.plain.add((source, target))

    def add_entry(self, name: str, entry: Any) -> None:
        if isinstance(entry, Send):
            self.add(name, entry.node, True, TASKS)
        elif isinstance(entry, ChannelWriteEntry):
            self.write(name, entry.channel)
        elif isinstance(entry, ChannelWriteTupleEntry) and entry.static:
            for channel, _, label in entry.static:
                self.declared(name, channel, label)
        elif isinstance(entry, ChannelWriteTupleEntry):
            pairs = _empty_input_writes(entry)
            for channel, value in pairs or ():
                if channel == TASKS and isinstance(value, Send):
                    self.add(name, value.node, True, TASKS)
                else:
                    self.write(name, channel)
            if pairs is None:  # its writes are unknown: it could write any channel
                for channel in self.channels:
                    self.write(name, channel, conditional=True)

    def declared(self, name: str, channel: str, label: str | None) -> None:
        """A write ``static`` declares: conditional, and labelled (see ``_first_labels``)."""
        if channel == END:  # (END is no channel: the declaration is the edge itself,
            # and END along it tells the debugger to light it when no node is woken)
            self.add(name, END, True, END)
            targets = {END}
        else:
            self.write(name, channel, conditional=True)
            targets = set(self.woken.get(channel, ()))
            targets |= {END} if channel in self.outputs else set()
        for target in targets:
            if label is not None:
                self.labels.setdefault((name, target), set()).add(str(label))


def _empty_input_writes(entry: ChannelWriteTupleEntry) -> list[tuple[str, Any]] | None:
    """The ``(channel, value)`` pairs the entry's mapper makes of the empty input
    LangGraph's drawing passes (None; or the entry's fixed value), or None when they are
    unknown: the mapper failed on it or returned something that is no list of pairs."""
    try:
        made = entry.mapper(None if entry.value is PASSTHROUGH else entry.value)
        if inspect.iscoroutine(made):  # (an async mapper: not awaited, and not run)
            made.close()
            return None
        pairs = list(made or ())
    except Exception:  # (drawing never fails on a node's code)
        return None
    if all(isinstance(p, tuple | list) and len(p) == 2 and isinstance(p[0], str) for p in pairs):
        return [(channel, value) for channel, value in pairs]
    return None


def _first_labels(given: Mapping[Pair, set[str]]) -> dict[Pair, str]:
    """Each edge's label, where declarations give it several: the one that sorts first,
    and none when that merely repeats the target's name, as LangGraph 1.2 draws it. (A
    declaration without a label gives none; LangGraph fails to sort None beside a label.)"""
    labels = {}
    for (source, target), names in given.items():
        if (first := min(names)) != target:
            labels[source, target] = first
    return labels


def _names(channels: str | Sequence[str]) -> tuple[str, ...]:
    return (channels,) if isinstance(channels, str) else tuple(channels)


def _edge_labels(app: Pregel, edges: Mapping[Pair, Any]) -> dict[Pair, str]:
    """The labels nodes give their drawn edges: ``meta(edge_labels={target: label})``."""
    labels = {}
    for name, node in app.nodes.items():
        given = node.metadata.get("edge_labels")
        if not isinstance(given, Mapping):
            continue
        for target, label in given.items():
            if (name, target) in edges:
                labels[name, target] = str(label)
    return labels
