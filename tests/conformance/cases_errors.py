"""Cases where something goes wrong: bad updates, failing nodes, the recursion limit, no
input, and graphs that must not compile. Exceptions are compared by class name only.
"""

import dataclasses
import operator
from typing import Annotated, TypedDict

from pydantic import BaseModel

from .harness import Case, Lib, Raised, appender


class Log(TypedDict):
    log: Annotated[list, operator.add]


class Counter(TypedDict):
    n: int
    log: Annotated[list, operator.add]


# --- invalid updates -----------------------------------------------------------------------


def two_writes_to_last_value(lib: Lib):
    graph = lib.StateGraph(Counter)
    graph.add_node("one", lambda state: {"n": 1})
    graph.add_node("two", lambda state: {"n": 2})
    graph.add_edge(lib.START, "one")
    graph.add_edge(lib.START, "two")
    return graph.compile()


def two_writes_to_ephemeral(lib: Lib):
    class State(TypedDict):
        flash: Annotated[int, lib.channels.EphemeralValue(int)]

    graph = lib.StateGraph(State)
    graph.add_node("one", lambda state: {"flash": 1})
    graph.add_node("two", lambda state: {"flash": 2})
    graph.add_edge(lib.START, "one")
    graph.add_edge(lib.START, "two")
    return graph.compile()


def returns_non_dict(lib: Lib):
    graph = lib.StateGraph(Counter)
    graph.add_node("ok", appender("ok"))
    graph.add_node("bad", lambda state: 5)
    graph.add_edge(lib.START, "ok")
    graph.add_edge("ok", "bad")
    return graph.compile()


class Strict(BaseModel):
    x: int


def pydantic_invalid_input(lib: Lib):
    graph = lib.StateGraph(Strict)
    graph.add_node("bump", lambda state: {"x": state.x + 1})
    graph.add_edge(lib.START, "bump")
    return graph.compile()


# --- nodes that raise ----------------------------------------------------------------------


def reads_missing_key(lib: Lib):
    graph = lib.StateGraph(Counter)
    graph.add_node("ok", appender("ok"))
    graph.add_node("reader", lambda state: {"n": state["missing"]})
    graph.add_edge(lib.START, "ok")
    graph.add_edge("ok", "reader")
    return graph.compile()


class Boom(Exception):
    """A user's own exception; it must come out of invoke/stream as itself."""


def raises_own_error(lib: Lib):
    def explode(state: Counter) -> dict:
        if state["n"] > 0:
            raise Boom("n must be zero")
        return {"log": ["fine"]}

    graph = lib.StateGraph(Counter)
    graph.add_node("explode", explode)
    graph.add_edge(lib.START, "explode")
    return graph.compile()


# --- routing that goes nowhere ------------------------------------------------------------


def path_map_missing_key(lib: Lib):
    def route(state: Counter) -> str:
        return "unmapped"

    graph = lib.StateGraph(Counter)
    graph.add_node("a", appender("a"))
    graph.add_node("b", appender("b"))
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges("a", route, {"mapped": "b"})
    return graph.compile()


def path_returns_none(lib: Lib):
    def route(state: Counter) -> None:
        return None

    graph = lib.StateGraph(Counter)
    graph.add_node("a", appender("a"))
    graph.add_node("b", appender("b"))
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges("a", route)
    return graph.compile()


# --- recursion limit and input -------------------------------------------------------------


def chain_of_three(lib: Lib):
    graph = lib.StateGraph(Counter)
    names = ["n1", "n2", "n3"]
    for name in names:
        graph.add_node(name, lambda state: {"n": state["n"] + 1})
    graph.add_edge(lib.START, "n1")
    graph.add_edge("n1", "n2")
    graph.add_edge("n2", "n3")
    graph.add_edge("n3", lib.END)
    return graph.compile()


def endless_loop(lib: Lib):
    graph = lib.StateGraph(Log)
    graph.add_node("spin", appender("spin"))
    graph.add_edge(lib.START, "spin")
    graph.add_edge("spin", "spin")
    return graph.compile()


# --- graphs that must not build ------------------------------------------------------------


def _one_node(lib: Lib):
    graph = lib.StateGraph(Log)
    graph.add_node("a", appender("a"))
    return graph


def edge_to_unknown_node(lib: Lib):
    graph = _one_node(lib)
    graph.add_edge(lib.START, "a")
    graph.add_edge("a", "nowhere")
    return graph.compile()


def edge_from_unknown_node(lib: Lib):
    graph = _one_node(lib)
    graph.add_edge(lib.START, "a")
    graph.add_edge("nowhere", "a")
    return graph.compile()


def waiting_edge_from_unknown_node(lib: Lib):
    graph = _one_node(lib)
    graph.add_node("c", appender("c"))
    graph.add_edge(lib.START, "a")
    graph.add_edge(["a", "nowhere"], "c")
    return graph.compile()


def path_map_unknown_target(lib: Lib):
    def route(state: Log) -> str:
        return "x"

    graph = _one_node(lib)
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges("a", route, {"x": "nowhere"})
    return graph.compile()


def duplicate_node(lib: Lib):
    graph = _one_node(lib)
    graph.add_node("a", appender("a"))
    graph.add_edge(lib.START, "a")
    return graph.compile()


def reserved_name(name: str):
    def build(lib: Lib):
        graph = _one_node(lib)
        graph.add_node(name, appender("x"))
        graph.add_edge(lib.START, "a")
        return graph.compile()

    return build


class RuntimeKeyState(TypedDict):
    configurable: int


def reserved_state_key(lib: Lib):
    graph = lib.StateGraph(RuntimeKeyState)
    graph.add_node("a", lambda state: {"configurable": 1})
    graph.add_edge(lib.START, "a")
    return graph.compile()


def waiting_edge_from_start(lib: Lib):
    graph = _one_node(lib)
    graph.add_node("b", appender("b"))
    graph.add_edge([lib.START, "a"], "b")
    return graph.compile()


def no_entry_point(lib: Lib):
    return _one_node(lib).compile()


def one_task_writes_twice(lib: Lib, *, step_timeout: float | None = None):
    """A step whose one task returns two Commands writing the plain key ``n``: its Update
    fails. LangGraph runs a step's lone task inline and streams its chunks after the
    step's Update, so they are lost with it (unless a step timeout makes it a pool task)."""

    def twice(state):
        return [lib.Command(update={"n": 1}), lib.Command(update={"n": 2})]

    graph = lib.StateGraph(Counter)
    graph.add_node("first", appender("first"))
    graph.add_node("twice", twice)
    graph.add_edge(lib.START, "first").add_edge("first", "twice")
    app = graph.compile()
    app.step_timeout = step_timeout
    return app


def subgraph_task_writes_twice(lib: Lib, *, invoked: bool = False):
    """The same failing lone task, one step into a subgraph: a node of the parent (or,
    with ``invoked``, a node that invokes it). Under a parent streaming subgraphs its
    chunks go straight to the parent's stream, so LangGraph shows them before the error."""

    sub = one_task_writes_twice(lib)
    graph = lib.StateGraph(Counter)
    graph.add_node("sub", (lambda state: sub.invoke(state)) if invoked else sub)
    graph.add_edge(lib.START, "sub")
    return graph.compile()


def _run_error(name: str, build, expected: str, *, config=None, inputs=({"n": 0},)) -> Case:
    return Case(
        name, build, inputs=inputs, expected=(Raised(expected),) * len(inputs), config=config
    )


def _build_error(name: str, build, expected: str = "ValueError") -> Case:
    return Case(name, build, build_raises=expected)


CASES = [
    _run_error("two-writes-to-last-value", two_writes_to_last_value, "InvalidUpdateError"),
    _run_error(
        "two-writes-to-ephemeral-value",
        two_writes_to_ephemeral,
        "InvalidUpdateError",
        inputs=({},),
    ),
    _run_error("one-task-writes-twice", one_task_writes_twice, "InvalidUpdateError"),
    dataclasses.replace(
        _run_error("one-task-writes-twice-async", one_task_writes_twice, "InvalidUpdateError"),
        run_async=True,
    ),
    dataclasses.replace(
        _run_error("one-task-writes-twice-tasks", one_task_writes_twice, "InvalidUpdateError"),
        stream_mode=("tasks", "updates", "checkpoints"),
    ),
    dataclasses.replace(  # (subgraphs streamed: every task is heard as it finishes)
        _run_error("one-task-writes-twice-subgraphs", one_task_writes_twice, "InvalidUpdateError"),
        subgraphs=True,
    ),
    dataclasses.replace(  # (live chunks streamed: the same)
        _run_error("one-task-writes-twice-custom", one_task_writes_twice, "InvalidUpdateError"),
        stream_mode=("custom", "updates"),
    ),
    _run_error("subgraph-task-writes-twice", subgraph_task_writes_twice, "InvalidUpdateError"),
    *(
        dataclasses.replace(
            _run_error(f"subgraph-task-writes-twice-streamed{suffix}", build, "InvalidUpdateError"),
            subgraphs=True,
            stream_mode=modes,
            run_async=run_async,
        )
        for suffix, build, modes, run_async in (
            ("", subgraph_task_writes_twice, ("updates", "values"), False),
            ("-async", subgraph_task_writes_twice, ("updates", "values"), True),
            ("-tasks", subgraph_task_writes_twice, ("tasks", "updates"), False),
            (
                "-invoked",
                lambda lib: subgraph_task_writes_twice(lib, invoked=True),
                ("updates", "values"),
                False,
            ),
        )
    ),
    _run_error(
        "one-task-writes-twice-step-timeout",
        lambda lib: one_task_writes_twice(lib, step_timeout=30.0),
        "InvalidUpdateError",
    ),
    _run_error("node-returns-non-dict", returns_non_dict, "InvalidUpdateError"),
    _run_error(
        "pydantic-invalid-input", pydantic_invalid_input, "ValidationError", inputs=({"x": "x"},)
    ),
    _run_error("node-raises-key-error", reads_missing_key, "KeyError"),
    Case(
        "node-raises-own-exception",
        raises_own_error,
        inputs=({"n": 1}, {"n": 0}),
        expected=(Raised("Boom"), {"n": 0, "log": ["fine"]}),
    ),
    _run_error("path-map-missing-key", path_map_missing_key, "KeyError"),
    _run_error("path-returns-none", path_returns_none, "ValueError"),
    _run_error(
        "chain-of-3-recursion-limit-3",
        chain_of_three,
        "GraphRecursionError",
        config={"recursion_limit": 3},
    ),
    Case(
        "chain-of-3-recursion-limit-4",
        chain_of_three,
        inputs=({"n": 0},),
        expected=({"n": 3, "log": []},),
        config={"recursion_limit": 4},
    ),
    _run_error(
        "endless-loop-recursion-limit",
        endless_loop,
        "GraphRecursionError",
        config={"recursion_limit": 4},
        inputs=({"log": []},),
    ),
    _run_error("recursion-limit-zero", chain_of_three, "ValueError", config={"recursion_limit": 0}),
    _run_error("invoke-none-without-checkpoint", chain_of_three, "EmptyInputError", inputs=(None,)),
    _build_error("edge-to-unknown-node", edge_to_unknown_node),
    _build_error("edge-from-unknown-node", edge_from_unknown_node),
    _build_error("waiting-edge-from-unknown-node", waiting_edge_from_unknown_node),
    _build_error("path-map-unknown-target", path_map_unknown_target),
    _build_error("duplicate-node", duplicate_node),
    _build_error("reserved-name-start", reserved_name("__start__")),
    _build_error("reserved-name-end", reserved_name("__end__")),
    _build_error("name-with-colon", reserved_name("a:b")),
    _build_error("name-with-pipe", reserved_name("a|b")),
    _build_error("reserved-name-input", reserved_name("__input__")),
    _build_error("reserved-name-interrupt", reserved_name("__interrupt__")),
    _build_error("reserved-name-push", reserved_name("__pregel_push")),
    _build_error("reserved-name-configurable", reserved_name("configurable")),
    _build_error("reserved-state-key", reserved_state_key),
    _build_error("waiting-edge-from-start", waiting_edge_from_start),
    _build_error("no-entry-point", no_entry_point),
]
