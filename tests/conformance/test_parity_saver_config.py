"""The config a saver's methods are given during a run and a state edit: the run's own
``configurable`` keys beside the thread's coordinates, as LangGraph's runtime hands them
(a saver may keep its tenants' threads apart by such a key), in a root graph and in a
subgraph, for a run, a resume, ``update_state`` and their async forms."""

from __future__ import annotations

import asyncio
from typing import TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import _interrupt


class State(TypedDict, total=False):
    x: int
    answer: str


def _tenant_saver(lib: Lib) -> object:
    """An in-memory saver that notes, for each call, the tenant its config names."""
    if lib.name == "langgraph":
        from langgraph.checkpoint.memory import InMemorySaver
    else:
        from graphkit import InMemorySaver

    class TenantSaver(InMemorySaver):
        def _seen(self, method: str, config: dict) -> None:
            namespace = config["configurable"].get("checkpoint_ns", "").split(":")[0]
            self.calls.append((method, namespace, config["configurable"].get("tenant")))

        def get_tuple(self, config):
            self._seen("get_tuple", config)
            return super().get_tuple(config)

        def put(self, config, checkpoint, metadata, new_versions):
            self._seen("put", config)
            return super().put(config, checkpoint, metadata, new_versions)

        def put_writes(self, config, writes, task_id, task_path=""):
            self._seen("put_writes", config)
            return super().put_writes(config, writes, task_id, task_path)

    saver = TenantSaver()
    saver.calls = []
    return saver


def _calls(lib: Lib, run_async: bool) -> list:
    interrupt = _interrupt(lib.name)
    saver = _tenant_saver(lib)
    inner = lib.StateGraph(State).add_node("ask", lambda state: {"answer": interrupt("?")})
    inner = inner.add_edge(lib.START, "ask").compile()
    builder = lib.StateGraph(State).add_node("a", lambda state: {"x": 1})
    app = builder.add_node("sub", inner).add_edge(lib.START, "a").add_edge("a", "sub")
    app = app.compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "t", "tenant": "acme"}}

    async def in_async() -> None:
        await app.ainvoke({"x": 0}, config, durability="sync")
        await app.ainvoke(lib.Command(resume="yes"), config, durability="sync")
        await app.aupdate_state(config, {"x": 5})

    if run_async:
        asyncio.run(in_async())
    else:
        app.invoke({"x": 0}, config, durability="sync")
        app.invoke(lib.Command(resume="yes"), config, durability="sync")
        app.update_state(config, {"x": 5})
    return sorted(set(saver.calls))


@pytest.mark.parametrize("run_async", [False, True], ids=["sync", "async"])
def test_a_saver_is_handed_the_runs_configurable_keys(run_async):
    ours = _calls(load_graphkit(), run_async)
    assert ours == _calls(load_langgraph(), run_async)
    assert {tenant for *_, tenant in ours} == {"acme"}
    assert {namespace for _, namespace, _ in ours} == {"", "sub"}
