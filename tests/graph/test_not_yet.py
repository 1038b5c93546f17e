"""What graphkit does not support yet says so, with NotImplementedError (docs/compatibility.md,
"Not yet"), instead of an AttributeError or TypeError from deep inside."""

from __future__ import annotations

from typing import TypedDict

import pytest

from graphkit import START, StateGraph
from graphkit.checkpoint import InMemorySaver


class State(TypedDict):
    x: int


def builder() -> StateGraph:
    return StateGraph(State).add_node("a", lambda state: {"x": 1}).add_edge(START, "a")


def test_not_yet_supported_says_so():
    with pytest.raises(NotImplementedError, match=r"trace_policy=\.\.\.\) is not supported"):
        builder().add_node("b", dict, trace_policy=object())


def test_version_v1_and_a_real_checkpointer_still_work():
    app = builder().compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    assert app.invoke({"x": 0}, config, version="v1") == {"x": 1}
