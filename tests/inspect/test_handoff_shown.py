"""A subgraph's handoff (a node returning ``Command(graph=Command.PARENT, goto=...)``)
reads as one, not as a failure: agentdebug3's swarm showed the triage agent's subrun as
"the run failed at step 2: tools raised ParentCommand" with status ``error``, though the
parent took the command and went on to billing."""

from __future__ import annotations

import html
import re
from typing import Annotated, TypedDict

from graphkit import END, START, Command, StateGraph
from graphkit.prebuilt import InjectedState


class Swarm(TypedDict):
    active: str
    log: str


def handing_off():
    def transfer(state: Swarm) -> Command:
        return Command(graph=Command.PARENT, goto="billing", update={"active": "billing"})

    triage = StateGraph(Swarm).add_node("tools", transfer).add_edge(START, "tools")
    builder = StateGraph(Swarm)
    builder.add_node("triage", triage.compile(), destinations=("billing",))
    builder.add_node("billing", lambda state: {"log": "refunded"})
    return builder.add_edge(START, "triage").add_edge("billing", END).compile()


def test_a_handoff_reads_as_one_in_the_subrun_and_the_subgraphs_table():
    run = handing_off().trace({"active": "triage", "log": ""})
    assert run.values == {"active": "billing", "log": "refunded"}
    subrun = run.step(1).execution.results[0].subruns[0]
    assert subrun.status == "error"  # the record keeps the runtime's word
    text = subrun.timeline(width=None).splitlines()
    assert text[0] == "3 supersteps, handed off"
    assert text[-3:] == [
        "  EXECUTE  tools  handed off to the parent graph: goto 'billing', update {'active': "
        "'billing'}",
        "  UPDATE   skipped: the subgraph handed off, so no channel changed",
        "the run handed off to its parent graph at step 1: tools returned "
        "Command(graph=Command.PARENT), goto 'billing', update {'active': 'billing'}",
    ]
    card = html.unescape(re.sub(r"<[^>]+>", "", subrun._repr_html_()))
    assert "3 supersteps · handed off" in card
    assert "Command(graph=Command.PARENT), goto 'billing', update {'active': 'billing'}" in card
    assert "step 11 task · 0 channel changeshanded off" in card  # the step's own title
    assert "handed off to the parent graph: goto 'billing', update {'active': 'billing'}" in card
    assert "skipped: the subgraph handed off, so no channel changed" in card
    assert "not running as a subgraph" not in card  # (the ParentCommand's own message)
    assert run.to_frame("subgraphs")["status"].tolist() == ["handed off"]


def test_a_command_for_a_parent_at_the_top_is_still_an_error():
    def transfer(state: Swarm) -> Command:
        return Command(graph=Command.PARENT, goto="billing")

    app = StateGraph(Swarm).add_node("tools", transfer).add_edge(START, "tools").compile()
    try:
        app.trace({"active": "triage", "log": ""})
    except Exception as error:  # ParentCommand: no parent to take it
        run = error.run
    assert str(run).splitlines()[0] == "3 supersteps, error"
    ending = run.timeline(width=None).splitlines()[-1]
    assert ending.startswith("the run failed at step 1: tools raised ")


def test_why_names_the_subgraph_node_that_handed_off():
    """lesson 16's swarm: why("billing") said only "triage's Command(goto='billing')",
    as if triage's node had routed itself; the Command came from inside its subgraph."""
    run = handing_off().trace({"active": "triage", "log": ""})
    text = " ".join(run.why("billing").text(width=None).split())
    assert (
        "by triage's Command(goto='billing'); step 1's Update applied it (version 3), so step "
        "2's Plan woke billing. That Command came from inside triage's subgraph: its tools "
        "node returned Command(graph=Command.PARENT, goto='billing') in the subgraph's step "
        "1, which stopped the subgraph's run (handed off) and became triage's own return."
    ) in text


def test_why_names_the_tool_a_react_agent_handed_off_with_and_a_send():
    """A create_react_agent's tools node runs each call as a push task: its packet says
    which tool handed off. A handoff whose goto is a Send is told at the push task."""
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.tools import tool

    from graphkit import Send
    from graphkit.prebuilt import MessagesState, ScriptedChatModel, create_react_agent

    def swarm(goto):
        @tool
        def transfer_to_writer(state: Annotated[dict, InjectedState]) -> Command:
            """Hand the conversation over."""
            return Command(graph=Command.PARENT, goto=goto, update={"messages": []})

        call = {"name": "transfer_to_writer", "args": {}, "id": "c1"}
        model = ScriptedChatModel(responses=[AIMessage("", tool_calls=[call])])
        builder = StateGraph(MessagesState)
        agent = create_react_agent(model, [transfer_to_writer])
        builder.add_node("researcher", agent, destinations=("writer",))
        builder.add_node("writer", lambda state: {"messages": [AIMessage("A poem.")]})
        return builder.add_edge(START, "researcher").compile()

    asked = {"messages": [HumanMessage("a poem")]}
    for goto in ("writer", Send("writer", {"messages": []})):
        text = " ".join(swarm(goto).trace(asked).why("writer").text(width=None).split())
        assert (
            "That Command came from inside researcher's subgraph: its tools node, running "
            "the tool transfer_to_writer, returned Command(graph=Command.PARENT, goto="
        ) in text, text
        assert "in the subgraph's step 2" in text


def test_why_on_an_imported_langgraph_handoff_adds_nothing_it_cannot_know():
    """A thread LangGraph saved keeps nothing of the subgraph's handing step: why still
    answers, from the parent's records alone."""
    import uuid

    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START as THEIR_START
    from langgraph.graph import StateGraph as TheirGraph
    from langgraph.types import Command as TheirCommand

    from graphkit import open_langgraph_thread

    def transfer(state: Swarm) -> TheirCommand:
        return TheirCommand(graph=TheirCommand.PARENT, goto="billing", update={"active": "b"})

    triage = TheirGraph(Swarm).add_node("tools", transfer).add_edge(THEIR_START, "tools")
    builder = TheirGraph(Swarm).add_node("triage", triage.compile(), destinations=("billing",))
    builder.add_node("billing", lambda state: {"log": "refunded"})
    app = builder.add_edge(THEIR_START, "triage").compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": str(uuid.uuid4())}}
    app.invoke({"active": "triage", "log": ""}, config)
    text = " ".join(open_langgraph_thread(app, config).why("billing").text(width=None).split())
    assert text.startswith("billing ran at step 2 because triage wrote branch:to:billing")
    assert "came from inside" not in text
