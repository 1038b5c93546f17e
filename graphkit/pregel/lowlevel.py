"""LangGraph's low-level ``Pregel``: nodes and the channels they talk through, with no
``StateGraph`` in between. This is how the Pregel paper's vertex programs are written.

``Pregel(...)`` checks the wiring, turns each ``PregelNode`` into the runtime's
``NodeSpec`` and returns a ``CompiledGraph``: the same stepper, records, savers, tables
and debugger as a ``StateGraph``. Only the edges are missing: a node wakes when a channel
it subscribes to gets a new version.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from graphkit.cache.base import node_namespace
from graphkit.channels import Channel, Topic
from graphkit.constants import END, RESERVED_NAMES, START, TASKS
from graphkit.diagnostics import some_names
from graphkit.diagnostics.arguments import renamed_pregel_argument
from graphkit.diagnostics.building import refuse_langgraph_saver, retry_policies, sync_timeout
from graphkit.diagnostics.cache import check_cache_policy
from graphkit.diagnostics.returns import no_input_channel_named
from graphkit.diagnostics.schemas import refuse_langgraph_channel
from graphkit.errors import EmptyInputError, warn
from graphkit.pregel.app import CompiledGraph
from graphkit.pregel.node_builder import (
    NodeBuilder,
    PregelNode,
    awaited_call,
    can_time_out,
    node_call,
)
from graphkit.pregel.node_builder import node_writer as entries_writer
from graphkit.pregel.spec import GraphSpec, NodeSpec
from graphkit.pregel.wiring import ChannelWiring
from graphkit.types import RetryPolicy, Send

__all__ = ["Pregel"]

Channels = str | Sequence[str]
RESERVED = RESERVED_NAMES | {START, END, TASKS, "__root__"}
"""LangGraph's reserved names, and those graphkit's runtime uses besides."""


@dataclass(frozen=True)
class PregelSpec(GraphSpec):
    """A ``GraphSpec`` whose input may feed several channels: a dict, one key each."""

    input_keys: tuple[str, ...] | None = None
    low_level: ClassVar[bool] = True

    def input_writes(self, value: Any) -> tuple[tuple[str, Any], ...]:
        if self.input_keys is None:
            return ((self.input_channel, value),)
        if not isinstance(value, dict):
            raise TypeError(
                f"The input must be a dict of input channels {list(self.input_keys)}, "
                f"got {type(value).__name__}; pass e.g. {{{self.input_keys[0]!r}: ...}}, or "
                "give Pregel one input channel (input_channels='name') to pass a bare value."
            )
        for key in value:
            if key not in self.input_keys:
                warn(f"Input channel {key!r} is not one of {list(self.input_keys)}; ignored.")
        writes = tuple((k, v) for k, v in value.items() if k in self.input_keys)
        if not writes:  # as in LangGraph: a run (or update) with nothing to write is refused
            raise EmptyInputError(no_input_channel_named(self.input_keys, value))
        return writes


class _CountsEveryCompiledGraph(type):
    """``Pregel``'s metaclass. In LangGraph every compiled graph is a ``Pregel`` (a
    compiled ``StateGraph``, an entrypoint, a prebuilt agent), and code tells a graph by
    ``isinstance(agent, Pregel)`` (LangGraph's app templates test their agent so). Here
    they share ``CompiledGraph`` instead, so ``Pregel`` counts every one of them."""

    def __instancecheck__(cls, instance: Any) -> bool:
        if cls is Pregel:
            return isinstance(instance, CompiledGraph)
        return super().__instancecheck__(instance)

    def __subclasscheck__(cls, subclass: type) -> bool:
        if cls is Pregel:
            return issubclass(subclass, CompiledGraph)
        return super().__subclasscheck__(subclass)


class Pregel(CompiledGraph, metaclass=_CountsEveryCompiledGraph):
    """A graph of nodes and channels, run in supersteps (LangGraph's ``Pregel``).

    >>> from graphkit.channels import EphemeralValue, LastValue
    >>> double = NodeBuilder().subscribe_only("a").do(lambda x: x + x).write_to("b")
    >>> app = Pregel(
    ...     nodes={"double": double},
    ...     channels={"a": EphemeralValue(str), "b": LastValue(str)},
    ...     input_channels="a",
    ...     output_channels="b",
    ... )
    >>> app.invoke("ab")
    'abab'
    >>> [step.plan.nodes for step in app.trace("ab").steps]
    [['__input__'], ['double']]
    """

    # kept as given (a compiled StateGraph computes these from its schema)
    input_channels: Channels = ()
    output_channels: Channels = ()
    stream_channels: Channels | None = None
    interrupt_before_nodes: Channels = ()
    interrupt_after_nodes: Channels = ()
    retry_policy: Any = ()

    def __init__(
        self,
        *,
        nodes: Mapping[str, PregelNode | NodeBuilder],
        channels: Mapping[str, Channel] | None,
        input_channels: Channels,
        output_channels: Channels,
        stream_channels: Channels | None = None,
        stream_mode: str = "values",
        interrupt_before_nodes: Sequence[str] | str = (),
        interrupt_after_nodes: Sequence[str] | str = (),
        checkpointer: Any = None,
        store: Any = None,
        retry_policy: RetryPolicy | Sequence[RetryPolicy] = (),
        cache: Any = None,
        cache_policy: Any = None,
        step_timeout: float | None = None,
        node_error_handler_map: Mapping[str, str] | None = None,
        context_schema: Any = None,
        trigger_to_nodes: Mapping[str, Sequence[str]] | None = None,
        stream_eager: bool = False,
        debug: bool = False,
        name: str = "LangGraph",
        auto_validate: bool = True,
        config: Mapping[str, Any] | None = None,
        **options: Any,
    ) -> None:
        context_schema = renamed_pregel_argument(options, context_schema)
        self.given_nodes: dict[str, PregelNode] = {k: _built(n) for k, n in nodes.items()}
        self.channels = given_channels = dict(channels or {})  # (as given: read back)
        self.input_channels, self.output_channels = input_channels, output_channels
        self.stream_channels, self.cache_policy = stream_channels, cache_policy
        self.node_error_handler_map = dict(node_error_handler_map or {})
        self.stream_eager = stream_eager  # (read back only: graphkit streams chunks as made)
        self.stream_transformers = tuple(options.pop("stream_transformers", None) or ())
        _check_options(cache_policy, checkpointer, given_channels)
        if auto_validate:
            _validate(self, interrupt_before_nodes, interrupt_after_nodes)
        policies = retry_policies("Pregel(retry_policy=...)", retry_policy)
        super().__init__(
            _spec(self, policies),
            builder=ChannelWiring.of(self),
            name=name,
            store=store,
            cache=cache,
            debug=debug,
            checkpointer=checkpointer,
            interrupt_before=interrupt_before_nodes,
            interrupt_after=interrupt_after_nodes,
            **options,
        )
        self.channels = {**given_channels, TASKS: Topic(Send, accumulate=False)}  # as LangGraph
        self.config = None if config is None else dict(config)  # (with_config's defaults)
        self.context_schema, self.retry_policy = context_schema, policies
        self.interrupt_before_nodes = interrupt_before_nodes
        self.interrupt_after_nodes = interrupt_after_nodes
        self.stream_mode, self.step_timeout = stream_mode, step_timeout
        # which nodes each channel wakes: as given (LangGraph's), else the runtime's own
        index = trigger_to_nodes or self.spec.trigger_to_nodes
        self.trigger_to_nodes = {k: list(v) for k, v in index.items()}

    @property
    def stream_channels_asis(self) -> Channels:
        """The channels "values" chunks and the state show: ``stream_channels``, else all
        (as in LangGraph, the Send packets' channel too)."""
        return self.stream_channels or list(dict.fromkeys([*self.channels, TASKS]))

    def invoke(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
        """Run to the end; the output channel's value (one name) or a dict of them."""
        kwargs.setdefault("output_keys", self.output_channels)
        return super().invoke(input, config, **kwargs)

    async def ainvoke(
        self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> Any:
        """``invoke`` for async code."""
        kwargs.setdefault("output_keys", self.output_channels)
        return await super().ainvoke(input, config, **kwargs)

    def stream(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
        """Run to the end, yielding chunks; "values" chunks show ``stream_channels``."""
        if kwargs.get("output_keys") is None:
            kwargs["output_keys"] = self.stream_channels_asis
        yield from super().stream(input, config, **kwargs)

    def get_state(self, config: Mapping[str, Any], *, subgraphs: bool = False) -> Any:
        """The thread's state; with one stream channel named alone, its bare value."""
        return self._bare(super().get_state(config, subgraphs=subgraphs))

    async def aget_state(self, config: Mapping[str, Any], *, subgraphs: bool = False) -> Any:
        """``get_state`` for async code."""
        return self._bare(await super().aget_state(config, subgraphs=subgraphs))

    def get_state_history(self, config: Mapping[str, Any], **kwargs: Any) -> Any:
        """The thread's checkpoints, newest first (bare values as in ``get_state``)."""
        return (self._bare(snapshot) for snapshot in super().get_state_history(config, **kwargs))

    async def aget_state_history(self, config: Mapping[str, Any], **kwargs: Any) -> Any:
        """``get_state_history`` for async code."""
        async for snapshot in super().aget_state_history(config, **kwargs):
            yield self._bare(snapshot)

    def _bare(self, snapshot: Any) -> Any:
        """As in LangGraph, a state read through ``stream_channels="name"`` is that
        channel's value (None while empty), and so is each finished task's result; a
        thread with nothing saved reads as every thread does, ``{}``."""
        key = self.stream_channels
        if not isinstance(key, str) or snapshot.metadata is None:
            return snapshot

        def value(read: Any) -> Any:
            return read.get(key) if isinstance(read, dict) else read

        tasks = tuple(task._replace(result=value(task.result)) for task in snapshot.tasks)
        return snapshot._replace(values=value(snapshot.values), tasks=tasks)

    @property
    def nodes(self) -> dict[str, PregelNode]:  # type: ignore[override]
        """The nodes as given (LangGraph's ``Pregel.nodes``)."""
        return self.given_nodes

    def __repr__(self) -> str:
        return f"Pregel(nodes={list(self.nodes)}, channels={list(self.channels)})"


# -- building the runtime's spec ------------------------------------------------------------


def _built(node: PregelNode | NodeBuilder) -> PregelNode:
    return node.build() if isinstance(node, NodeBuilder) else node


def _names(channels: Channels) -> tuple[str, ...]:
    return (channels,) if isinstance(channels, str) else tuple(channels)


def _spec(app: Pregel, retry_policies: tuple[RetryPolicy, ...]) -> PregelSpec:
    channels: dict[str, Channel] = {}
    for key, channel in app.channels.items():
        channels[key] = channel.copy()
        channels[key].key = key
    channels[TASKS] = Topic(Send, accumulate=False, key=TASKS)
    nodes = {}
    handlers = set(app.node_error_handler_map.values())
    for name, node in app.nodes.items():
        functions = node.functions or (_identity,)
        call, injected = node_call(functions)
        async_call = awaited_call(functions)
        if node.timeout is not None:  # (awaited: a sync run refuses it, as LangGraph's)
            if not can_time_out(functions):
                raise sync_timeout(name)
            call, async_call = async_call or call, None
        handler = name in handlers
        nodes[name] = NodeSpec(
            name=name,
            triggers=() if handler else node.triggers,  # a failure starts a handler
            reads=node.channels,
            call=call,
            writers=(entries_writer(name, node.writes),),
            injected=injected,
            metadata=dict(node.metadata),
            retry_policies=node.retry_policies or retry_policies,
            is_async=_awaits(call),
            async_call=async_call,
            cache_policy=node.cache_policy or (None if handler else app.cache_policy),
            cache_namespace=node_namespace(name, node.functions[-1] if node.functions else None),
            timeout=node.timeout,
            error_handler=app.node_error_handler_map.get(name),
        )
    inputs = app.input_channels
    stream = _names(app.stream_channels_asis)
    return PregelSpec(
        nodes=nodes,
        channels=channels,
        input_channel=inputs if isinstance(inputs, str) else "",
        output_keys=_names(app.output_channels),
        stream_keys=stream,
        state_keys=stream,
        input_keys=None if isinstance(inputs, str) else tuple(inputs),
    )


def _awaits(call: Any) -> bool:
    import inspect

    return inspect.iscoroutinefunction(call) or inspect.iscoroutinefunction(
        getattr(call, "__call__", None)  # noqa: B004
    )


def _identity(value: Any) -> Any:
    return value


def _check_options(cache_policy: Any, checkpointer: Any, channels: Mapping[str, Any]) -> None:
    """Refuse, at construction as a compiled graph does, what no run could use."""
    check_cache_policy("Pregel(cache_policy=...)", cache_policy)
    refuse_langgraph_saver("Pregel", checkpointer)
    for key, channel in channels.items():
        refuse_langgraph_channel(f"Pregel(channels=...)'s {key!r} is", channel)


def _validate(app: Pregel, before: Sequence[str] | str, after: Sequence[str] | str) -> None:
    """LangGraph's checks, each saying what to fix."""
    known = f"the channels are {sorted(app.channels)}; add it to channels={{...}}"
    for kind, names in (("Channel", app.channels), ("Node", app.nodes)):
        for name in names:
            # (another Pregel's channels hold the runtime's Send Topic: taken, and replaced)
            sends = kind == "Channel" and name == TASKS and type(names[name]) is Topic
            if name in RESERVED and not sends:
                raise ValueError(f"{kind} name {name!r} is reserved by the runtime; rename it.")
    for name, node in app.nodes.items():
        if not isinstance(node, PregelNode):
            raise TypeError(
                f"Node {name!r} is a {type(node).__name__}; build nodes with "
                "NodeBuilder().subscribe_only(...).do(...).write_to(...)."
            )
        # (a node that subscribes to no channel is fine: a Send starts it, as in LangGraph)
        for channel in (*_names(node.channels), *node.triggers):
            if channel not in app.channels:
                raise ValueError(f"Node {name!r} reads channel {channel!r}, but {known}.")
    for role, channels in (
        ("Input", app.input_channels),
        ("Output", app.output_channels),
        ("Stream", app.stream_channels or ()),
    ):
        for channel in _names(channels):
            if channel not in app.channels:
                raise ValueError(f"{role} channel {channel!r} is not a channel: {known}.")
    for failing, handler in app.node_error_handler_map.items():
        for role, node in (("node", failing), ("error handler", handler)):
            if node not in app.nodes:
                raise ValueError(
                    f"node_error_handler_map[{failing!r}] = {handler!r}: the {role} {node!r} "
                    f"is not a node; nodes: {some_names(app.nodes)}."
                )
    for where, names in (("interrupt_before_nodes", before), ("interrupt_after_nodes", after)):
        for node in () if names == "*" else _names(names):
            if node not in app.nodes:
                nodes = some_names(app.nodes)
                raise ValueError(f"{where} names {node!r}, which is not a node; nodes: {nodes}.")
