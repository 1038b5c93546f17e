"""``why`` on a LangGraph thread whose waiting edge leads to a deferred node: LangGraph
saves that edge's barrier as ``(seen, finished)``, which its serializer gives back as
the list ``[seen, finished]``; ``why`` read the list as the set of names seen and failed
with "unhashable type: 'set'"."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from graphkit.bridge.threads import open_langgraph_thread


class Log(TypedDict):
    log: Annotated[list, operator.add]


def test_why_reads_the_barrier_of_a_waiting_edge_into_a_deferred_node() -> None:
    builder = StateGraph(Log)
    for name in ("a", "b", "b2"):
        builder.add_node(name, lambda s, name=name: {"log": [name]})
    builder.add_node("j", lambda s: {"log": ["j"]}, defer=True)
    builder.add_edge(START, "a").add_edge(START, "b").add_edge("b", "b2")
    builder.add_edge(["a", "b2"], "j").add_edge("j", END)
    app = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "1"}}
    app.invoke({"log": []}, config)
    run = open_langgraph_thread(app, config)
    answer = run.why("j", 2)  # (b2 writes the edge's last part in step 2)
    assert answer.kinds == ["still_waiting", "next_step"]
    assert "j runs at step 3" in str(answer)
