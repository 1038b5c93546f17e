"""A node that routes with ``Command(goto=...)`` and also has a static edge out (left
from before it routed so) goes both ways, in LangGraph as in graphkit: a billing
question got the tech desk's answer too. ``why`` named only the edge, so the Command
looked obeyed; it now says the Command did not choose the node and that its goto is
followed besides the node's edges (agentpass)."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

langgraph = pytest.importorskip("langgraph")

from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402


class Desk(TypedDict, total=False):
    question: str
    answers: Annotated[list, operator.add]


def triage_bot(kit: Any, command: bool = True) -> Any:
    def triage(state: Desk) -> Any:
        return kit.Command(goto="billing") if command else {"question": "sorted"}

    builder = kit.StateGraph(Desk)
    builder.add_node("triage", triage, destinations=("billing", "tech"))
    builder.add_node("billing", lambda state: {"answers": ["billing"]})
    builder.add_node("tech", lambda state: {"answers": ["tech"]})
    builder.add_edge(kit.START, "triage")
    return builder.add_edge("triage", "tech")  # left over: both desks answer


def kits() -> tuple[Any, Any]:
    import langgraph.graph
    import langgraph.types

    import graphkit

    return type("kit", (), {**vars(langgraph.graph), **vars(langgraph.types)}), graphkit


BESIDES = (
    "triage also returned Command(goto='billing'), which did not choose tech: a Command's "
    "goto is followed besides its node's edges and routers, not instead of them."
)


def reasons(run: Any, node: str, **graph: Any) -> str:
    return " ".join(r.text for r in run.why(node, **graph).answers[0].reasons)


def test_why_says_the_command_did_not_choose_the_node_its_edge_ran():
    lang, kit = kits()
    assert triage_bot(lang).compile().invoke({"question": "refund?"})["answers"] == [
        "billing",
        "tech",
    ]
    app = triage_bot(kit).compile()
    run = app.trace({"question": "refund?"})
    assert run.values["answers"] == ["billing", "tech"]  # as LangGraph
    assert reasons(run, "tech").endswith(BESIDES)
    with_graph = reasons(run, "tech", graph=app)
    assert "by the edge triage → tech;" in with_graph and with_graph.endswith(BESIDES)
    assert "Command(goto='billing')" in reasons(run, "billing")
    assert "also returned" not in reasons(run, "billing")


def test_an_imported_thread_names_the_command_its_output_did_not_keep():
    from graphkit import open_langgraph_thread

    lang, _ = kits()
    app = triage_bot(lang).compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"question": "refund?"}, config)
    run = open_langgraph_thread(app, config)
    assert reasons(run, "tech", graph=app).endswith(
        "triage also routes with Command(goto=...) (to billing): its edge to tech is "
        "followed whatever the Command chooses, besides it."
    )
    assert "by triage's Command(goto=...);" in reasons(run, "billing", graph=app)


def test_a_step_that_returned_a_plain_dict_is_not_said_to_route_with_a_command():
    """triage declares its Command's destinations, but this time it returned a dict:
    only its edge ran, in both libraries, and neither answer may speak of a Command."""
    from graphkit import open_langgraph_thread

    lang, kit = kits()
    app = triage_bot(kit, command=False).compile()
    run = app.trace({"question": "refund?"})
    saved = triage_bot(lang, command=False).compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    assert saved.invoke({"question": "refund?"}, config)["answers"] == ["tech"]
    assert run.values["answers"] == ["tech"]  # as LangGraph
    imported = open_langgraph_thread(saved, config)
    for said in (reasons(run, "tech", graph=app), reasons(imported, "tech", graph=saved)):
        assert said == (
            "branch:to:tech was written in step 1 by the edge triage → tech; step 1's "
            "Update applied it (version 3), so step 2's Plan woke tech."
        )
