"""The checkpoint a saver's ``put`` is given says which format it is in (``"v"``), as
LangGraph's does: a saver written for LangGraph reads a checkpoint with ``v < 4`` as the
older format, whose pending ``Send``s it finds among the parent's writes (LangGraph's
Postgres saver copies them into the checkpoint's ``__pregel_tasks`` channel)."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS


class State(TypedDict, total=False):
    items: Annotated[list, operator.add]


def _formats(lib: Lib) -> list:
    """The ``v`` of each checkpoint put, and of each one read back."""
    seen: list = []
    with SAVERS["memory"](lib.name) as saver:
        put = saver.put

        def recorded_put(config, checkpoint, metadata, new_versions):
            seen.append(("put", metadata["step"], checkpoint["v"]))
            return put(config, checkpoint, metadata, new_versions)

        saver.put = recorded_put
        builder = lib.StateGraph(State).add_node("fan", lambda state: {"items": ["fan"]})
        builder.add_node("work", lambda item: {"items": [item]})
        builder.add_conditional_edges("fan", lambda s: [lib.Send("work", n) for n in (1, 2)])
        app = builder.add_edge(lib.START, "fan").compile(checkpointer=saver)
        thread = {"configurable": {"thread_id": "t"}}
        app.invoke({"items": []}, thread, durability="sync")
        seen += [("read", saved.metadata["step"], saved.checkpoint["v"])
                 for saved in saver.list(thread)]  # fmt: skip
    return seen


def test_a_put_checkpoint_names_langgraphs_format_version():
    ours = _formats(load_graphkit())
    assert ours == _formats(load_langgraph())
    assert {v for *_, v in ours} == {4}
