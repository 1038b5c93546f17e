"""``why`` on a LangGraph thread whose route was written by an ``update_state``: the
import shows the edit as the task ``__update__``, and ``why`` said the route "was written
by an edge or conditional edge of __update__", a node with no edges. An update is made
as a node (``as_node``, which LangGraph does not save) and writes that node's routes, so
``why`` now says so, and with the graph names the edges and routers that write it."""

from __future__ import annotations

from typing import Annotated, TypedDict

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages

from graphkit.bridge.threads import open_langgraph_thread


class Chat(TypedDict):
    messages: Annotated[list, add_messages]


def route(state: Chat) -> str:
    return "tools" if state["messages"][-1].type == "ai" else "answer"


def test_why_names_the_route_an_update_state_wrote() -> None:
    builder = StateGraph(Chat)
    builder.add_node("agent", lambda s: {"messages": [AIMessage("calling")]})
    builder.add_node("tools", lambda s: {"messages": [AIMessage("found")]})
    builder.add_node("answer", lambda s: {"messages": [AIMessage("done")]})
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", route, ["tools", "answer"])
    builder.add_edge("tools", END)
    builder.add_edge("answer", END)
    app = builder.compile(checkpointer=InMemorySaver(), interrupt_before=["tools"])
    config = {"configurable": {"thread_id": "1"}}
    app.invoke({"messages": [HumanMessage("hi")]}, config)
    app.update_state(config, {"messages": [HumanMessage("a note")]})  # made as agent
    assert app.get_state(config).next == ("answer",)  # agent's router ran on the note
    app.invoke(None, config)
    run = open_langgraph_thread(app, config)
    assert run.step(2).plan.nodes == ["__update__"]

    told = " ".join(str(run.why("answer")).split())
    assert "an edge or conditional edge of __update__" not in told
    assert "by update_state (__update__), made as a node: it is a route that node's" in told

    told = " ".join(str(run.why("answer", graph=app)).split())
    assert "by update_state (__update__), made as a node: it is the route agent's router" in told
    assert "'route' writes" in told
