"""Several ``interrupt()`` calls waiting at once (a Send fan-out of approvals) in the
debugger: a refused Resume leaves the run paused as it was."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

from graphkit.widgets import DebugSession

langgraph = pytest.importorskip("langgraph")

INPUT = {"expenses": [{"item": "laptop", "amount": 1800}, {"item": "chair", "amount": 240}]}


class Expenses(TypedDict, total=False):
    expenses: list
    decisions: Annotated[list, operator.add]


def approvals(kit: Any) -> Any:
    """One ``approve`` task per expense (Send), each asking a manager."""

    def approve(expense: dict) -> dict:
        answer = kit.interrupt(f"Approve {expense['item']}?")
        return {"decisions": [f"{expense['item']}: {answer}"]}

    builder = kit.StateGraph(Expenses)
    builder.add_node("approve", approve)
    sends = lambda state: [kit.Send("approve", e) for e in state["expenses"]]  # noqa: E731
    builder.add_conditional_edges(kit.START, sends, ["approve"])
    return builder.add_edge("approve", kit.END)


def live_session() -> DebugSession:
    import graphkit

    session = DebugSession(approvals(graphkit).compile(), INPUT)
    session.run()
    return session


def test_a_resume_the_runtime_refuses_leaves_the_run_paused_as_it_was():
    # the session raised half-way through resuming, and then showed step 0 "paused by a
    # compiled breakpoint", its questions gone
    session = live_session()
    before = (session.view().status_text, session.supersteps, session.interrupts)
    session.resume("yes")  # one answer for two questions: refused, as LangGraph does
    assert session.message.startswith("Not resumed: RuntimeError: When there are multiple")
    assert (session.view().status_text, session.supersteps, session.interrupts) == before
