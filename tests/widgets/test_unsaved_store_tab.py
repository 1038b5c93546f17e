"""A thread read from LangGraph's saver keeps no store operations (LangGraph does not
save them): the debugger's store tab said "no store operations in this step" of a step
whose node had searched the store (agentpass: a memory bot's recall looked up the wrong
namespace, and the tab of the LangGraph thread said it had not looked at all). It says
the operations are unknown there, and shows them for a step run on graphkit."""

from __future__ import annotations

from typing import Any, TypedDict

import pytest

from graphkit.widgets import DebugSession

langgraph = pytest.importorskip("langgraph")

from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.store.memory import InMemoryStore  # noqa: E402


class Chat(TypedDict, total=False):
    question: str
    facts: list


def memory_bot(kit: Any) -> Any:
    def recall(state: Chat, runtime: Any) -> dict:
        found = runtime.store.search(("ada", "memories"))  # put under ("memories", "ada")
        return {"facts": [item.value for item in found]}

    builder = kit.StateGraph(Chat)
    builder.add_node("recall", recall)
    builder.add_node("again", recall)
    return builder.add_edge(kit.START, "recall").add_edge("recall", "again")


def test_the_store_tab_of_a_langgraph_step_says_its_operations_are_unknown():
    import langgraph.graph

    from graphkit import open_langgraph_thread

    store = InMemoryStore()
    store.put(("memories", "ada"), "f1", {"fact": "loves sailing"})
    kit = type("kit", (), vars(langgraph.graph))
    app = memory_bot(kit).compile(
        checkpointer=InMemorySaver(), store=store, interrupt_before=["again"]
    )
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"question": "what do I love?"}, config)
    session = DebugSession.from_run(app, open_langgraph_thread(app, config), config)
    session.goto(2)  # recall's step, as LangGraph saved it
    assert session.view().table_html("store") == (
        '<p class="gk-empty">unknown: LangGraph does not save what a task did with the '
        "store, so a thread read from its saver shows none; a step run here (Step, or "
        "from_langgraph(app).trace) shows them</p>"
    )
    session.resume()
    session.step()  # again, run on graphkit: its search is recorded
    view = session.view()
    assert view.tables["store"]["namespace"].tolist() == ["ada/memories"]
    assert "search" in view.table_html("store")
