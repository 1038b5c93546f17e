"""A LangGraph Command or Send handed to graphkit (a mixed-up import) is refused by name,
never read as a plain object that silently loses its update and its route."""

from __future__ import annotations

from typing import TypedDict

import pytest
from langgraph.types import Command as LangGraphCommand
from langgraph.types import Send as LangGraphSend

from graphkit import START, InvalidUpdateError, StateGraph


class Ticket(TypedDict, total=False):
    text: str
    team: str


def test_a_node_returning_langgraphs_command_names_the_import_to_fix():
    builder = StateGraph(Ticket)
    builder.add_node(
        "classify",
        lambda s: LangGraphCommand(update={"team": "b"}, goto="billing"),
        destinations=("billing",),
    )
    builder.add_node("billing", lambda s: {})
    builder.add_edge(START, "classify")
    with pytest.raises(InvalidUpdateError) as raised:
        builder.compile().invoke({"text": "t"})
    message = str(raised.value)
    assert "Node 'classify' returned a Command from langgraph.types" in message
    assert "from graphkit import Command" in message


def test_a_router_returning_langgraphs_send_names_the_import_to_fix():
    builder = StateGraph(Ticket)
    builder.add_node("fan", lambda s: {})
    builder.add_node("work", lambda s: {})
    builder.add_edge(START, "fan")
    builder.add_conditional_edges("fan", lambda s: [LangGraphSend("work", {"text": "x"})])
    with pytest.raises(InvalidUpdateError, match="The router of 'fan' returned a Send from"):
        builder.compile().invoke({"text": "t"})


def test_langgraphs_send_in_graphkits_command_goto_names_the_import_to_fix():
    # it was written as a route to a node named by the Send, and dropped with a warning
    from graphkit import Command

    builder = StateGraph(Ticket)
    for goto, verb in [([LangGraphSend("work", {})], "holds"), (LangGraphSend("work", {}), "is")]:
        builder = StateGraph(Ticket)
        builder.add_node("fan", lambda s, goto=goto: Command(goto=goto), destinations=("work",))
        builder.add_node("work", lambda s: {"team": "w"})
        builder.add_edge(START, "fan")
        with pytest.raises(InvalidUpdateError) as raised:
            builder.compile().invoke({"text": "t"})
        assert str(raised.value) == (
            f"Node 'fan' returned a Command whose goto {verb} a Send from langgraph.types, "
            "LangGraph's class; graphkit routes and updates with its own. Import it from "
            "graphkit: from graphkit import Send."
        )
