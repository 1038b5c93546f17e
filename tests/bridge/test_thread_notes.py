"""What an imported LangGraph thread says where LangGraph saved less than graphkit
records: each test runs the graph on LangGraph, reads the thread with
``open_langgraph_thread`` and compares it with graphkit's own run of the same graph
(``from_langgraph``), or with what LangGraph did."""

from __future__ import annotations

import operator
import warnings
from typing import Annotated, TypedDict

import pytest

from graphkit import from_langgraph, open_langgraph_thread

pytest.importorskip("langgraph")

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph


class Order(TypedDict):
    question: str
    answer: str


class Score(TypedDict):
    total: Annotated[int, operator.add]


def _order_bot() -> object:
    builder = StateGraph(Order)
    builder.add_node("bot", lambda state: {"answer": f"re: {state['question']}"})
    builder.add_edge(START, "bot").add_edge("bot", END)
    return builder.compile(checkpointer=InMemorySaver())


def test_an_input_key_the_state_lacks_is_said_dropped_as_in_graphkits_run():
    # an agent's tool read InjectedState("user_id"), given in the input: the state has
    # no user_id, so __start__ dropped it, and the tool raised KeyError
    app, config = _order_bot(), {"configurable": {"thread_id": "1"}}
    given = {"question": "where is my order?", "user_id": "u-42"}
    app.invoke(given, config)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (graphkit warns of the key it drops)
        own = from_langgraph(app).trace(given, {"configurable": {"thread_id": "1"}})
    imported = open_langgraph_thread(app, config)
    line = "wrote question, branch:to:bot; dropped user_id: not a key of the graph's state"
    assert line in own.timeline(width=None)
    assert line in imported.timeline(width=None)
    assert "dropped user_id" in imported.step(0)._repr_html_()


KILLED = """
import os, sqlite3, sys
from typing import TypedDict
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, StateGraph

class Rows(TypedDict):
    raw: str
    rows: list

def enrich(state):
    os._exit(137)  # the worker is killed while enrich runs

builder = StateGraph(Rows).add_node("fetch", lambda state: {"raw": "a,1"})
builder.add_node("enrich", enrich).add_edge(START, "fetch").add_edge("fetch", "enrich")
saver = SqliteSaver(sqlite3.connect(sys.argv[1], check_same_thread=False))
app = builder.compile(checkpointer=saver)
if sys.argv[2:]:
    app.invoke({"raw": ""}, {"configurable": {"thread_id": "ingest"}}, durability=sys.argv[2])
"""


def _killed_thread(path, durability: str):
    """The thread of a worker killed in its second node, and the graph, read here."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", KILLED, str(path), durability], capture_output=True, timeout=120
    )
    assert done.returncode == 137, done.stderr[-2000:]
    namespace: dict = {}
    argv, sys.argv = sys.argv, ["-c", str(path)]
    try:
        exec(KILLED, namespace)
    finally:
        sys.argv = argv
    return namespace["app"], {"configurable": {"thread_id": "ingest"}}


def test_a_thread_killed_mid_run_with_durability_exit_says_why_it_has_no_checkpoint(tmp_path):
    from langgraph.errors import EmptyInputError

    app, config = _killed_thread(tmp_path / "exit.sqlite", "exit")
    with pytest.raises(EmptyInputError):  # what the author saw, resuming it in LangGraph
        app.invoke(None, config)
    with pytest.raises(ValueError, match="no checkpoints") as raised:
        open_langgraph_thread(app, config)
    assert (
        "A run with durability='exit' saves its checkpoint only when it ends, so one whose "
        "process was killed mid-run saved nothing (invoke(None, config) then raises "
        "EmptyInputError): run it again with its input, and with durability='sync' to keep "
        "every step."
    ) in str(raised.value)


def _chat():
    from langchain_core.messages import AIMessage
    from langgraph.graph import MessagesState

    def chatbot(state: MessagesState) -> dict:
        return {"messages": [AIMessage(f"re: {state['messages'][-1].content}")]}

    builder = StateGraph(MessagesState).add_node("chatbot", chatbot)
    builder.add_edge(START, "chatbot").add_edge("chatbot", END)
    return builder.compile(checkpointer=InMemorySaver())


def _edited(as_node: str | None):
    """A chat thread of two turns whose first turn's end was edited with a new question
    (time travel: get_state_history, update_state, invoke(None, fork))."""
    from langchain_core.messages import HumanMessage

    app, config = _chat(), {"configurable": {"thread_id": "trip"}}
    for question in ("plan 3 days in Lisbon", "add Porto"):
        app.invoke({"messages": [("user", question)]}, config)
    after_turn_1 = next(s for s in app.get_state_history(config) if s.metadata["step"] == 1)
    edit = {"messages": [HumanMessage("add Sintra instead", id="h-2")]}
    app.invoke(None, app.update_state(after_turn_1.config, edit, as_node=as_node))
    return app, config


def _words(run) -> list[str]:
    return [" ".join(line.split()) for line in run.timeline(width=None).splitlines()]


def test_an_imported_edit_shows_what_it_wrote():
    # LangGraph 1.2 saves an edit's checkpoint, not its writes: the step read
    # "__update__ wrote nothing" and its message "(runtime)", as if the runtime edited
    run = open_langgraph_thread(*_edited(None))
    lines = _words(run)
    assert "EXECUTE __update__ wrote messages" in lines
    assert any(line.endswith('human: "add Sintra instead"] (from __update__)') for line in lines)
    edit = run.step(2).execution.results[0]
    assert [(channel, [m.content for m in value]) for channel, value in edit.writes] == [
        ("messages", ["add Sintra instead"])
    ]
    # made as __start__, the edit also ran START's edge, which the next step followed
    app, config = _edited("__start__")
    assert app.get_state(config).values["messages"][-1].content == "re: add Sintra instead"
    lines = _words(open_langgraph_thread(app, config))
    assert "EXECUTE __update__ wrote messages, branch:to:chatbot" in lines
    assert "UPDATE branch:to:chatbot <empty> -> None (from __update__)" in lines
    assert "PLAN chatbot triggered by branch:to:chatbot" in lines[lines.index(
        "UPDATE branch:to:chatbot <empty> -> None (from __update__)") + 2:]  # fmt: skip


def test_an_edit_whose_write_cannot_be_told_keeps_its_writer_and_shows_no_write():
    builder = StateGraph(Score).add_node("score", lambda state: {"total": 3})
    app = builder.add_edge(START, "score").compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "1"}}
    app.invoke({"total": 0}, config)
    app.invoke({"total": 0}, config)
    first = next(s for s in app.get_state_history(config) if s.metadata["step"] == 1)
    # an edit of an older checkpoint: 3 -> 5, which no candidate write (5) makes
    run = open_langgraph_thread(app, app.update_state(first.config, {"total": 2}))
    edit = run.steps[-1]
    assert edit.execution.results[0].writes == ()
    assert [(c.channel, c.before, c.after, c.writers) for c in edit.update.changes] == [
        ("total", 3, 5, ("__update__",))
    ]
    assert "UPDATE total 3 -> 5 (from __update__)" in _words(run)


def test_a_thread_killed_in_a_step_says_the_node_would_run_there(tmp_path):
    # saved with durability="sync", the thread ends after fetch's step, enrich next:
    # why("enrich") read "the run has not reached step 2 yet", of a node the author saw
    # the worker die in
    app, config = _killed_thread(tmp_path / "sync.sqlite", "sync")
    assert app.get_state(config).next == ("enrich",)
    answer = open_langgraph_thread(app, config).why("enrich", graph=app).answers[0]
    assert answer.summary == (
        "enrich never ran: the run stopped before step 2, which would run enrich."
    )
    assert answer.reasons[-1].text == (
        "Step 2 would run enrich (step 1's Update changed branch:to:enrich), and the run "
        "stopped before it: nothing of step 2 is in the records. A thread LangGraph saved "
        "stops so when its process ended during the step (or it was run with "
        "interrupt_before, or reached its recursion limit); going on (invoke(None, "
        "config), the debugger's Step) runs enrich."
    )


def test_an_edit_does_not_claim_the_channels_the_runtime_cleared():
    # an edit of a step paused beside a finished sibling: LangGraph consumes the step's
    # trigger channels, and the import said "branch:to:b None -> <empty> (from __update__)"
    from langgraph.types import interrupt

    class Review(TypedDict):
        draft: str
        ok: str

    builder = StateGraph(Review)
    builder.add_node("b", lambda state: {"draft": "hello"})
    builder.add_node("c", lambda state: {"ok": interrupt("send it?")})
    builder.add_edge(START, "b").add_edge(START, "c")
    app = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "1"}}
    app.invoke({"draft": ""}, config)
    app.update_state(config, {"ok": "edited"}, as_node="c")
    edit = open_langgraph_thread(app, config).steps[-1].update
    assert [(c.channel, c.writers) for c in edit.changes] == [
        ("ok", ("__update__",)),
        ("branch:to:b", ()),
        ("branch:to:c", ()),
    ]


def test_an_edit_of_a_list_of_arrays_is_read_without_comparing_them_whole():
    # a time-travel edit appended an embedding to a list of numpy arrays: reading the
    # thread raised "The truth value of an array with more than one element is ambiguous"
    np = pytest.importorskip("numpy")

    class Vectors(TypedDict):
        vectors: Annotated[list, operator.add]

    builder = StateGraph(Vectors).add_node("embed", lambda state: {"vectors": [np.ones(2)]})
    app = builder.add_edge(START, "embed").compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "1"}}
    app.invoke({"vectors": []}, config)
    app.invoke({"vectors": []}, config)
    first = next(s for s in app.get_state_history(config) if s.metadata["step"] == 1)
    fork = app.update_state(first.config, {"vectors": [np.zeros(2)]})
    edit = open_langgraph_thread(app, fork).steps[-1]
    assert [(c.channel, c.writers) for c in edit.update.changes] == [("vectors", ("__update__",))]


def test_a_subgraphs_input_step_does_not_say_it_dropped_the_parents_keys():
    # a subgraph's __start__ is given the parent's whole state: the imported subrun said
    # "dropped user: not a key of the graph's state", graphkit's own subrun nothing
    class Parent(TypedDict):
        topic: str
        user: str
        summary: str

    class Child(TypedDict):
        topic: str
        summary: str

    inner = StateGraph(Child).add_node("write", lambda state: {"summary": state["topic"]})
    builder = StateGraph(Parent).add_node("sub", inner.add_edge(START, "write").compile())
    app = builder.add_edge(START, "sub").compile(checkpointer=InMemorySaver())
    given = {"topic": "owls", "user": "ada", "summary": ""}
    config = {"configurable": {"thread_id": "1"}}
    app.invoke(given, config)
    (imported,) = open_langgraph_thread(app, config).steps[-1].execution.results[0].subruns
    own = from_langgraph(app).trace(given, {"configurable": {"thread_id": "2"}})
    (subrun,) = own.steps[-1].execution.results[0].subruns
    for run in (imported, subrun):
        assert "dropped" not in run.timeline(width=None)
