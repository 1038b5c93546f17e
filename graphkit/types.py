"""Control-flow values a node or router returns (``Send``, ``Command``, ``Overwrite``),
retry policies and interrupts; the shapes of ``version="v2"`` (``GraphOutput``, the stream
parts) live in ``graphkit.stream_types`` and are re-exported here, as LangGraph keeps them."""

from __future__ import annotations

import hashlib
import random
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from types import GenericAlias
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, NamedTuple, TypeVar

from graphkit.cache.base import default_cache_key
from graphkit.constants import ROOT

if TYPE_CHECKING:  # imported on first use (see __getattr__ at the end)
    from graphkit.checkpoint import BaseCheckpointSaver
    from graphkit.pregel.runtime import interrupt
    from graphkit.pregel.thread_state import PregelTask, StateSnapshot

    Checkpointer = None | bool | BaseCheckpointSaver

__all__ = [
    "OVERWRITE",
    "All",
    "CachePolicy",
    "CheckpointPayload",
    "CheckpointStreamPart",
    "CheckpointTask",
    "Checkpointer",
    "Command",
    "CustomStreamPart",
    "DebugPayload",
    "DebugStreamPart",
    "Durability",
    "GraphOutput",
    "Interrupt",
    "MessagesStreamPart",
    "Overwrite",
    "PregelTask",
    "RetryPolicy",
    "Send",
    "StateSnapshot",
    "StateUpdate",
    "StreamMode",
    "StreamPart",
    "StreamWriter",
    "TaskPayload",
    "TaskResultPayload",
    "TasksStreamPart",
    "TimeoutPolicy",
    "UpdatesStreamPart",
    "ValuesStreamPart",
    "default_retry_on",
    "interrupt",
    "overwritten_value",
]

All = Literal["*"]
"""``interrupt_before="*"`` / ``interrupt_after="*"``: every node."""
StreamMode = Literal["values", "updates", "checkpoints", "tasks", "debug", "messages", "custom"]
"""The stream modes ``stream(stream_mode=...)`` takes (one, or a list of them)."""
Durability = Literal["sync", "async", "exit"]
"""When a run saves its checkpoints (``invoke(..., durability=...)``)."""
StreamWriter = Callable[[Any], None]
"""What ``get_stream_writer()`` returns: it sends its argument as a "custom" chunk."""

Destination = TypeVar("Destination")


class Send:
    """Run ``node`` in the next step with ``arg`` as its whole input (a PUSH task).

    Return Sends from a conditional edge's router (or in ``Command(goto=...)``) to fan
    out over data: one task per Send, each with its own input, all in one step.
    ``timeout`` (seconds, a ``timedelta`` or a ``TimeoutPolicy``) limits this one task
    in place of its node's timeout.

    >>> Send("grade", {"essay": "..."})
    Send(node='grade', arg={'essay': '...'})
    >>> Send("grade", {}, timeout=30).timeout.run_timeout
    30.0
    >>> Send({"essay": "..."}, "grade")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    TypeError: Send(node, arg) takes the node's name first, ... Send('grade', ...).
    """

    __slots__ = ("arg", "node", "timeout")

    def __init__(
        self, node: str, arg: Any, *, timeout: float | timedelta | TimeoutPolicy | None = None
    ) -> None:
        if not isinstance(node, str):  # else a dict fails later, in the Plan, as "unhashable"
            fix = (
                f"the arguments are swapped: write Send({arg!r}, {node!r})"
                if isinstance(arg, str)
                else "the second is the task's whole input"
            )
            raise TypeError(
                f"Send(node, arg) takes the node's name first, a str, and got "
                f"{node!r} ({type(node).__name__}); {fix}."
            )
        self.node = node
        self.arg = arg
        self.timeout = TimeoutPolicy.coerce(timeout)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Send) and (self.node, self.arg, self.timeout) == (
            other.node,
            other.arg,
            other.timeout,
        )

    def __hash__(self) -> int:
        return hash((self.node, repr(self.arg), self.timeout))

    def __repr__(self) -> str:
        timeout = "" if self.timeout is None else f", timeout={self.timeout!r}"
        return f"Send(node={self.node!r}, arg={self.arg!r}{timeout})"


def state_items(value: Any, keys: Sequence[str] = ()) -> list[tuple[str, Any]] | None:
    """The ``(key, value)`` updates a state object stands for (an instance of a
    dataclass, a pydantic model, any class with annotations), as LangGraph reads one:
    each of ``keys`` (the state's; by default its own annotated fields) it has as an
    attribute (a property or a computed field too), less a pydantic field left unset at
    a None default; None for a value that is no such object.

    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class State:
    ...     x: int
    ...     note: str = ""
    >>> state_items(State(1)), state_items(5)
    ([('x', 1), ('note', '')], None)
    """
    if isinstance(value, type) or not (annotated := _annotated_keys(type(value))):
        return None
    keys = keys or annotated
    fields = getattr(type(value), "model_fields", None) or {}
    explicitly_set = getattr(value, "model_fields_set", None) or ()
    items = []
    for key in keys:
        field_value = getattr(value, key, _MISSING)
        unset = field_value is None and key in fields and key not in explicitly_set
        if field_value is not _MISSING and not (unset and fields[key].default is None):
            items.append((key, field_value))
    return items


def _annotated_keys(cls: type) -> list[str]:
    """The annotated attributes of ``cls`` and its bases, base classes' first."""
    keys: dict[str, None] = {}
    for base in reversed(cls.__mro__):
        if "__annotations__" in base.__dict__:
            keys.update(dict.fromkeys(getattr(base, "__annotations__", {})))
    return list(keys)


_MISSING = object()


@dataclass(frozen=True, kw_only=True)
class Command(Generic[Destination]):
    """Update the state and choose where to go next, from inside a node.

    ``update`` is applied like a returned dict; ``goto`` names the next node(s) — a
    name, a ``Send``, or a list of them; ``END`` goes nowhere. A node's static edges
    still apply alongside ``goto`` (as in LangGraph). ``graph=Command.PARENT`` sends the
    command to the graph that runs this one as a subgraph.

    Its fields are keyword-only and in LangGraph's order, which its repr shows (the
    fields that are set, a dataclass in them shown as a dict, as LangGraph prints it):

    >>> Command(update={"answer": 42}, goto="review", graph=Command.PARENT)
    Command(graph='__parent__', update={'answer': 42}, goto='review')
    """

    graph: str | None = None
    update: Any = None
    resume: Any = None
    goto: Any = ()

    PARENT: ClassVar[str] = "__parent__"

    def destinations(self) -> list[Any]:
        """``goto`` as a list of node names and Sends."""
        if isinstance(self.goto, (str, Send)):
            return [self.goto]
        return list(self.goto)

    def update_items(self, root: bool = False) -> list[tuple[str, Any]] | None:
        """``update`` as ``(key, value)`` writes, read as LangGraph reads it: a dict,
        ``(key, value)`` tuples, a state object (``state_items``), or in a single-value
        state (``root``) the new value; None for an update that is none of these.

        >>> Command(update={"x": 1}).update_items()
        [('x', 1)]
        >>> Command(update=5).update_items(root=True)
        [('__root__', 5)]
        """
        update = self.update
        if update is None:
            return []
        if isinstance(update, dict):
            return list(update.items())
        if isinstance(update, (list, tuple)) and all(
            isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)
            for item in update
        ):
            return list(update)
        if (items := state_items(update)) is not None:
            return items
        return [(ROOT, update)] if root else None

    def __repr__(self) -> str:
        # LangGraph's repr: asdict() (dataclass values become dicts), the truthy fields
        parts = [f"{name}={value!r}" for name, value in asdict(self).items() if value]
        return f"Command({', '.join(parts)})"


OVERWRITE = "__overwrite__"
"""The key of ``Overwrite``'s dict forms (a JSON client cannot send the class itself)."""


@dataclass(slots=True)
class Overwrite:
    """A write that replaces a reducer field's value instead of being folded into it.

    The reducer is skipped: ``{"log": Overwrite(["fresh"])}`` makes ``log`` exactly
    ``["fresh"]``. In one step an ``Overwrite`` wins over the plain writes to the same
    field (they are dropped), and two ``Overwrite`` writes to one field are an error.
    A plain field (no reducer) stores the ``Overwrite`` object itself, as in LangGraph.
    The dicts ``{"__overwrite__": value}`` and ``{"type": "__overwrite__", "value":
    value}`` mean the same.

    >>> import operator
    >>> from typing import Annotated, TypedDict
    >>> from graphkit import StateGraph, START
    >>> State = TypedDict("State", {"log": Annotated[list, operator.add]})
    >>> builder = StateGraph(State)
    >>> _ = builder.add_node("reset", lambda state: {"log": Overwrite(["fresh"])})
    >>> _ = builder.add_edge(START, "reset")
    >>> builder.compile().invoke({"log": ["old"]})
    {'log': ['fresh']}
    """

    value: Any
    type: Literal["__overwrite__"] = OVERWRITE


def overwritten_value(write: Any) -> tuple[bool, Any]:
    """``(True, value)`` for an ``Overwrite`` write (or one of its dict forms) and the
    value it puts in place; ``(False, None)`` for an ordinary write.

    >>> overwritten_value(Overwrite([1])), overwritten_value({"__overwrite__": 2})
    ((True, [1]), (True, 2))
    >>> overwritten_value({"type": "note"})
    (False, None)

    LangGraph's own ``Overwrite`` (``langgraph.types``, an import left as it was) is the
    same data and is read the same way.
    """
    if isinstance(write, Overwrite) or is_langgraphs(write, "Overwrite"):
        return True, write.value
    if isinstance(write, dict):
        if len(write) == 1 and OVERWRITE in write:
            return True, write[OVERWRITE]
        if write.get("type") == OVERWRITE and "value" in write:
            return True, write["value"]
    return False, None


def is_langgraphs(value: Any, name: str) -> bool:
    """Whether ``value`` is LangGraph's ``langgraph.types.<name>`` (an import left as it
    was; read by name: graphkit never imports LangGraph).

    >>> is_langgraphs(Overwrite([]), "Overwrite")
    False
    """
    kind = type(value)
    return kind.__name__ == name and kind.__module__ == "langgraph.types"


_NOT_RETRIED = (
    ValueError,
    TypeError,
    ArithmeticError,
    ImportError,
    LookupError,
    NameError,
    SyntaxError,
    RuntimeError,
    ReferenceError,
    StopIteration,
    StopAsyncIteration,
    OSError,
)


def default_retry_on(error: Exception) -> bool:
    """LangGraph's default: retry connection errors and HTTP 5xx responses (a requests
    ``HTTPError`` for a 4xx too), never programming errors (ValueError, TypeError,
    LookupError, RuntimeError, OSError, ...), and any other exception (AttributeError too).

    >>> default_retry_on(ConnectionError()), default_retry_on(ValueError())
    (True, False)
    """
    if isinstance(error, ConnectionError):
        return True
    # (imported only by code that can raise their errors)
    httpx, requests = sys.modules.get("httpx"), sys.modules.get("requests")
    if httpx is not None and isinstance(error, httpx.HTTPStatusError):
        return 500 <= error.response.status_code < 600
    if requests is not None and isinstance(error, requests.HTTPError):
        # LangGraph's test reads the response as a bool, which is False for any 4xx or
        # 5xx status: so every such error is retried, a 404 too (kept, to match)
        response = error.response
        return 500 <= response.status_code < 600 if response else True
    return not isinstance(error, _NOT_RETRIED)


class RetryPolicy(NamedTuple):
    """How to retry a node that raised: same fields and defaults as LangGraph's.

    >>> RetryPolicy(max_attempts=5).interval(attempt=3, jitter=0.0)
    1.0
    """

    initial_interval: float = 0.5
    backoff_factor: float = 2.0
    max_interval: float = 128.0
    max_attempts: int = 3
    jitter: bool = True
    retry_on: type[Exception] | Sequence[type[Exception]] | Callable[[Exception], bool] = (
        default_retry_on
    )

    def should_retry(self, error: Exception) -> bool:
        """True when ``retry_on`` selects ``error``."""
        retry_on = self.retry_on
        if isinstance(retry_on, type) and issubclass(retry_on, BaseException):
            return isinstance(error, retry_on)
        if isinstance(retry_on, Sequence):
            return isinstance(error, tuple(retry_on))
        return bool(retry_on(error))

    def interval(self, attempt: int, jitter: float | None = None) -> float:
        """Seconds to wait before attempt number ``attempt`` (2 is the first retry)."""
        base = self.initial_interval * self.backoff_factor ** (attempt - 2)
        if jitter is None:
            jitter = random.uniform(0, 1) if self.jitter else 0.0
        return min(self.max_interval, base) + jitter


@dataclass(frozen=True)
class CachePolicy:
    """Cache a node's writes by its input, as LangGraph does: a task whose key was seen
    before (and has not expired) is not run; its cached writes are applied instead.
    ``key_func(input)`` returns a str or bytes (default: the whole input, key order
    ignored); ``ttl`` is seconds to keep an entry (None: forever). Needs
    ``compile(cache=InMemoryCache())`` or another cache.

    >>> CachePolicy(ttl=60).ttl
    60
    >>> CachePolicy(key_func=lambda state: state["question"]).key_func({"question": "why?"})
    'why?'
    """

    key_func: Callable[..., str | bytes] = default_cache_key
    ttl: float | None = None
    __class_getitem__ = classmethod(GenericAlias)  # generic in LangGraph (see StateGraph)


@dataclass(frozen=True)
class TimeoutPolicy:
    """How long one attempt of a node may take (an async node's, or in an async run that
    of a sync node a ``Send`` carries it to), as LangGraph's: ``run_timeout``
    caps the attempt's wall-clock time; ``idle_timeout`` caps the time between two signs
    of progress. ``refresh_on="auto"`` counts chunks the node streams, supersteps of a
    subgraph it runs and ``runtime.heartbeat()`` as progress; ``"heartbeat"`` only the
    heartbeat. An attempt past either limit fails with ``NodeTimeoutError``, which retry
    policies retry by default. A number or ``timedelta`` given as ``timeout=`` is a
    ``run_timeout``.

    >>> TimeoutPolicy.coerce(2.5)
    TimeoutPolicy(run_timeout=2.5, idle_timeout=None, refresh_on='auto')
    >>> TimeoutPolicy.coerce(TimeoutPolicy(idle_timeout=timedelta(seconds=1))).idle_timeout
    1.0
    """

    run_timeout: float | timedelta | None = None
    idle_timeout: float | timedelta | None = None
    refresh_on: Literal["auto", "heartbeat"] = "auto"

    @classmethod
    def coerce(cls, value: float | timedelta | TimeoutPolicy | None) -> TimeoutPolicy | None:
        """``value`` as a policy in seconds; None when it sets no limit. Raises
        ``ValueError`` for a limit that is not a positive number of seconds."""
        if value is None:
            return None
        if is_langgraphs(value, "TimeoutPolicy"):  # (an import left as it was: same fields)
            value = cls(value.run_timeout, value.idle_timeout, value.refresh_on)  # type: ignore[union-attr]
        elif not isinstance(value, TimeoutPolicy):
            value = cls(run_timeout=value)
        if value.refresh_on not in ("auto", "heartbeat"):
            raise ValueError(
                f"TimeoutPolicy(refresh_on={value.refresh_on!r}): refresh_on must be 'auto' "
                "or 'heartbeat'."
            )
        run_timeout = _seconds(value.run_timeout, "run_timeout")
        idle_timeout = _seconds(value.idle_timeout, "idle_timeout")
        if run_timeout is None and idle_timeout is None:
            return None
        return cls(run_timeout, idle_timeout, value.refresh_on)


def _seconds(value: float | timedelta | None, name: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, timedelta):
        seconds = value.total_seconds()
    else:
        try:
            seconds = float(value)
        except (TypeError, ValueError) as error:
            raise ValueError(
                f"{name}={value!r}: a timeout is a number of seconds or a timedelta."
            ) from error
    if seconds <= 0:
        raise ValueError(f"{name}={value!r}: {name} must be greater than 0 seconds.")
    return seconds


@dataclass(frozen=True, init=False)
class Interrupt:
    """A pause a node asked for with ``interrupt(value)``: what it showed the human
    (``value``), the id a ``Command(resume={id: answer})`` can answer it by, and the
    JSON Schema the answer must fit (``response_schema``: None unless the node gave one).
    As LangGraph's, it is compared by value and cannot be hashed; ``ns=`` (deprecated)
    makes the id from a task's namespace.

    >>> Interrupt(value="approve?", id="3f2a")
    Interrupt(value='approve?', id='3f2a', response_schema=None)
    """

    value: Any
    id: str = "placeholder-id"  # LangGraph's id for an Interrupt made by hand
    response_schema: Any = field(default=None, kw_only=True)
    __hash__ = None  # type: ignore[assignment]
    __class_getitem__ = classmethod(GenericAlias)  # generic in LangGraph (see StateGraph)

    def __init__(
        self,
        value: Any,
        id: str = "placeholder-id",
        *,
        response_schema: Any = None,
        **deprecated: Any,
    ) -> None:
        ns = deprecated.get("ns")  # (LangGraph ignores its other deprecated keywords too)
        if ns is not None and id == "placeholder-id" and isinstance(ns, Sequence):
            id = interrupt_id(ns, 0)  # (as LangGraph: the same id as from_ns gives)
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "response_schema", response_schema)

    @classmethod
    def from_ns(cls, value: Any, ns: str, *, response_schema: Any = None) -> Interrupt:
        """The interrupt the first ``interrupt(value)`` of the task running in the
        checkpoint namespace ``ns`` raises (its id)."""
        return cls(value, interrupt_id(ns.split("|"), 0), response_schema=response_schema)

    @property
    def interrupt_id(self) -> str:
        """Deprecated (LangGraph 1.0) name of ``id``; warns ``LangGraphDeprecatedSinceV10``."""
        from graphkit.errors import LangGraphDeprecatedSinceV10  # errors imports this module

        warnings.warn(
            "`interrupt_id` is deprecated. Use `id` instead (Interrupt.id).",
            LangGraphDeprecatedSinceV10,
            stacklevel=2,
        )
        return self.id


def interrupt_id(namespace: Sequence[str], index: int) -> str:
    """The id of an interrupt of the task running in ``namespace`` that asks for the
    task's answer ``index`` (it has ``index`` answers already), as LangGraph keys it;
    graphkit's own hash (LangGraph hashes otherwise)."""
    key = "|".join((*namespace, str(index)))
    return hashlib.blake2b(key.encode(), digest_size=16).hexdigest()


def as_tool_output() -> None:
    """Make ``Command`` a langchain-core ``ToolOutputMixin``, as LangGraph's is, so that a
    ``@tool`` returning one hands it back instead of a ``ToolMessage`` of its text. Done
    when ``graphkit.types`` is imported after langchain-core, or when graphkit first
    imports langchain-core itself (``graphkit.prebuilt``): graphkit never imports it
    just for this."""
    tool = sys.modules.get("langchain_core.messages.tool")
    mixin = getattr(tool, "ToolOutputMixin", None)
    if mixin is not None and not issubclass(Command, mixin):
        Command.__bases__ = (*Command.__bases__, mixin)


as_tool_output()


class StateUpdate(NamedTuple):
    """One write of ``bulk_update_state``: ``values`` as if ``as_node`` had returned them
    (None: the node that ran last); ``task_id`` names the update's task.

    >>> StateUpdate({"n": 1}, "count")
    StateUpdate(values={'n': 1}, as_node='count', task_id=None)
    """

    values: Any
    as_node: str | None = None
    task_id: str | None = None


# the shapes of version="v2" (their own module; LangGraph keeps them here)
from graphkit.stream_types import (  # noqa: E402
    CheckpointPayload,
    CheckpointStreamPart,
    CheckpointTask,
    CustomStreamPart,
    DebugPayload,
    DebugStreamPart,
    GraphOutput,
    MessagesStreamPart,
    StreamPart,
    TaskPayload,
    TaskResultPayload,
    TasksStreamPart,
    UpdatesStreamPart,
    ValuesStreamPart,
)

# Kept by the runtime, importable from here as from ``langgraph.types``.
_ELSEWHERE = {
    "interrupt": "graphkit.pregel.runtime",
    "StateSnapshot": "graphkit.pregel.thread_state",
    "PregelTask": "graphkit.pregel.thread_state",
}


def __getattr__(name: str) -> Any:
    """``interrupt``, ``StateSnapshot``, ``PregelTask`` and the ``Checkpointer`` type
    (what ``compile(checkpointer=...)`` takes), imported on first use: the runtime that
    defines them imports this module."""
    import importlib

    if name in _ELSEWHERE:
        return getattr(importlib.import_module(_ELSEWHERE[name]), name)
    if name == "Checkpointer":
        from graphkit.checkpoint import BaseCheckpointSaver

        return None | bool | BaseCheckpointSaver
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
