"""A saver's own read API as LangGraph code uses it: the checkpoint read as a dict
(``saved.checkpoint["channel_values"]``), ``get`` / ``aget``, and ``SqliteSaver.setup()``."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS

THREAD = {"configurable": {"thread_id": "t"}}


class State(TypedDict):
    x: int
    log: Annotated[list, operator.add]


def observe(lib: Lib, saver_kind: str) -> list[Any]:
    with SAVERS[saver_kind](lib.name) as saver:
        builder = lib.StateGraph(State).add_node("a", lambda state: {"x": state["x"] + 1})
        builder = builder.add_node("b", lambda state: {"log": ["b"]})
        app = builder.add_edge(lib.START, "a").add_edge("a", "b").compile(checkpointer=saver)
        app.invoke({"x": 1, "log": []}, THREAD)
        saved = saver.get_tuple(THREAD)
        checkpoint = saved.checkpoint
        # (versions and versions seen are each library's own bookkeeping: only read here)
        history = [
            (dict(c.checkpoint["channel_values"]), isinstance(c.checkpoint["versions_seen"], dict))
            for c in saver.list(THREAD)
        ]
        return [
            checkpoint["id"] == saved.config["configurable"]["checkpoint_id"],
            dict(checkpoint["channel_values"]),
            sorted(checkpoint["channel_versions"]),
            isinstance(checkpoint["ts"], str),
            sorted(checkpoint.get("updated_channels") or ()),
            checkpoint.get("no such key", "default"),
            ["channel_values" in checkpoint, "no such key" in checkpoint],
            sorted(dict(checkpoint)) == sorted(checkpoint.keys()),
            history,
            dict(saver.get(THREAD)["channel_values"]),
            dict(asyncio.run(saver.aget(THREAD))["channel_values"]) if saver_kind == "memory"
            else None,
        ]  # fmt: skip


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_a_saved_checkpoint_reads_as_langgraphs_dict(saver):
    assert observe(load_graphkit(), saver) == observe(load_langgraph(), saver)


def test_sqlite_savers_setup_can_be_called_as_on_langgraph():
    for lib in (load_langgraph(), load_graphkit()):
        with SAVERS["sqlite"](lib.name) as saver:
            assert saver.setup() is None
            assert saver.setup() is None  # again: nothing changes
            assert list(saver.list(None)) == []
