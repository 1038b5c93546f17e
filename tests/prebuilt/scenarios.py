"""The agent scenarios run on both libraries: tools, scripts and options for each.

No `from __future__ import annotations` here: tools and schemas built inside functions
annotate with names local to the function, which must be evaluated right away.
"""

from typing import Annotated, Any, NotRequired

from langchain_core.messages import AIMessage, RemoveMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import InjectedToolCallId, tool
from pydantic import BaseModel
from typing_extensions import TypedDict

from graphkit.prebuilt import REMOVE_ALL_MESSAGES, add_messages

from .harness import Scenario, Side

# -- tools ------------------------------------------------------------------------------


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def multiply(a: int, b: int) -> int:
    """Multiply two numbers."""
    return a * b


@tool
def explode(a: int) -> int:
    """A tool that always fails."""
    raise ValueError(f"cannot handle {a}")


@tool(return_direct=True)
def lookup(query: str) -> str:
    """Look something up; its answer is the agent's answer."""
    return f"found {query}"


class Opaque:
    """Not JSON, not a message: a tool result that must be turned into text."""

    def __repr__(self) -> str:
        return "Opaque()"


@tool
def opaque() -> object:
    """Return an object that is not JSON-serializable."""
    return Opaque()


@tool(response_format="content_and_artifact")
def with_artifact() -> tuple[str, Any]:
    """Return text for the model and an artifact no checkpoint can store."""
    return "made it", Opaque()


class Weather(BaseModel):
    """The weather in a city."""

    city: str
    sunny: bool


def remembering(side: Side) -> Any:
    @tool
    def remember(note: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Any:
        """Save a note in the state."""
        message = ToolMessage(f"saved {note}", tool_call_id=tool_call_id)
        return side.Command(update={"notes": [note], "messages": [message]})

    return remember


def counting(side: Side) -> Any:
    @tool
    def count_messages(messages: Annotated[list, side.InjectedState("messages")]) -> int:
        """Count the messages so far."""
        return len(messages)

    return count_messages


def notes_schema(side: Side) -> type:
    class NotesState(TypedDict):
        messages: Annotated[list, add_messages]
        remaining_steps: NotRequired[side.RemainingSteps]
        notes: Annotated[list, lambda left, right: left + right]

    return NotesState


# -- scripts ----------------------------------------------------------------------------


def call(name: str, args: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id}


def calls(*tool_calls: dict[str, Any], content: str = "") -> AIMessage:
    return AIMessage(content, tool_calls=list(tool_calls))


def keep_last(state: dict[str, Any]) -> dict[str, Any]:
    return {"llm_input_messages": state["messages"][-1:]}


def keep_last_two(state: dict[str, Any]) -> dict[str, Any]:
    return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *state["messages"][-2:]]}


def add_then(final: str = "done") -> list[Any]:
    return [calls(call("add", {"a": 1, "b": 2}, "c1")), final]


def always_calling() -> list[Any]:
    return [calls(call("add", {"a": i, "b": 1}, f"c{i}")) for i in range(10)]


def doubling_arguments(request: Any, execute: Any) -> Any:
    """A ``wrap_tool_call``: the call runs with every argument doubled."""
    args = {key: value * 2 for key, value in request.tool_call["args"].items()}
    return execute(request.override(tool_call={**request.tool_call, "args": args}))


TWO_CALLS = (call("add", {"a": 1, "b": 2}, "c1"), call("multiply", {"a": 3, "b": 4}, "c2"))
MALFORMED = AIMessage(
    "",
    invalid_tool_calls=[
        {
            "name": "add",
            "args": "{'a': 1,",
            "id": "c1",
            "error": "bad JSON",
            "type": "invalid_tool_call",
        }
    ],
)

SCENARIOS = [
    Scenario("no tool call", lambda: ["hello"], lambda side: [add]),
    Scenario("one call", add_then, lambda side: [add]),
    Scenario(
        "two parallel calls (v2)",
        lambda: [calls(*TWO_CALLS), "3 and 12"],
        lambda side: [add, multiply],
    ),
    Scenario(
        "two parallel calls (v1)",
        lambda: [calls(*TWO_CALLS), "3 and 12"],
        lambda side: [add, multiply],
        lambda side: {"version": "v1"},
    ),
    Scenario(
        "unknown tool",
        lambda: [calls(call("divide", {"a": 1, "b": 2}, "c1")), "sorry"],
        lambda side: [add, multiply],
        error_facts=("divide", "add", "multiply"),
    ),
    Scenario(
        "tool raising (default: the run fails)",
        lambda: [calls(call("explode", {"a": 7}, "c1")), "unreachable"],
        lambda side: [explode],
        raises="ValueError",
    ),
    Scenario(
        "tool raising (handle_tool_errors=True)",
        lambda: [calls(call("explode", {"a": 7}, "c1")), "it failed"],
        lambda side: side.ToolNode([explode], handle_tool_errors=True),
        error_facts=("ValueError('cannot handle 7')",),
    ),
    Scenario(
        "a ToolNode whose wrap_tool_call doubles the arguments (v2: a Send per call)",
        lambda: [calls(*TWO_CALLS), "wrapped"],
        lambda side: side.ToolNode([add, multiply], wrap_tool_call=doubling_arguments),
    ),
    Scenario(
        "a ToolNode whose wrap_tool_call doubles the arguments (v1: one task)",
        lambda: [calls(*TWO_CALLS), "wrapped"],
        lambda side: side.ToolNode([add, multiply], wrap_tool_call=doubling_arguments),
        options=lambda side: {"version": "v1"},
    ),
    Scenario(
        "arguments that do not fit the tool",
        lambda: [calls(call("add", {"a": "x"}, "c1")), "oops"],
        lambda side: [add],
        error_facts=("add", "'a'", "'x'", "b: Field required"),
    ),
    Scenario(
        "return_direct tool",
        lambda: [calls(call("lookup", {"query": "tea"}, "c1")), "unreachable"],
        lambda side: [lookup, add],
    ),
    Scenario(
        "return_direct among parallel calls (v2)",
        lambda: [calls(call("add", {"a": 1, "b": 1}, "c1"), call("lookup", {"query": "x"}, "c2"))],
        lambda side: [lookup, add],
    ),
    Scenario(
        "structured response",
        lambda: [*add_then("sunny"), calls(call("Weather", {"city": "Oslo", "sunny": True}, "s1"))],
        lambda side: [add],
        lambda side: {"response_format": Weather},
    ),
    Scenario(
        "structured response with its own prompt",
        lambda: ["sunny", calls(call("Weather", {"city": "Rome", "sunny": True}, "s1"))],
        lambda side: [add],
        lambda side: {"response_format": ("Answer as JSON.", Weather)},
    ),
    Scenario(
        "pre-model hook: llm_input_messages",
        lambda: add_then(),
        lambda side: [add],
        lambda side: {"pre_model_hook": keep_last},
    ),
    Scenario(
        "pre-model hook: overwrite the history",
        lambda: add_then(),
        lambda side: [add],
        lambda side: {"pre_model_hook": keep_last_two},
        input=lambda: {"messages": [("user", "one"), ("ai", "two"), ("user", "three")]},
    ),
    Scenario(
        "post-model hook",
        add_then,
        lambda side: [add],
        lambda side: {"post_model_hook": lambda state: {}},
    ),
    Scenario(
        "remaining steps run out (limit 4)", always_calling, lambda side: [add], recursion_limit=4
    ),
    Scenario(
        "remaining steps run out (limit 6)", always_calling, lambda side: [add], recursion_limit=6
    ),
    Scenario(
        "remaining steps run out, then the limit (5)",
        always_calling,
        lambda side: [add],
        recursion_limit=5,
        raises="GraphRecursionError",
    ),
    Scenario("prompt: string", add_then, lambda side: [add], lambda side: {"prompt": "Be brief."}),
    Scenario(
        "prompt: SystemMessage",
        add_then,
        lambda side: [add],
        lambda side: {"prompt": SystemMessage("Be kind.", id="sys")},
    ),
    Scenario(
        "prompt: function",
        add_then,
        lambda side: [add],
        lambda side: {"prompt": lambda state: [("system", "Count."), *state["messages"]]},
    ),
    Scenario(
        "prompt: Runnable",
        add_then,
        lambda side: [add],
        lambda side: {"prompt": RunnableLambda(lambda state: state["messages"][-1:])},
    ),
    Scenario(
        "tool returning a Command",
        lambda: [calls(call("remember", {"note": "milk"}, "c1")), "noted"],
        lambda side: [remembering(side)],
        lambda side: {"state_schema": notes_schema(side)},
        input=lambda: {"messages": [("user", "remember milk")], "notes": []},
    ),
    Scenario(
        "InjectedState tool",
        lambda: [calls(call("count_messages", {}, "c1")), "two"],
        lambda side: [counting(side)],
    ),
    Scenario(
        "malformed tool call (invalid_tool_calls)", lambda: [MALFORMED, "x"], lambda side: [add]
    ),
    Scenario(
        "tool returning an unserializable object",
        lambda: [calls(call("opaque", {}, "c1")), "ok"],
        lambda side: [opaque],
    ),
    Scenario(
        "tool artifact no checkpoint can store",
        lambda: [calls(call("with_artifact", {}, "c1")), "ok"],
        lambda side: [with_artifact],
        raises="TypeError",
        serializing=True,
        # LangGraph saves checkpoints in the background, so its next step (and model call)
        # starts before the failed save surfaces; graphkit's SqliteSaver fails as the tools
        # task's write is saved. The error and the saved history are the same.
        compared=("history", "values", "supersteps", "error"),
    ),
    Scenario(
        "empty history", lambda: ["hello?"], lambda side: [add], input=lambda: {"messages": []}
    ),
    Scenario("no messages key", lambda: ["hello?"], lambda side: [add], input=lambda: {}),
    Scenario("no tools at all", lambda: ["just text"], lambda side: []),
    Scenario(
        "model chosen per call",
        add_then,
        lambda side: [add],
        model=lambda scripted: lambda state, runtime: scripted.bind_tools([add]),
    ),
    Scenario("named agent", add_then, lambda side: [add], lambda side: {"name": "helper"}),
    Scenario(
        "provider tool given as a dict",
        add_then,
        lambda side: [add, {"type": "function", "function": {"name": "web", "parameters": {}}}],
    ),
    Scenario(
        "history with an unanswered tool call",
        lambda: ["x"],
        lambda side: [add],
        input=lambda: {"messages": [("user", "hi"), calls(call("add", {}, "c0"))]},
        raises="ValueError",
    ),
]
