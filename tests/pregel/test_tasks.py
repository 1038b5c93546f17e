"""Running one task: an error raised by a node or its router keeps its class and gains
a note naming the task and the step (issue 17, item 4)."""

from __future__ import annotations

import operator
import re
from typing import Annotated, TypedDict

import pytest
from pydantic import BaseModel

from graphkit import START, Command, GraphkitWarning, StateGraph
from graphkit.errors import InvalidUpdateError


class State(TypedDict, total=False):
    n: int
    log: Annotated[list, operator.add]


TASK_NOTE = re.compile(
    r"During task with name '(?P<node>[^']*)' and id '[0-9a-f-]{36}' \(step (?P<step>\d+)\)"
)


def task_note(error: BaseException) -> re.Match[str]:
    notes = getattr(error, "__notes__", [])
    matches = [m for m in map(TASK_NOTE.fullmatch, notes) if m]
    assert len(matches) == 1, notes
    return matches[0]


def chain(*nodes):
    builder = StateGraph(State)
    previous = START
    for name, node in nodes:
        builder.add_node(name, node)
        builder.add_edge(previous, name)
        previous = name
    return builder


def boom(state):
    raise KeyError("boom")


def test_a_node_error_keeps_its_class_and_names_the_task_and_step():
    app = chain(("ok", lambda state: {"n": 1}), ("bad", boom)).compile()
    with pytest.raises(KeyError) as raised:
        app.invoke({"n": 0})
    note = task_note(raised.value)
    assert (note["node"], note["step"]) == ("bad", "2")
    assert str(raised.value) == "'boom'"


def test_a_retried_node_error_is_noted_once():
    from graphkit import RetryPolicy

    builder = StateGraph(State)
    builder.add_node("bad", boom, retry_policy=RetryPolicy(max_attempts=2, initial_interval=0))
    builder.add_edge(START, "bad")
    with pytest.raises(KeyError) as raised:
        builder.compile().invoke({"n": 0})
    assert task_note(raised.value)["node"] == "bad"


def test_a_router_error_keeps_its_class_and_names_the_router():
    def pick_next(state):
        raise ValueError("bad route")

    builder = chain(("a", lambda state: {"n": 1}))
    builder.add_conditional_edges("a", pick_next)
    with pytest.raises(ValueError, match="bad route") as raised:
        builder.compile().invoke({"n": 0})
    assert task_note(raised.value)["node"] == "a"
    assert "Raised by the router pick_next of node 'a' (add_conditional_edges)." in (
        raised.value.__notes__
    )


def test_command_goto_that_is_not_a_name_names_the_node_and_step():
    app = chain(("jump", lambda state: Command(goto=5))).compile()
    with pytest.raises(TypeError) as raised:
        app.invoke({"n": 0})
    assert str(raised.value) == (
        "Node 'jump' returned Command(goto=5): goto takes a node name, END, a Send, or a "
        "list of them, not int."
    )
    assert task_note(raised.value)["step"] == "1"


def test_command_goto_none_is_shown_and_told_to_be_left_out():
    # Command's repr leaves out a goto of None, the value the message is about
    app = chain(("jump", lambda state: Command(goto=None, update={"n": 3}))).compile()
    with pytest.raises(TypeError) as raised:
        app.invoke({"n": 0})
    assert str(raised.value) == (
        "Node 'jump' returned Command(update={'n': 3}, goto=None): goto takes a node name, "
        "END, a Send, or a list of them, not NoneType; to go where the edges lead, leave "
        "goto out."
    )


def test_command_goto_list_with_a_non_name_warns_as_before():
    # LangGraph accepts any collection here and ignores what is not a node
    app = chain(("jump", lambda state: Command(goto=[5]))).compile()
    with pytest.warns(GraphkitWarning, match="returned '5', which is not a node"):
        app.invoke({"n": 0})


def test_an_input_of_the_wrong_type_says_it_is_the_input():
    app = chain(("a", lambda state: {"n": 1})).compile()
    with pytest.raises(InvalidUpdateError) as raised:
        app.invoke(5)
    assert str(raised.value) == (
        "Expected dict, got 5: the run's input must be a dict of state keys (or a state "
        "object), not int. Pass e.g. app.invoke({'key': value}).\nFor troubleshooting, "
        "visit: https://docs.langchain.com/oss/python/langgraph/errors/"
        "INVALID_GRAPH_NODE_RETURN_VALUE"
    )
    assert task_note(raised.value)["node"] == START


class Strict(BaseModel):
    x: int


def test_an_input_the_schema_refuses_says_it_is_the_input():
    from pydantic import ValidationError

    builder = StateGraph(Strict)
    builder.add_node("bump", lambda state: {"x": state.x + 1})
    builder.add_edge(START, "bump")
    with pytest.raises(ValidationError) as raised:
        builder.compile().invoke({"x": "x"})
    assert raised.value.__notes__ == [
        "Before task with name 'bump' (step 1): its state could not be read as Strict; "
        "the values come from the run's input, so fix the input."
    ]
