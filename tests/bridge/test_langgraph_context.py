"""LangGraph's run context reaches all the code a converted graph runs, as on LangGraph:
runnables a node hands its ``config`` to (what ``ToolNode`` does for each tool), nodes
and routers that are Runnables, and LangGraph ``@task``s called from a node. Each graph
runs on LangGraph and converted, with the same input; and ``open_langgraph_thread``
reads every call of a subgraph one task made, and says when a thread's beginning was
not saved."""

from __future__ import annotations

import operator
import uuid
import warnings
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_store, get_stream_writer
from langgraph.func import task
from langgraph.graph import START, StateGraph
from langgraph.prebuilt import create_react_agent
from langgraph.store.memory import InMemoryStore
from langgraph.types import Command, interrupt

from graphkit import GraphkitWarning, open_langgraph_thread
from graphkit.bridge.convert import from_langgraph
from graphkit.prebuilt import ScriptedChatModel


class Out(TypedDict):
    out: str


class Log(TypedDict):
    log: Annotated[list, operator.add]


def _thread() -> dict[str, Any]:
    return {"configurable": {"thread_id": str(uuid.uuid4())}}


def _both(app: Any, given: Any, *, resume: Any = None, racing: bool = False) -> None:
    """``app`` and its conversion stream the same chunks (interrupt ids aside), and the
    same again when resumed with ``resume``; ``racing``: in any order (tasks that run
    at once stream as they go)."""
    modes = ("updates", "custom")
    seen = []
    for graph in (app, from_langgraph(app)):
        config = _thread()
        chunks = [_plain(chunk) for chunk in graph.stream(given, config, stream_mode=list(modes))]
        if resume is not None:
            chunks += [
                _plain(chunk)
                for chunk in graph.stream(Command(resume=resume), config, stream_mode=list(modes))
            ]
        seen.append(sorted(chunks, key=repr) if racing else chunks)
    assert seen[0] == seen[1]
    assert seen[1]


def _plain(chunk: Any) -> Any:
    """A chunk with interrupts as their values (ids differ) and messages as (type, text)."""
    mode, payload = chunk
    if isinstance(payload, dict) and "__interrupt__" in payload:
        return mode, {"__interrupt__": [item.value for item in payload["__interrupt__"]]}
    return mode, _messages_as_text(payload)


def _messages_as_text(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _messages_as_text(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_messages_as_text(item) for item in value]
    if hasattr(value, "type") and hasattr(value, "content"):
        return (value.type, value.content)
    return value


def ask_child(value: Any) -> Any:
    return interrupt("ok?")


def write_child(value: Any) -> Any:
    get_stream_writer()({"from": "child"})
    return "wrote"


def store_child(value: Any) -> Any:
    return type(get_store()).__name__


@pytest.mark.parametrize("child", [ask_child, write_child, store_child])
def test_a_runnable_given_the_nodes_config_finds_langgraphs_context(child: Any) -> None:
    def node(state: Out, config: RunnableConfig) -> dict[str, str]:
        return {"out": str(RunnableLambda(child).invoke("x", config))}

    builder = StateGraph(Out).add_node("node", node).add_edge(START, "node")
    app = builder.compile(checkpointer=InMemorySaver(), store=InMemoryStore())
    _both(app, {"out": ""}, resume="yes" if child is ask_child else None)


@tool
def approve(action: str) -> str:
    """Ask a human before acting."""
    get_stream_writer()({"asking": action})
    return f"human said {interrupt({'action': action})}"


def _scripted(messages: list[Any]) -> Any:
    if messages[-1].type == "human":
        call = {"name": "approve", "args": {"action": "rm"}, "id": "c0"}
        return AIMessage("", tool_calls=[call])
    return "done"


def test_a_tool_that_asks_a_human_pauses_and_resumes_in_a_converted_agent() -> None:
    model = ScriptedChatModel(responses=[_scripted] * 4)
    agent = create_react_agent(model, [approve], checkpointer=InMemorySaver())
    _both(agent, {"messages": [HumanMessage("go")]}, resume="yes")


def test_a_runnable_node_and_a_runnable_router_run_in_langgraphs_context() -> None:
    def ask(state: Out) -> dict[str, Any]:
        get_stream_writer()({"asking": True})
        return {"out": interrupt("q")}

    def pick(state: Out) -> str:
        get_stream_writer()({"routing": state["out"]})
        return "done"

    builder = StateGraph(Out).add_node("ask", RunnableLambda(ask))
    builder.add_node("done", lambda state: {"out": state["out"] + "!"})
    builder.add_edge(START, "ask").add_conditional_edges("ask", RunnableLambda(pick), ["done"])
    _both(builder.compile(checkpointer=InMemorySaver()), {"out": ""}, resume="yes")


@task
def double(value: int) -> int:
    get_stream_writer()({"doubling": value})
    return value * 2


def test_a_langgraph_task_called_in_a_node_runs_as_a_call() -> None:
    def node(state: Log) -> dict[str, list[int]]:
        futures = [double(1), double(2)]
        return {"log": [future.result() for future in futures]}

    builder = StateGraph(Log).add_node("node", node).add_edge(START, "node")
    _both(builder.compile(checkpointer=InMemorySaver()), {"log": []}, racing=True)


def test_messages_metadata_has_no_chain_bookkeeping_tags() -> None:
    """A model called through a chain (``prompt | model``) runs under a ``seq:step:2``
    tag; LangGraph leaves it out of a messages chunk's metadata, and so does graphkit."""
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

    def node(state: Out, config: RunnableConfig) -> dict[str, str]:
        model = GenericFakeChatModel(messages=iter([AIMessage("hello there", id="m1")]))
        chain = RunnableLambda(lambda text: [HumanMessage(text)]) | model
        return {"out": str(chain.invoke("hi", config).content)}

    seen = []
    for graph in (StateGraph(Out).add_node("node", node).add_edge(START, "node").compile(),):
        for runnable in (graph, from_langgraph(graph)):
            chunks = runnable.stream({"out": ""}, stream_mode="messages")
            seen.append([(message.content, meta.get("tags")) for message, meta in chunks])
    assert seen[0] == seen[1]
    assert all(tags is None for _, tags in seen[1])


def test_an_imported_thread_shows_each_call_of_a_subgraph_from_one_task() -> None:
    inner = StateGraph(Log).add_node("leaf", lambda state: {"log": ["leaf"]})
    sub = inner.add_edge(START, "leaf").compile()

    def twice(state: Log) -> dict[str, list[str]]:
        first, second = sub.invoke({"log": ["first"]}), sub.invoke({"log": ["second"]})
        return {"log": first["log"] + second["log"]}

    builder = StateGraph(Log).add_node("twice", twice).add_edge(START, "twice")
    app = builder.compile(checkpointer=InMemorySaver())
    config = _thread()
    app.invoke({"log": []}, config, durability="sync")
    imported = open_langgraph_thread(app, config)
    subruns = [
        sub_run
        for step in imported.steps
        if step.execution
        for result in step.execution.results
        for sub_run in result.subruns
    ]
    assert [sub_run.values for sub_run in subruns] == [
        {"log": ["first", "leaf"]},
        {"log": ["second", "leaf"]},
    ]
    assert subruns[1].saved_in == subruns[0].saved_in + "|1"


def test_an_imported_thread_saved_only_at_exit_says_its_steps_are_missing() -> None:
    builder = StateGraph(Log)
    for name in "abc":
        builder.add_node(name, lambda state, name=name: {"log": [name]})
    builder.add_edge(START, "a").add_edge("a", "b").add_edge("b", "c")
    app = builder.compile(checkpointer=InMemorySaver())
    config = _thread()
    app.invoke({"log": []}, config, durability="exit")
    with pytest.warns(GraphkitWarning, match="durability='exit'"):
        imported = open_langgraph_thread(app, config)
    assert imported.values == {"log": ["a", "b", "c"]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a thread saved step by step: no warning
        config = _thread()
        app.invoke({"log": []}, config, durability="sync")
        open_langgraph_thread(app, config)


def test_langgraphs_push_message_in_a_converted_node() -> None:
    from langgraph.graph import MessagesState
    from langgraph.graph.message import push_message

    def node(state: Any) -> dict[str, Any]:
        push_message(AIMessage("note", id="n1"))
        return {}

    app = StateGraph(MessagesState).add_node("node", node).add_edge(START, "node").compile()
    seen = [
        [message.content for message in graph.invoke({"messages": []})["messages"]]
        for graph in (app, from_langgraph(app))
    ]
    assert seen == [["note"], ["note"]]


def test_a_paused_agents_pending_tool_call_reads_as_the_call() -> None:
    """An agent compiled with interrupt_before=["tools"] keeps its Send to tools as a
    pending write, LangGraph's own Send: the readable table showed its repr,
    "Send(node='tools', arg={'__type': 'tool_call_with_context',…", not the call."""
    from graphkit.inspect import pending_writes_frame

    call = {"name": "approve", "args": {"action": "rm"}, "id": "c0"}
    model = ScriptedChatModel(responses=[AIMessage("", tool_calls=[call]), "done"])
    agent = create_react_agent(
        model, [approve], checkpointer=InMemorySaver(), interrupt_before=["tools"]
    )
    config = _thread()
    agent.invoke({"messages": [HumanMessage("go")]}, config)
    parent = agent.get_state(config).parent_config
    frame = pending_writes_frame(agent, parent, readable=True)
    sent = frame[frame["channel"] == "__pregel_tasks"]["value"].tolist()
    assert sent == ["Send('tools', tool call approve({'action': 'rm'}))"]


def test_why_on_a_thread_saved_only_at_exit_says_what_was_not_saved() -> None:
    """The thread's history begins at its last step's checkpoint: why said "because
    wrote branch:to:c in step ?" (an empty writer, an unknown step), that c "is
    deferred", and that b "never ran", though it ran before the first saved checkpoint."""

    def fail(state: Log) -> dict[str, Any]:
        raise ConnectionError("pages API is down")

    builder = StateGraph(Log)
    for name in "ab":
        builder.add_node(name, lambda state, name=name: {"log": [name]})
    builder.add_node("c", fail)
    builder.add_edge(START, "a").add_edge("a", "b").add_edge("b", "c")
    app = builder.compile(checkpointer=InMemorySaver())
    config = _thread()
    with pytest.raises(ConnectionError):
        app.invoke({"log": []}, config, durability="exit")
    with pytest.warns(GraphkitWarning, match="durability='exit'"):
        run = open_langgraph_thread(app, config)
    ran = run.why("c").answers[0]
    assert ran.summary == (
        "c ran at step 3 because an edge or router chose c in step 2, whose checkpoint is "
        "the thread's first saved one."
    )
    assert (
        run.why("c", graph=app)
        .answers[0]
        .summary.startswith(
            "c ran at step 3 because the edge b → c was taken in step 2, whose checkpoint"
        )
    )
    assert [reason.kind for reason in ran.reasons] == ["before_records", "raised"]
    assert "deferred" not in str(run.why("c")) and "step ?" not in str(run.why("c"))
    for graph in (None, app):
        answer = run.why("b", graph=graph).answers[0]
        assert answer.summary == (
            "b did not run in this run's records: it ran before the thread's first saved "
            "checkpoint (step 2)."
        )
        assert answer.reasons[0].text == (
            "b did not run in the steps the records show, which begin at the thread's first "
            "saved checkpoint (step 2). That checkpoint shows b had run before it (it had "
            "seen branch:to:b v3), but not when or why."
        )
    assert run.why("a", step=1).answers[0].reasons[0].kind == "before_records"


def _two_emails(library: str) -> tuple[Any, Any, list[tuple[str, str]]]:
    """An agent whose model sends two emails in one message; each ``send`` asks a human
    first. Bob's tool waits before it asks, so alice's asks first (as LangGraph's
    ``ToolNode`` starts them in order). ``library``: LangGraph's classes, graphkit's, or
    LangGraph's converted."""
    import time

    import langgraph.graph
    import langgraph.prebuilt
    import langgraph.types

    import graphkit.graph
    import graphkit.prebuilt
    import graphkit.types

    native = library == "graphkit"
    graph, prebuilt, types = (
        (graphkit.graph, graphkit.prebuilt, graphkit.types)
        if native
        else (langgraph.graph, langgraph.prebuilt, langgraph.types)
    )
    sent: list[tuple[str, str]] = []

    @tool
    def send(to: str) -> str:
        """Send an email, once a human approves it."""
        time.sleep(0.3 if to == "bob" else 0)
        sent.append((to, types.interrupt(f"send to {to}?")))
        return f"sent to {to}"

    calls = [{"name": "send", "args": {"to": to}, "id": f"c-{to}"} for to in ("alice", "bob")]
    model = ScriptedChatModel(responses=[AIMessage("", tool_calls=calls), "done"])
    builder = graph.StateGraph(graph.MessagesState)
    builder.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
    builder.add_node("tools", prebuilt.ToolNode([send]))
    builder.add_edge(graph.START, "agent").add_edge("tools", "agent")
    builder.add_conditional_edges("agent", prebuilt.tools_condition)
    saver = InMemorySaver() if not native else graphkit.InMemorySaver()
    app = builder.compile(checkpointer=saver)
    return (from_langgraph(app) if library == "converted" else app), types.Command, sent


@pytest.mark.parametrize("library", ["graphkit", "converted"])
def test_an_answer_by_id_goes_to_the_tool_call_that_asked_as_on_langgraph(library: str) -> None:
    """Two tools of one ToolNode task ask at once. LangGraph gives both pauses the id of
    the task's next answer, so answering the pause shown by its id answers the first
    tool to ask again. The converted graph named alice's pause with bob's id (the last
    pause its scratchpad saw), so alice's answer sent bob's email."""
    seen = []
    for name in ("langgraph", library):
        app, command, sent = _two_emails(name)
        config = _thread()
        asked = []
        out = app.invoke({"messages": [HumanMessage("tell alice and bob")]}, config)
        while "__interrupt__" in out:
            pause = out["__interrupt__"][0]
            asked.append(pause.value)
            out = app.invoke(command(resume={pause.id: f"ok: {pause.value}"}), config)
        seen.append((asked, sent))
    assert seen[0] == seen[1]
    assert seen[0][1][0] == ("alice", "ok: send to alice?")
