"""Solutions to lesson 20 · Subgraphs in depth: their own checkpoints, pauses inside them,
and what runs again on resume.

>>> from graphkit.course import lesson20
>>> bool(lesson20.check_mail_once(build_request)), bool(lesson20.check_memory(compile_subgraphs))
(True, True)
>>> bool(lesson20.check_answer_all(answer_all))
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["answer_all", "build_request", "compile_subgraphs"]


def build_request(send: Callable[[str], Any], approval: Any) -> Any:
    """20.1: the mail goes out in a node of its own, ``notify``, whose step has finished
    when the subgraph pauses; the resume runs again only ``request``, the task that
    paused."""
    from graphkit import START, StateGraph
    from graphkit.course.lesson20 import Request

    def notify(state: Request) -> dict:
        send(state["item"])
        return {}

    def request(state: Request) -> dict:
        answer = approval.invoke({"item": state["item"]})["answer"]
        return {"answer": answer}

    builder = StateGraph(Request)
    builder.add_node("notify", notify)
    builder.add_node("request", request)
    builder.add_edge(START, "notify")
    builder.add_edge("notify", "request")
    return builder


def compile_subgraphs(notes_builder: Any, draft_builder: Any) -> tuple[Any, Any]:
    """20.2: ``checkpointer=True`` keeps the notes' state on the parent's thread across
    its turns; the default compile keeps the draft's for one call, enough to resume."""
    return notes_builder.compile(checkpointer=True), draft_builder.compile()


def answer_all(interrupts: Sequence[Any]) -> Any:
    """20.3: one answer per interrupt, keyed by its id."""
    from graphkit import Command

    return Command(
        resume={pause.id: "yes" if pause.value["price"] <= 100 else "no" for pause in interrupts}
    )
