"""A saver with only async methods (its sync ones raise ``NotImplementedError``, as those
of LangGraph's base class do) serves every async call of the graph API, as in LangGraph:
``ainvoke`` and its resume, ``aget_state`` (with ``subgraphs=True`` too),
``aget_state_history`` and ``aupdate_state``."""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import _interrupt


class State(TypedDict, total=False):
    x: int
    answer: str


def _async_only_saver(lib: Lib) -> Any:
    if lib.name == "langgraph":
        from langgraph.checkpoint.memory import InMemorySaver
    else:
        from graphkit import InMemorySaver

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("this saver has only async methods")

    class AsyncOnly(InMemorySaver):
        get_tuple = list = put = put_writes = refused

        async def aget_tuple(self, config):
            return InMemorySaver.get_tuple(self, config)

        async def alist(self, config, **options):
            for saved in InMemorySaver.list(self, config, **options):
                yield saved

        async def aput(self, config, checkpoint, metadata, new_versions):
            return InMemorySaver.put(self, config, checkpoint, metadata, new_versions)

        async def aput_writes(self, config, writes, task_id, task_path=""):
            return InMemorySaver.put_writes(self, config, writes, task_id, task_path)

    return AsyncOnly()


async def _calls(lib: Lib) -> list:
    interrupt = _interrupt(lib.name)
    inner = lib.StateGraph(State).add_node("ask", lambda state: {"answer": interrupt("?")})
    inner = inner.add_edge(lib.START, "ask").compile()
    builder = lib.StateGraph(State).add_node("a", lambda state: {"x": 1})
    app = builder.add_node("sub", inner).add_edge(lib.START, "a").add_edge("a", "sub")
    app = app.compile(checkpointer=_async_only_saver(lib))
    config = {"configurable": {"thread_id": "t"}}
    first = await app.ainvoke({"x": 0}, config, durability="sync")
    seen = [(first["x"], [i.value for i in first["__interrupt__"]])]  # (ids are each one's)
    paused = await app.aget_state(config, subgraphs=True)
    seen.append((paused.values, paused.next, paused.tasks[0].state.values))
    await app.aupdate_state(config, {"x": 5})
    seen.append([s.values async for s in app.aget_state_history(config)])
    seen.append(await app.ainvoke(lib.Command(resume="yes"), config, durability="sync"))
    return seen


def test_a_saver_with_only_async_methods_serves_the_async_graph_api():
    ours = asyncio.run(_calls(load_graphkit()))
    assert ours == asyncio.run(_calls(load_langgraph()))
    assert ours[-1] == {"x": 5, "answer": "yes"}
