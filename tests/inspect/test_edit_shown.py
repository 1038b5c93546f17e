"""A chat thread time-travelled with ``update_state``: the author took the checkpoint
after turn 1 from ``get_state_history``, wrote a new question there and resumed with
``invoke(None, fork)``; no answer came, as the edit was made as the chatbot (the node
that ran last), whose edge goes to END. ``why`` said only that the Update "changed no
trigger channel", and graphkit's own resumed run ended "step -1's Plan triggers no
task"."""

from __future__ import annotations

import pytest

from graphkit import open_langgraph_thread

pytest.importorskip("langgraph")

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph

from graphkit import from_langgraph


def _chat():
    def chatbot(state: MessagesState) -> dict:
        return {"messages": [AIMessage(f"re: {state['messages'][-1].content}")]}

    builder = StateGraph(MessagesState).add_node("chatbot", chatbot)
    builder.add_edge(START, "chatbot").add_edge("chatbot", END)
    return builder.compile(checkpointer=InMemorySaver())


def _time_travel(app, as_node=None):
    config = {"configurable": {"thread_id": "trip"}}
    for question in ("plan 3 days in Lisbon", "add Porto"):
        app.invoke({"messages": [("user", question)]}, config)
    after_turn_1 = next(s for s in app.get_state_history(config) if s.metadata["step"] == 1)
    edit = {"messages": [HumanMessage("add Sintra instead", id="h-2")]}
    fork = app.update_state(after_turn_1.config, edit, as_node=as_node)
    return config, fork, app.invoke(None, fork)


def test_why_says_an_imported_edit_woke_nothing_as_it_was_made_as_the_chatbot():
    app = _chat()
    config, _, result = _time_travel(app)
    assert result["messages"][-1].content == "add Sintra instead"  # no answer, in LangGraph
    run = open_langgraph_thread(app, config)
    answer = run.why("chatbot", step=3, graph=app).answers[0]
    assert answer.summary == (
        "chatbot did not run at step 3: the run finished at step 3: step 2's state edit "
        "woke no node; chatbot last ran at step 1."
    )
    reason = answer.reasons[0]
    assert reason.kind == "finished"
    assert (
        "Step 2 is a state edit (update_state), and it woke no node. An edit is made as a "
        "node (as_node): that node's edges and routers run on the edited state and wake "
        "what they lead to. Without as_node, the edit is made as the node that ran last, "
        "here chatbot, whose edge goes to END. To run chatbot on the edited state, make "
        "the edit as a node that leads to it (update_state(config, values, "
        "as_node='__start__', whose edge leads to chatbot)), or give the new input on the "
        "checkpoint before the edit: app.invoke(input, config_of_that_checkpoint)."
    ) in reason.text
    # as the reason says, the edit made as __start__ runs the chatbot, in LangGraph
    app = _chat()
    _, _, result = _time_travel(app, as_node="__start__")
    assert result["messages"][-1].content == "re: add Sintra instead"


def test_graphkits_own_run_from_the_edit_says_it_ran_no_step_and_why():
    graph = from_langgraph(_chat())
    _, fork, result = _time_travel(graph)
    assert result["messages"][-1].content == "add Sintra instead"  # as in LangGraph
    run = graph.trace(None, fork)
    assert run.steps == () and run.status == "done"
    last = run.timeline(width=None).splitlines()[-1]
    assert last.startswith(
        "the run is done without a step: the checkpoint it went on from planned no task "
        "(get_state(config).next == ()): a finished thread, or one whose last state edit "
        "woke no node"
    )
    answer = run.why("chatbot", graph=graph).answers[0]
    assert answer.summary == "chatbot never ran: this run ran no step."
    assert "make the edit as a node that leads on" in answer.reasons[0].text


def _routed_by_command():
    """node_a routes by Command only; the thread pauses before node_b
    (langgraph#3003: update_state there, and node_b never ran)."""
    from typing import TypedDict

    from langgraph.types import Command

    class Foo(TypedDict):
        foo: str

    def node_a(state):
        return Command(update={"foo": "a"}, goto="node_b")

    builder = StateGraph(Foo).add_node("node_a", node_a, destinations=("node_b", "node_c"))
    builder.add_node("node_b", lambda state: {"foo": state["foo"] + "b"})
    builder.add_node("node_c", lambda state: {"foo": state["foo"] + "c"})
    builder.add_edge(START, "node_a")
    app = builder.compile(checkpointer=InMemorySaver(), interrupt_before=["node_b"])
    config = {"configurable": {"thread_id": "paused"}}
    app.invoke({"foo": ""}, config)
    return app, config


def test_an_edit_that_cleared_a_pending_run_says_so_and_names_the_command_fix():
    from langgraph.types import Command

    app, config = _routed_by_command()
    app.update_state(config, {"foo": "edited"})
    assert app.invoke(None, config) == {"foo": "edited"}  # node_b never ran, in LangGraph
    run = open_langgraph_thread(app, config)
    answer = run.why("node_b", step=2, graph=app).answers[0]
    assert answer.summary == (
        "node_b did not run at step 2: step 2 is a state edit (update_state), whose Update "
        "cleared node_b's pending run."
    )
    fix = (
        "No edge or router leads to node_b: node_a reaches it by its Command(goto=...), which "
        "an edit does not run. To run node_b on the edited state, make the edit a Command "
        "that goes there: update_state(config, Command(update=values, goto='node_b'))."
    )
    assert answer.reasons[0].text == (
        "Step 2 is a state edit (update_state): it runs no node, only the edit's writes. "
        "Step 1's Update had written branch:to:node_b, so node_b was due at step 2 (the "
        "thread had stopped before it); the edit took that step's place, and its Update "
        "cleared branch:to:node_b. Without as_node, an edit is made as the node that ran "
        "last, here node_a, and wakes only what node_a's edges and routers lead to. " + fix
    )
    finished = run.why("node_b", step=3, graph=app).answers[0]
    assert finished.summary == (
        "node_b did not run at step 3: the run finished at step 3: step 2's state edit woke "
        "no node and cleared node_b's pending run."
    )
    assert fix in finished.reasons[0].text
    # as the reason says, in LangGraph
    app, config = _routed_by_command()
    app.update_state(config, Command(update={"foo": "edited"}, goto="node_b"))
    assert app.invoke(None, config) == {"foo": "editedb"}
