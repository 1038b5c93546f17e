"""Behaviours hunt10 compared with LangGraph 1.2 and found to differ: what ``print_mode``
(and ``compile(debug=True)``) prints of a subgraph's chunks with ``subgraphs=True`` and of
a chunk that is no dict, and the last values a run paused by its router shows."""

from __future__ import annotations

import contextlib
import io
import operator
import re
import warnings
from typing import Annotated, Any

import pytest
from typing_extensions import TypedDict

from .harness import Lib, load_graphkit, load_langgraph

LIBS = [load_langgraph, load_graphkit]


class State(TypedDict, total=False):
    x: int
    log: Annotated[list, operator.add]


def _with_subgraph(lib: Lib, debug: bool = False) -> Any:
    inner = lib.StateGraph(State)
    inner.add_node("i", lambda state: {"log": ["i"]})
    inner.add_edge(lib.START, "i")
    outer = lib.StateGraph(State)
    outer.add_node("a", lambda state: {"x": 1})
    outer.add_node("sub", inner.compile())
    outer.add_edge(lib.START, "a").add_edge("a", "sub")
    return outer.compile(debug=debug)


def _printed(run) -> str:
    """What ``run()`` prints, a subgraph's task id taken out of its namespace."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run()
    return re.sub(r"(sub|a):[0-9a-f-]+", r"\1:<id>", out.getvalue())


BOLD, YELLOW, PLAIN = "\x1b[1m", "\x1b[1;30;33m", "\x1b[0m"
SUB = f"{YELLOW}[graph=('sub:<id>',)]{PLAIN}"
SUB_UPDATE = f"{BOLD}[updates]{PLAIN} {SUB} {{'i': {{'log': ['i']}}}}"
SUB_VALUES = f"{BOLD}[values]{PLAIN} {SUB} {{'x': 1, 'log': ['i']}}"

RUNS = {
    "stream-same-mode": lambda app: list(
        app.stream({"log": []}, stream_mode="updates", print_mode="updates", subgraphs=True)
    ),
    "stream-print-only": lambda app: list(
        app.stream({"log": []}, stream_mode="updates", print_mode="values", subgraphs=True)
    ),
    "invoke": lambda app: app.invoke({"log": []}, print_mode="updates", subgraphs=True),
}


@pytest.mark.parametrize("run", list(RUNS))
@pytest.mark.parametrize("load", LIBS, ids=["langgraph", "graphkit"])
def test_print_mode_prints_a_subgraphs_chunks_with_subgraphs_true(load, run):
    """LangGraph prints a subgraph's chunks of the printed modes, labelled with their
    namespace, when the run streams subgraphs (also modes it only prints)."""
    printed = _printed(lambda: RUNS[run](_with_subgraph(load())))
    shown = SUB_VALUES if run == "stream-print-only" else SUB_UPDATE
    assert shown in printed.splitlines()


@pytest.mark.parametrize("load", LIBS, ids=["langgraph", "graphkit"])
def test_print_mode_without_subgraphs_prints_only_the_root(load):
    printed = _printed(
        lambda: list(_with_subgraph(load()).stream({"log": []}, print_mode="updates"))
    )
    assert "graph=" not in printed
    assert len(printed.splitlines()) == 2


def test_compile_debug_prints_as_langgraph_with_subgraphs():
    def run(load):
        app = _with_subgraph(load(), debug=True)
        return _printed(lambda: list(app.stream({"log": []}, subgraphs=True)))

    expected = run(load_langgraph)
    assert SUB_UPDATE in expected.splitlines()
    assert run(load_graphkit) == expected


def _custom(lib: Lib) -> Any:
    def node(state):
        lib.get_stream_writer()("hello")
        lib.get_stream_writer()({"k": "v"})
        return {"x": 1}

    return lib.StateGraph(State).add_node("a", node).add_edge(lib.START, "a").compile()


@pytest.mark.parametrize("load", LIBS, ids=["langgraph", "graphkit"])
def test_print_mode_prints_a_chunks_repr(load):
    """A string written to the custom stream is printed quoted, as ``repr`` shows it."""
    printed = _printed(lambda: _custom(load()).invoke({}, print_mode="custom"))
    assert printed.splitlines() == [
        f"{BOLD}[custom]{PLAIN} 'hello'",
        f"{BOLD}[custom]{PLAIN} {{'k': 'v'}}",
    ]


def _calling_a_graph(lib: Lib) -> Any:
    inner = lib.StateGraph(State)
    inner.add_node("i", lambda state: {"log": ["i"]})
    inner.add_edge(lib.START, "i")
    sub = inner.compile()
    outer = lib.StateGraph(State)
    outer.add_node("a", lambda state: {"log": sub.invoke({"log": []})["log"]})
    return outer.add_edge(lib.START, "a").compile()


@pytest.mark.parametrize("load", LIBS, ids=["langgraph", "graphkit"])
def test_print_mode_prints_the_chunks_of_a_graph_a_node_invokes(load):
    app = _calling_a_graph(load())
    printed = _printed(lambda: list(app.stream({"log": []}, print_mode="updates", subgraphs=True)))
    assert printed.splitlines() == [
        f"{BOLD}[updates]{PLAIN} {YELLOW}[graph=('a:<id>',)]{PLAIN} {{'i': {{'log': ['i']}}}}",
        f"{BOLD}[updates]{PLAIN} {{'a': {{'log': ['i']}}}}",
    ]
