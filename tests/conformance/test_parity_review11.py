"""Behaviours review11 compared with LangGraph 1.2 and found to differ: what a run of a
graph compiled with ``debug=True`` prints when it is also given ``print_mode`` or
``debug=False`` (LangGraph's debug prints updates and values whatever is asked)."""

from __future__ import annotations

import contextlib
import io
import operator
from typing import Annotated, Any

import pytest
from typing_extensions import TypedDict

from .harness import Lib, load_graphkit, load_langgraph

LIBS = [load_langgraph, load_graphkit]


class State(TypedDict, total=False):
    x: int
    log: Annotated[list, operator.add]


def _writing(lib: Lib, debug: bool) -> Any:
    def node(state):
        lib.get_stream_writer()("hello")
        return {"x": 1}

    return lib.StateGraph(State).add_node("a", node).add_edge(lib.START, "a").compile(debug=debug)


def _printed(run) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        run()
    return out.getvalue().splitlines()


BOLD, PLAIN = "\x1b[1m", "\x1b[0m"
DEBUG_PRINTS = [
    f"{BOLD}[updates]{PLAIN} {{'a': {{'x': 1}}}}",
    f"{BOLD}[values]{PLAIN} {{'x': 1, 'log': []}}",
]

RUNS = {
    "compiled-debug-print-custom": (True, {"print_mode": "custom"}),
    "compiled-debug-print-values": (True, {"print_mode": ["values"]}),
    "compiled-debug-run-debug-false": (True, {"debug": False}),
    "run-debug-print-custom": (False, {"debug": True, "print_mode": "custom"}),
}


@pytest.mark.parametrize("run", list(RUNS))
@pytest.mark.parametrize("load", LIBS, ids=["langgraph", "graphkit"])
def test_debug_prints_updates_and_values_whatever_print_mode_says(load, run):
    """graphkit printed the ``print_mode`` asked in place of debug's, and let a run's
    ``debug=False`` silence a graph compiled with ``debug=True``; LangGraph's debug,
    the graph's or the run's, prints updates and values in either case."""
    compiled, kwargs = RUNS[run]
    app = _writing(load(), debug=compiled)
    assert _printed(lambda: app.invoke({}, **kwargs)) == DEBUG_PRINTS
