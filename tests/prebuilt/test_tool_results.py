"""Error policies, tool output as message content, and Commands leaving tools."""

from typing import Annotated, Any

import pytest
from langchain_core.messages import RemoveMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool

from graphkit import Command, Send
from graphkit.prebuilt import REMOVE_ALL_MESSAGES, ToolInvocationError
from graphkit.prebuilt.tool_results import (
    ErrorPolicy,
    check_command,
    content_of,
    default_handle_tool_errors,
    plain_command,
)

CALL = {"name": "finish", "args": {}, "id": "c1"}


def by_value_or_key(error: ValueError | KeyError) -> str:
    return "handled"


def untyped(error) -> str:
    return "any"


@pytest.mark.parametrize(
    ("flag", "error", "handled", "content"),
    [
        (
            True,
            RuntimeError("x"),
            True,
            "Error: RuntimeError('x')\n Please fix your mistakes.",
        ),
        (False, RuntimeError("x"), False, None),
        ("Try again.", RuntimeError("x"), True, "Try again."),
        ("", RuntimeError("x"), False, None),
        (KeyError, KeyError("k"), True, "Error: KeyError('k')\n Please fix your mistakes."),
        (KeyError, ValueError("v"), False, None),
        ((KeyError, ValueError), ValueError("v"), True, None),
        (by_value_or_key, KeyError("k"), True, "handled"),
        (by_value_or_key, TypeError("t"), False, None),
        (untyped, TypeError("t"), True, "any"),
    ],
)
def test_error_policy(flag: Any, error: Exception, handled: bool, content: str | None) -> None:
    policy = ErrorPolicy.of(flag)
    assert policy.handles(error) is handled
    if content is not None:
        assert policy.content(error) == content


def test_bad_policies_are_refused_when_the_node_is_built() -> None:
    def odd(error: int) -> str:
        return ""

    with pytest.raises(ValueError, match="annotate it with exception classes"):
        ErrorPolicy.of(odd)
    with pytest.raises(ValueError, match="expected a bool"):
        ErrorPolicy.of(3.5)


def test_the_default_answers_only_bad_arguments() -> None:
    bad = ToolInvocationError("add", ValueError("x"), {"a": "x"}, ["a: not an int"])
    assert "a: not an int" in default_handle_tool_errors(bad)
    with pytest.raises(RuntimeError):
        default_handle_tool_errors(RuntimeError("boom"))


def test_content_of() -> None:
    assert content_of("text") == "text"
    blocks = [{"type": "text", "text": "hi"}]
    assert content_of(blocks) is blocks
    assert content_of({"ok": True, "name": "Zoë"}) == '{"ok": true, "name": "Zoë"}'
    assert content_of({1, 2}) == "{1, 2}"


def test_a_command_must_answer_its_call() -> None:
    answer = ToolMessage("done", tool_call_id="c1")
    checked = check_command(Command(update={"messages": [answer]}), CALL, "dict", "messages")
    assert checked.update["messages"][0].name == "finish"
    assert answer.name is None  # the tool's own Command is left as it was
    with pytest.raises(ValueError, match="without a ToolMessage answering"):
        check_command(Command(update={"messages": []}), CALL, "dict", "messages")
    parent = Command(update={"messages": []}, graph=Command.PARENT)
    assert check_command(parent, CALL, "dict", "messages").graph == Command.PARENT
    clear = Command(update={"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES)]})
    assert check_command(clear, CALL, "dict", "messages") == clear


def test_update_shape_must_fit_the_input() -> None:
    with pytest.raises(ValueError, match="given a plain list of messages"):
        check_command(Command(update={"messages": []}), CALL, "list", "messages")
    with pytest.raises(ValueError, match="reads a state dict"):
        check_command(Command(update=[]), CALL, "dict", "messages")


def test_commands_pass_through_langchain_core_tools() -> None:
    @tool
    def finish(tool_call_id: Annotated[str, InjectedToolCallId]) -> Any:
        """Finish."""
        return Command(update={"x": 1}, goto=[Send("a", 1)])

    passed = finish.invoke({**CALL, "type": "tool_call"})  # (a ToolOutputMixin, as LangGraph's)
    assert type(passed) is Command and not isinstance(passed, ToolMessage)
    assert plain_command(passed) == Command(update={"x": 1}, goto=[Send("a", 1)])


def test_langgraph_commands_and_sends_become_graphkit_ones() -> None:
    from langgraph.types import Command as LangGraphCommand
    from langgraph.types import Send as LangGraphSend

    converted = plain_command(
        LangGraphCommand(goto=[LangGraphSend("a", {"n": 1})], update={"k": 2})
    )
    assert converted == Command(update={"k": 2}, goto=[Send("a", {"n": 1})])
    assert plain_command("anything else") == "anything else"
