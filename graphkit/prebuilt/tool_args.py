"""Tool arguments the graph supplies instead of the model: state, store, runtime (and
the ``ToolCallRequest`` a ``wrap_tool_call`` handler is given).

Annotate a tool parameter with ``InjectedState`` (the whole state, or one key of it),
``InjectedStore`` (the store given to ``compile(store=...)``) or type it ``ToolRuntime``.
langchain-core leaves such parameters out of the schema the model sees, and ``ToolNode``
fills them in when it runs the call; LangGraph's own ``InjectedState`` / ``InjectedStore``
/ ``ToolRuntime`` annotations are recognised too, so tools move between the two as is.

>>> from typing import Annotated
>>> from langchain_core.tools import tool
>>> @tool
... def count_messages(messages: Annotated[list, InjectedState("messages")]) -> int:
...     '''Count the messages so far.'''
...     return len(messages)
>>> list(count_messages.tool_call_schema.model_json_schema()["properties"])  # model's view
[]
>>> injected_args(count_messages).state
{'messages': 'messages'}
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import UnionType
from typing import Annotated, Any, Generic, Union, get_args, get_origin, get_type_hints

from langchain_core.tools import BaseTool, InjectedToolArg
from langchain_core.tools.base import get_all_basemodel_annotations
from pydantic import BaseModel
from typing_extensions import TypeVar

try:  # the base langchain-core gives types hidden from the model by their annotation alone
    from langchain_core.tools.base import _DirectlyInjectedToolArg as _HiddenType
except ImportError:  # pragma: no cover - older langchain-core
    _HiddenType = object  # type: ignore[assignment,misc]

__all__ = [
    "InjectedArgs",
    "InjectedState",
    "InjectedStore",
    "ToolCallRequest",
    "ToolRuntime",
    "injected_args",
    "tool_arguments",
]


class InjectedState(InjectedToolArg):
    """Give this tool argument the graph state (``InjectedState()``) or the value of one
    state key (``InjectedState("key")``); the model never sees it."""

    def __init__(self, field: str | None = None) -> None:
        self.field = field

    def __repr__(self) -> str:
        return f"InjectedState({self.field!r})" if self.field else "InjectedState()"


class InjectedStore(InjectedToolArg):
    """Give this tool argument the graph's store (``compile(store=...)``); the model
    never sees it."""


# (with defaults, as LangGraph's: ``ToolRuntime[MyContext]`` alone types the context)
ContextT = TypeVar("ContextT", default=Any)
StateT = TypeVar("StateT", default=Any)


@dataclass
class ToolRuntime(_HiddenType, Generic[ContextT, StateT]):
    """What a tool typed ``runtime: ToolRuntime`` (or ``ToolRuntime[MyContext, MyState]``,
    which only types it) receives: the state, the run's context, config, stream writer and
    store, the id of the tool call being answered, the node's tools, and the running
    task's ``execution_info`` (``server_info``: None, as outside LangGraph's server)."""

    state: StateT = None  # type: ignore[assignment]
    context: ContextT = None  # type: ignore[assignment]
    config: Mapping[str, Any] = field(default_factory=dict)
    stream_writer: Callable[[Any], None] = print
    tool_call_id: str | None = None
    store: Any = None
    tools: list[Any] = field(default_factory=list)
    execution_info: Any = None
    server_info: Any = None

    def emit_output_delta(self, delta: Any) -> None:
        """LangGraph's partial tool output, streamed in its ``"tools"`` stream mode;
        graphkit has no such mode, so (as LangGraph does when that mode is not asked
        for) this sends nothing."""


@dataclass
class ToolCallRequest:
    """One tool call as ``wrap_tool_call`` sees it: the call (``name``, ``args``,
    ``id``), the tool that would run it (None if the node has no such tool), the state
    and the ``ToolRuntime`` the tool is given. Change it with ``override``, which returns
    a copy (as LangGraph's; assigning to a field works too, with a DeprecationWarning).

    >>> request = ToolCallRequest({"name": "add", "args": {"a": 1}, "id": "c1"}, None, {}, None)
    >>> request.override(tool_call={**request.tool_call, "args": {"a": 2}}).tool_call["args"]
    {'a': 2}
    """

    tool_call: dict[str, Any]
    tool: BaseTool | None
    state: Any
    runtime: Any

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self.__dict__:  # (set once by __init__)
            warnings.warn(  # (LangGraph's words: tests match them with pytest.warns)
                f"Setting attribute '{name}' on ToolCallRequest is deprecated. Use "
                f"request.override({name}=...) instead to make a changed copy.",
                DeprecationWarning,
                stacklevel=2,
            )
        object.__setattr__(self, name, value)

    def override(self, **changes: Any) -> ToolCallRequest:
        """A copy with ``tool_call`` and/or ``state`` replaced; a new state is also the
        one the tool's ``ToolRuntime`` (and ``InjectedState``) sees."""
        copied = replace(self, **changes)
        if "state" in changes and isinstance(copied.runtime, ToolRuntime):
            runtime = replace(copied.runtime, state=copied.state)
            copied = replace(copied, runtime=runtime)
        return copied


@dataclass(frozen=True)
class InjectedArgs:
    """Which parameters of one tool the graph fills in.

    ``state`` maps a parameter to the state key it receives (None: the whole state);
    ``hidden`` names every injected parameter, which is removed from the model's
    arguments before the graph's values are added.
    """

    state: dict[str, str | None] = field(default_factory=dict)
    store: str | None = None
    runtime: str | None = None
    hidden: frozenset[str] = frozenset()
    optional: frozenset[str] = frozenset()

    @property
    def supplied(self) -> frozenset[str]:
        """The parameters the graph fills in: the state's, the store's, the runtime's."""
        return frozenset(name for name in (*self.state, self.store, self.runtime) if name)

    @property
    def names(self) -> frozenset[str]:
        """Every injected parameter: none is echoed in error messages."""
        return self.supplied | self.hidden


def injected_args(tool: BaseTool) -> InjectedArgs:
    """Find the parameters of ``tool`` that the graph supplies."""
    schema = tool.get_input_schema()
    function = getattr(tool, "func", None) or getattr(tool, "coroutine", None)
    annotations: dict[str, Any] = {}
    if function is not None:
        with contextlib.suppress(NameError, TypeError):  # unresolvable hints: schema only
            annotations.update(get_type_hints(function, include_extras=True))
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        annotations.update(get_all_basemodel_annotations(schema))
    fields = getattr(schema, "model_fields", {})
    state: dict[str, str | None] = {}
    store = runtime = None
    hidden, optional = set(), set()
    for name, hint in annotations.items():
        if name == "return":
            continue
        if _is_hidden(hint):
            hidden.add(name)
        marker = _find(hint, "InjectedState")
        if marker is not None:
            state[name] = getattr(marker, "field", None) or None
            if state[name] and name in fields and not fields[name].is_required():
                optional.add(name)
        if _find(hint, "InjectedStore") is not None:
            store = name
        if name == "runtime" or _find(hint, "ToolRuntime") is not None:
            runtime = name
    return InjectedArgs(state, store, runtime, frozenset(hidden), frozenset(optional))


def _is_hidden(hint: Any) -> bool:
    """True when langchain-core keeps this parameter from the model."""
    return _find(hint, None) is not None


def _find(hint: Any, class_name: str | None) -> Any:
    """The marker in ``hint`` (an instance or class, in Annotated metadata, a union or
    a generic's origin) whose class is named ``class_name`` — graphkit's or
    LangGraph's — or, with None, any injected-argument marker. None if there is none."""
    for candidate in _candidates(hint):
        cls = candidate if isinstance(candidate, type) else type(candidate)
        names = {base.__name__ for base in getattr(cls, "__mro__", ())}
        if class_name is None:
            if issubclass(cls, InjectedToolArg) or (
                _HiddenType is not object and issubclass(cls, _HiddenType)
            ):
                return candidate
        elif class_name in names:
            return candidate
    return None


def _candidates(hint: Any) -> list[Any]:
    origin = get_origin(hint)
    if origin is Annotated:
        return [item for arg in get_args(hint)[:1] for item in _candidates(arg)] + list(
            hint.__metadata__
        )
    if origin in (Union, UnionType):
        return [item for arg in get_args(hint) for item in _candidates(arg)]
    if isinstance(origin, type):
        return [origin]
    return [hint] if isinstance(hint, type) else []


def tool_arguments(
    call: dict[str, Any], injected: InjectedArgs, runtime: ToolRuntime, messages_key: str
) -> dict[str, Any]:
    """The arguments ``call``'s tool runs with: the model's, without anything it may not
    set, plus the graph's (``injected``: state, store, runtime)."""
    values: dict[str, Any] = {}
    if injected.state:
        values.update(_state_arguments(call, injected, runtime.state, messages_key))
    if injected.store:
        if runtime.store is None:
            raise ValueError(
                f"Tool {call['name']!r} asks for the store (InjectedStore), but the graph "
                "has none; compile it with a store, e.g. compile(store=InMemoryStore())."
            )
        values[injected.store] = runtime.store
    if injected.runtime:
        values[injected.runtime] = runtime
    own = {key: value for key, value in call["args"].items() if key not in injected.hidden}
    return {**own, **values}


def _state_arguments(
    call: dict[str, Any], injected: InjectedArgs, state: Any, messages_key: str
) -> dict[str, Any]:
    """The values of the state the tool reads (``InjectedState``)."""
    fields = list(injected.state.values())
    if isinstance(state, list):
        if (len(fields) == 1 and fields[0] == messages_key) or fields[0] is None:
            state = {messages_key: state}
        else:
            raise ValueError(
                f"Tool {call['name']!r} reads state keys {[f for f in fields if f]}, but "
                "this ToolNode was given a list of messages; give it the state dict."
            )
    values = {}
    for argument, key in injected.state.items():
        if key is None:
            values[argument] = state
        elif isinstance(state, dict) and key in state:
            values[argument] = state[key]
        elif not isinstance(state, dict) and hasattr(state, key):
            values[argument] = getattr(state, key)
        elif argument not in injected.optional:
            raise (KeyError if isinstance(state, dict) else AttributeError)(key)
    return values
