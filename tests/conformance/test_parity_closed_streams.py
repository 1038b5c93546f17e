"""A stream its caller stops reading mid-step (``break`` out of ``stream`` / ``astream``,
then ``close()`` / ``aclose()``) keeps the writes of every task that had finished by
then, as in LangGraph, which saves a task's writes as it finishes, whether or not its
chunk was read: a resume runs only what had not finished. Here the step's other task
finishes after the chunk the caller stops at was streamed, and before it stops."""

from __future__ import annotations

import asyncio
import operator
import threading
import time
from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS


class State(TypedDict):
    log: Annotated[list, operator.add]


class Fan:
    """START → a → (b, c) → d, where ``c`` ends only once the caller read b's chunk."""

    def __init__(self, lib: Lib, saver: Any) -> None:
        self.ran: list[str] = []
        self.read_b, self.c_done = threading.Event(), threading.Event()
        builder = lib.StateGraph(State)
        for name in "abd":
            builder.add_node(name, self._node(name))
        builder.add_node("c", self._node("c", wait=True))
        builder.add_edge(lib.START, "a").add_edge("a", "b").add_edge("a", "c")
        builder.add_edge(["b", "c"], "d")
        self.app = builder.compile(checkpointer=saver)

    def _node(self, name: str, wait: bool = False) -> Any:
        def node(state: State) -> dict:
            self.ran.append(name)
            if wait and not self.read_b.is_set():
                self.read_b.wait(5)
                self.c_done.set()  # (its return follows at once)
            return {"log": [name]}

        return node

    def stopped_at_b(self) -> None:
        """The caller read b's chunk: let c finish, and give its result time to land."""
        self.read_b.set()
        self.c_done.wait(5)
        time.sleep(0.3)


def _observe(lib: Lib, kind: str, durability: str, how: str) -> dict:
    config = {"configurable": {"thread_id": "t"}}
    with SAVERS[kind](lib.name) as saver:
        fan = Fan(lib, saver)
        chunks: list[Any] = []
        options = {"durability": durability, "stream_mode": "updates"}
        if how == "stream":
            stream = fan.app.stream({"log": ["in"]}, config, **options)
            for chunk in stream:
                chunks.append(chunk)
                if "b" in chunk:
                    fan.stopped_at_b()
                    break
            stream.close()
        else:

            async def read() -> None:
                stream = fan.app.astream({"log": ["in"]}, config, **options)
                async for chunk in stream:
                    chunks.append(chunk)
                    if "b" in chunk:
                        await asyncio.to_thread(fan.stopped_at_b)
                        break
                await stream.aclose()

            asyncio.run(read())
        state = fan.app.get_state(config)
        seen = {"chunks": chunks, "values": state.values, "next": state.next}
        fan.ran.clear()
        seen["resumed"] = fan.app.invoke(None, config)
        seen["ran on resume"] = sorted(fan.ran)
    return seen


@pytest.mark.parametrize(
    ("kind", "how"), [("memory", "stream"), ("sqlite", "stream"), ("memory", "astream")]
)
@pytest.mark.parametrize("durability", ["sync", "async", "exit"])
def test_a_closed_stream_keeps_the_writes_of_tasks_that_finished(kind, how, durability):
    expected = _observe(load_langgraph(), kind, durability, how)
    got = _observe(load_graphkit(), kind, durability, how)
    assert got == expected
    assert got["values"] == {"log": ["in", "a", "b", "c"]}  # c's write was kept
    assert got["ran on resume"] == ["d"]
