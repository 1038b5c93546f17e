"""LangGraph apps written as LangGraph users write them (not for graphkit), opened with
``open_langgraph_thread``: what the imported records say must match what LangGraph
saved, and graphkit's own run of the same graph (bridge11)."""

from __future__ import annotations

import operator
from typing import Annotated, Literal, TypedDict

import pytest

pytest.importorskip("langgraph")

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, Send

from graphkit import from_langgraph, open_langgraph_thread


class _Research(TypedDict):
    query: str
    docs: Annotated[list[str], operator.add]
    summary: str


class _Parent(TypedDict):
    query: str
    summary: str


def _kept_app():
    """A parent whose ``research`` node is a subgraph compiled ``checkpointer=True``:
    LangGraph keeps its state in one thread, across the parent's runs."""
    sub = StateGraph(_Research)
    sub.add_node("retrieve", lambda s: {"docs": [f"doc on {s['query']}"]})
    sub.add_node("summarize", lambda s: {"summary": "; ".join(s["docs"])})
    sub.add_edge(START, "retrieve")
    sub.add_edge("retrieve", "summarize")
    parent = StateGraph(_Parent)
    parent.add_node("research", sub.compile(checkpointer=True))
    parent.add_edge(START, "research")
    return parent.compile(checkpointer=InMemorySaver())


def test_a_subgraph_with_its_own_thread_reads_as_kept_in_it():
    """LangGraph saves a ``checkpointer=True`` subgraph under its node's name, with no
    task id (``get_state_history``'s configs say ``checkpoint_ns: 'research'``); the
    imported subrun said it was saved under the task's namespace, and the subgraphs
    table ``kept: this call``, where graphkit's own run says ``own thread``."""
    app = _kept_app()
    config = {"configurable": {"thread_id": "kept"}}
    app.invoke({"query": "bsp"}, config)
    app.invoke({"query": "pregel"}, config)
    saved = {
        snapshot.config["configurable"]["checkpoint_ns"]
        for snapshot in app.get_state_history(
            {"configurable": {"thread_id": "kept", "checkpoint_ns": "research"}}
        )
    }
    assert saved == {"research"}  # LangGraph's own word on where it is kept
    run = open_langgraph_thread(app, config)
    frame = run.to_frame("subgraphs")
    assert list(frame["kept"]) == ["own thread", "own thread"]
    assert list(frame["saved_in"]) == ["research", "research"]
    own = from_langgraph(app).trace({"query": "bsp"}, {"configurable": {"thread_id": "1"}})
    mine = own.to_frame("subgraphs")
    assert list(mine["kept"]) == ["own thread"]
    assert list(mine["saved_in"]) == ["research"]
    assert list(mine["namespace"]) == list(frame["namespace"])[:1]


class _Chat(TypedDict):
    log: Annotated[list[str], operator.add]


def _agent(name: str):
    """A small agent subgraph, as ``create_react_agent`` builds each: ``agent``, then
    ``tools``; every agent of a supervisor has nodes of these names."""
    sub = StateGraph(_Chat)
    sub.add_node("agent", lambda state: {"log": [f"{name} thinks"]})
    sub.add_node("tools", lambda state: {"log": [f"{name} calls a tool"]})
    sub.add_edge(START, "agent")
    sub.add_edge("agent", "tools")
    return sub.compile()


def test_why_about_a_node_two_subgraphs_have_names_both():
    """A supervisor's agents each have a ``tools`` node: ``why('tools')`` pointed at the
    first agent's run only, and the one a user asks about is as often the second's."""
    parent = StateGraph(_Chat)
    parent.add_node("research", _agent("research"))
    parent.add_node("math", _agent("math"))
    parent.add_edge(START, "research")
    parent.add_edge("research", "math")
    app = parent.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "two"}}
    app.invoke({"log": []}, config)
    own = from_langgraph(app).trace({"log": []}, {"configurable": {"thread_id": "1"}})
    for run in (open_langgraph_thread(app, config), own):
        with pytest.raises(ValueError) as raised:
            run.why("tools")
        said = str(raised.value)
        assert "'tools' is a node of subgraphs research and math" in said, said
        assert "run.step(1).execution.results[0].subruns[0].why('tools') (research)" in said
        assert "run.step(2).execution.results[0].subruns[0].why('tools') (math)" in said


def _handoff_app(destinations: tuple[str, ...]):
    """A supervisor's handoff: ``research``'s subgraph sends the parent to ``math``
    with ``Command(graph=Command.PARENT)``, as a handoff tool does."""
    from langgraph.graph import END
    from langgraph.types import Command

    def hand_off(state: _Chat):
        return Command(goto="math", update={"log": ["to math"]}, graph=Command.PARENT)

    sub = StateGraph(_Chat)
    sub.add_node("hand_off", hand_off)
    sub.add_edge(START, "hand_off")
    parent = StateGraph(_Chat)
    parent.add_node("research", sub.compile(), destinations=destinations)
    parent.add_node("math", lambda state: {"log": ["5"]})
    parent.add_edge(START, "research")
    parent.add_edge("math", END)
    return parent.compile(checkpointer=InMemorySaver())


def test_a_handoff_is_drawn_as_the_page_says():
    """docs/langgraph.md: undeclared, ``math`` stands alone in the drawing (as in
    LangGraph's) and ``from_langgraph`` warns; declared, a ``goto`` edge, and
    ``why(..., graph=app)`` names the Command."""
    from graphkit.errors import GraphkitWarning

    app = _handoff_app(())
    with pytest.warns(GraphkitWarning, match="Node 'math': nothing leads to it"):
        drawn = from_langgraph(app).get_graph()
    assert [(e.source, e.target) for e in drawn.edges if "math" in (e.source, e.target)] == []
    app = _handoff_app(("math",))
    drawn = from_langgraph(app).get_graph()
    assert [(e.source, e.target, e.conditional) for e in drawn.edges if e.target == "math"] == [
        ("research", "math", True)
    ]
    config = {"configurable": {"thread_id": "handoff"}}
    assert app.invoke({"log": []}, config)["log"] == ["to math", "5"]
    said = str(open_langgraph_thread(app, config).why("math", graph=app))
    assert "by research's Command(goto=...)" in said, said


class _Fan(TypedDict):
    items: list[int]
    out: Annotated[list[int], operator.add]


def _sends(state: _Fan) -> list[Send]:
    return [Send("work", {"x": item}) for item in state["items"]]


def _fan(state: _Fan) -> Command[Literal["work"]]:
    return Command(goto=_sends(state))


def _fan_app(by_command: bool):
    """A map-reduce: ``fan`` sends one packet per item to ``work``, by returning
    ``Command(goto=[Send(...)])`` or through a conditional edge's router."""
    builder = StateGraph(_Fan)
    builder.add_node("fan", _fan if by_command else lambda state: {})
    builder.add_node("work", lambda packet: {"out": [packet["x"] * 10]})
    builder.add_edge(START, "fan")
    if not by_command:
        builder.add_conditional_edges("fan", _sends, ["work"])
    return builder.compile(checkpointer=InMemorySaver())


@pytest.mark.parametrize("by_command", [True, False], ids=["Command", "router"])
def test_a_send_in_a_langgraph_thread_is_not_said_to_come_from_a_router_it_may_not(
    by_command,
):
    """LangGraph saves no node's output, so not the ``Command(goto=[Send(...)])``: the
    imported run said every packet came "through a router", even with ``graph=app``
    and for a node that has none."""
    app = _fan_app(by_command)
    config = {"configurable": {"thread_id": "fan"}}
    assert app.invoke({"items": [1, 2]}, config)["out"] == [10, 20]
    run = open_langgraph_thread(app, config)
    way = "its Command" if by_command else "a router"
    assert "(through a router or its Command)" in str(run.why("work"))
    assert f"(through {way})" in str(run.why("work", graph=app))
    own = from_langgraph(app).trace({"items": [1, 2]}, {"configurable": {"thread_id": "1"}})
    assert f"(through {way})" in str(own.why("work"))


def test_a_failed_send_task_says_which_packet_it_was_given():
    """A map-reduce with one ``Send`` per item, one of which failed: the run's last line
    and the debugger's status said "joke raised ConnectionError" with three ``joke``
    tasks in the step, and not which item's had failed."""
    from graphkit.widgets import DebugSession

    def joke(packet: dict):
        if packet["x"] == 2:
            raise ConnectionError("model down")
        return {"out": [packet["x"]]}

    builder = StateGraph(_Fan)
    builder.add_node("fan", lambda state: {})
    builder.add_node("joke", joke)
    builder.add_edge(START, "fan")
    builder.add_conditional_edges(
        "fan", lambda state: [Send("joke", {"x": i}) for i in state["items"]], ["joke"]
    )
    app = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "fail"}}
    with pytest.raises(ConnectionError):
        app.invoke({"items": [1, 2, 3]}, config)
    run = open_langgraph_thread(app, config)
    last = str(run).splitlines()[-1]
    assert last == (
        "the run failed at step 2: joke (sent {'x': 2}) raised ConnectionError: model down"
    )
    status = DebugSession.from_run(app, run, config).view().status_text
    assert status == ("error in node 'joke' (sent {'x': 2}) at step 2: ConnectionError: model down")
