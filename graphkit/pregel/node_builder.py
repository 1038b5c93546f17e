"""LangGraph's ``NodeBuilder``: a node of the low-level API, written as "subscribe to
these channels, read those, do this, write the result there".

A built ``PregelNode`` is a plain record; ``graphkit.pregel.lowlevel`` turns it into the
runtime's ``NodeSpec`` (its call and its writer come from ``node_call`` and
``node_writer`` below), so a vertex program runs on the same Plan, Execute and Update as
a ``StateGraph``.
"""

from __future__ import annotations

import inspect
import sys
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from graphkit.constants import TASKS
from graphkit.diagnostics.building import retry_policies, timeout_policy
from graphkit.diagnostics.cache import check_cache_policy
from graphkit.errors import InvalidUpdateError
from graphkit.pregel.spec import FreshRead, Writer, injectable_parameters
from graphkit.pregel.subgraph_search import unbound
from graphkit.types import RetryPolicy, Send

__all__ = [
    "PASSTHROUGH",
    "SKIP_WRITE",
    "ChannelWriteEntry",
    "NodeBuilder",
    "PregelNode",
    "awaited_call",
    "can_time_out",
    "has_async_code",
    "is_async_only_tool",
    "node_call",
    "node_writer",
    "only_async_code",
]


class _Marker:
    """A named sentinel with a readable repr."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


PASSTHROUGH: Any = _Marker("PASSTHROUGH")
"""A write entry's value when it writes what the node returned."""

SKIP_WRITE: Any = _Marker("SKIP_WRITE")
"""What a write entry's mapper returns to write nothing."""


class ChannelWriteEntry(NamedTuple):
    """One write a node makes when it finishes: to ``channel``, what the node returned
    (or the fixed ``value``), passed through ``mapper`` if given; ``skip_none`` writes
    nothing when that comes out as None.

    >>> entry = ChannelWriteEntry("value", skip_none=True)
    >>> entry.channel, entry.value, entry.skip_none
    ('value', PASSTHROUGH, True)
    """

    channel: str
    value: Any = PASSTHROUGH
    skip_none: bool = False
    mapper: Callable[[Any], Any] | None = None


class ChannelWriteTupleEntry(NamedTuple):
    """Writes to several channels at once: ``mapper(result)`` (or ``mapper(value)``)
    returns ``(channel, value)`` pairs, or None for none; LangGraph's entry for a state
    update whose keys are only known when the node returns.

    >>> entry = ChannelWriteTupleEntry(lambda result: list(result.items()))
    >>> node_writer("n", [entry])({"a": 1, "b": 2}, None, None)
    [('a', 1), ('b', 2)]
    """

    mapper: Callable[[Any], Sequence[tuple[str, Any]] | None]
    value: Any = PASSTHROUGH
    static: Sequence[tuple[str, Any, str | None]] | None = None


WriteEntry = ChannelWriteEntry | ChannelWriteTupleEntry | Send


@dataclass(frozen=True, slots=True)
class PregelNode:
    """A built node: ``channels`` is what it reads (one name: it receives that value; a
    tuple: a dict of those holding a value), ``triggers`` what wakes it, ``functions``
    what it does in turn, ``writes`` where the result goes."""

    channels: str | tuple[str, ...]
    triggers: tuple[str, ...]
    functions: tuple[Callable[..., Any], ...] = ()
    writes: tuple[WriteEntry, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)
    tags: tuple[str, ...] = ()
    retry_policies: tuple[RetryPolicy, ...] = ()
    cache_policy: Any = None
    timeout: Any = None

    def __repr__(self) -> str:
        writes = [w.channel if isinstance(w, ChannelWriteEntry) else repr(w) for w in self.writes]
        return (
            f"PregelNode(reads={self.channels!r}, triggers={list(self.triggers)}, writes={writes})"
        )


class NodeBuilder:
    """Builds a ``PregelNode`` step by step, as LangGraph's ``NodeBuilder`` does.

    >>> node = NodeBuilder().subscribe_only("a").do(lambda x: x + x).write_to("b").build()
    >>> node
    PregelNode(reads='a', triggers=['a'], writes=['b'])
    >>> NodeBuilder().subscribe_to("a", "b").read_from("c").build().channels
    ('a', 'b', 'c')
    """

    def __init__(self) -> None:
        self._channels: str | list[str] = []
        self._triggers: list[str] = []
        self._functions: list[Callable[..., Any]] = []
        self._writes: list[WriteEntry] = []
        self._metadata: dict[str, Any] = {}
        self._tags: list[str] = []
        self._retry_policies: list[RetryPolicy] = []
        self._cache_policy: Any = None
        self._timeout: Any = None

    def subscribe_only(self, channel: str) -> NodeBuilder:
        """Wake on ``channel`` and receive its value alone (not a dict)."""
        if self._channels:
            raise ValueError(
                f"subscribe_only({channel!r}) must be the only channel the node reads, and it "
                f"already reads {self._channels!r}; use subscribe_to(...) to read several "
                "channels as a dict."
            )
        self._channels = channel
        self._triggers.append(channel)
        return self

    def subscribe_to(self, *channels: str, read: bool = True) -> NodeBuilder:
        """Wake on any of ``channels``; with ``read``, receive them in a dict."""
        if isinstance(self._channels, str):
            raise ValueError(
                f"subscribe_to{channels!r} cannot follow subscribe_only({self._channels!r}): "
                "a node receives one value or a dict. Use subscribe_to for all channels."
            )
        if read:
            self._channels.extend(channels)
        self._triggers.extend(channels)
        return self

    def read_from(self, *channels: str) -> NodeBuilder:
        """Also receive ``channels`` in the input dict, without waking on them."""
        if isinstance(self._channels, str):
            raise ValueError(
                f"read_from{channels!r} cannot follow subscribe_only({self._channels!r}): "
                "that node receives one value, not a dict. Use subscribe_to(...) instead."
            )
        self._channels.extend(channels)
        return self

    def do(self, function: Callable[..., Any]) -> NodeBuilder:
        """Run ``function`` on the input (called again: on the previous one's result); an
        object with an ``invoke`` method (a LangChain Runnable, a compiled graph's
        ``map()``) runs by its ``invoke``, as in LangGraph."""
        if not callable(function) and callable(getattr(function, "invoke", None)):
            function = function.invoke
        if not callable(function):
            raise TypeError(f"do() takes a function, got {type(function).__name__}.")
        self._functions.append(function)
        return self

    def write_to(self, *channels: str | WriteEntry, **kwargs: Any) -> NodeBuilder:
        """Write the result to each of ``channels`` (names, ``ChannelWriteEntry``,
        ``ChannelWriteTupleEntry`` or ``Send``); ``name=value`` writes a fixed value,
        ``name=function`` writes ``function(result)``. As in LangGraph, a keyword's
        non-callable value is written as it is (even a ``ChannelWriteEntry``: pass those
        positionally)."""
        self._writes.extend(ChannelWriteEntry(c) if isinstance(c, str) else c for c in channels)
        self._writes.extend(
            ChannelWriteEntry(name, mapper=value)
            if callable(value)
            else ChannelWriteEntry(name, value)
            for name, value in kwargs.items()
        )
        return self

    def meta(self, *tags: str, **metadata: Any) -> NodeBuilder:
        """Add tags and metadata (the metadata shows in task events)."""
        self._tags.extend(tags)
        self._metadata.update(metadata)
        return self

    def add_retry_policies(self, *policies: RetryPolicy) -> NodeBuilder:
        """Retry the node as these policies say (graphkit's or LangGraph's)."""
        where = "NodeBuilder().add_retry_policies(...)"
        self._retry_policies.extend(retry_policies(where, list(policies)))
        return self

    def add_cache_policy(self, policy: Any) -> NodeBuilder:
        """Cache the node's writes by its input (a ``CachePolicy``; the ``Pregel`` needs
        a ``cache=``)."""
        check_cache_policy("NodeBuilder().add_cache_policy(...)", policy)
        self._cache_policy = policy
        return self

    def set_timeout(self, timeout: Any) -> NodeBuilder:
        """Limit each attempt of the node (seconds, a ``timedelta`` or a
        ``TimeoutPolicy``; async functions only)."""
        self._timeout = timeout_policy("NodeBuilder().set_timeout(...)", timeout)
        return self

    def build(self) -> PregelNode:
        """The node, ready for ``Pregel(nodes={...})``."""
        channels = self._channels if isinstance(self._channels, str) else tuple(self._channels)
        return PregelNode(
            channels,
            tuple(self._triggers),
            tuple(self._functions),
            tuple(self._writes),
            dict(self._metadata),
            tuple(self._tags),
            tuple(self._retry_policies),
            self._cache_policy,
            self._timeout,
        )


# -- what the runtime calls ---------------------------------------------------------------


def node_call(
    functions: Sequence[Callable[..., Any]],
) -> tuple[Callable[..., Any], tuple[str, ...]]:
    """One callable running ``functions`` in turn (async if any is), and the injectable
    parameters (``config``, ``writer``...) any of them declares: each gets its own.

    >>> call, injected = node_call([lambda x: x + 1, lambda x, config: x * 2])
    >>> call(3, config={}), injected
    (8, ('config',))
    """
    if len(functions) == 1:  # the common case: the function itself, as a StateGraph node
        return functions[0], injectable_parameters(functions[0])
    wants = [injectable_parameters(function) for function in functions]
    injected = tuple(dict.fromkeys(name for names in wants for name in names))

    def arguments(index: int, given: Mapping[str, Any]) -> dict[str, Any]:
        return {name: given[name] for name in wants[index] if name in given}

    if not any(_is_async(function) for function in functions):

        def run(value: Any, **given: Any) -> Any:
            for index, function in enumerate(functions):
                value = function(value, **arguments(index, given))
            return value

        return run, injected

    async def run_async(value: Any, **given: Any) -> Any:
        for index, function in enumerate(functions):
            value = function(value, **arguments(index, given))
            if inspect.isawaitable(value):
                value = await value
        return value

    return run_async, injected


STEP_CALLS = frozenset(
    code
    for code in node_call.__code__.co_consts
    if isinstance(code, types.CodeType) and code.co_name in ("run", "run_async")
)
"""The code of the callables ``node_call`` makes of several steps: a step called with
an argument missing fails in their frame (the error handler's message looks for it)."""


def awaited_call(functions: Sequence[Callable[..., Any]]) -> Callable[..., Any] | None:
    """The node's call for an async run when a step is a Runnable (``do(runnable)`` keeps
    its ``invoke``): that step runs by its ``ainvoke``, as LangGraph awaits it (a lambda
    with only an async function has no ``invoke`` that works). None: no step is one."""
    if not any(_ainvoke_of(function) for function in functions):
        return None
    return node_call([_ainvoke_of(function) or function for function in functions])[0]


def can_time_out(functions: Sequence[Callable[..., Any]]) -> bool:
    """Whether every step has async code a timeout can cancel (LangGraph's rule): an
    async function, or a Runnable with async code of its own."""
    return all(
        has_async_code(function.__self__) if _ainvoke_of(function) else _is_async(function)
        for function in functions
    )


def has_async_code(action: Any) -> bool:
    """Whether a langchain-core Runnable has async code of its own, which a timeout can
    cancel (LangGraph's rule): a lambda given ``afunc``, a sequence or parallel of such,
    a class overriding ``ainvoke``; not the default ``ainvoke``, which runs the sync code
    on a thread. Anything else: True (functions are checked by ``_is_async``)."""
    runnables = sys.modules.get("langchain_core.runnables.base")
    if runnables is None or not isinstance(action, runnables.Runnable):
        return True
    action, steps = _steps_of(action)
    if steps is not None:
        return all(has_async_code(step) for step in steps)
    if isinstance(action, runnables.RunnableLambda):
        return getattr(action, "afunc", None) is not None
    return type(action).ainvoke is not runnables.Runnable.ainvoke


def only_async_code(action: Any) -> bool:
    """Whether a langchain-core Runnable has no sync code to run, so that only its
    ``ainvoke`` works: a lambda (or LangGraph's ``RunnableCallable``) given only an async
    function, or a sequence, parallel or binding with such a step. Its ``invoke`` raises
    LangChain's ``TypeError``, as LangGraph's ``invoke`` lets it; ``trace`` runs it on
    an event loop, as it runs ``async def`` nodes. A ToolNode holding a tool with only a
    coroutine counts too (its ``invoke`` raises langchain-core's ``NotImplementedError``
    for that tool, as LangGraph's does). Anything else: False."""
    runnables = sys.modules.get("langchain_core.runnables.base")
    if runnables is not None and not isinstance(action, runnables.Runnable):
        action = getattr(action, "__wrapped__", action)  # a converted LangGraph Runnable
    if runnables is None or not isinstance(action, runnables.Runnable):
        return False
    action, steps = _steps_of(action)
    if steps is not None:
        return any(only_async_code(step) for step in steps)
    tools = getattr(action, "tools_by_name", None)  # a ToolNode, graphkit's or LangGraph's
    if isinstance(tools, dict) and any(is_async_only_tool(tool) for tool in tools.values()):
        return True
    afunc = getattr(action, "afunc", None)
    return afunc is not None and getattr(action, "func", None) is None


def is_async_only_tool(tool: Any) -> bool:
    """Whether a langchain-core tool has a coroutine and no sync function: its ``invoke``
    raises langchain-core's ``NotImplementedError``, only ``ainvoke`` runs it."""
    return getattr(tool, "func", None) is None and getattr(tool, "coroutine", None) is not None


def _steps_of(runnable: Any) -> tuple[Any, list[Any] | None]:
    """A langchain-core Runnable under its bindings (``with_retry``'s too), and the
    Runnables it runs in turn if it is a sequence or side by side if a parallel (None
    otherwise): what ``has_async_code`` and ``only_async_code`` look into."""
    runnables = sys.modules["langchain_core.runnables.base"]
    runnable = unbound(runnable)
    if isinstance(runnable, runnables.RunnableSequence):
        return runnable, list(runnable.steps)
    if isinstance(runnable, runnables.RunnableParallel):
        return runnable, list(runnable.steps__.values())
    return runnable, None


def _ainvoke_of(function: Callable[..., Any]) -> Callable[..., Any] | None:
    """The ``ainvoke`` of the object whose ``invoke`` ``function`` is (not a compiled
    graph's: a subgraph step runs in its worker thread, as a StateGraph's does)."""
    owner = getattr(function, "__self__", None)
    if getattr(function, "__name__", None) != "invoke" or not hasattr(owner, "ainvoke"):
        return None
    from graphkit.pregel.app import CompiledGraph

    return None if isinstance(owner, CompiledGraph) else owner.ainvoke


def node_writer(node: str, writes: Sequence[WriteEntry]) -> Writer:
    """The writer of a node's ``write_to`` entries, in order: a ``Send`` becomes a task
    of the next step; an entry writes the result (or its fixed value) through its mapper,
    unless that is ``SKIP_WRITE`` or (with ``skip_none``) None.

    >>> writer = node_writer("n", [ChannelWriteEntry("b"), ChannelWriteEntry("c", mapper=len)])
    >>> writer("hi", None, None)
    [('b', 'hi'), ('c', 2)]
    """
    for entry in writes:
        if isinstance(entry, ChannelWriteEntry) and entry.channel == TASKS:
            raise InvalidUpdateError(
                f"Node {node!r} writes to {TASKS!r}, the channel reserved for Send packets; "
                "write_to(Send(node, arg)) sends a task instead."
            )

    def write(returned: Any, fresh_read: FreshRead, config: Any) -> list[tuple[str, Any]]:
        made: list[tuple[str, Any]] = []
        for entry in writes:
            if isinstance(entry, Send):
                made.append((TASKS, entry))
                continue
            value = returned if entry.value is PASSTHROUGH else entry.value
            if isinstance(entry, ChannelWriteTupleEntry):
                made.extend(entry.mapper(value) or ())
                continue
            if entry.mapper is not None:
                value = entry.mapper(value)
            if value is SKIP_WRITE or (entry.skip_none and value is None):
                continue
            made.append((entry.channel, value))
        return made

    return write


def _is_async(function: Any) -> bool:
    method = getattr(function, "__call__", None)  # noqa: B004
    return inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(method)
