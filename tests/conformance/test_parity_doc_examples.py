"""Patterns from LangGraph's own documentation, on both libraries: a tool injected with
``Annotated[AgentState subclass, InjectedState]`` (multi-agent handoffs, memory) and the
JSON schema of a ``MessagesState`` graph (pydantic reads those TypedDicts); a ``@tool``
returning a ``Command`` called directly (it comes back as the Command); a path_map given
as a string (the fractal-graph example: LangGraph ignores it and reads the router's
``Literal``); a compiled graph's ``channels``."""

from typing import Annotated, Any, Literal, TypedDict

from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool

from .harness import Lib, load_graphkit, load_langgraph

LIBS = [load_langgraph, load_graphkit]


def _prebuilt(lib: Lib) -> Any:
    if lib.name == "langgraph":
        import langgraph.prebuilt as prebuilt
        from langgraph.graph import MessagesState
        from langgraph.prebuilt.chat_agent_executor import AgentState
    else:
        import graphkit.prebuilt as prebuilt
        from graphkit.graph import MessagesState
        from graphkit.prebuilt.chat_agent_executor import AgentState
    return prebuilt, MessagesState, AgentState


def test_agent_and_messages_states_can_be_read_by_pydantic():
    seen = []
    for loader in LIBS:
        lib = loader()
        prebuilt, messages_state, agent_state = _prebuilt(lib)

        class Custom(agent_state):  # type: ignore[misc,valid-type]
            user_id: str

        def get_user_info(state: Annotated[Custom, prebuilt.InjectedState]) -> str:
            """Look up user info."""
            return state["user_id"]

        node = prebuilt.ToolNode([tool(get_user_info)])
        app = lib.StateGraph(messages_state).add_node("a", lambda state: {})
        app = app.add_edge(lib.START, "a").compile()
        schema = app.get_input_jsonschema()
        seen.append((list(node.tools_by_name), sorted(schema["properties"])))
    assert seen[1] == seen[0] == (["get_user_info"], ["messages"])


def test_a_tool_returning_a_command_gives_it_back_when_called_with_a_tool_call():
    seen = []
    for loader in LIBS:
        lib = loader()
        _, messages_state, _ = _prebuilt(lib)

        command = lib.Command

        @tool
        def rename(new_name: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Any:
            """Update the user's name."""
            reply = ToolMessage(f"Renamed to {new_name}", tool_call_id=tool_call_id)
            return command(update={"user_name": new_name, "messages": [reply]})  # noqa: B023

        class State(messages_state):  # type: ignore[misc,valid-type]
            user_name: str

        def call_tools(state: State) -> list[Any]:
            return [rename.invoke(call) for call in state["messages"][-1].tool_calls]

        call = {"name": "rename", "args": {"new_name": "Bob"}, "id": "c9", "type": "tool_call"}
        direct = rename.invoke(call)
        app = lib.StateGraph(State).add_node("call_tools", call_tools)
        app = app.add_edge(lib.START, "call_tools").compile()
        output = app.invoke({"messages": [AIMessage("", id="x", tool_calls=[call])]})
        seen.append((type(direct).__name__, output["user_name"], output["messages"][-1].content))
    assert seen[1] == seen[0] == ("Command", "Bob", "Renamed to Bob")


class Tally(TypedDict):
    n: Annotated[list, lambda left, right: left + right]


def test_a_path_map_given_as_a_string_is_no_path_map():
    seen = []
    for loader in LIBS:
        lib = loader()

        def route(state: Tally) -> Literal["again", "__end__"]:
            return "__end__" if len(state["n"]) > 3 else "again"

        graph = lib.StateGraph(Tally).add_node("again", lambda state: {"n": [1]})
        graph.add_edge(lib.START, "again").add_conditional_edges("again", route, "again")
        graph.add_conditional_edges(lib.START, lambda state: "again", ("again",))
        seen.append(graph.compile().invoke({"n": []}))
    assert seen[1] == seen[0]


def test_a_compiled_graph_lists_its_channels():
    seen = []
    for loader in LIBS:
        lib = loader()
        graph = (
            lib.StateGraph(Tally).add_node("a", lambda state: {}).add_node("b", lambda state: {})
        )
        graph.add_edge(lib.START, "a").add_edge(["a"], "b")
        channels = graph.compile().channels
        seen.append({name: type(channel).__name__ for name, channel in channels.items()})
    assert seen[1] == seen[0]
    assert {"n", "__start__", "__pregel_tasks", "branch:to:a"} <= set(seen[1])


def test_an_object_returned_is_read_for_each_state_key():
    """As in LangGraph: a pydantic model's computed field, or a dataclass's property,
    named like a state key is written too, as the input and as a node's update."""
    import dataclasses

    from pydantic import BaseModel, computed_field

    class Pair(TypedDict):
        x: int
        doubled: int

    class Out(BaseModel):
        x: int

        @computed_field  # type: ignore[prop-decorator]
        @property
        def doubled(self) -> int:
            return self.x * 2

    @dataclasses.dataclass
    class Half:
        x: int

        @property
        def doubled(self) -> int:
            return self.x

    seen = []
    for loader in LIBS:
        lib = loader()
        graph = lib.StateGraph(Pair).add_node("model", lambda state: Out(x=3))
        graph.add_node("plain", lambda state: Half(x=state["x"] + 1))
        app = graph.add_edge(lib.START, "model").add_edge("model", "plain").compile()
        seen.append(list(app.stream(Out(x=1), stream_mode=["updates", "values"])))
    assert seen[1] == seen[0]
    assert seen[1][-1] == ("values", {"x": 4, "doubled": 4})


def test_a_node_added_with_its_own_name_after_it_is_accepted():
    """The SQL-agent tutorial writes ``add_node(tool_node, "get_schema")`` for a ToolNode
    named ``"get_schema"``: LangGraph names the node after the action and ignores the
    string, which agrees with it, so the graph builds and runs on both."""
    seen = []
    for loader in LIBS:
        lib = loader()
        prebuilt, messages_state, _ = _prebuilt(lib)

        @tool
        def sql_db_schema(table_names: str) -> str:
            """Get the schema of tables."""
            return f"CREATE TABLE {table_names}(id int)"

        def list_tables(state: Any) -> dict[str, Any]:
            call = {"name": "sql_db_schema", "args": {"table_names": "Genre"}, "id": "s1"}
            return {"messages": [AIMessage("", id="ask", tool_calls=[call])]}

        builder = lib.StateGraph(messages_state)
        builder.add_node(list_tables, "list_tables")
        builder.add_node(prebuilt.ToolNode([sql_db_schema], name="get_schema"), "get_schema")
        builder.add_edge(lib.START, "list_tables").add_edge("list_tables", "get_schema")
        app = builder.compile()
        output = app.invoke({"messages": [("user", "Which genre?")]})
        seen.append((list(app.nodes), [message.content for message in output["messages"]]))
    assert seen[1] == seen[0]
    assert seen[0][0] == ["__start__", "list_tables", "get_schema"]


def test_a_command_prints_and_is_built_as_langgraphs():
    """A handoff tool called directly gives its Command back (multi-agent guides), and
    printing it shows LangGraph's repr: the fields that are set, in LangGraph's order
    (graph, update, resume, goto), a dataclass value as a dict. The fields are
    keyword-only in both."""
    import dataclasses

    import pytest

    @dataclasses.dataclass
    class Note:
        text: str

    seen = []
    for loader in LIBS:
        lib = loader()
        command = lib.Command

        @tool("transfer_to_bob")
        def handoff(tool_call_id: Annotated[str, InjectedToolCallId]) -> Any:
            """Transfer to bob."""
            reply = {"role": "tool", "content": "to bob", "tool_call_id": tool_call_id}
            return command(goto="bob", update={"messages": [reply]}, graph=command.PARENT)  # noqa: B023

        call = {"name": "transfer_to_bob", "args": {}, "id": "c1", "type": "tool_call"}
        shown = [
            repr(handoff.invoke(call)),
            repr(command(resume=0, goto="x", update={})),
            repr(command(update=Note("hi"), resume="yes")),
            [field.name for field in dataclasses.fields(command)],
        ]
        with pytest.raises(TypeError):
            command({"x": 1})
        seen.append(shown)
    assert seen[1] == seen[0]
    assert seen[0][0].startswith("Command(graph='__parent__', update=")
