"""Time travel against LangGraph (programs after its ``test_time_travel.py``):
``update_state`` without ``as_node`` on a thread's later run counts START among the nodes
that wrote last."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS


class Chain(TypedDict):
    out: Annotated[list, operator.add]


def _edits(lib: Lib, saver: Any) -> list:
    """update_state without as_node at the points of a thread's second run."""
    graph = lib.StateGraph(Chain)
    graph.add_node("a", lambda state: {"out": ["a"]})
    graph.add_node("b", lambda state: {"out": ["b"]})
    app = graph.add_edge(lib.START, "a").add_edge("a", "b").compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"out": []}, config)
    app.invoke({"out": []}, config)
    seen = []
    for point in list(app.get_state_history(config))[:4]:
        edited = app.update_state(point.config, {"out": ["x"]})
        snapshot = app.get_state(edited)
        seen.append((point.next, snapshot.next, snapshot.values, app.invoke(None, edited)))
    return seen


@pytest.mark.parametrize("saver", sorted(SAVERS))
def test_an_edit_after_start_ran_again_is_start_s(saver):
    """On the second run, before ``a``, START wrote last: the edit is START's, so ``a``
    runs next (graphkit left START out and took it for ``b``'s, ending the thread)."""
    runs = []
    for lib in (load_langgraph(), load_graphkit()):
        with SAVERS[saver](lib.name) as checkpointer:
            runs.append(_edits(lib, checkpointer))
    assert runs[1] == runs[0]
    assert runs[0][2][:2] == (("a",), ("a",))
