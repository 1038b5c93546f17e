"""A subgraph's handoff (a node returning ``Command(graph=Command.PARENT, goto=...)``)
reads as one, not as a failure: agentdebug3's swarm showed the triage agent's subrun as
"the run failed at step 2: tools raised ParentCommand" with status ``error``, though the
parent took the command and went on to billing."""

from __future__ import annotations

import html
import re
from typing import TypedDict

from graphkit import END, START, Command, StateGraph


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
