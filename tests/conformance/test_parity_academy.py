"""Programs in the shape of LangChain Academy's "Introduction to LangGraph" course, run on
both libraries: what each lesson prints is the same (chat models replaced by scripted ones).

Earlier hunts compared LangGraph's docs and test suites; these are what a course adds:
`tools_condition` agents with memory, a summarising chatbot that deletes messages with
`RemoveMessage` and reopens its SQLite thread, token streaming filtered by node, and the
research assistant (human feedback as a node, `Send` into a compiled interview subgraph).
"""

import asyncio
import importlib
import operator
import sqlite3
from pathlib import Path
from typing import Annotated, Any

from typing_extensions import TypedDict

LIBRARIES = ("langgraph", "graphkit")


def _import(library: str, path: str) -> Any:
    return importlib.import_module(library + path.removeprefix("langgraph"))


def _agent_with_memory(library: str, path: Path) -> list[Any]:
    """Module 1: router and agent with `tools_condition`, then `MemorySaver` across turns."""
    from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
    from langchain_core.messages import AIMessage, HumanMessage

    graph_module = _import(library, "langgraph.graph")
    prebuilt = _import(library, "langgraph.prebuilt")
    memory = _import(library, "langgraph.checkpoint.memory")

    def multiply(a: int, b: int) -> int:
        """Multiply a and b."""
        return a * b

    calls = [("multiply", {"a": 3, "b": 4}), None, ("multiply", {"a": 12, "b": 2}), None]
    llm = FakeMessagesListChatModel(
        responses=[
            AIMessage("", id=f"r{i}", tool_calls=[{"name": c[0], "args": c[1], "id": f"c{i}"}])
            if c
            else AIMessage(f"answer {i}", id=f"r{i}")
            for i, c in enumerate(calls)
        ]
    )

    def assistant(state: Any) -> dict[str, Any]:
        return {"messages": [llm.invoke(state["messages"])]}

    builder = graph_module.StateGraph(graph_module.MessagesState)
    builder.add_node("assistant", assistant)
    builder.add_node("tools", prebuilt.ToolNode([multiply]))
    builder.add_edge(graph_module.START, "assistant")
    builder.add_conditional_edges("assistant", prebuilt.tools_condition)
    builder.add_edge("tools", "assistant")
    graph = builder.compile(checkpointer=memory.MemorySaver())
    drawn = graph.get_graph()
    seen: list[Any] = [sorted((e.source, e.target, e.conditional) for e in drawn.edges)]
    config = {"configurable": {"thread_id": "1"}}
    for i, text in enumerate(["Multiply 3 and 4.", "Multiply that by 2."]):
        out = graph.invoke({"messages": [HumanMessage(text, id=f"h{i}")]}, config)
        seen.append([(type(m).__name__, m.content, m.name) for m in out["messages"]])
    seen += [
        (s.metadata["step"], s.metadata["source"], s.next, len(s.values.get("messages", ())))
        for s in graph.get_state_history(config)
    ]
    return seen


def _summarising_chatbot(library: str, path: Path) -> list[Any]:
    """Module 2 and 3: summarise and delete old messages, SQLite thread reopened, tokens
    of one node streamed by `astream_events`."""
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, SystemMessage
    from langchain_core.runnables import RunnableConfig

    graph_module = _import(library, "langgraph.graph")
    sqlite_module = _import(library, "langgraph.checkpoint.sqlite")
    memory = _import(library, "langgraph.checkpoint.memory")
    texts = ["Hi Lance", "The 49ers play football", "Summary: Lance likes football", "Sure"]
    replies = [AIMessage(text, id=f"a{i}") for i, text in enumerate(texts)]
    model = GenericFakeChatModel(messages=iter(replies))

    class State(graph_module.MessagesState):
        summary: str

    def conversation(state: State, config: RunnableConfig) -> dict[str, Any]:
        summary = state.get("summary", "")
        prefix = [SystemMessage(f"Summary: {summary}")] if summary else []
        return {"messages": model.invoke(prefix + state["messages"], config)}

    def summarize_conversation(state: State) -> dict[str, Any]:
        response = model.invoke(state["messages"] + [HumanMessage("Summarise")])
        deleted = [RemoveMessage(id=m.id) for m in state["messages"][:-2]]
        return {"summary": response.content, "messages": deleted}

    def should_continue(state: State) -> str:
        return "summarize_conversation" if len(state["messages"]) > 2 else graph_module.END

    workflow = graph_module.StateGraph(State)
    workflow.add_node("conversation", conversation)
    workflow.add_node(summarize_conversation)
    workflow.add_edge(graph_module.START, "conversation")
    workflow.add_conditional_edges("conversation", should_continue)
    workflow.add_edge("summarize_conversation", graph_module.END)
    db = str(path / f"{library}.db")
    graph = workflow.compile(
        checkpointer=sqlite_module.SqliteSaver(sqlite3.connect(db, check_same_thread=False))
    )
    config = {"configurable": {"thread_id": "1"}}
    seen: list[Any] = list(graph.stream({"messages": [HumanMessage("hi", id="h0")]}, config))

    streaming = workflow.compile(checkpointer=memory.MemorySaver())  # (async: not SQLite)

    async def tokens() -> list[Any]:
        got = []
        question = {"messages": [HumanMessage("Tell me about the 49ers", id="h1")]}
        async for event in streaming.astream_events(question, config, version="v2"):
            node = event["metadata"].get("langgraph_node", "")
            got.append((event["event"], event["name"], node))
            if event["event"] == "on_chat_model_stream" and node == "conversation":
                got.append(event["data"]["chunk"].content)
        return got

    seen += asyncio.run(tokens())
    more = {"messages": [HumanMessage("more", id="h2")]}
    seen += list(graph.stream(more, config, stream_mode="updates"))
    reopened = workflow.compile(
        checkpointer=sqlite_module.SqliteSaver(sqlite3.connect(db, check_same_thread=False))
    )
    state = reopened.get_state(config)
    seen.append((state.values, state.next, state.metadata["step"], state.metadata["source"]))
    return seen


class _Log(TypedDict):
    analysts: list[str]
    human_analyst_feedback: str | None
    sections: Annotated[list, operator.add]
    final_report: str


def _research_assistant(library: str, path: Path) -> list[Any]:
    """Module 4: analysts reviewed by a human (`update_state(as_node="human_feedback")`),
    one interview subgraph per analyst by `Send`, sections joined, the report written."""
    graph_module = _import(library, "langgraph.graph")
    memory = _import(library, "langgraph.checkpoint.memory")
    Send = _import(library, "langgraph.types").Send
    START, END = graph_module.START, graph_module.END

    class Interview(TypedDict):
        analyst: str
        turns: Annotated[list, operator.add]
        sections: list

    def ask(state: Interview) -> dict[str, Any]:
        return {"turns": [f"question {len(state['turns'])}"]}

    def route(state: Interview) -> str:
        return "write_section" if len(state["turns"]) >= 3 else "ask"

    interview = graph_module.StateGraph(Interview)
    interview.add_node("ask", ask)
    interview.add_node("write_section", lambda s: {"sections": [f"{s['analyst']}: {s['turns']}"]})
    interview.add_edge(START, "ask")
    interview.add_conditional_edges("ask", route, ["ask", "write_section"])

    def create_analysts(state: _Log) -> dict[str, Any]:
        extra = ["startup CEO"] if state.get("human_analyst_feedback") else []
        return {"analysts": ["economist", *extra]}

    def initiate_all_interviews(state: _Log) -> Any:
        if state.get("human_analyst_feedback"):
            return "create_analysts"
        return [Send("conduct_interview", {"analyst": a, "turns": []}) for a in state["analysts"]]

    builder = graph_module.StateGraph(_Log)
    builder.add_node("create_analysts", create_analysts)
    builder.add_node("human_feedback", lambda state: None)
    builder.add_node("conduct_interview", interview.compile())
    builder.add_node("write_report", lambda s: {"final_report": " | ".join(sorted(s["sections"]))})
    builder.add_node("write_introduction", lambda s: None)
    builder.add_node("finalize_report", lambda s: {"final_report": "# " + s["final_report"]})
    builder.add_edge(START, "create_analysts")
    builder.add_edge("create_analysts", "human_feedback")
    builder.add_conditional_edges(
        "human_feedback", initiate_all_interviews, ["create_analysts", "conduct_interview"]
    )
    builder.add_edge("conduct_interview", "write_report")
    builder.add_edge("conduct_interview", "write_introduction")
    builder.add_edge(["write_report", "write_introduction"], "finalize_report")
    builder.add_edge("finalize_report", END)
    graph = builder.compile(interrupt_before=["human_feedback"], checkpointer=memory.MemorySaver())
    thread = {"configurable": {"thread_id": "1"}}
    seen: list[Any] = list(graph.stream({"sections": []}, thread, stream_mode="values"))
    for feedback in ["Add a startup CEO", None]:
        graph.update_state(thread, {"human_analyst_feedback": feedback}, as_node="human_feedback")
        seen.append(graph.get_state(thread).next)
        seen += _updates_per_step(
            graph.stream(None, thread, stream_mode=["updates", "checkpoints"])
        )
    state = graph.get_state(thread)
    seen.append((state.values["final_report"], state.next, state.metadata["step"]))
    history = list(graph.get_state_history(thread))
    seen += [(s.metadata["step"], s.metadata["source"], s.next) for s in history]
    seen += [sorted(t.name for t in s.tasks) for s in history]
    return seen


def _updates_per_step(chunks: Any) -> list[list[str]]:
    """Each step's `updates` chunks, in an order of their own: parallel tasks report as they
    finish, in either library, so two interviews' order is a thread race, not a behaviour.
    The `checkpoints` chunk that closes each step keeps the steps themselves in order."""
    steps: list[list[str]] = [[]]
    for mode, chunk in chunks:
        if mode == "checkpoints":
            steps.append([])
        else:
            steps[-1].append(repr(chunk))
    return [sorted(step) for step in steps if step]


def _both(program: Any, path: Path) -> tuple[list[Any], list[Any]]:
    (path / "langgraph").mkdir()
    (path / "graphkit").mkdir()
    return program("langgraph", path / "langgraph"), program("graphkit", path / "graphkit")


def test_an_agent_with_tools_condition_and_memory_runs_as_on_langgraph(tmp_path: Path) -> None:
    langgraph, graphkit = _both(_agent_with_memory, tmp_path)
    assert graphkit == langgraph


def test_the_summarising_chatbot_streams_and_reopens_as_on_langgraph(tmp_path: Path) -> None:
    langgraph, graphkit = _both(_summarising_chatbot, tmp_path)
    assert graphkit == langgraph


def test_the_research_assistant_runs_as_on_langgraph(tmp_path: Path) -> None:
    langgraph, graphkit = _both(_research_assistant, tmp_path)
    assert graphkit == langgraph
