"""What the runtime runs: nodes wired to channels. Built once by ``compile()``.

The runtime knows nothing of StateGraph: a node is "wake me when one of these
channels has a new version, give me these channels' values, and turn what I return
into writes". Edges and conditional edges are just writers of a node.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from graphkit.channels import BinaryOperatorAggregate, Channel

__all__ = [
    "FreshRead",
    "GraphSpec",
    "NodeSpec",
    "Writer",
    "accepts_config",
    "injectable_parameters",
]


class FreshRead(Protocol):
    """Reads channels as the running task sees them: the step's snapshot with the
    task's own writes so far applied (what a conditional edge's router reads)."""

    def __call__(self, keys: Sequence[str]) -> dict[str, Any]: ...


Writer = Callable[[Any, FreshRead, "Mapping[str, Any] | None"], Sequence[tuple[str, Any]]]
"""Turns a node's return value into writes: ``writer(returned, fresh_read, config)``."""


@dataclass(frozen=True, slots=True)
class NodeSpec:
    """One node as the runtime sees it.

    ``reads`` is a tuple of channel names (the node gets a dict of those that hold a
    value) or a single channel name (the node gets that channel's value). ``coerce``
    turns the dict into the node's input type (a dataclass or pydantic model), and
    ``call(input, **injected)`` runs the user's code, handed the run-scoped values it
    declared parameters for (``injected``: config, writer, runtime, store).
    """

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
    routes: bool = False
    """True when a router (a conditional edge from this node) is among its writers: only
    routers read the state as the task left it, so only they need a fresh reader."""

    @property
    def accepts_config(self) -> bool:
        """True when the node is handed the run config."""
        return "config" in self.injected


@dataclass(frozen=True, slots=True)
class GraphSpec:
    """Nodes, the channels they talk through, and the index the Plan phase uses.

    ``channels`` are prototypes: a run starts from empty copies of them.
    ``output_keys`` are what ``invoke`` returns and the values stream shows;
    ``stream_keys`` what the updates stream shows; ``state_keys`` every state field.
    ``managed`` maps managed-value keys (e.g. ``remaining_steps``) to the class that
    computes them from the step and the run's last allowed step.
    """

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
    empty_channels: Mapping[str, Channel] = field(init=False, repr=False)
    reducers: Mapping[str, str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        index: dict[str, list[str]] = {}
        for node in self.nodes.values():
            for channel in node.triggers:
                index.setdefault(channel, []).append(node.name)
        object.__setattr__(
            self, "trigger_to_nodes", {key: tuple(sorted(v)) for key, v in index.items()}
        )
        object.__setattr__(
            self,
            "finishing_channels",
            tuple(k for k, c in self.channels.items() if type(c).finish is not Channel.finish),
        )
        object.__setattr__(
            self,
            "consuming_channels",
            frozenset(
                k for k, c in self.channels.items() if type(c).consume is not Channel.consume
            ),
        )
        # What runs start from: Update never changes a channel in place (it swaps in
        # changed copies), so runs share those that hold nothing (StepState.fresh).
        object.__setattr__(
            self, "empty_channels", {k: c.empty_copy() for k, c in self.channels.items()}
        )
        object.__setattr__(
            self, "reducers", {k: _reducer_name(c) for k, c in self.channels.items()}
        )


def _reducer_name(channel: Channel) -> str:
    """What the changes table shows as a channel's reducer: the operator's name for a
    reducer channel, the channel kind otherwise."""
    if isinstance(channel, BinaryOperatorAggregate):
        return getattr(channel.operator, "__name__", repr(channel.operator))
    return type(channel).__name__


def injectable_parameters(function: Callable[..., Any]) -> tuple[str, ...]:
    """Which of LangGraph's injectable parameters (config, writer, runtime, store)
    ``function`` declares, by name.

    >>> injectable_parameters(lambda state, config, writer: state)
    ('config', 'writer')
    """
    from graphkit.pregel.runtime import INJECTABLE

    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return ()
    return tuple(name for name in INJECTABLE if name in parameters)


def accepts_config(function: Callable[..., Any]) -> bool:
    """True when ``function`` has a parameter named ``config`` (LangGraph's rule for
    passing the run config to a node, a router or a reducer-free callable).

    >>> accepts_config(lambda state, config: state)
    True
    >>> accepts_config(lambda state: state)
    False
    """
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False
    return "config" in parameters
