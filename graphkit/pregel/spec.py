"""What the runtime runs: nodes wired to channels, built once by ``compile()``. A node is
"wake me when one of these channels has a new version, give me these channels' values,
and turn what I return into writes"; edges and conditional edges are writers of a node.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from graphkit.channels import BinaryOperatorAggregate, Channel, DeltaChannel, UntrackedValue
from graphkit.constants import PULL, ROOT
from graphkit.pregel.message_ids import is_messages_reducer, with_message_ids
from graphkit.pregel.runtime import INJECTABLE

__all__ = [
    "FreshRead",
    "GraphSpec",
    "NodeSpec",
    "Writer",
    "fold_writes",
    "injectable_parameters",
    "shown",
]


FreshRead = Callable[[Sequence[str]], dict[str, Any]]
"""Reads channels as the step's snapshot plus the running task's writes so far."""

Writer = Callable[[Any, FreshRead, "Mapping[str, Any] | None"], Sequence[tuple[str, Any]]]
"""Turns a node's return value into writes: ``writer(returned, fresh_read, config)``."""


@dataclass(frozen=True, slots=True)
class NodeSpec:
    """One node as the runtime sees it: ``reads`` is channel names (the node gets a dict
    of those with a value) or one name (its value); ``call(input, **injected)`` runs the
    user's code; ``has_routers``: a router is among the writers (it needs a fresh reader);
    ``cache_policy``: its writes are cached under ``cache_namespace`` (see graphkit.cache)."""

    name: str
    triggers: tuple[str, ...]
    reads: tuple[str, ...] | str
    call: Callable[..., Any]
    writers: tuple[Writer, ...] = ()
    coerce: Callable[[dict[str, Any]], Any] | None = None
    injected: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)
    hidden: bool = False
    retry_policies: tuple[Any, ...] = ()
    is_async: bool = False
    has_routers: bool = False
    """Conditional edges leave this node: their routers read the state as it left it."""
    cache_policy: Any = None
    cache_namespace: tuple[str, ...] = ()
    timeout: Any = None
    """A ``TimeoutPolicy`` for each attempt (async nodes only)."""
    error_handler: str | None = None
    """The node that takes over when this one fails after its retries."""
    async_call: Callable[..., Any] | None = None
    """A Runnable node's ``ainvoke``, which an async run calls instead of ``call`` (its
    ``invoke``), as LangGraph does."""
    runs_user_code: bool = field(init=False, repr=False, compare=False)
    """False for START without conditional edges: its task runs only graphkit's code (the
    input's writes), so nothing in it can read its config, and LangGraph reports no chain
    run for it."""
    sorted_triggers: tuple[str, ...] = field(init=False, repr=False, compare=False)
    """The triggers in order, as a task's metadata names them (``langgraph_triggers``)."""

    def __post_init__(self) -> None:  # (what each of its tasks would work out again)
        object.__setattr__(self, "runs_user_code", not self.hidden or self.has_routers)
        object.__setattr__(self, "sorted_triggers", tuple(sorted(self.triggers)))


@dataclass(frozen=True, slots=True)
class GraphSpec:
    """Nodes, the channels they talk through (prototypes: runs start from empty copies),
    and the Plan phase's index; ``managed`` maps managed-value keys (``remaining_steps``)
    to the class that computes them."""

    nodes: Mapping[str, NodeSpec]
    channels: Mapping[str, Channel]
    input_channel: str
    output_keys: tuple[str, ...]
    stream_keys: tuple[str, ...]
    state_keys: tuple[str, ...]
    managed: Mapping[str, Any] = field(default_factory=dict)
    trigger_to_nodes: Mapping[str, tuple[str, ...]] = field(init=False)
    finishing_channels: tuple[str, ...] = field(init=False)
    consuming_channels: frozenset[str] = field(init=False)
    untracked_channels: frozenset[str] = field(init=False)  # their writes are never saved
    delta_channels: Mapping[str, bool] = field(init=False)
    """Each ``DeltaChannel``: whether its reducer is LangGraph's batch reducer of messages
    (``with_message_ids`` then makes every message-like a message)."""
    empty_channels: Mapping[str, Channel] = field(init=False, repr=False)
    filled_channels: tuple[str, ...] = field(init=False, repr=False)
    """The channels that hold a value when empty (a reducer's ``[]``): each run starts
    from its own copy of those (``StepState.fresh``)."""
    reducer_names: Mapping[str, str] = field(init=False, repr=False)
    update_keys: tuple[str, ...] = field(init=False, repr=False)
    """What each ``Update`` names as the state's keys (managed values too; none for a
    Pregel, whose state keys are its stream channels)."""
    pull_paths: Mapping[str, tuple[tuple[str, str], str]] = field(init=False, repr=False)
    """Each node's path as a task an edge woke, and its text (hashed by the task's id)."""
    low_level: ClassVar[bool] = False  # a low-level Pregel's, not a StateGraph's

    def __post_init__(self) -> None:
        index: dict[str, list[str]] = {}
        for node in self.nodes.values():
            for channel in node.triggers:
                index.setdefault(channel, []).append(node.name)
        channels = self.channels.items()
        finishing = tuple(k for k, c in channels if type(c).finish is not Channel.finish)
        consuming = frozenset(k for k, c in channels if type(c).consume is not Channel.consume)
        object.__setattr__(
            self, "trigger_to_nodes", {k: tuple(sorted(v)) for k, v in index.items()}
        )
        object.__setattr__(self, "finishing_channels", finishing)
        object.__setattr__(self, "consuming_channels", consuming)
        untracked = frozenset(k for k, c in channels if isinstance(c, UntrackedValue))
        object.__setattr__(self, "untracked_channels", untracked)
        deltas = {
            k: is_messages_reducer(c.operator) for k, c in channels if type(c) is DeltaChannel
        }
        object.__setattr__(self, "delta_channels", deltas)
        # What runs start from: Update never changes a channel in place (it swaps in
        # changed copies), so runs share those that hold nothing (StepState.fresh).
        empty = {k: c.empty_copy() for k, c in channels}
        object.__setattr__(self, "empty_channels", empty)
        filled = tuple(k for k, c in empty.items() if c.is_available())
        object.__setattr__(self, "filled_channels", filled)
        object.__setattr__(self, "reducer_names", {k: _reducer_name(c) for k, c in channels})
        keys = () if self.low_level else (*self.state_keys, *self.managed)
        object.__setattr__(self, "update_keys", keys)
        paths = {name: ((PULL, name), str((PULL, name))) for name in self.nodes}
        object.__setattr__(self, "pull_paths", paths)

    def input_writes(self, value: Any) -> tuple[tuple[str, Any], ...]:
        """The writes of the input step: ``value`` to the input channel (the low-level
        ``Pregel`` maps a dict onto several input channels instead)."""
        return ((self.input_channel, value),)

    def with_message_ids(self, writes: Sequence[tuple[str, Any]]) -> tuple[tuple[str, Any], ...]:
        """``writes`` as a task saves and applies them: the messages written to a
        ``DeltaChannel`` with ids, as LangGraph gives them (``pregel/message_ids.py``)."""
        if not self.delta_channels:
            return tuple(writes)
        deltas = self.delta_channels
        return tuple(
            (channel, with_message_ids(value, deltas[channel]) if channel in deltas else value)
            for channel, value in writes
        )


def shown(keys: tuple[str, ...], values: dict[str, Any]) -> Any:
    """What a user sees of ``values`` read for ``keys``: the dict, or for a single-value
    state (keys ``(ROOT,)``, e.g. ``StateGraph(int)``) the value itself, None while empty.

    >>> shown(("n",), {"n": 1}), shown(("__root__",), {"__root__": 1}), shown(("__root__",), {})
    ({'n': 1}, 1, None)
    """
    return values.get(ROOT) if keys == (ROOT,) else values


def fold_writes(writes: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    """A task's writes as one result dict, as LangGraph shows them in task results: a key
    written more than once maps to ``{"$writes": [...]}`` (a None written first is
    replaced, not listed, as in LangGraph).

    >>> fold_writes([("log", ["a"]), ("n", 1), ("log", ["b"])])
    {'log': {'$writes': [['a'], ['b']]}, 'n': 1}
    """
    folded: dict[str, Any] = {}
    for channel, value in writes:
        previous = folded.get(channel)
        if previous is None:
            folded[channel] = value
        else:
            many = isinstance(previous, dict) and isinstance(previous.get("$writes"), list)
            folded[channel] = {"$writes": [*(previous["$writes"] if many else [previous]), value]}
    return folded


def _reducer_name(channel: Channel) -> str:
    """The changes table's reducer: a reducer's operator name, else the channel kind."""
    if isinstance(channel, BinaryOperatorAggregate):
        return getattr(channel.operator, "__name__", repr(channel.operator))
    return type(channel).__name__


def injectable_parameters(function: Callable[..., Any]) -> tuple[str, ...]:
    """Which of LangGraph's injectable parameters ``function`` declares, by name. One
    that is positional-only (``def node(state, config, /)``) is not injected, as in
    LangGraph: it is passed by keyword, which such a parameter refuses, so the function
    is called without it (and gets its default, or fails for the missing argument).

    >>> injectable_parameters(lambda state, config, writer: state)
    ('config', 'writer')
    >>> def node(state, config, /, *, store): ...
    >>> injectable_parameters(node)
    ('store',)
    """
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return ()
    return tuple(
        name
        for name in INJECTABLE
        if name in parameters
        and parameters[name].kind in _BY_KEYWORD
        and (name != "error" or _is_node_error(parameters[name]))
    )


_BY_KEYWORD = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
"""The parameter kinds an injected value can be passed to (by its name)."""


def _is_node_error(parameter: inspect.Parameter) -> bool:
    """LangGraph's rule: ``error`` is injected when annotated ``NodeError`` (its class,
    graphkit's, or the name as a string)."""
    annotation = parameter.annotation
    return getattr(annotation, "__name__", annotation) == "NodeError"
