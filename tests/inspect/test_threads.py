"""A thread's checkpoints and pending writes as tables, with the fork lineage."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from graphkit import START, InMemorySaver, StateGraph
from graphkit.inspect import checkpoints_frame, pending_writes_frame
from graphkit.inspect.examples import paused_thread
from graphkit.inspect.threads import CHECKPOINT_COLUMNS, WRITE_COLUMNS


class State(TypedDict):
    log: Annotated[list, operator.add]


def two_steps():
    builder = StateGraph(State)
    builder.add_node("a", lambda s: {"log": ["a"]}).add_node("b", lambda s: {"log": ["b"]})
    builder.add_edge(START, "a").add_edge("a", "b")
    return builder.compile(checkpointer=InMemorySaver())


def test_checkpoint_table_has_lineage_columns_then_one_column_per_state_key():
    app, config = two_steps(), {"configurable": {"thread_id": "t"}}
    app.invoke({"log": []}, config)
    frame = checkpoints_frame(app, config)
    assert list(frame.columns) == [*CHECKPOINT_COLUMNS, "log"]
    assert frame["step"].tolist() == [2, 1, 0, -1]
    assert frame["parent_id"].tolist()[:-1] == frame["checkpoint_id"].tolist()[1:]
    # the first checkpoint has no parent: None, not the NaN pandas' string dtype gives
    assert frame["parent_id"].tolist()[-1] is None
    assert checkpoints_frame(app, config, readable=True)["parent_id"].tolist()[-1] is None
    assert frame["log"].tolist()[0] == ["a", "b"]
    assert frame["fork_of"].isna().all()


def test_a_fork_is_marked_where_the_branch_starts():
    app, config = two_steps(), {"configurable": {"thread_id": "t"}}
    app.invoke({"log": []}, config)
    after_a = checkpoints_frame(app, config).iloc[1]
    older = {"configurable": {**config["configurable"], "checkpoint_id": after_a["checkpoint_id"]}}
    app.update_state(older, {"log": ["edited"]}, as_node="a")
    frame = checkpoints_frame(app, config)
    forks = frame[frame["fork_of"].notna()]
    assert set(forks["fork_of"]) == {after_a["checkpoint_id"]}
    assert sorted(forks["source"]) == ["loop", "update"]  # the old child and the new branch


def test_pending_writes_of_a_paused_thread():
    app, config = paused_thread()
    frame = pending_writes_frame(app, config)
    assert list(frame.columns) == list(WRITE_COLUMNS)
    assert frame["channel"].tolist() == ["__interrupt__"]
    assert frame["value"].tolist()[0][0].value == "publish?"


def test_an_unknown_thread_has_empty_tables():
    app = two_steps()
    config = {"configurable": {"thread_id": "nobody"}}
    assert checkpoints_frame(app, config).empty and pending_writes_frame(app, config).empty


def test_a_thread_langgraph_saved_reads_as_a_table_with_readable_messages():
    """A compiled LangGraph graph is taken as it is (its thread is in its own saver): the
    state keys come from the graph it converts to, and readable=True shows a chat message
    as the run tables do, not its whole repr."""
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.checkpoint.memory import InMemorySaver as LangGraphSaver
    from langgraph.graph import START as LANGGRAPH_START
    from langgraph.graph import MessagesState
    from langgraph.graph import StateGraph as LangGraphStateGraph
    from langgraph.types import interrupt

    def ask(state):
        return {"messages": [AIMessage(interrupt("ok?"))]}

    builder = LangGraphStateGraph(MessagesState).add_node("ask", ask)
    app = builder.add_edge(LANGGRAPH_START, "ask").compile(checkpointer=LangGraphSaver())
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"messages": [HumanMessage("hi")]}, config)

    frame = checkpoints_frame(app, config, readable=True)
    assert list(frame.columns) == [*CHECKPOINT_COLUMNS, "messages"]
    assert frame["step"].tolist() == [0, -1]
    assert frame["messages"].tolist()[0] == '[human: "hi"]'
    assert checkpoints_frame(app, config)["messages"][0][0].content == "hi"
    pending = pending_writes_frame(app, config, readable=True)
    assert pending[["node", "channel"]].values.tolist() == [["ask", "__interrupt__"]]
    assert pending["value"][0].startswith("[Interrupt(value='ok?'")


def test_a_readable_table_tells_a_key_not_written_yet_from_a_key_holding_none():
    # readable=True showed both as None (lesson 07's essay table: a text not drafted yet)
    class Essay(TypedDict, total=False):
        outline: str
        text: str | None

    builder = StateGraph(Essay)
    builder.add_node("sketch", lambda s: {"outline": "tea", "text": None})
    builder.add_edge(START, "sketch")
    app, config = (
        builder.compile(checkpointer=InMemorySaver()),
        {"configurable": {"thread_id": "t"}},
    )
    app.invoke({}, config)
    frame = checkpoints_frame(app, config, readable=True).set_index("step")
    assert frame.loc[0, "text"] == "<empty>" and frame.loc[1, "text"] == "None"
    assert frame.loc[1, "outline"] == "'tea'"
    raw = checkpoints_frame(app, config).set_index("step")  # (unchanged: None for both)
    assert raw.loc[0, "text"] is None and raw.loc[1, "text"] is None
