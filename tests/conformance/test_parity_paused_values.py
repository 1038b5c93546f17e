"""The last "values" of a paused run, as LangGraph makes them: when a task pauses a root
run, the writes of the step's finished tasks are applied to a copy of the state (and
shown as one more values chunk). That is done whatever is streamed, so writes that
cannot be applied (two to a plain key) fail the run instead of pausing it; a paused
subgraph shows no such chunk."""

from __future__ import annotations

import operator
import warnings
from typing import Annotated, Any

import pytest
from typing_extensions import TypedDict

from .harness import Lib, canonical, load_graphkit, load_langgraph
from .scenarios import _interrupt, _memory_saver


class State(TypedDict, total=False):
    n: int
    log: Annotated[list, operator.add]


def _clashing(lib: Lib, saver: Any) -> Any:
    """One step: `ask` pauses while `one` and `two` both write the plain key `n`."""
    interrupt = _interrupt(lib.name)
    builder = lib.StateGraph(State)
    builder.add_node("ask", lambda state: {"log": [interrupt("q?")]})
    builder.add_node("one", lambda state: {"n": 1})
    builder.add_node("two", lambda state: {"n": 2})
    for name in ("ask", "one", "two"):
        builder.add_edge(lib.START, name)
    return builder.compile(checkpointer=saver)


def _run(lib: Lib, modes: list[str], with_saver: bool) -> str:
    config = {"configurable": {"thread_id": "1"}}
    with _memory_saver(lib.name) as saver:
        app = _clashing(lib, saver if with_saver else None)
        try:
            with warnings.catch_warnings():  # (graphkit's: an interrupt with no saver)
                warnings.simplefilter("ignore")
                list(app.stream({"log": []}, config, stream_mode=modes))
        except Exception as error:
            return f"raised {type(error).__name__}"
    return "paused"


@pytest.mark.parametrize("with_saver", [True, False], ids=["saver", "no-saver"])
@pytest.mark.parametrize("modes", [["values"], ["updates"], ["checkpoints"], ["custom"]])
def test_writes_that_clash_fail_a_paused_run_whatever_is_streamed(modes, with_saver):
    expected = _run(load_langgraph(), modes, with_saver)
    assert expected == "raised InvalidUpdateError"
    assert _run(load_graphkit(), modes, with_saver) == expected


def _paused_subgraph(lib: Lib) -> list[str]:
    interrupt = _interrupt(lib.name)
    inner = lib.StateGraph(State)
    inner.add_node("ask", lambda state: {"log": [interrupt("q?")]})
    inner.add_node("write", lambda state: {"log": ["write"], "n": 1})
    inner.add_edge(lib.START, "ask").add_edge(lib.START, "write")
    outer = lib.StateGraph(State).add_node("sub", inner.compile()).add_edge(lib.START, "sub")
    config = {"configurable": {"thread_id": "1"}}
    with _memory_saver(lib.name) as saver:
        app = outer.compile(checkpointer=saver)
        chunks = app.stream({"n": 0}, config, stream_mode="values", subgraphs=True)
        seen = []
        for namespace, chunk in chunks:
            paused = sorted(item.value for item in chunk.get("__interrupt__", ()))
            shown = {key: value for key, value in chunk.items() if key != "__interrupt__"}
            seen.append(f"{len(namespace)} {canonical(shown)} {paused}")
    return seen


def test_a_paused_subgraph_shows_no_last_values():
    expected = _paused_subgraph(load_langgraph())
    assert _paused_subgraph(load_graphkit()) == expected


def _subgraph_at_its_breakpoint(lib: Lib, clash: bool, call: str) -> list[str]:
    """START -> [sub, w(, w2)]: `sub` stops at its own `interrupt_before`, which pauses the
    root with no interrupt, while `w` (and `w2`, writing the same plain key) finish."""
    inner = lib.StateGraph(State).add_node("x", lambda state: {"log": ["x"]})
    inner = inner.add_edge(lib.START, "x").compile(interrupt_before=["x"])
    builder = lib.StateGraph(State).add_node("sub", inner)
    builder.add_node("w", lambda state: {"n": 1, "log": ["w"]})
    builder.add_edge(lib.START, "sub").add_edge(lib.START, "w")
    if clash:
        builder.add_node("w2", lambda state: {"n": 2}).add_edge(lib.START, "w2")
    config = {"configurable": {"thread_id": "t"}}
    with _memory_saver(lib.name) as saver:
        app = builder.compile(checkpointer=saver)
        try:
            if call == "invoke":
                return [canonical(app.invoke({"log": []}, config))]
            chunks = app.stream({"log": []}, config, stream_mode=["values", "updates"])
            return [canonical(chunk) for chunk in chunks]
        except Exception as error:
            return [f"raised {type(error).__name__}"]


@pytest.mark.parametrize("call", ["stream", "invoke"])
@pytest.mark.parametrize("clash", [False, True], ids=["plain", "clash"])
def test_a_subgraph_at_its_breakpoint_pauses_the_root_with_the_last_values(clash, call):
    expected = _subgraph_at_its_breakpoint(load_langgraph(), clash, call)
    assert _subgraph_at_its_breakpoint(load_graphkit(), clash, call) == expected
