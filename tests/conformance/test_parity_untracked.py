"""An ``UntrackedValue`` channel with a saver: its writes are never saved, so it can hold
what cannot be stored (an open client), a resumed run does not apply them again, and the
history does not show them, as in LangGraph."""

import operator
import threading
from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS

THREAD = {"configurable": {"thread_id": "t"}}


class Client:
    """Stands for an open connection: it cannot be serialized."""

    def __init__(self) -> None:
        self.lock = threading.Lock()

    def __repr__(self) -> str:
        return "Client()"


def _interrupt(lib: Lib) -> Any:
    if lib.name == "langgraph":
        from langgraph.types import interrupt
    else:
        from graphkit import interrupt
    return interrupt


def observe(lib: Lib, saver_kind: str) -> list:
    interrupt = _interrupt(lib)

    class State(TypedDict, total=False):
        log: Annotated[list, operator.add]
        client: Annotated[Any, lib.channels.UntrackedValue(object)]
        count: Annotated[int, lib.channels.UntrackedValue(int)]

    def connect(state: State) -> dict:
        return {"client": Client(), "count": 1, "log": ["connect"]}

    def use(state: State) -> dict:
        answer = interrupt("go on?")
        return {"log": [f"use {state.get('client')!r} {state.get('count')} {answer}"]}

    builder = lib.StateGraph(State).add_node("connect", connect).add_node("use", use)
    builder.add_edge(lib.START, "connect").add_edge("connect", "use")
    with SAVERS[saver_kind](lib.name) as saver:
        app = builder.compile(checkpointer=saver)
        first = app.invoke({"log": []}, THREAD, durability="sync")
        resumed = app.invoke(lib.Command(resume="yes"), THREAD, durability="sync")
        history = [
            (snapshot.values, [task.result for task in snapshot.tasks])
            for snapshot in app.get_state_history(THREAD)
        ]
        return [first["log"], resumed, history]


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_an_untracked_channels_writes_are_never_saved(saver):
    assert observe(load_graphkit(), saver) == observe(load_langgraph(), saver)
