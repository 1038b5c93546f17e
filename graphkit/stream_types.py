"""The shapes a run hands back with ``version="v2"``: ``GraphOutput`` from ``invoke``,
and the stream parts (typed dicts) ``stream`` yields. ``graphkit.types`` re-exports
them, where LangGraph keeps them."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Generic, Literal, NotRequired, TypedDict, TypeVar

from graphkit.constants import INTERRUPT
from graphkit.types import Interrupt

__all__ = [
    "CheckpointPayload",
    "CheckpointStreamPart",
    "CheckpointTask",
    "CustomStreamPart",
    "DebugPayload",
    "DebugStreamPart",
    "GraphOutput",
    "MessagesStreamPart",
    "StreamPart",
    "TaskPayload",
    "TaskResultPayload",
    "TasksStreamPart",
    "UpdatesStreamPart",
    "ValuesStreamPart",
]

State = TypeVar("State")
Output = TypeVar("Output")


@dataclass(frozen=True)
class GraphOutput(Generic[Output]):
    """What ``invoke(..., version="v2")`` returns for stream_mode "values": the final
    output (a dict, or an instance of a pydantic/dataclass output schema) and the
    interrupts the run stopped at.

    >>> result = GraphOutput(value={"answer": 42})
    >>> result
    GraphOutput(value={'answer': 42}, interrupts=())
    >>> result.value["answer"], result.interrupts
    (42, ())

    Reading it like v1's dict (``result["answer"]``, ``"__interrupt__" in result``) still
    works, with a ``LangGraphDeprecatedSinceV11`` warning, as in LangGraph.
    """

    value: Output
    interrupts: tuple[Interrupt, ...] = ()

    def __getitem__(self, key: str) -> Any:
        _warn_dict_access("result[key]")
        if key == INTERRUPT:
            return self.interrupts
        if isinstance(self.value, dict):
            return self.value[key]
        try:
            return getattr(self.value, key)
        except AttributeError:
            raise KeyError(key) from None

    def __contains__(self, key: object) -> bool:
        _warn_dict_access("key in result")
        if key == INTERRUPT:
            return bool(self.interrupts)
        if isinstance(self.value, dict):
            return key in self.value
        return isinstance(key, str) and hasattr(self.value, key)


def _warn_dict_access(how: str) -> None:
    from graphkit.errors import LangGraphDeprecatedSinceV11  # errors imports this module

    warnings.warn(
        f"Accessing GraphOutput via `{how}` is deprecated. Use `result.value` to access "
        "the output value directly, or `result.interrupts` for interrupts.",
        LangGraphDeprecatedSinceV11,
        stacklevel=3,
    )


class TaskPayload(TypedDict):
    """A "tasks" part's data when a task starts."""

    id: str
    name: str
    input: Any
    triggers: list[str]
    metadata: NotRequired[dict[str, Any]]


class TaskResultPayload(TypedDict):
    """A "tasks" part's data when a task finishes."""

    id: str
    name: str
    error: str | None
    interrupts: list[dict[str, Any]]
    result: dict[str, Any]


class CheckpointTask(TypedDict):
    """One task as a checkpoint payload lists it."""

    id: str
    name: str
    error: NotRequired[str]
    interrupts: NotRequired[list[dict[str, Any]]]
    state: NotRequired[Any]
    result: NotRequired[Any]


class CheckpointPayload(TypedDict, Generic[State]):
    """A "checkpoints" part's data: a checkpoint as it was saved."""

    config: dict[str, Any] | None
    metadata: dict[str, Any]
    values: State
    next: list[str]
    parent_config: dict[str, Any] | None
    tasks: list[CheckpointTask]


class DebugPayload(TypedDict, Generic[State]):
    """A "debug" part's data: a checkpoint, a task or a task result, with its step."""

    step: int
    timestamp: str
    type: Literal["checkpoint", "task", "task_result"]
    payload: CheckpointPayload[State] | TaskPayload | TaskResultPayload


class ValuesStreamPart(TypedDict, Generic[Output]):
    """The state after a step; the interrupts the step stopped at are beside it.

    >>> part: ValuesStreamPart = {"type": "values", "ns": (), "data": {"n": 1}, "interrupts": ()}
    """

    type: Literal["values"]
    ns: tuple[str, ...]
    data: Output
    interrupts: tuple[Interrupt, ...]


class UpdatesStreamPart(TypedDict):
    """``{node: update}`` from a task that finished (or ``{"__interrupt__": ...}``)."""

    type: Literal["updates"]
    ns: tuple[str, ...]
    data: dict[str, Any]


class MessagesStreamPart(TypedDict):
    """A chat message (or a streamed chunk of one) and its metadata."""

    type: Literal["messages"]
    ns: tuple[str, ...]
    data: tuple[Any, dict[str, Any]]


class CustomStreamPart(TypedDict):
    """Whatever a node gave its stream writer."""

    type: Literal["custom"]
    ns: tuple[str, ...]
    data: Any


class CheckpointStreamPart(TypedDict, Generic[State]):
    """A checkpoint as it was saved."""

    type: Literal["checkpoints"]
    ns: tuple[str, ...]
    data: CheckpointPayload[State]


class TasksStreamPart(TypedDict):
    """A task starting or finishing."""

    type: Literal["tasks"]
    ns: tuple[str, ...]
    data: TaskPayload | TaskResultPayload


class DebugStreamPart(TypedDict, Generic[State]):
    """A checkpoint, task or task result with its step and time."""

    type: Literal["debug"]
    ns: tuple[str, ...]
    data: DebugPayload[State]


StreamPart = (
    ValuesStreamPart
    | UpdatesStreamPart
    | MessagesStreamPart
    | CustomStreamPart
    | CheckpointStreamPart
    | TasksStreamPart
    | DebugStreamPart
)
"""Any part ``stream(..., version="v2")`` yields; ``part["type"]`` tells which."""
