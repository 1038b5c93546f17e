"""ToolNode's less common arguments and LangGraph's message helpers, on both libraries:
a false ``handle_tool_errors`` (``None``, ``0``) lets errors end the run, a class that
is not an exception is called as a handler, a handler reads ``filtered_errors``;
``tags`` do not reach the tools; ToolNode is a langchain-core Runnable whose
``tools_by_name`` is live; ``push_message`` streams a message from inside a node and
writes it to the state; the names LangGraph's modules export at these paths; and an
agent's graph drawn with ``draw_mermaid(with_styles=False)``."""

import importlib
import re
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.tools import InjectedToolArg, tool

from graphkit.prebuilt import ScriptedChatModel

SIDES = ("langgraph", "graphkit")


def _names(side: str) -> Any:
    """StateGraph, START, MessagesState, ToolNode, push_message of one library."""
    if side == "langgraph":
        from langgraph.graph import START, MessagesState, StateGraph
        from langgraph.graph.message import push_message
        from langgraph.prebuilt import ToolNode
    else:
        from graphkit.graph import START, StateGraph
        from graphkit.graph.message import MessagesState, push_message
        from graphkit.prebuilt import ToolNode
    return StateGraph, START, MessagesState, ToolNode, push_message


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def boom(x: int) -> str:
    """Always fails."""
    raise ValueError("bad input")


def _call(name: str, args: dict[str, Any], call_id: str = "c1") -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": call_id}])


def _tool_run(side: str, node_of: Any, message: AIMessage) -> Any:
    """The last message of a one-node graph running ``node_of(ToolNode)``, or the error."""
    StateGraph, START, MessagesState, ToolNode, _ = _names(side)
    builder = StateGraph(MessagesState).add_node("tools", node_of(ToolNode))
    app = builder.add_edge(START, "tools").compile()
    try:
        last = app.invoke({"messages": [message]})["messages"][-1]
    except Exception as error:
        return type(error).__name__
    return (last.content, last.status)


@pytest.mark.parametrize("flag", [None, 0, False])
def test_a_false_handle_tool_errors_lets_errors_end_the_run(flag: Any) -> None:
    seen = [
        (
            _tool_run(
                side, lambda T: T([add], handle_tool_errors=flag), _call("add", {"a": 1, "b": 2})
            ),
            _tool_run(side, lambda T: T([boom], handle_tool_errors=flag), _call("boom", {"x": 1})),
        )
        for side in SIDES
    ]
    assert seen[0] == seen[1] == (("3", "success"), "ValueError")


def test_a_class_that_is_not_an_exception_is_called_as_a_handler() -> None:
    seen = [
        _tool_run(side, lambda T: T([boom], handle_tool_errors=str), _call("boom", {"x": 1}))
        for side in SIDES
    ]
    assert seen[0] == seen[1] == ("bad input", "error")


def test_a_handler_reads_the_filtered_validation_errors() -> None:
    def handler(error: Exception) -> str:
        details = error.filtered_errors  # type: ignore[attr-defined]
        return "; ".join(f"{'.'.join(map(str, d['loc']))}: {d['type']}" for d in details)

    seen = [
        _tool_run(
            side, lambda T: T([add], handle_tool_errors=handler), _call("add", {"a": "x", "b": 2})
        )
        for side in SIDES
    ]
    assert seen[0] == seen[1] == ("a: int_parsing", "error")


@tool
def lookup(query: str, auth: Annotated[str, InjectedToolArg]) -> str:
    """Look a query up (``auth`` is the caller's to give; a graph gives it nothing)."""
    return query + auth


@pytest.mark.parametrize("args", [{"query": "x"}, {}])
def test_an_injected_tool_arg_nobody_filled_in_is_named_in_the_error(args: dict) -> None:
    """ToolNode fills in the state, the store and the runtime; a plain ``InjectedToolArg``
    it leaves missing is the problem the model is told about (graphkit's message had
    listed no problem at all)."""
    seen = [_tool_run(side, lambda T: T([lookup]), _call("lookup", args)) for side in SIDES]
    assert seen[0] == seen[1]
    assert "auth: Field required" in seen[1][0]


def _asking_tool(model: Any, tags_seen: list[Any]) -> Any:
    @tool
    def ask(question: str, config: RunnableConfig) -> str:
        """Asks a chat model."""
        tags_seen.append(config.get("tags"))
        return str(model.invoke([HumanMessage(question)], config).content)

    return ask


@pytest.mark.parametrize("tags", [["tn"], ["nostream"]])
def test_toolnode_tags_do_not_reach_its_tools(tags: list[str]) -> None:
    """LangGraph runs a ToolNode untraced, so its ``tags`` never reach a tool's config,
    nor a model the tool calls (whose tokens stream even with "nostream")."""
    seen = []
    for side in SIDES:
        StateGraph, START, MessagesState, ToolNode, _ = _names(side)
        inner = GenericFakeChatModel(messages=iter([AIMessage("inner words", id="im")]))
        tags_seen: list[Any] = []

        ask = _asking_tool(inner, tags_seen)

        builder = StateGraph(MessagesState).add_node("tools", ToolNode([ask], tags=tags))
        app = builder.add_edge(START, "tools").compile()
        given = {"messages": [_call("ask", {"question": "q"})]}
        chunks = [
            (type(message).__name__, message.content, meta.get("tags"))
            for message, meta in app.stream(given, stream_mode="messages")
        ]
        seen.append((tags_seen, chunks))
    assert seen[0] == seen[1]
    assert seen[1][0] == [[]] and len(seen[1][1]) > 1


def test_toolnode_is_a_runnable_with_a_live_tools_by_name() -> None:
    @tool
    def mul(a: int, b: int) -> int:
        """Multiply two numbers."""
        return a * b

    seen = []
    for side in SIDES:
        StateGraph, START, MessagesState, ToolNode, _ = _names(side)
        node = ToolNode([add], name="my_tools")
        node.tools_by_name["mul"] = mul  # (LangGraph's dict is the node's own)
        builder = StateGraph(MessagesState).add_node("tools", node)
        app = builder.add_edge(START, "tools").compile()
        answered = app.invoke({"messages": [_call("mul", {"a": 3, "b": 4})]})["messages"][-1]
        piped = node | (lambda messages: messages)
        configured = node.with_config(tags=["x"])
        kinds = (type(piped).__name__, type(configured).__name__)
        seen.append((isinstance(node, Runnable), node.get_name(), answered.content, kinds))
    assert seen[0] == seen[1]
    assert seen[1] == (True, "my_tools", "12", ("RunnableSequence", "RunnableBinding"))


def _collect(items: list[Any], more: Any) -> list[Any]:
    return items + (more if isinstance(more, list) else [more])


class Chat(TypedDict):
    messages: Annotated[list, _collect]
    log: Annotated[list, _collect]


def _pushing_graph(side: str, state_key: str | None) -> Any:
    StateGraph, START, _, _, push_message = _names(side)

    def speak(state: Any) -> dict[str, Any]:
        pushed = push_message(AIMessage("working", id="note-1"), state_key=state_key)
        return {"messages": [AIMessage("done", id="answer-1")], "log": [pushed.id]}

    inner = StateGraph(Chat).add_node("speak", speak).add_edge(START, "speak").compile()
    outer = StateGraph(Chat).add_node("sub", inner).add_node("speak", speak)
    return outer.add_edge(START, "sub").add_edge("sub", "speak").compile()


@pytest.mark.parametrize("state_key", ["messages", "log", None])
@pytest.mark.parametrize("subgraphs", [False, True])
def test_push_message_streams_now_and_writes_the_state(
    state_key: str | None, subgraphs: bool
) -> None:
    seen = []
    for side in SIDES:
        app = _pushing_graph(side, state_key)
        chunks = []
        for chunk in app.stream(
            {"messages": [], "log": []}, stream_mode=["messages", "updates"], subgraphs=subgraphs
        ):
            namespace, mode, payload = chunk if subgraphs else ((), *chunk)
            where = tuple(part.split(":")[0] for part in namespace)
            if mode == "messages":
                message, meta = payload
                chunks.append((where, mode, message.content, meta["langgraph_node"]))
            else:
                chunks.append((where, mode, sorted(payload)))
        final = app.invoke({"messages": [], "log": []})
        seen.append((chunks, [m.content for m in final["messages"]], final["log"]))
    assert seen[0] == seen[1]
    streamed = [chunk[2] for chunk in seen[1][0] if chunk[1] == "messages"]
    assert "working" in streamed


def test_push_message_needs_an_id_and_a_running_node() -> None:
    raised = []
    for side in SIDES:
        StateGraph, START, MessagesState, _, push_message = _names(side)

        def speak(state: Any, push: Any = push_message) -> dict[str, Any]:
            push(AIMessage("no id"))
            return {}

        app = StateGraph(MessagesState).add_node("speak", speak).add_edge(START, "speak").compile()
        with pytest.raises(ValueError):
            app.invoke({"messages": []})
        with pytest.raises(RuntimeError) as outside:
            push_message(AIMessage("x", id="1"))
        raised.append(type(outside.value))
    assert raised == [RuntimeError, RuntimeError]


def test_a_failed_node_streams_what_it_pushed_but_writes_nothing() -> None:
    seen = []
    for side in SIDES:
        StateGraph, START, MessagesState, _, push_message = _names(side)

        def speak(state: Any, push: Any = push_message) -> dict[str, Any]:
            push(AIMessage("working", id="note-1"))
            raise ValueError("model down")

        app = StateGraph(MessagesState).add_node("speak", speak).add_edge(START, "speak").compile()
        chunks = []
        with pytest.raises(ValueError):
            for message, _ in app.stream({"messages": []}, stream_mode="messages"):
                chunks.append(message.content)
        seen.append(chunks)
    assert seen[0] == seen[1] == ["working"]


@pytest.mark.parametrize(
    ("module", "names"),
    [
        (
            "prebuilt.tool_node",
            ["ToolCallWithContext", "ToolInvocationError", "msg_content_output"],
        ),
        (
            "prebuilt.chat_agent_executor",
            ["StructuredResponse", "StructuredResponseSchema", "Prompt"],
        ),
        ("graph.message", ["push_message"]),
    ],
)
def test_names_langgraph_exports_at_the_mirrored_paths(module: str, names: list[str]) -> None:
    for root in ("langgraph", "graphkit"):
        imported = importlib.import_module(f"{root}.{module}")
        assert [name for name in names if not hasattr(imported, name)] == [], root
    ours = importlib.import_module("graphkit.prebuilt.tool_node")
    assert ours.msg_content_output({"a": 1}) == '{"a": 1}'
    assert ours.msg_content_output([{"type": "text", "text": "hi"}]) == [
        {"type": "text", "text": "hi"}
    ]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("tools", [[], [add]], ids=["no tools", "a tool"])
@pytest.mark.parametrize("hooks", ["none", "pre", "post", "both"])
def test_an_agent_drawn_without_styles_names_the_same_nodes(hooks, tools):
    """``draw_mermaid(with_styles=False)`` (LangGraph's snapshot tests of the agent's
    shape call it) works on both, with no styling, and the arrows join the same nodes."""

    def hook(state: Any) -> dict:
        return {}

    options = {
        "none": {},
        "pre": {"pre_model_hook": hook},
        "post": {"post_model_hook": hook},
        "both": {"pre_model_hook": hook, "post_model_hook": hook},
    }[hooks]
    drawn = {}
    for side in SIDES:
        prebuilt = importlib.import_module(f"{side}.prebuilt")
        model = ScriptedChatModel(responses=[])  # (a chat model that binds tools, for both)
        agent = prebuilt.create_react_agent(model, tools, **options)
        text = agent.get_graph().draw_mermaid(with_styles=False, wrap_label_n_words=9)
        assert "classDef" not in text and ":::" not in text
        drawn[side] = set(re.findall(r"(\w+) -\.?->(?:\|[^|]*\|)? (\w+)", text))
    assert drawn["graphkit"] == drawn["langgraph"]


@pytest.mark.parametrize("direction", ["input", "output"])
def test_an_agents_structured_response_is_typed_as_langgraphs(direction: str) -> None:
    """``create_react_agent(response_format=...)``'s JSON schemas type the answer as a dict
    or a pydantic model, as LangGraph's ``AgentStateWithStructuredResponse`` does (it was
    ``Any``: a schema with no type)."""
    from pydantic import BaseModel

    class Weather(BaseModel):
        temperature: float

    def schema(side: str) -> Any:
        agents = importlib.import_module(f"{side}.prebuilt")
        agent = agents.create_react_agent(
            ScriptedChatModel(responses=["sunny"]), [], response_format=Weather
        )
        whole = getattr(agent, f"get_{direction}_jsonschema")()
        return whole["properties"]["structured_response"], whole["$defs"].get("BaseModel")

    with pytest.warns(Warning):  # (LangGraph deprecates create_react_agent)
        theirs = schema("langgraph")
    assert schema("graphkit") == theirs
