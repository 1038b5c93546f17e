"""What a tool call gives back to the graph: a ToolMessage, a Command, or an error.

``ErrorPolicy`` applies ``ToolNode(handle_tool_errors=...)`` with LangGraph's rules:

| ``handle_tool_errors`` | errors caught | the error ToolMessage says |
|---|---|---|
| ``True`` | every ``Exception`` | the error's repr |
| an exception class or a tuple of them | those | the error's repr |
| a string | every ``Exception`` | the string |
| a function ``(error) -> str`` | those its annotation names (all if none) | its result |
| ``False`` | none: the error ends the run | |
| default: ``default_handle_tool_errors`` | arguments that do not fit the tool | what is wrong |

>>> policy = ErrorPolicy.of(ValueError)
>>> policy.handles(ValueError("bad")), policy.handles(KeyError("k"))
(True, False)
>>> print(policy.content(ValueError("bad")))
Error: ValueError('bad')
 Please fix your mistakes.

The texts are LangGraph's, word for word: the model reads them, so a graph prompts it
the same on both libraries.
"""

from __future__ import annotations

import copy
import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass
from types import UnionType
from typing import TYPE_CHECKING, Any, Union, get_args, get_origin, get_type_hints

from langchain_core.messages import RemoveMessage, ToolMessage, convert_to_messages
from langchain_core.tools import ToolException

from graphkit.prebuilt.messages import REMOVE_ALL_MESSAGES
from graphkit.types import Command, Send

if TYPE_CHECKING:
    from graphkit.prebuilt.tool_args import InjectedArgs

__all__ = [
    "INVALID_TOOL_NAME_ERROR_TEMPLATE",
    "TOOL_CALL_ERROR_TEMPLATE",
    "TOOL_EXECUTION_ERROR_TEMPLATE",
    "TOOL_INVOCATION_ERROR_TEMPLATE",
    "TOOL_MESSAGE_BLOCK_TYPES",
    "ErrorPolicy",
    "ToolInvocationError",
    "check_answers",
    "check_command",
    "content_of",
    "default_handle_tool_errors",
    "invalid_arguments",
    "plain_command",
]

try:  # the content blocks a ToolMessage may carry as they are
    from langchain_core.tools.base import TOOL_MESSAGE_BLOCK_TYPES
except ImportError:  # pragma: no cover - older langchain-core
    TOOL_MESSAGE_BLOCK_TYPES = ("text", "image_url", "image", "json", "search_result")

# The texts a model reads, under LangGraph's names: a handler can answer in the same
# words (LangGraph's own tests format TOOL_CALL_ERROR_TEMPLATE in one).
INVALID_TOOL_NAME_ERROR_TEMPLATE = (
    "Error: {requested_tool} is not a valid tool, try one of [{available_tools}]."
)
TOOL_CALL_ERROR_TEMPLATE = "Error: {error}\n Please fix your mistakes."
TOOL_EXECUTION_ERROR_TEMPLATE = (
    "Error executing tool '{tool_name}' with kwargs {tool_kwargs} with error:\n {error}\n"
    " Please fix the error and try again."
)
TOOL_INVOCATION_ERROR_TEMPLATE = (
    "Error invoking tool '{tool_name}' with kwargs {tool_kwargs} with error:\n {error}\n"
    " Please fix the error and try again."
)


class ToolInvocationError(ToolException):
    """The model called a tool with arguments that do not fit its schema.

    ``tool_kwargs`` are the model's arguments without the ones the graph injects;
    ``filtered_errors`` the validation errors (pydantic's dicts) about them.
    """

    def __init__(
        self,
        tool_name: str,
        source: Exception,
        tool_kwargs: dict[str, Any],
        problems: list[str],
        filtered_errors: list[Any] | None = None,
    ) -> None:
        self.tool_name = tool_name
        self.tool_kwargs = tool_kwargs
        self.source = source
        self.filtered_errors = filtered_errors
        self.message = TOOL_INVOCATION_ERROR_TEMPLATE.format(
            tool_name=tool_name, tool_kwargs=tool_kwargs, error="\n".join(problems)
        )
        super().__init__(self.message)


def invalid_arguments(
    tool_name: str, error: Any, kwargs: dict[str, Any], injected: InjectedArgs
) -> ToolInvocationError:
    """Turn a pydantic ValidationError into a ToolInvocationError that echoes only the
    model's own arguments (injected ones are the graph's business). Problems with what
    the graph fills in are left out; as in LangGraph, a plain ``InjectedToolArg`` nobody
    filled in is named (else the message would list no problem at all)."""
    hidden, supplied = injected.names, injected.supplied
    details = [d for d in error.errors() if d.get("loc") and d["loc"][0] not in supplied]
    problems = [
        f"{'.'.join(map(str, detail['loc']))}: {detail.get('msg', 'invalid')}" for detail in details
    ]
    shown = {key: value for key, value in kwargs.items() if key not in hidden}
    return ToolInvocationError(tool_name, error, shown, problems, details)


def default_handle_tool_errors(error: Exception) -> str:
    """LangGraph's default: answer arguments that do not fit the tool with an error
    ToolMessage (so the model can retry), and let every other error end the run."""
    if isinstance(error, ToolInvocationError):
        return error.message
    raise error


@dataclass(frozen=True)
class ErrorPolicy:
    """``handle_tool_errors`` checked once: which errors become ToolMessages, and how."""

    flag: Any
    handled: tuple[type[BaseException], ...]

    @classmethod
    def of(cls, flag: Any) -> ErrorPolicy:
        if not flag:  # (None, 0, "", (): as False, errors end the run, as in LangGraph)
            return cls(flag, ())
        if _is_error_class(flag):
            return cls(flag, (flag,))
        if isinstance(flag, tuple):
            return cls(flag, flag)
        if isinstance(flag, (bool, str, type)):  # (another class, e.g. str: called)
            return cls(flag, (Exception,))
        if callable(flag):
            return cls(flag, _annotated_error_types(flag))
        raise ValueError(
            f"ToolNode(handle_tool_errors={flag!r}): expected a bool, a string, an exception "
            "class (or a tuple of them), or a function (error) -> str."
        )

    def handles(self, error: Exception) -> bool:
        """True when ``error`` becomes an error ToolMessage instead of ending the run."""
        return bool(self.flag) and isinstance(error, self.handled)

    def content(self, error: Exception) -> Any:
        """The text of the error ToolMessage (a handler function may still re-raise)."""
        if isinstance(self.flag, (bool, tuple)) or _is_error_class(self.flag):
            return TOOL_CALL_ERROR_TEMPLATE.format(error=repr(error))
        if isinstance(self.flag, str):
            return self.flag
        return self.flag(error)


def _is_error_class(flag: Any) -> bool:
    return isinstance(flag, type) and issubclass(flag, Exception)


def _annotated_error_types(handler: Callable[..., Any]) -> tuple[type[BaseException], ...]:
    """The exception classes a handler's first parameter is annotated with."""
    parameters = list(inspect.signature(handler).parameters.values())
    if not parameters:
        return (Exception,)
    is_method = parameters[0].name in ("self", "cls") and len(parameters) == 2
    first = parameters[1] if is_method else parameters[0]
    hint = get_type_hints(handler).get(first.name)
    if hint is None:
        return (Exception,)
    classes = get_args(hint) if get_origin(hint) in (Union, UnionType) else (hint,)
    if not all(isinstance(c, type) and issubclass(c, Exception) for c in classes):
        raise ValueError(
            f"handle_tool_errors={getattr(handler, '__name__', handler)!r}: its first "
            f"parameter is annotated {hint!r}; annotate it with exception classes, e.g. "
            "`def handler(error: ValueError | KeyError) -> str`, or not at all."
        )
    return tuple(classes)


def content_of(output: Any) -> Any:
    """A ToolMessage's content: text and content blocks as they are, anything else as
    JSON, or its ``str()`` when it is not JSON-serializable."""
    if isinstance(output, str):
        return output
    if isinstance(output, list) and all(
        isinstance(item, dict) and item.get("type") in TOOL_MESSAGE_BLOCK_TYPES for item in output
    ):
        return output
    try:
        return json.dumps(output, ensure_ascii=False)
    except Exception:
        return str(output)


def check_command(
    command: Command,
    call: dict[str, Any],
    input_type: str,
    messages_key: str,
    *,
    require_answer: bool = True,
) -> Command:
    """Check that a tool's Command answers its call with a ToolMessage (and name that
    message after the tool), as every tool call needs an answer in the history."""
    if isinstance(command.update, dict):
        if input_type not in ("dict", "tool_calls"):
            raise ValueError(
                f"Tool {call['name']!r} returned Command(update={{...}}), a dict, but this "
                "ToolNode was given a plain list of messages; give it a state dict with a "
                f"{messages_key!r} key, or return Command(update=[ToolMessage(...)])."
            )
        command = copy.deepcopy(command)
        messages = command.update.get(messages_key, [])
    elif isinstance(command.update, list):
        if input_type != "list":
            raise ValueError(
                f"Tool {call['name']!r} returned Command(update=[...]), a list, but this "
                f"ToolNode reads a state dict; return Command(update={{{messages_key!r}: "
                "[ToolMessage(...)]}) instead."
            )
        command = copy.deepcopy(command)
        messages = command.update
    else:
        return command
    messages = convert_to_messages(messages)
    if messages == [RemoveMessage(id=REMOVE_ALL_MESSAGES)]:
        return command
    answered = False
    for message in messages:
        if isinstance(message, ToolMessage) and message.tool_call_id == call["id"]:
            message.name = call["name"]
            answered = True
    if require_answer and command.graph is None and not answered:
        raise ValueError(
            f"Tool {call['name']!r} returned a Command without a ToolMessage answering its "
            f"call (tool_call_id={call['id']!r}); every tool call in the history needs one. "
            "Add it to the update, e.g. Command(update={'messages': [ToolMessage('done', "
            "tool_call_id=tool_call_id)]}) with tool_call_id: Annotated[str, "
            "InjectedToolCallId]."
        )
    return command


def check_answers(
    items: list[Any], call: dict[str, Any], input_type: str, messages_key: str
) -> list[Any]:
    """A tool returned a list of ToolMessages and Commands: exactly one must answer."""
    answers = 0
    for item in items:
        if isinstance(item, ToolMessage):
            answers += item.tool_call_id == call["id"]
        elif isinstance(item, Command) and isinstance(item.update, dict):
            answers += sum(
                isinstance(m, ToolMessage) and m.tool_call_id == call["id"]
                for m in item.update.get(messages_key, [])
            )
    if answers != 1:
        raise ValueError(
            f"Tool {call['name']!r} returned {answers} messages answering tool call "
            f"{call['id']!r}; exactly one ToolMessage must answer it."
        )
    checked = []
    for item in items:
        if isinstance(item, Command):
            item = check_command(item, call, input_type, messages_key, require_answer=False)
        else:
            item.content = content_of(item.content)
        checked.append(item)
    return checked


# -- Commands tools return ------------------------------------------------------------


def plain_command(value: Any) -> Any:
    """graphkit's own Command for a LangGraph Command a tool returned (so tools written
    for LangGraph work); anything else unchanged (a graphkit Command passes langchain-core
    as it is: ``graphkit.types.as_tool_output``)."""
    if isinstance(value, list):
        return [plain_command(item) for item in value]
    is_langgraph = type(value).__name__ == "Command" and type(value).__module__.startswith(
        "langgraph"
    )
    if not is_langgraph:
        return value
    goto = value.goto
    if isinstance(goto, (list, tuple)):
        goto = type(goto)(_plain_send(target) for target in goto)
    else:
        goto = _plain_send(goto)
    return Command(update=value.update, goto=goto, graph=value.graph, resume=value.resume)


def _plain_send(target: Any) -> Any:
    if type(target).__name__ == "Send" and not isinstance(target, Send):
        return Send(target.node, target.arg)
    return target
