"""``trace(app, ...)`` on a LangGraph app converts it anew on each call, with a new
in-memory saver. A user who traced a run that paused in ``interrupt()`` and then traced
``Command(resume=...)`` on the same thread (the LangGraph habit) got a warning to
"check the thread_id", then a ``KeyError`` from a run started over with no input."""

from __future__ import annotations

from typing import TypedDict

import pytest

pytest.importorskip("langgraph")

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from graphkit.bridge import trace


class Draft(TypedDict):
    draft: str
    verdict: str


def _review_app():
    builder = StateGraph(Draft)
    builder.add_node("review", lambda state: {"verdict": interrupt(state["draft"])})
    builder.add_edge(START, "review").add_edge("review", END)
    return builder.compile(checkpointer=InMemorySaver())


@pytest.mark.parametrize(
    "resume",
    [Command(resume="ok"), None, Command(update={"verdict": "ok"}), Command(goto="review")],
    ids=["command", "none", "update", "goto"],
)
def test_tracing_a_resume_of_a_langgraph_app_says_to_convert_it_once(resume):
    app, config = _review_app(), {"configurable": {"thread_id": "h"}}
    assert trace(app, {"draft": "hi"}, config).status == "interrupted"
    with pytest.raises(ValueError) as raised:
        trace(app, resume, config)
    assert str(raised.value) == REFUSAL


def test_a_thread_no_earlier_call_ran_is_not_said_to_have_been_run():
    with pytest.raises(ValueError) as raised:
        trace(_review_app(), None, {"configurable": {"thread_id": "h"}})
    assert str(raised.value) == REFUSAL


REFUSAL = (
    "trace(app, ...) converts a LangGraph app anew on each call, with a new graphkit "
    "in-memory saver, so thread 'h' has no checkpoint in it, whatever ran on it before "
    "(and LangGraph's own saver is not read): there is nothing to resume or go on from. "
    "Convert the app once and trace on that graph: graph = from_langgraph(app), then "
    "graph.trace(input, config) and graph.trace(Command(resume=...), config). To "
    "read the thread LangGraph saved, use open_langgraph_thread(app, config)."
)


def test_the_same_resume_on_a_graph_converted_once_goes_on():
    from graphkit import from_langgraph

    graph, config = from_langgraph(_review_app()), {"configurable": {"thread_id": "h"}}
    graph.trace({"draft": "hi"}, config)
    assert trace(graph, Command(resume="ok"), config).values == {"draft": "hi", "verdict": "ok"}


def test_a_thread_id_beside_configurable_is_refused_as_the_same_thread():
    """{'thread_id': 'h'}, which LangGraph's runs take, ran the resume from START on the
    new saver with a warning to check the thread_id, instead of this refusal."""
    app = _review_app()
    assert trace(app, {"draft": "hi"}, {"thread_id": "h"}).status == "interrupted"
    with pytest.raises(ValueError) as raised:
        trace(app, Command(resume="ok"), {"thread_id": "h"})
    assert str(raised.value) == REFUSAL
