"""A thread saved by a graphkit older than LangGraph's saved-checkpoint entries (no
``"__input__"`` or ``{}`` entries in ``versions_seen``, no consumed barrier's ``set()``
or spent ``__pregel_tasks`` ``[]`` in ``channel_values``) still loads: it resumes, edits
and reads back as a thread saved now does."""

from __future__ import annotations

import dataclasses
import operator
from typing import Annotated, Any, TypedDict

from graphkit import END, START, Command, InMemorySaver, Send, StateGraph, interrupt
from graphkit.checkpoint.delta_map import DeltaMap


class Notes(TypedDict, total=False):
    notes: Annotated[list, operator.add]


class OlderSaver(InMemorySaver):
    """Saves each checkpoint as an older graphkit did: without the entries LangGraph has."""

    def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        values = {
            key: value
            for key, value in checkpoint.channel_values.items()
            if not (isinstance(value, set | list | tuple) and value in (set(), [], (set(), False)))
        }
        seen = {node: by for node, by in checkpoint.versions_seen.items() if by}
        older = dataclasses.replace(
            checkpoint, channel_values=DeltaMap(values), versions_seen=DeltaMap(seen)
        )
        return super().put(config, older, metadata, new_versions)


def _app(saver: Any) -> Any:
    def ask(state: Notes) -> dict:
        return {"notes": [interrupt("go on?")]}

    graph = StateGraph(Notes)
    for name in "awz":
        graph.add_node(name, lambda state, name=name: {"notes": [name]})
    graph.add_node("ask", ask)
    graph.add_conditional_edges(START, lambda state: [Send("w", {}), Send("w", {})], ["w"])
    graph.add_edge(START, "a").add_edge(["a", "w"], "ask").add_edge("ask", "z")
    graph.add_edge("z", END)
    return graph.compile(checkpointer=saver)


def _thread(saver: Any) -> tuple[Any, list[Any]]:
    app = _app(saver)
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"notes": []}, config)
    app.update_state(config, {"notes": ["edit"]}, as_node="a")
    final = app.invoke(Command(resume="yes"), config)
    history = [(s.values, s.next, s.metadata["step"]) for s in app.get_state_history(config)]
    return final, history


def test_a_thread_saved_without_the_entries_loads_resumes_and_edits_alike() -> None:
    older = OlderSaver()
    assert _thread(older) == _thread(InMemorySaver())
    saved = [entry.checkpoint for entry in older.list({"configurable": {"thread_id": "t"}})]
    assert not any("__input__" in checkpoint["versions_seen"] for checkpoint in saved)
