"""ToolNode runs the tool calls of the last AIMessage; tools_condition routes to it.

A ToolNode is a graph node: give it the state (``{"messages": [...]}``), a list of
messages, or tool calls themselves, and it runs every call of the last AIMessage — in
parallel when there are several — and returns one ``ToolMessage`` per call. A call to a
tool it does not have gets an error ToolMessage naming the tools it has, so the model
can correct itself; what a failing tool gives is set by ``handle_tool_errors`` (see
``graphkit.prebuilt.tool_results``). A tool may return a ``Command`` to update other
state keys or route the graph; the ToolNode then returns the list of Commands.
``wrap_tool_call(request, execute)`` sees each call before it runs (a
``ToolCallRequest``) and decides what answers it: ``execute(request)`` runs the tool, as
often as it likes, on the request or a changed copy (``request.override(...)``).

>>> from langchain_core.messages import AIMessage
>>> def add(a: int, b: int) -> int:
...     '''Add two numbers.'''
...     return a + b
>>> node = ToolNode([add])
>>> call = {"name": "add", "args": {"a": 1, "b": 2}, "id": "call-1"}
>>> [m.content for m in node.invoke({"messages": [AIMessage("", tool_calls=[call])]})["messages"]]
['3']
>>> wrong = {"name": "mul", "args": {}, "id": "call-2"}
>>> node.invoke([AIMessage("", tool_calls=[wrong])])[0].status
'error'
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal

from langchain_core.messages import AIMessage, ToolCall, ToolMessage
from langchain_core.runnables import Runnable
from langchain_core.runnables.config import get_config_list, get_executor_for_config
from langchain_core.tools import BaseTool
from langchain_core.tools import tool as as_tool
from pydantic import ValidationError
from typing_extensions import TypedDict  # (pydantic reads it: see messages.py)

from graphkit.constants import END
from graphkit.errors import GraphBubbleUp, is_invalid_resume
from graphkit.prebuilt.tool_args import (
    InjectedArgs,
    InjectedState,
    InjectedStore,
    ToolCallRequest,
    ToolRuntime,
    injected_args,
    tool_arguments,
)
from graphkit.prebuilt.tool_results import (
    INVALID_TOOL_NAME_ERROR_TEMPLATE,
    TOOL_CALL_ERROR_TEMPLATE,
    TOOL_EXECUTION_ERROR_TEMPLATE,
    TOOL_INVOCATION_ERROR_TEMPLATE,
    TOOL_MESSAGE_BLOCK_TYPES,
    ErrorPolicy,
    ToolInvocationError,
    check_answers,
    check_command,
    content_of,
    default_handle_tool_errors,
    invalid_arguments,
    plain_command,
)
from graphkit.pregel.node_builder import is_async_only_tool
from graphkit.pregel.phases import task_state
from graphkit.pregel.runtime import Runtime, get_runtime
from graphkit.types import Command, Send

__all__ = [
    "INVALID_TOOL_NAME_ERROR_TEMPLATE",
    "TOOL_CALL_ERROR_TEMPLATE",
    "TOOL_EXECUTION_ERROR_TEMPLATE",
    "TOOL_INVOCATION_ERROR_TEMPLATE",
    "TOOL_MESSAGE_BLOCK_TYPES",
    "AsyncToolCallWrapper",
    "InjectedState",
    "InjectedStore",
    "ToolCallRequest",
    "ToolCallWithContext",
    "ToolCallWrapper",
    "ToolInvocationError",
    "ToolNode",
    "ToolRuntime",
    "msg_content_output",
    "tools_condition",
]

InputType = Literal["list", "dict", "tool_calls"]

ToolCallWrapper = Callable[
    [ToolCallRequest, Callable[[ToolCallRequest], ToolMessage | Command]], ToolMessage | Command
]
"""The type of ``wrap_tool_call``: ``(request, execute) -> ToolMessage | Command``."""
AsyncToolCallWrapper = Callable[
    [ToolCallRequest, Callable[[ToolCallRequest], Awaitable[ToolMessage | Command]]],
    Awaitable[ToolMessage | Command],
]
"""The type of ``awrap_tool_call``: ``execute`` and the wrapper are awaited."""

_RUNTIME_KEY = "__pregel_runtime"  # where LangGraph's config carries a node's runtime

msg_content_output = content_of
"""LangGraph's name for how a tool's output becomes a ToolMessage's content."""

ToolCallWithContext = TypedDict(
    "ToolCallWithContext",
    {"__type": Literal["tool_call_with_context"], "tool_call": ToolCall, "state": Any},
)
"""One tool call with the state it answers, as a ``Send`` to a ToolNode carries it."""


class ToolNode(Runnable[Any, Any]):
    """A node that runs the tool calls of the last AIMessage (see the module docstring).

    ``tools`` are langchain-core tools or plain functions (made tools with
    ``langchain_core.tools.tool``). ``messages_key`` is the state key holding the
    history. The default ``handle_tool_errors`` is LangGraph's: arguments that do not
    fit the tool's schema give an error ToolMessage, any other error ends the run; a
    false value (``False``, ``None``) lets every error end it. Like LangGraph's, it is
    a langchain-core ``Runnable`` (``node | step``, ``with_config``...), and ``tags``
    are kept on it but not given to the tools (LangGraph runs them untraced).
    """

    def __init__(
        self,
        tools: Sequence[BaseTool | Callable[..., Any]],
        *,
        name: str = "tools",
        tags: list[str] | None = None,
        handle_tool_errors: Any = default_handle_tool_errors,
        messages_key: str = "messages",
        wrap_tool_call: Callable[[ToolCallRequest, Callable[..., Any]], Any] | None = None,
        awrap_tool_call: Callable[[ToolCallRequest, Callable[..., Any]], Any] | None = None,
        **unsupported: Any,
    ) -> None:
        for option in unsupported:
            raise TypeError(f"ToolNode() got an unexpected keyword argument {option!r}.")
        self.wrap_tool_call, self.awrap_tool_call = wrap_tool_call, awrap_tool_call
        self.name = name
        self.tags = list(tags or [])
        self.handle_tool_errors = handle_tool_errors
        self.messages_key = messages_key
        self._policy = ErrorPolicy.of(handle_tool_errors)
        self._tools: dict[str, BaseTool] = {}
        self._injected: dict[str, tuple[BaseTool, InjectedArgs]] = {}
        for item in tools:
            tool = item if isinstance(item, BaseTool) else as_tool(item)
            self._tools[tool.name] = tool
            self._injected_into(tool)

    @property
    def tools_by_name(self) -> dict[str, BaseTool]:
        """The tools, by the name the model calls them (LangGraph's live dict: a tool
        added to it is called too)."""
        return self._tools

    def __repr__(self) -> str:
        return f"ToolNode(name={self.name!r}, tools={list(self._tools)})"

    def _injected_into(self, tool: BaseTool) -> InjectedArgs:
        """The arguments the graph injects into ``tool``: kept per name for this node's
        tools (read again if the name's tool changed)."""
        kept = self._injected.get(tool.name)
        if kept is not None and kept[0] is tool:
            return kept[1]
        injected = injected_args(tool)
        if self._tools.get(tool.name) is tool:  # (a wrapper may hand another tool)
            self._injected[tool.name] = (tool, injected)
        return injected

    # -- running ------------------------------------------------------------------------

    def invoke(
        self, input: Any, config: Any = None, *, runtime: Any = None, store: Any = None
    ) -> Any:
        """Run the calls; return ``{messages_key: [ToolMessage, ...]}`` for a state,
        a list of ToolMessages for a list, or a list of Commands if a tool returned one.
        (``awrap_tool_call`` is for ``ainvoke`` only, as in LangGraph.) A tool with only
        a coroutine cannot run here: its call raises langchain-core's
        ``NotImplementedError``, as in LangGraph, alone as in a graph (docs/decisions.md)."""
        calls, input_type, runtimes = self._prepare(input, config, runtime, store)
        if len(calls) == 1:
            outputs = [self._run_one(calls[0], input_type, runtimes[0])]
        else:
            with get_executor_for_config(config) as executor:  # copies contextvars per call
                kinds = [input_type] * len(calls)
                outputs = list(executor.map(self._run_one, calls, kinds, runtimes))
        return self._combine(outputs, input_type)

    async def ainvoke(
        self, input: Any, config: Any = None, *, runtime: Any = None, store: Any = None
    ) -> Any:
        """``invoke`` for async code: the calls run concurrently on this event loop, each
        tool through its ``ainvoke`` (as in LangGraph, an ``async def`` tool shares the
        caller's loop, its locks and sessions; a sync tool runs on a worker thread), and
        through ``awrap_tool_call`` when given. With only ``wrap_tool_call`` (a sync
        wrapper), ``invoke`` runs on a worker thread, so the wrapper never blocks the loop
        (LangGraph calls it on the loop itself; the results are the same)."""
        if self.wrap_tool_call is not None and self.awrap_tool_call is None:
            return await asyncio.to_thread(self.invoke, input, config, runtime=runtime, store=store)
        calls, input_type, runtimes = self._prepare(input, config, runtime, store)
        runs = [self._arun_one(c, input_type, r) for c, r in zip(calls, runtimes, strict=True)]
        return self._combine(list(await asyncio.gather(*runs)), input_type)

    def _prepare(
        self, input: Any, config: Any, runtime: Any, store: Any
    ) -> tuple[list[dict[str, Any]], InputType, list[ToolRuntime]]:
        """The calls to run, the input's kind, and each call's ``ToolRuntime``."""
        calls, input_type = self._parse(input)
        if runtime is None:
            runtime = _current_runtime(config, store)
        state = _state_of(input)
        configs = get_config_list(config, len(calls))
        runtimes = [
            ToolRuntime(
                state=state,
                context=runtime.context,
                config=call_config,
                stream_writer=runtime.stream_writer,
                tool_call_id=call["id"],
                store=runtime.store,
                tools=list(self._tools.values()),
                execution_info=runtime.execution_info,
                server_info=runtime.server_info,
            )
            for call, call_config in zip(calls, configs, strict=True)
        ]
        return calls, input_type, runtimes

    def _parse(self, input: Any) -> tuple[list[dict[str, Any]], InputType]:
        if isinstance(input, list) and input and _is_tool_call(input[-1]):
            return list(input), "tool_calls"
        if isinstance(input, dict) and input.get("__type") == "tool_call_with_context":
            return [input["tool_call"]], "tool_calls"
        if isinstance(input, list):
            messages, input_type = input, "list"
        elif isinstance(input, dict):
            messages, input_type = input.get(self.messages_key) or [], "dict"
        else:
            messages, input_type = getattr(input, self.messages_key, None) or [], "dict"
        if not messages:
            raise ValueError(
                f"ToolNode {self.name!r} got no messages: its input has no "
                f"{self.messages_key!r} (or is empty). Give it the state, a list of messages "
                "ending with an AIMessage that has tool_calls, or the tool calls themselves."
            )
        last_ai = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
        if last_ai is None:
            raise ValueError(
                f"ToolNode {self.name!r} found no AIMessage in its input; it runs the "
                "tool_calls of the last AIMessage. Route to it only after the model answered."
            )
        return list(last_ai.tool_calls), input_type

    def _run_one(self, call: dict[str, Any], input_type: InputType, runtime: ToolRuntime) -> Any:
        """Answer one call: run its tool, or let ``wrap_tool_call`` decide how."""
        if self.wrap_tool_call is None:
            return self._execute(call, self._tools.get(call["name"]), input_type, runtime)
        request = ToolCallRequest(call, self._tools.get(call["name"]), runtime.state, runtime)

        def execute(request: ToolCallRequest) -> Any:  # (as often as the wrapper likes)
            return self._execute(request.tool_call, request.tool, input_type, request.runtime)

        try:
            return self.wrap_tool_call(request, execute)
        except GraphBubbleUp:  # a pause or a parent route always goes up
            raise
        except Exception as error:
            return self._wrapper_failed(call, error)

    async def _arun_one(
        self, call: dict[str, Any], input_type: InputType, runtime: ToolRuntime
    ) -> Any:
        """``_run_one`` awaited (through ``awrap_tool_call``, whose ``execute`` is)."""
        if self.awrap_tool_call is None:
            return await self._aexecute(call, self._tools.get(call["name"]), input_type, runtime)
        request = ToolCallRequest(call, self._tools.get(call["name"]), runtime.state, runtime)

        async def execute(request: ToolCallRequest) -> Any:
            return await self._aexecute(
                request.tool_call, request.tool, input_type, request.runtime
            )

        try:
            return await self.awrap_tool_call(request, execute)
        except GraphBubbleUp:
            raise
        except Exception as error:
            return self._wrapper_failed(call, error)

    def _wrapper_failed(self, call: dict[str, Any], error: Exception) -> ToolMessage:
        """As in LangGraph, any error of a wrapper's is answered when errors are handled
        at all, whatever its class (a handler function may still re-raise it)."""
        if not self.handle_tool_errors or is_invalid_resume(error):
            raise error
        return _error_answer(call, self._policy.content(error))

    def _execute(
        self,
        call: dict[str, Any],
        tool: BaseTool | None,
        input_type: InputType,
        runtime: ToolRuntime,
    ) -> Any:
        if tool is None:
            return self._unknown_tool(call)
        payload, injected = self._payload(call, tool, runtime)
        try:
            response = tool.invoke(payload, runtime.config)
            return self._normalise(plain_command(response), call, input_type)
        except Exception as error:
            if isinstance(error, NotImplementedError) and is_async_only_tool(tool):
                error.add_note(self._sync_run_fix(tool))
            return self._failed(call, error, injected)

    def _sync_run_fix(self, tool: BaseTool) -> str:
        """What to do when an async-only tool ran synchronously: LangGraph raises
        langchain-core's error there, and so does graphkit (the note adds the fix without
        changing the text a handler turns into the model's error message)."""
        how = "the graph ran with invoke/stream (or the node was invoked alone)"
        fixes = "run the graph with ainvoke/astream (trace and atrace do)"
        if self.wrap_tool_call is not None and self.awrap_tool_call is None:
            how = "its wrap_tool_call is sync, so execute() runs the tool synchronously"
            fixes = "give the ToolNode an awrap_tool_call too, which ainvoke awaits"
        return (
            f"ToolNode {self.name!r}: tool {tool.name!r} has only async code (a coroutine, "
            f"no sync function) and {how}. Fix: {fixes}, or give the tool a sync function "
            "too (StructuredTool.from_function(func=..., coroutine=...))."
        )

    async def _aexecute(
        self,
        call: dict[str, Any],
        tool: BaseTool | None,
        input_type: InputType,
        runtime: ToolRuntime,
    ) -> Any:
        """``_execute`` awaiting the tool's ``ainvoke``."""
        if tool is None:
            return self._unknown_tool(call)
        payload, injected = self._payload(call, tool, runtime)
        try:
            response = await tool.ainvoke(payload, runtime.config)
            return self._normalise(plain_command(response), call, input_type)
        except Exception as error:
            return self._failed(call, error, injected)

    def _unknown_tool(self, call: dict[str, Any]) -> ToolMessage:
        known = ", ".join(self._tools)
        text = INVALID_TOOL_NAME_ERROR_TEMPLATE.format(
            requested_tool=call["name"], available_tools=known
        )
        return _error_answer(call, text)

    def _payload(
        self, call: dict[str, Any], tool: BaseTool, runtime: ToolRuntime
    ) -> tuple[dict[str, Any], InjectedArgs]:
        """The tool call as the tool is invoked with it (its injected arguments added)."""
        injected = self._injected_into(tool)
        args = tool_arguments(call, injected, runtime, self.messages_key)
        return {**call, "args": args, "type": "tool_call"}, injected

    def _failed(self, call: dict[str, Any], error: Exception, injected: InjectedArgs) -> Any:
        """The answer to a call whose tool raised ``error``, or ``error`` raised: a pause or
        a parent route always goes up; so does what the error policy does not handle,
        and an answer that did not fit an interrupt's schema (as in LangGraph, the run
        fails so that the interrupt can be answered again)."""
        if isinstance(error, GraphBubbleUp) or is_invalid_resume(error):
            raise error
        if isinstance(error, ValidationError):  # the model's arguments did not fit
            wrapped = invalid_arguments(call["name"], error, call["args"], injected)
            wrapped.__cause__, error = error, wrapped
        if not self._policy.handles(error):
            raise error
        return _error_answer(call, self._policy.content(error))

    def _normalise(self, response: Any, call: dict[str, Any], input_type: InputType) -> Any:
        if isinstance(response, Command):
            return check_command(response, call, input_type, self.messages_key)
        if isinstance(response, ToolMessage):
            response.content = content_of(response.content)
            return response
        if isinstance(response, list) and all(
            isinstance(item, (Command, ToolMessage)) for item in response
        ):
            return check_answers(response, call, input_type, self.messages_key)
        raise TypeError(
            f"Tool {call['name']!r} returned {type(response).__name__}; a tool run by "
            "ToolNode returns a ToolMessage, a Command, or a list of them."
        )

    def _combine(self, outputs: list[Any], input_type: InputType) -> Any:
        flat = [item for out in outputs for item in (out if isinstance(out, list) else [out])]
        if not any(isinstance(item, Command) for item in flat):
            return flat if input_type == "list" else {self.messages_key: flat}
        combined: list[Any] = []
        to_parent: Command | None = None  # Sends to the parent graph travel in one Command
        for item in flat:
            if not isinstance(item, Command):
                combined.append([item] if input_type == "list" else {self.messages_key: [item]})
            elif _sends_to_parent(item):
                previous = list(to_parent.goto) if to_parent else []
                to_parent = Command(graph=Command.PARENT, goto=previous + list(item.goto))
            else:
                combined.append(item)
        if to_parent is not None:
            combined.append(to_parent)
        return combined


def tools_condition(state: Any, messages_key: str = "messages") -> Literal["tools", "__end__"]:
    """Route to ``"tools"`` when the last message has tool calls, else to END.

    >>> from langchain_core.messages import AIMessage
    >>> tools_condition({"messages": [AIMessage("done")]})
    '__end__'
    >>> call = {"name": "add", "args": {}, "id": "1"}
    >>> tools_condition({"messages": [AIMessage("", tool_calls=[call])]})
    'tools'
    """
    if isinstance(state, list):
        messages = state
    elif isinstance(state, dict):
        messages = state.get(messages_key) or []
    else:
        messages = getattr(state, messages_key, None) or []
    if not messages:
        raise ValueError(
            f"tools_condition found no messages in {state!r}; it routes on the last message "
            f"of {messages_key!r}. Pass messages_key= if your history has another name."
        )
    return "tools" if getattr(messages[-1], "tool_calls", None) else END


def _error_answer(call: dict[str, Any], content: Any) -> ToolMessage:
    """The error ToolMessage that answers ``call``."""
    return ToolMessage(content=content, name=call["name"], tool_call_id=call["id"], status="error")


def _is_tool_call(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") == "tool_call"


def _state_of(input: Any) -> Any:
    """What InjectedState sees: the state the calls came with; for bare calls (sent as
    ``Send("tools", [tool_call])``), the graph's state as the node would read it (none
    outside a graph)."""
    if isinstance(input, dict) and input.get("__type") == "tool_call_with_context":
        return input["state"]
    if isinstance(input, list) and input and _is_tool_call(input[-1]):
        state = task_state()
        return {} if state is None else state
    return input


def _sends_to_parent(command: Command) -> bool:
    """A Command that only sends to the parent, merged with the others (as LangGraph does,
    only for a list of Sends: a parent Command whose ``goto`` is the default ``()`` or a
    tuple carries its ``update`` to the parent as it is)."""
    goto = command.goto
    return (
        command.graph == Command.PARENT
        and isinstance(goto, list)
        and all(isinstance(target, Send) for target in goto)
    )


def _current_runtime(config: Any, store: Any) -> Runtime:
    """The running node's runtime; outside a graph, the one the config holds under
    LangGraph's key ``"__pregel_runtime"`` (how LangGraph's own tests call a ToolNode
    alone, with a store and a context), else an empty one."""
    try:
        runtime = get_runtime()
    except RuntimeError:  # called outside a running graph
        configurable = (config or {}).get("configurable") or {}
        runtime = configurable.get(_RUNTIME_KEY) or Runtime()
    return dataclasses.replace(runtime, store=store) if store is not None else runtime
