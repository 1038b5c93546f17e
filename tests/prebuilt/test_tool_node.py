"""ToolNode and tools_condition on their own and in a hand-built agent graph."""

import asyncio
import threading
from typing import Annotated, Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import InjectedToolCallId, tool

from graphkit import END, START, Command, StateGraph
from graphkit.prebuilt import MessagesState, ScriptedChatModel, ToolNode, tools_condition


def asking(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"messages": [HumanMessage("hi"), AIMessage("", tool_calls=list(calls))]}


def call(name: str, call_id: str = "c1", **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id}


def test_calls_of_one_message_run_in_parallel() -> None:
    both_running = threading.Barrier(2, timeout=5)

    @tool
    def wait(n: int) -> str:
        """Wait until the other call runs too."""
        both_running.wait()  # a BrokenBarrierError if the calls ran one after the other
        return f"done {n}"

    result = ToolNode([wait]).invoke(asking(call("wait", "a", n=1), call("wait", "b", n=2)))
    assert [(m.tool_call_id, m.content) for m in result["messages"]] == [
        ("a", "done 1"),
        ("b", "done 2"),
    ]


def test_plain_functions_become_tools_and_results_become_text() -> None:
    def listing() -> list[int]:
        """Some numbers."""
        return [1, 2]

    node = ToolNode([listing])
    assert list(node.tools_by_name) == ["listing"]
    (message,) = node.invoke(asking(call("listing")))["messages"]
    assert (message.content, message.name, message.status) == ("[1, 2]", "listing", "success")
    assert repr(node) == "ToolNode(name='tools', tools=['listing'])"


def test_unknown_tool_lists_the_tools_there_are() -> None:
    def one() -> int:
        """One."""
        return 1

    (message,) = ToolNode([one]).invoke(asking(call("two")))["messages"]
    assert message.status == "error" and message.name == "two"
    assert message.content == "Error: two is not a valid tool, try one of [one]."


def test_an_async_only_tool_invoked_alone_fails_as_in_a_graph_and_ainvoke_works() -> None:
    """Alone, as in a graph (see docs/decisions.md): ``invoke`` is a sync run, so an
    async-only tool fails there with langchain-core's error and the fix in a note."""

    @tool
    async def later(x: int) -> int:
        """Double, asynchronously."""
        await asyncio.sleep(0)
        return 2 * x

    node = ToolNode([later])
    with pytest.raises(NotImplementedError, match="does not support sync invocation") as caught:
        node.invoke(asking(call("later", x=2)))
    assert "ainvoke" in caught.value.__notes__[0]
    handled = ToolNode([later], handle_tool_errors=True).invoke(asking(call("later", x=2)))
    assert handled["messages"][0].status == "error"
    result = asyncio.run(node.ainvoke(asking(call("later", x=3))))
    assert result["messages"][0].content == "6"


def test_a_sync_wrapper_names_awrap_tool_call_as_the_fix() -> None:
    @tool
    async def later(x: int) -> int:
        """Double, asynchronously."""
        return 2 * x

    node = ToolNode([later], wrap_tool_call=lambda request, execute: execute(request))
    with pytest.raises(NotImplementedError) as caught:
        asyncio.run(node.ainvoke(asking(call("later", x=3))))
    assert "awrap_tool_call" in caught.value.__notes__[0]


def test_unsupported_options_are_named() -> None:
    with pytest.raises(TypeError, match="'colour'"):
        ToolNode([], colour="red")


def test_a_wrapper_sees_a_request_it_changes_by_copy() -> None:
    from graphkit.prebuilt.tool_node import ToolCallRequest

    seen = []

    def wrap(request: ToolCallRequest, execute: Any) -> Any:
        seen.append(request)
        changed = request.override(state={"messages": []})
        assert request.state != changed.state and changed.runtime.state == {"messages": []}
        with pytest.warns(DeprecationWarning, match=r"request.override\(tool_call=...\)"):
            request.tool_call = {**request.tool_call, "args": {"a": 5, "b": 5}}
        return execute(request)

    @tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    call = {"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}
    messages = ToolNode([add], wrap_tool_call=wrap).invoke([AIMessage("", tool_calls=[call])])
    assert [message.content for message in messages] == ["10"]
    assert seen[0].tool is add and seen[0].runtime.tool_call_id == "c1"


def test_tags_are_kept_but_do_not_reach_the_tool_config() -> None:
    """As LangGraph's, which runs its ToolNode untraced."""
    seen = []

    @tool
    def tagged(config: RunnableConfig) -> str:
        """Report the tags."""
        seen.append(config.get("tags", []))
        return "ok"

    node = ToolNode([tagged], tags=["lesson"])
    node.invoke(asking(call("tagged")))
    assert node.tags == ["lesson"] and "lesson" not in seen[0]


def test_tools_condition() -> None:
    assert tools_condition([AIMessage("", tool_calls=[call("x")])]) == "tools"
    assert tools_condition({"history": [AIMessage("done")]}, messages_key="history") == END
    with pytest.raises(ValueError, match="no messages"):
        tools_condition({"messages": []})


def hand_built_agent(model: Any, tools: list[Any]) -> Any:
    """The agent every tutorial builds by hand: model, tools_condition, ToolNode."""
    bound = model.bind_tools(tools)
    builder = StateGraph(MessagesState)
    builder.add_node("chatbot", lambda state: {"messages": [bound.invoke(state["messages"])]})
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "chatbot")
    builder.add_conditional_edges("chatbot", tools_condition)
    builder.add_edge("tools", "chatbot")
    return builder.compile()


def test_in_a_hand_built_agent_the_loop_is_visible_step_by_step() -> None:
    @tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    model = ScriptedChatModel(
        responses=[AIMessage("", tool_calls=[call("add", a=1, b=2)]), "1 + 2 = 3"]
    )
    run = hand_built_agent(model, [add]).trace({"messages": [("user", "1 + 2?")]})
    assert [step.plan.nodes for step in run.steps] == [
        ["__input__"],
        ["__start__"],
        ["chatbot"],
        ["tools"],
        ["chatbot"],
    ]
    assert [m.type for m in run.values["messages"]] == ["human", "ai", "tool", "ai"]


class Review(MessagesState):
    status: str


def test_a_tool_command_updates_state_and_routes() -> None:
    @tool
    def approve(tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
        """Approve and go to review."""
        answer = ToolMessage("approved", tool_call_id=tool_call_id)
        return Command(update={"messages": [answer], "status": "approved"}, goto="review")

    builder = StateGraph(Review)
    builder.add_node("tools", ToolNode([approve]), destinations=("review",))
    builder.add_node("review", lambda state: {"status": state["status"] + ", reviewed"})
    builder.add_edge(START, "tools")
    result = builder.compile().invoke({**asking(call("approve")), "status": "new"})
    assert result["status"] == "approved, reviewed"
    assert result["messages"][-1].name == "approve"


def test_langgraph_commands_from_tools_are_understood() -> None:
    from langgraph.types import Command as LangGraphCommand

    @tool
    def legacy(tool_call_id: Annotated[str, InjectedToolCallId]) -> Any:
        """A tool written for LangGraph."""
        answer = ToolMessage("ok", tool_call_id=tool_call_id)
        return LangGraphCommand(update={"messages": [answer], "status": "legacy"})

    (command,) = ToolNode([legacy]).invoke(asking(call("legacy")))
    assert isinstance(command, Command) and command.update["status"] == "legacy"


def test_sends_to_the_parent_graph_travel_in_one_command() -> None:
    from graphkit import Send

    @tool
    def fan_out(n: int) -> Command:
        """Ask the parent graph to run a node."""
        return Command(graph=Command.PARENT, goto=[Send("worker", n)])

    commands = ToolNode([fan_out]).invoke(
        asking(call("fan_out", "a", n=1), call("fan_out", "b", n=2))
    )
    assert commands == [Command(graph=Command.PARENT, goto=[Send("worker", 1), Send("worker", 2)])]


def test_tools_condition_without_a_path_map_draws_what_langgraph_draws():
    """Its return annotation names its two destinations, so no phantom self-edge."""
    from langgraph.graph import MessagesState as LangMessagesState
    from langgraph.graph import StateGraph as LangStateGraph
    from langgraph.prebuilt import tools_condition as lang_tools_condition

    from graphkit import START, MessagesState, StateGraph
    from graphkit.prebuilt import tools_condition

    def edges(state_graph, state, condition):
        builder = state_graph(state)
        builder.add_node("assistant", lambda s: {})
        builder.add_node("tools", lambda s: {})
        builder.add_edge(START, "assistant")
        builder.add_conditional_edges("assistant", condition)
        builder.add_edge("tools", "assistant")
        graph = builder.compile().get_graph()
        return sorted((e.source, e.target, e.conditional) for e in graph.edges)

    ours = edges(StateGraph, MessagesState, tools_condition)
    assert ours == edges(LangStateGraph, LangMessagesState, lang_tools_condition)
    assert ("assistant", "assistant", True) not in ours


def _asking_tool_run(library: str) -> list[str]:
    """A tool that asks a human for a yes/no (``response_schema=bool``), in a ToolNode that
    turns every error into a ToolMessage: a bad answer still fails the run (it is not the
    model's mistake), and a good one then goes through."""
    if library == "langgraph":
        from langgraph.checkpoint.memory import InMemorySaver
        from langgraph.errors import is_invalid_resume
        from langgraph.graph import START as start
        from langgraph.graph import MessagesState as state
        from langgraph.graph import StateGraph as graph
        from langgraph.prebuilt import ToolNode as tool_node
        from langgraph.types import Command as command
        from langgraph.types import interrupt as ask
    else:
        from graphkit import START as start
        from graphkit import Command as command
        from graphkit import InMemorySaver
        from graphkit import StateGraph as graph
        from graphkit import interrupt as ask
        from graphkit.errors import is_invalid_resume
        from graphkit.prebuilt import MessagesState as state
        from graphkit.prebuilt import ToolNode as tool_node

    @tool
    def delete(path: str) -> str:
        """Delete a file, if a human agrees."""
        return f"deleted {path}" if ask(f"delete {path}?", response_schema=bool) else "kept"

    builder = graph(state).add_node("tools", tool_node([delete], handle_tool_errors=True))
    app = builder.add_edge(start, "tools").compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "1"}}
    seen = [str(sorted(app.invoke(asking(call("delete", path="a.txt")), config)))]
    try:
        result = app.invoke(command(resume="perhaps"), config)
        seen.append(f"taken: {[m.content for m in result['messages']]}")
    except Exception as error:
        seen.append(f"raised {type(error).__name__}, invalid resume: {is_invalid_resume(error)}")
    result = app.invoke(command(resume="yes"), config)  # (lax pydantic: "yes" is True)
    seen.append(str([m.content for m in result["messages"][2:]]))
    return seen


def test_a_bad_answer_to_a_tools_interrupt_fails_the_run_as_in_langgraph() -> None:
    expected = _asking_tool_run("langgraph")
    assert expected[1] == "raised ValidationError, invalid resume: True"
    assert _asking_tool_run("graphkit") == expected
