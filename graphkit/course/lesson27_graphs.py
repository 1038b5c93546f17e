"""The graphs lesson 27 streams, in its notebook and in its checks: 27.1's research desk
(``desk_graph``), 27.2's graph with two nodes called ``model`` (``talk_graph``) and
27.3's review that pauses (``review_graph``), with their states and the stand-in model
their nodes ask. The checks that read what they stream are in ``lesson27``, which
imports every name here again.

>>> parts = _stream(talk_graph(), {"topic": "tides"})
>>> sorted({(part["type"], bool(part["ns"])) for part in parts})
[('messages', False), ('messages', True), ('values', False), ('values', True)]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypedDict

__all__ = ["DESKS", "MODES", "Desk", "Review", "Talk", "desk_graph", "review_graph", "talk_graph"]

MODES = ["custom", "messages", "values"]
"""The modes of the streams ``check_consume`` and ``check_text_of`` hand the learner."""


def _said(model_text: str) -> Any:
    """A node that asks a scripted chat model and returns its answer's text."""
    from graphkit.prebuilt import ScriptedChatModel

    return ScriptedChatModel(responses=[model_text]).invoke("go").content


def _stream(app: Any, state: dict, config: dict | None = None) -> list[dict]:
    return list(app.stream(state, config, stream_mode=MODES, subgraphs=True, version="v2"))


# -- 27.1 · progress and the final answer ----------------------------------------------------------


class Desk(TypedDict, total=False):
    """27.1's state: the question, the pages read, a summary and the answer."""

    question: str
    pages: list[str]
    summary: str
    answer: str


def desk_graph() -> Any:
    """27.1's graph: ``plan`` (a progress line), a ``research`` subgraph (``search``
    reports each page it reads; ``summarize`` asks a model), ``write``, whose model
    answers, then ``cite``, which adds the number of sources to the answer."""
    from graphkit import START, StateGraph, get_stream_writer

    def plan(state: Desk) -> dict:
        get_stream_writer()(f"planning: {state['question']}")
        return {}

    def search(state: Desk) -> dict:
        write = get_stream_writer()
        for page in state["pages"]:
            write(f"reading {page}")
        return {}

    def summarize(state: Desk) -> dict:
        return {"summary": _said(f"{len(state['pages'])} pages on {state['question']}")}

    def write(state: Desk) -> dict:
        return {"answer": _said(f"The answer to {state['question']}")}

    def cite(state: Desk) -> dict:
        get_stream_writer()("citing")
        return {"answer": f"{state['answer']} [{len(state['pages'])} sources]"}

    research = StateGraph(Desk)
    research.add_node("search", search)
    research.add_node("summarize", summarize)
    research.add_edge(START, "search")
    research.add_edge("search", "summarize")
    builder = StateGraph(Desk)
    builder.add_node("plan", plan)
    builder.add_node("research", research.compile())
    builder.add_node("write", write)
    builder.add_node("cite", cite)
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "research")
    builder.add_edge("research", "write")
    builder.add_edge("write", "cite")
    return builder.compile()


DESKS = [
    {"question": "tides", "pages": ["moon.html", "sea.html"]},
    {"question": "comets", "pages": ["ice.html", "orbit.html", "tail.html"]},
]
"""The inputs ``check_consume`` streams."""


# -- 27.2 · one node's tokens ----------------------------------------------------------------------


class Talk(TypedDict, total=False):
    topic: str
    notes: str
    draft: str
    verdict: str


def talk_graph() -> Any:
    """27.2's graph: a ``research`` subgraph (``search``, silent, then its own ``model``,
    which talks), then the top graph's ``model`` and ``critic``, which talk too."""
    from graphkit import START, StateGraph

    def search(state: Talk) -> dict:
        return {}

    def notes(state: Talk) -> dict:
        return {"notes": _said(f"Notes on {state['topic']}: it is old.")}

    def draft(state: Talk) -> dict:
        return {"draft": _said(f"A draft on {state['topic']}.")}

    def critic(state: Talk) -> dict:
        return {"verdict": _said(f"Too short for {state['topic']}.")}

    research = StateGraph(Talk)
    research.add_node("search", search)
    research.add_node("model", notes)
    research.add_edge(START, "search")
    research.add_edge("search", "model")
    builder = StateGraph(Talk)
    builder.add_node("research", research.compile())
    builder.add_node("model", draft)
    builder.add_node("critic", critic)
    builder.add_edge(START, "research")
    builder.add_edge("research", "model")
    builder.add_edge("model", "critic")
    return builder.compile()


# -- 27.3 · answer every interrupt -----------------------------------------------------------------


class Review(TypedDict, total=False):
    question: str
    answer: str
    status: str


def review_graph(reviews: int = 2, ran: Callable[[str], None] | None = None) -> Any:
    """27.3's graph, with a checkpointer: ``write`` answers the question, then ``reviews``
    nodes (0 to 2) each pause on an interrupt: ``review`` asks about the answer,
    ``publish`` asks how many readers to send it to; the answers go into ``status``."""
    from graphkit import START, InMemorySaver, StateGraph, interrupt

    ran = ran or (lambda node: None)

    def write(state: Review) -> dict:
        ran("write")
        return {"answer": f"{state['question']}: twice a day", "status": "written"}

    def review(state: Review) -> dict:
        ran("review")
        decision = interrupt({"asks": "approve?", "answer": state["answer"]})
        return {"status": f"{state['status']}, reviewed: {decision}"}

    def publish(state: Review) -> dict:
        ran("publish")
        decision = interrupt({"asks": "readers?", "answer": state["answer"]})
        return {"status": f"{state['status']}, sent to {decision}"}

    builder = StateGraph(Review)
    builder.add_node("write", write)
    builder.add_edge(START, "write")
    last = "write"
    for name, node in [("review", review), ("publish", publish)][:reviews]:
        builder.add_node(name, node)
        builder.add_edge(last, name)
        last = name
    return builder.compile(checkpointer=InMemorySaver())
