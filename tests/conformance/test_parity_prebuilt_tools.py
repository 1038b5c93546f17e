"""Tools as LangGraph's ToolNode runs them: the error texts the model reads are
LangGraph's word for word; async tools run on the caller's event loop (sharing its locks
and sessions); ``ToolRuntime[Context]`` types a tool's runtime, which carries the task's
``execution_info``; bare tool calls sent with ``Send`` see the graph's state; and the
names LangGraph's tutorials import from ``langgraph.graph.message`` are there."""

import asyncio
import importlib
from typing import Annotated, Any

import pytest
from langchain_core.messages import AIMessage
from langchain_core.tools import tool


def _prebuilt(name: str) -> Any:
    return importlib.import_module(
        "langgraph.prebuilt" if name == "langgraph" else "graphkit.prebuilt"
    )


def _asking(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"messages": [AIMessage("", tool_calls=list(calls))]}


def _graph_of(name: str, node: Any, **compile_options: Any) -> Any:
    """``node`` as the one node of a messages graph (LangGraph's ToolNode runs in a graph)."""
    lib = importlib.import_module("langgraph.graph" if name == "langgraph" else "graphkit.graph")
    builder = lib.StateGraph(lib.MessagesState, **compile_options).add_node("tools", node)
    return builder.add_edge(lib.START, "tools").compile()


def _call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args, "id": f"c-{name}", "type": "tool_call"}


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def boom(x: int) -> int:
    """Fail."""
    raise ValueError("bad input")


@pytest.mark.parametrize(
    "case, handling",
    [
        ("unknown tool", {}),
        ("arguments that do not fit", {}),
        ("a tool that raises", {"handle_tool_errors": True}),
    ],
)
def test_the_error_a_model_reads_is_langgraphs(case, handling):
    calls = {
        "unknown tool": _call("mul", a=1),
        "arguments that do not fit": _call("add", a="x"),
        "a tool that raises": _call("boom", x=1),
    }

    def answer(name: str) -> tuple[str, str]:
        graph = _graph_of(name, _prebuilt(name).ToolNode([add, boom], **handling))
        message = graph.invoke(_asking(calls[case]))["messages"][-1]
        return message.status, message.content

    expected = answer("langgraph")
    assert answer("graphkit") == expected
    assert expected[0] == "error"


def test_an_async_tool_runs_on_the_callers_event_loop():
    def observe(name: str) -> list[str]:
        async def main() -> list[str]:
            loop = asyncio.get_running_loop()

            @tool
            async def where(x: int) -> str:
                """Which event loop runs it."""
                return f"same loop: {asyncio.get_running_loop() is loop}"

            graph = _graph_of(name, _prebuilt(name).ToolNode([where]))
            result = await graph.ainvoke(_asking(_call("where", x=1)))
            return [message.content for message in result["messages"][1:]]

        return asyncio.run(main())

    assert observe("graphkit") == observe("langgraph") == ["same loop: True"]


def test_a_tool_runtime_typed_with_its_context_gets_the_tasks_execution_info():
    from dataclasses import dataclass

    @dataclass
    class Context:
        user: str

    def observe(name: str) -> list[Any]:
        prebuilt = _prebuilt(name)
        ToolRuntime = prebuilt.ToolRuntime

        @tool
        def whoami(runtime: ToolRuntime[Context]) -> str:  # type: ignore[valid-type]
            """Who is asking."""
            attempt, server = runtime.execution_info.node_attempt, runtime.server_info
            return f"{runtime.context.user} attempt={attempt} server={server}"

        app = _graph_of(name, prebuilt.ToolNode([whoami]), context_schema=Context)
        out = app.invoke(_asking(_call("whoami")), context=Context("ada"))
        return [message.content for message in out["messages"][1:]]

    assert observe("graphkit") == observe("langgraph") == ["ada attempt=1 server=None"]


def test_langgraph_graph_message_names_import_from_graphkit():
    names = ["AnyMessage", "add_messages", "Messages", "BaseMessage", "convert_to_messages"]
    graphkit_module = importlib.import_module("graphkit.graph.message")
    langgraph_module = importlib.import_module("langgraph.graph.message")
    for name in names:
        ours, theirs = getattr(graphkit_module, name), getattr(langgraph_module, name)
        if name not in ("add_messages", "Messages"):
            assert ours is theirs  # langchain-core's own


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # (LangGraph's: moved to langchain)
def test_the_pydantic_agent_states_and_the_older_agent_name_are_there():
    from langchain_core.messages import HumanMessage

    def observe(name: str) -> list[Any]:
        module = importlib.import_module(
            f"{'langgraph' if name == 'langgraph' else 'graphkit'}.prebuilt.chat_agent_executor"
        )
        assert module.create_tool_calling_executor is module.create_react_agent
        fields = sorted(module.AgentStateWithStructuredResponsePydantic.model_fields)

        class Memory(module.AgentStatePydantic):
            user: str = "ada"

        model = importlib.import_module("graphkit.prebuilt").ScriptedChatModel(responses=["hi"])
        agent = module.create_react_agent(model, [], state_schema=Memory)
        result = agent.invoke({"messages": [HumanMessage("hello", id="h")]})
        return [fields, [m.content for m in result["messages"]], result.get("user")]

    assert observe("graphkit") == observe("langgraph")


@pytest.mark.parametrize("how", ["invoke", "ainvoke"])
def test_bare_tool_calls_sent_to_a_tool_node_see_the_graphs_state(how):
    """``Send("tools", [tool_call])`` carries no state: the tool's ``InjectedState``,
    its ``ToolRuntime.state`` and a ``wrap_tool_call`` request read the graph's (with
    the managed ``remaining_steps``, as the node reads them)."""
    seen = {}
    for name in ["langgraph", "graphkit"]:
        prebuilt = _prebuilt(name)
        graph = importlib.import_module(f"{name}.graph")
        send = importlib.import_module(f"{name}.types").Send
        agent_state = importlib.import_module(f"{name}.prebuilt.chat_agent_executor").AgentState

        class State(agent_state):
            files: dict

        @tool
        def look(
            files: Annotated[dict, prebuilt.InjectedState("files")],
            state: Annotated[dict, prebuilt.InjectedState],
            runtime: prebuilt.ToolRuntime,
        ) -> str:
            """Read the state."""
            return repr((files, sorted(state), sorted(runtime.state)))

        requests = []

        def wrapper(request, execute, requests=requests):
            requests.append(sorted(request.state))
            return execute(request)

        call = _call("look")
        asking = {"messages": [AIMessage("", tool_calls=[call])]}
        builder = graph.StateGraph(State)
        builder.add_node("agent", lambda state, asking=asking: asking)
        builder.add_node("tools", prebuilt.ToolNode([look], wrap_tool_call=wrapper))
        builder.add_edge(graph.START, "agent")
        sent = [send("tools", [call])]
        builder.add_conditional_edges("agent", lambda state, sent=sent: sent, ["tools"])
        app = builder.compile()
        given = {"messages": [("user", "hi")], "files": {"a.md": "body"}}
        result = asyncio.run(app.ainvoke(given)) if how == "ainvoke" else app.invoke(given)
        seen[name] = (result["messages"][-1].content, requests)
    assert seen["graphkit"] == seen["langgraph"]
    assert "'a.md'" in seen["langgraph"][0]
