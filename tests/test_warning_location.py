"""A GraphkitWarning points at the user's line (their compile/invoke), never into
graphkit's own files: a learner reading the warning sees where *their* call was."""

from __future__ import annotations

import warnings
from typing import TypedDict

from graphkit import START, Send, StateGraph


class State(TypedDict):
    text: str


def _caught(action):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        action()
    return caught


def test_a_compile_warning_points_at_the_compile_call():
    builder = StateGraph(State)
    builder.add_node("text", lambda s: {})  # same name as a state key: a warning
    builder.add_edge(START, "text")
    [warning] = _caught(builder.compile)
    assert warning.filename == __file__, warning.filename
    assert "same name as a state key" in str(warning.message)


def test_a_runtime_warning_points_at_the_invoke_call():
    builder = StateGraph(State)
    builder.add_node("fan", lambda s: {})
    builder.add_node("work", lambda s: {})
    builder.add_edge(START, "fan")
    builder.add_conditional_edges("fan", lambda s: [Send("nope", {})], ["work"])
    app = builder.compile()
    caught = _caught(lambda: app.invoke({"text": "t"}))
    assert [w.filename for w in caught] == [__file__], [str(w.message) for w in caught]
    assert "a Send targets 'nope'" in str(caught[0].message)


def test_a_config_type_warning_points_at_the_users_add_node_and_add_conditional_edges():
    """(This module's annotations are strings: ``dict`` here is the string 'dict'.)"""

    def respond(state: State, config: dict) -> dict:
        return {}

    def route(state: State, config: dict) -> str:
        return "respond"

    builder = StateGraph(State)
    builder.add_node("first", lambda s: {})
    caught = _caught(lambda: builder.add_node("respond", respond))
    caught += _caught(lambda: builder.add_conditional_edges("first", route, ["respond"]))
    assert [w.filename for w in caught] == [__file__, __file__]
    assert ["`config` parameter is typed dict;" in str(w.message) for w in caught] == [True, True]
