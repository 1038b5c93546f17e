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


def pending(lib: Lib, saver_kind: str, durability: str) -> list:
    """What is saved of untracked writes: a node's, a ``Command(update=...)``'s given
    with a resume, and a ``Send``'s argument's untracked key."""
    interrupt = _interrupt(lib)

    class State(TypedDict, total=False):
        x: int
        scratch: Annotated[str, lib.channels.UntrackedValue(str)]

    def ask(state: State) -> dict:
        interrupt("first")
        interrupt("second")
        return {"x": 1}

    def scribble(state: State) -> Any:
        return [lib.Send("sent", {"x": 5, "scratch": "secret"})]

    builder = lib.StateGraph(State).add_node("ask", ask).add_node("sent", lambda s: {})
    builder.add_node("scribble", lambda state: {"scratch": "from-node"})
    builder.add_edge(lib.START, "ask").add_edge(lib.START, "scribble")
    builder.add_conditional_edges("scribble", scribble, ["sent"])
    seen = []
    with SAVERS[saver_kind](lib.name) as saver:
        app = builder.compile(checkpointer=saver)
        app.invoke({"x": 0}, THREAD, durability=durability)
        update = lib.Command(resume="r1", update={"scratch": "from-command"})
        app.invoke(update, THREAD, durability=durability)
        for saved in saver.list(THREAD):
            for _, channel, value in saved.pending_writes:
                if isinstance(value, lib.Send):
                    seen.append(("send", sorted(value.arg)))
                elif channel == "scratch":
                    seen.append((channel, value))
        return sorted(seen)


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_no_untracked_write_is_saved_from_a_command_or_a_send(saver):
    assert pending(load_graphkit(), saver, "sync") == pending(load_langgraph(), saver, "sync")


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_durability_exit_saves_no_untracked_write_either(saver):
    """On purpose (docs/compatibility.md): LangGraph's "exit" path saves them."""
    assert pending(load_graphkit(), saver, "exit") == [("send", ["x"])]


def _sends_a_client(lib: Lib, saver_kind: str) -> list:
    """A router sends its whole state, which holds an untracked client, to a node."""

    class State(TypedDict, total=False):
        log: Annotated[list, operator.add]
        client: Annotated[Any, lib.channels.UntrackedValue]

    def use(state: State) -> dict:
        return {"log": [f"used {state['client']!r}"], "client": Client()}

    builder = lib.StateGraph(State).add_node("connect", lambda s: {"client": Client()})
    builder.add_node("use", use).add_edge(lib.START, "connect")
    builder.add_conditional_edges("connect", lambda state: [lib.Send("use", state)])
    with SAVERS[saver_kind](lib.name) as saver:
        app = builder.compile(checkpointer=saver)
        result = app.invoke({"log": []}, THREAD)
        history = [(s.values, s.next) for s in app.get_state_history(THREAD)]
        return [result["log"], history]


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_a_checkpoint_saves_a_pending_sends_argument_without_its_untracked_keys(saver):
    """The checkpoint saved before a ``Send``'s task runs holds the ``Send`` without its
    untracked keys, so an argument holding an unserializable client saves; the task
    still gets the client."""
    graphkit = _sends_a_client(load_graphkit(), saver)
    assert graphkit == _sends_a_client(load_langgraph(), saver)
    assert graphkit[0] == ["used Client()"]
