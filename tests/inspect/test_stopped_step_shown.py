"""``why`` of a node whose trigger was written in a step that stopped after its Execute
without failing (a sibling paused in ``interrupt()``, the debugger between phases, a
LangGraph thread whose process ended): it read "b wrote branch:to:d in step 1, but the
step failed ()", though nothing failed, and the write is applied when the run goes on."""

from __future__ import annotations

import operator
import types
from typing import Annotated, TypedDict

import pytest

from graphkit import START, InMemorySaver, StateGraph, interrupt, open_langgraph_thread
from graphkit.widgets import DebugSession


class Review(TypedDict):
    draft: str
    ok: str
    sent: str


def _review(library):
    """b drafts and leads to d; c, beside it, asks a human."""
    builder = library.StateGraph(Review)
    builder.add_node("b", lambda state: {"draft": "hello"})
    builder.add_node("c", lambda state: {"ok": library.interrupt("send it?")})
    builder.add_node("d", lambda state: {"sent": state["draft"]})
    builder.add_edge(library.START, "b").add_edge(library.START, "c").add_edge("b", "d")
    return builder.compile(checkpointer=library.InMemorySaver())


NOT_YET = (
    "b wrote branch:to:d during step 1's Execute (through the edge b → d), and the run "
    "stopped before step 1's Update, so the write is not applied yet. The step's finished "
    "writes are kept with its checkpoint: when the run goes on (the debugger's Update, a "
    "resume, invoke(None, config) on the thread), they are applied and d runs at step 2."
)


def test_a_write_of_a_step_paused_beside_it_is_applied_when_the_run_goes_on():
    graph = pytest.importorskip("langgraph.graph")
    from langgraph.checkpoint.memory import InMemorySaver as LangGraphSaver
    from langgraph.types import Command
    from langgraph.types import interrupt as langgraph_interrupt

    langgraph = types.SimpleNamespace(
        StateGraph=graph.StateGraph,
        START=graph.START,
        InMemorySaver=LangGraphSaver,
        interrupt=langgraph_interrupt,
    )
    theirs, config = _review(langgraph), {"configurable": {"thread_id": "t"}}
    theirs.invoke({"draft": ""}, config)
    ours = _review(types.SimpleNamespace(
        StateGraph=StateGraph, START=START, InMemorySaver=InMemorySaver, interrupt=interrupt
    ))  # fmt: skip
    for run, app in ((open_langgraph_thread(theirs, config), theirs), (ours.trace(
        {"draft": ""}, config), ours)):  # fmt: skip
        assert run.status == "interrupted"
        answer = run.why("d", step=1, graph=app).answers[0]
        assert answer.summary == (
            "d did not run at step 1: b wrote branch:to:d in step 1, and the run stopped "
            "before that step's Update, so d would run at step 2."
        )
        assert answer.reasons[-1].kind == "next_step"
        assert answer.reasons[-1].text == NOT_YET
    # as LangGraph goes on: the resume applies b's write, and d runs at step 2
    theirs.invoke(Command(resume="yes"), config)
    assert [s.metadata["step"] for s in theirs.get_state_history(config) if "d" in s.next] == [1]


def test_the_debugger_after_execute_does_not_call_the_step_failed():
    builder = StateGraph(Review)
    builder.add_node("b", lambda state: {"draft": "hello"})
    builder.add_node("d", lambda state: {"sent": state["draft"]})
    builder.add_edge(START, "b").add_edge("b", "d")
    session = DebugSession(builder.compile(), {"draft": ""})
    session.step(), session.step(), session.plan(), session.execute()
    session.select("d")
    assert "failed" not in session.view().why_text
    assert "and the run stopped before that step's Update, so d would run at step 2" in (
        session.view().why_text
    )


class Log(TypedDict):
    log: Annotated[list, operator.add]


def _joined(library, *, asks: bool):
    """b and c run at step 1 (c asks a human when ``asks``), e after c, and d waits for
    b and e: d runs at step 3, not at the step after b wrote its half of the edge."""
    builder = library.StateGraph(Log)
    builder.add_node("b", lambda state: {"log": ["b"]})
    ask = (lambda state: {"log": [library.interrupt("ok?")]}) if asks else None
    builder.add_node("c", ask or (lambda state: {"log": ["c"]}))
    builder.add_node("e", lambda state: {"log": ["e"]})
    builder.add_node("d", lambda state: {"log": ["d"]})
    builder.add_edge(library.START, "b").add_edge(library.START, "c").add_edge("c", "e")
    builder.add_edge(["b", "e"], "d")
    return builder.compile(checkpointer=library.InMemorySaver())


def _libraries():
    graph = pytest.importorskip("langgraph.graph")
    from langgraph.checkpoint.memory import InMemorySaver as LangGraphSaver
    from langgraph.types import interrupt as langgraph_interrupt

    langgraph = types.SimpleNamespace(
        StateGraph=graph.StateGraph,
        START=graph.START,
        InMemorySaver=LangGraphSaver,
        interrupt=langgraph_interrupt,
    )
    graphkit = types.SimpleNamespace(
        StateGraph=StateGraph, START=START, InMemorySaver=InMemorySaver, interrupt=interrupt
    )
    return langgraph, graphkit


def test_a_half_written_waiting_edge_of_a_stopped_step_is_not_said_to_run_next():
    # b wrote its half of [b, e] -> d in step 1, beside c paused in interrupt(): why said
    # "d would run at step 2", while LangGraph runs d at step 3, after e
    from langgraph.types import Command as LangGraphCommand

    langgraph, graphkit = _libraries()
    config = {"configurable": {"thread_id": "t"}}
    theirs = _joined(langgraph, asks=True)
    theirs.invoke({"log": []}, config)
    ours = _joined(graphkit, asks=True)
    for run, app in ((open_langgraph_thread(theirs, config), theirs), (ours.trace(
        {"log": []}, config), ours)):  # fmt: skip
        answer = run.why("d", step=1, graph=app).answers[0]
        assert "would run at step 2" not in answer.summary
        said = [reason.text for reason in answer.reasons if reason.kind == "next_step"]
        assert said == [
            "b wrote join:b+e:d during step 1's Execute (through the waiting edge [b, e] → "
            "d), and the run stopped before step 1's Update, so the write is not applied "
            "yet. The step's finished writes are kept with its checkpoint: when the run "
            "goes on (the debugger's Update, a resume, invoke(None, config) on the thread), "
            "they are applied and the waiting edge [b, e] → d still waits for e."
        ]
    theirs.invoke(LangGraphCommand(resume="yes"), config)
    assert [s.metadata["step"] for s in theirs.get_state_history(config) if "d" in s.next] == [2]


def test_a_stopped_run_does_not_say_a_half_written_waiting_edge_or_a_deferred_node_runs_next():
    # the debugger after step 1: c's waiting edge has a's half only, or c is deferred
    # behind b; why said "Step 2 would run c", and c runs at step 3 (LangGraph too)
    langgraph, _ = _libraries()

    def graph(library, deferred: bool):
        builder = library.StateGraph(Log)
        for name in "axb":
            builder.add_node(name, lambda state, name=name: {"log": [name]})
        builder.add_node("c", lambda state: {"log": ["c"]}, defer=deferred)
        builder.add_edge(library.START, "a").add_edge(library.START, "x").add_edge("x", "b")
        if deferred:
            return builder.add_edge("a", "c")
        return builder.add_edge(["a", "b"], "c")

    ours = types.SimpleNamespace(StateGraph=StateGraph, START=START)
    for deferred in (False, True):
        session = DebugSession(graph(ours, deferred).compile(), {"log": []})
        for _ in range(3):  # the input, __start__ and step 1 (a and x)
            session.step()
        run = session.stepper.run_so_far
        assert run.status == "running" and run.steps[-1].step == 1
        answer = run.why("c", step=2).answers[0]
        assert answer.summary == "c did not run at step 2: the run has not reached step 2 yet."
        assert session.run().why("c").answers[0].step == 3
        theirs = graph(langgraph, deferred).compile(checkpointer=langgraph.InMemorySaver())
        config = {"configurable": {"thread_id": "t"}}
        theirs.invoke({"log": []}, config)
        # (c ran at the first step whose checkpoint has its write; get_state().next after
        # step 1 names c too, for the waiting edge, though c does not run at step 2)
        history = theirs.get_state_history(config)
        assert min(s.metadata["step"] for s in history if "c" in s.values["log"]) == 3


def test_a_state_edit_not_gone_on_from_says_an_edit_runs_nothing():
    # a chat thread edited as __start__ (which wakes the chatbot) and not invoked again:
    # why blamed a process that ended, interrupt_before or the recursion limit
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.graph import MessagesState

    langgraph, _ = _libraries()

    def chatbot(state: MessagesState) -> dict:
        return {"messages": [AIMessage(f"re: {state['messages'][-1].content}")]}

    builder = langgraph.StateGraph(MessagesState).add_node("chatbot", chatbot)
    app = builder.add_edge(langgraph.START, "chatbot").compile(
        checkpointer=langgraph.InMemorySaver()
    )
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"messages": [("user", "hi")]}, config)
    app.update_state(config, {"messages": [HumanMessage("and Porto?")]}, as_node="__start__")
    assert app.get_state(config).next == ("chatbot",)
    answer = open_langgraph_thread(app, config).why("chatbot", step=3, graph=app).answers[0]
    assert answer.summary == (
        "chatbot did not run at step 3: the run stopped before step 3, which would run chatbot."
    )
    assert answer.reasons[-1].text == (
        "Step 3 would run chatbot (step 2's Update changed branch:to:chatbot). Step 2 is a "
        "state edit (update_state): an edit saves the edited state and runs no node, so "
        "nothing ran after it. Going on (invoke(None, config), the debugger's Step) runs "
        "chatbot."
    )
    app.invoke(None, config)
    assert app.get_state(config).values["messages"][-1].content == "re: and Porto?"
