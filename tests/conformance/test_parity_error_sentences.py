"""The sentence LangGraph's recursion-limit and resume-without-checkpointer errors say is
a whole line of graphkit's message, which then adds its own lines (which step, what to
change): a ``pytest.raises(match=...)`` or a ``"..." in str(error)`` copied from code
written for LangGraph finds it, on a sync or async run, a subgraph or a low-level
``Pregel``. So do the ``ValueError``s of ``add_messages`` and ``push_message`` (a
``RemoveMessage`` of an unknown id, one argument missing, an unknown format, a pushed
message without an id), which LangGraph's own ``test_messages_state.py`` matches."""

from __future__ import annotations

import asyncio
import importlib
import re
from typing import Any, TypedDict

import pytest


class Count(TypedDict):
    n: int


def _module(library: str, name: str) -> Any:
    return importlib.import_module(name.replace("langgraph", library, 1))


def _looping(library: str, shape: str) -> Any:
    graph = _module(library, "langgraph.graph")
    if shape == "low-level Pregel":
        pregel, channels = (
            _module(library, "langgraph.pregel"),
            _module(library, "langgraph.channels"),
        )
        node = pregel.NodeBuilder().subscribe_only("n").do(lambda n: n + 1).write_to("n")
        return pregel.Pregel(
            nodes={"inc": node},
            channels={"n": channels.LastValue(int)},
            input_channels="n",
            output_channels="n",
        )
    builder = graph.StateGraph(Count).add_node("inc", lambda state: {"n": state["n"] + 1})
    loop = builder.add_edge(graph.START, "inc").add_edge("inc", "inc").compile()
    if shape == "graph":
        return loop
    parent = graph.StateGraph(Count).add_node("loop", loop)
    return parent.add_edge(graph.START, "loop").compile()


def _recursion_message(library: str, shape: str, run: str) -> str:
    app = _looping(library, shape)
    given = 0 if shape == "low-level Pregel" else {"n": 0}
    errors = _module(library, "langgraph.errors")
    with pytest.raises(errors.GraphRecursionError) as raised:
        if run == "invoke":
            app.invoke(given, {"recursion_limit": 5})
        else:
            asyncio.run(app.ainvoke(given, {"recursion_limit": 5}))
    return str(raised.value)


@pytest.mark.parametrize("run", ["invoke", "ainvoke"])
@pytest.mark.parametrize("shape", ["graph", "subgraph", "low-level Pregel"])
def test_the_recursion_limit_error_says_langgraphs_line(shape: str, run: str) -> None:
    theirs = _recursion_message("langgraph", shape, run).splitlines()[0]
    ours = _recursion_message("graphkit", shape, run)
    assert theirs == (
        "Recursion limit of 5 reached without hitting a stop condition. You can increase "
        "the limit by setting the `recursion_limit` config key."
    )
    assert ours.splitlines()[0] == theirs
    for copied in (theirs, "Recursion limit of 5 reached without hitting a stop condition."):
        assert re.search(copied, ours), copied  # as pytest.raises(match=copied) reads it
    assert "Step 6 was about to run ['inc']." in ours.splitlines()  # then graphkit's lines


def _resume_message(library: str) -> str:
    graph, types = _module(library, "langgraph.graph"), _module(library, "langgraph.types")

    def ask(state: Count) -> Count:
        return {"n": types.interrupt("n?")}

    app = graph.StateGraph(Count).add_node("ask", ask).add_edge(graph.START, "ask").compile()
    with pytest.raises(RuntimeError) as raised:
        app.invoke(types.Command(resume=1))
    return str(raised.value)


def test_a_resume_without_checkpointer_says_langgraphs_sentence() -> None:
    theirs, ours = _resume_message("langgraph"), _resume_message("graphkit")
    assert theirs == "Cannot use Command(resume=...) without checkpointer"
    assert ours.startswith(theirs)
    assert re.search(re.escape(theirs), ours)
    assert "Compile the graph with checkpointer=InMemorySaver()" in ours


def _messages_error(library: str, case: str) -> str:
    from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage

    graph = _module(library, "langgraph.graph")
    message = _module(library, "langgraph.graph.message")
    history = [HumanMessage("hello", id="1")]

    def push(state: Any) -> dict:
        message.push_message(AIMessage("no id"))
        return {}

    def push_in_a_run() -> Any:
        app = graph.StateGraph(message.MessagesState).add_node("push", push)
        return app.add_edge(graph.START, "push").compile().invoke({"messages": []})

    calls = {
        "remove an unknown id": lambda: message.add_messages(history, RemoveMessage(id="2")),
        "no current messages": lambda: message.add_messages(None, history),
        "no update": lambda: message.add_messages(history, None),
        "an unknown format": lambda: message.add_messages(format="html")([], history),
        "push a message without an id": push_in_a_run,
    }
    with pytest.raises(ValueError) as raised:
        calls[case]()
    return str(raised.value)


@pytest.mark.parametrize(
    ("case", "copied"),
    [
        ("remove an unknown id", "Attempting to delete a message with an ID that doesn't exist"),
        ("no current messages", "Must specify non-null arguments for both 'left' and 'right'."),
        ("no update", "Must specify non-null arguments for both 'left' and 'right'."),
        ("an unknown format", "Unrecognized format='html'."),
        ("push a message without an id", "Message ID is required"),
    ],
)
def test_the_messages_errors_say_langgraphs_line(case: str, copied: str) -> None:
    theirs = _messages_error("langgraph", case)
    ours = _messages_error("graphkit", case)
    assert "\n" not in theirs and theirs.startswith(copied)
    assert ours.splitlines()[0] == theirs
    assert re.search(copied, ours), copied  # as pytest.raises(match=copied) reads it
    assert len(ours.splitlines()) > 1  # then graphkit's line: what to do
