"""`Command(update=..., goto=...)` as a run's input (issue 14, item 11), against LangGraph:
on a new thread (or without a checkpointer) the update is written at the input step and
START reads the Command again, routing its goto; on a saved thread the Command's writes
apply to the latest checkpoint before the next step, with no checkpoint of their own."""

from __future__ import annotations

import asyncio
import operator
import sqlite3
import warnings
from typing import Annotated, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph


class State(TypedDict, total=False):
    x: int
    items: Annotated[list, operator.add]


def _graph(lib: Lib, saver):
    graph = lib.StateGraph(State)
    graph.add_node("a", lambda state: {"items": ["a"]})
    graph.add_node("b", lambda state: {"items": ["b"]})
    graph.add_edge(lib.START, "a")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return graph.compile(checkpointer=saver)


def _saver(lib: Lib, kind: str, tmp_path):
    if kind == "none":
        return None
    if lib.name == "langgraph":
        from langgraph.checkpoint.memory import InMemorySaver
        from langgraph.checkpoint.sqlite import SqliteSaver
    else:
        from graphkit import InMemorySaver, SqliteSaver
    if kind == "memory":
        return InMemorySaver()
    path = tmp_path / f"{lib.name}.sqlite"
    return SqliteSaver(sqlite3.connect(str(path), check_same_thread=False))


MODES = ["updates", "values", "tasks"]


def _tidy(chunks):
    out = []
    for mode, chunk in chunks:
        if mode == "tasks":
            chunk = {k: v for k, v in chunk.items() if k != "id"}
        out.append((mode, chunk))
    return sorted(out, key=repr)  # parallel tasks finish in any order


def _observe(lib: Lib, kind: str, existing: bool, tmp_path, run_async: bool):
    app = _graph(lib, _saver(lib, kind, tmp_path))
    config = {"configurable": {"thread_id": "t"}} if kind != "none" else None
    command = lib.Command(goto="b", update={"x": 1, "items": ["u"]})
    first = app.invoke({"x": 0, "items": ["i"]}, config) if existing else None

    async def astream():
        return [c async for c in app.astream(command, config, stream_mode=MODES)]

    if run_async:
        chunks = asyncio.run(astream())
    else:
        chunks = list(app.stream(command, config, stream_mode=MODES))
    history = []
    if config is not None:
        for snap in app.get_state_history(config):
            step = snap.metadata["step"]
            history.append((snap.metadata["source"], step, snap.next, snap.values))
    return first, _tidy(chunks), history


CASES = [("none", False), ("memory", False), ("sqlite", False), ("memory", True), ("sqlite", True)]


@pytest.mark.parametrize("run_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize(("kind", "existing"), CASES)
def test_command_input_matches_langgraph(kind, existing, run_async, tmp_path):
    if run_async and kind == "sqlite":
        pytest.skip("LangGraph's SqliteSaver has no async methods")
    expected = _observe(load_langgraph(), kind, existing, tmp_path, run_async)
    actual = _observe(load_graphkit(), kind, existing, tmp_path, run_async)
    assert actual == expected


def test_command_input_step_is_recorded():
    """The input step's record shows the Command's writes; the tables read it."""
    lib = load_graphkit()
    from graphkit import InMemorySaver

    app = _graph(lib, InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    fresh = app.stepper(lib.Command(goto="b", update={"x": 1}), config).run()
    first = fresh.steps[0]
    assert first.step == -1
    assert ("x", 1) in first.execution.results[0].writes
    app.invoke({"x": 5}, {"configurable": {"thread_id": "u"}})
    saved = app.stepper(
        lib.Command(goto="b", update={"x": 2}), {"configurable": {"thread_id": "u"}}
    ).run()
    writes = saved.steps[0].execution.results[0].writes
    assert ("x", 2) in writes and ("branch:to:b", lib.START) in writes
    assert saved.values["x"] == 2
    for run in (fresh, saved):
        writes = run.to_frame("writes").to_dict("records")
        assert any(row["channel"] == "x" and row["step"] == run.steps[0].step for row in writes)
        tasks = run.to_frame("tasks").to_dict("records")
        assert any("__input__" in row.values() for row in tasks)


def _asking_graph(lib: Lib, saver):
    from .scenarios import _interrupt

    interrupt = _interrupt(lib.name)
    graph = lib.StateGraph(State)
    graph.add_node("a", lambda state: {"items": ["a"]})
    graph.add_node("b", lambda state: {"items": [interrupt("ok?")]})
    graph.add_edge(lib.START, "a")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # graphkit: b is reached by the Command alone
        return graph.compile(checkpointer=saver)


def _observe_paused(lib: Lib, kind: str, tmp_path) -> dict:
    """A Command input whose goto node pauses: the thread's latest checkpoint is still
    the one the Command's writes were saved on, so get_state shows them and the resume
    keeps them."""
    app = _asking_graph(lib, _saver(lib, kind, tmp_path))
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"x": 0, "items": ["i"]}, config)
    paused = app.invoke(lib.Command(goto="b", update={"x": 1, "items": ["u"]}), config)
    state = app.get_state(config)
    seen = {
        "paused": {k: v for k, v in paused.items() if k != "__interrupt__"},
        "state": (state.values, state.next, [task.name for task in state.tasks]),
        "resumed": app.invoke(lib.Command(resume="yes"), config),
        "history": [
            (snap.metadata["source"], snap.metadata["step"], snap.next, snap.values)
            for snap in app.get_state_history(config)
        ],
    }
    return seen


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_command_inputs_writes_are_kept_when_the_next_step_pauses(kind, tmp_path):
    expected = _observe_paused(load_langgraph(), kind, tmp_path)
    assert _observe_paused(load_graphkit(), kind, tmp_path) == expected


def _resume_without_saver(lib: Lib) -> tuple[str, ...]:
    app = _graph(lib, None)
    try:
        return ("ran", repr(app.invoke(lib.Command(resume="yes"))))
    except Exception as error:  # (the class is what is compared)
        return ("raised", type(error).__name__)


def test_a_resume_without_a_checkpointer_is_refused_as_on_langgraph():
    expected = _resume_without_saver(load_langgraph())
    assert expected == ("raised", "RuntimeError")
    assert _resume_without_saver(load_graphkit()) == expected


EMPTY_COMMANDS = {
    "Command()": {},
    "resume=None": {"resume": None},
    "update={}": {"update": {}},
    "goto=[]": {"goto": []},
}


def _empty_command(lib: Lib, kind: str, paused: bool, arguments: dict, tmp_path):
    """A run given a ``Command`` that carries nothing: no update, no goto, no answer."""
    saver = _saver(lib, kind, tmp_path)
    app = _asking_graph(lib, saver) if paused else _graph(lib, saver)
    config = {"configurable": {"thread_id": "t"}} if saver is not None else None
    if paused:
        app.invoke(lib.Command(goto="b", update={"x": 1}), config)
    try:
        return ("ran", app.invoke(lib.Command(**arguments), config))
    except Exception as error:  # (the class is what is compared)
        return ("raised", type(error).__name__)


@pytest.mark.parametrize("arguments", EMPTY_COMMANDS.values(), ids=EMPTY_COMMANDS)
@pytest.mark.parametrize(("kind", "paused"), [("none", False), ("memory", False), ("memory", True)])
def test_a_command_that_carries_nothing_is_refused_as_an_empty_input(
    kind, paused, arguments, tmp_path
):
    """LangGraph 1.2.24 means ``EmptyInputError("Received empty Command input")`` for
    it, and raises an ``UnboundLocalError`` on its way there (langgraph#7034: the fix
    its pull requests make, #7062 and others, reaches the EmptyInputError). graphkit ran
    the graph from START with no input, or ran the paused node again to pause once more."""
    langgraph = _empty_command(load_langgraph(), kind, paused, arguments, tmp_path)
    assert langgraph in {("raised", "UnboundLocalError"), ("raised", "EmptyInputError")}
    assert _empty_command(load_graphkit(), kind, paused, arguments, tmp_path) == (
        "raised",
        "EmptyInputError",
    )


def test_an_empty_command_names_what_to_pass():
    from graphkit.errors import EmptyInputError

    app = _graph(load_graphkit(), None)
    with pytest.raises(EmptyInputError, match=r"(?s)Command\(\).*resume=.*input"):
        app.invoke(load_graphkit().Command())


def _ending_command(lib: Lib, paused: bool, goto):
    """A run given ``Command(goto=END)``: LangGraph writes the goto (to a channel no
    graph has, so it is dropped) and runs as for no input; it is not an empty input."""
    app = _asking_graph(lib, _saver(lib, "memory", None))
    config = {"configurable": {"thread_id": "t"}}
    if paused:
        app.invoke(lib.Command(goto="b", update={"x": 1}), config)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (graphkit: nothing to resume on a new thread)
        out = app.invoke(lib.Command(goto=goto), config)
    out = {k: v for k, v in out.items() if k != "__interrupt__"}
    return out, app.get_state(config).next


@pytest.mark.parametrize("listed", [False, True], ids=["END", "[END]"])
@pytest.mark.parametrize("paused", [False, True], ids=["new thread", "paused"])
def test_a_command_going_to_end_is_not_an_empty_input(paused, listed):
    """``Command(goto=END)`` carries a goto, so LangGraph 1.2.24 runs it (from START on
    a new thread; the paused node again on a paused one) where an empty Command fails."""
    langgraph, graphkit = load_langgraph(), load_graphkit()
    goto = [langgraph.END] if listed else langgraph.END
    expected = _ending_command(langgraph, paused, goto)
    assert expected == (({"x": 1, "items": ["a"]}, ("b",)) if paused else ({"items": ["a"]}, ()))
    assert _ending_command(graphkit, paused, goto) == expected


def test_a_command_going_to_end_on_a_new_thread_warns_what_it_is():
    """The warning for a new thread named a ``Command(resume=...)`` and an unused answer,
    which a ``Command(goto=END)`` has not."""
    from graphkit import GraphkitWarning

    graphkit = load_graphkit()
    app = _graph(graphkit, _saver(graphkit, "memory", None))
    with pytest.warns(GraphkitWarning) as caught:
        app.invoke(graphkit.Command(goto=graphkit.END), {"configurable": {"thread_id": "t"}})
    said = " ".join(str(warning.message) for warning in caught)
    assert "Command(goto='__end__') on thread 't'" in said and "resume" not in said
    assert "END" in said and "runs from START with no input" in said
