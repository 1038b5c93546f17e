"""Graphs of every shape the inspection layer explains, and the seed example."""

from __future__ import annotations

import importlib.util
import operator
import sys
import warnings
from pathlib import Path
from typing import Annotated, TypedDict

import pytest

from graphkit import END, START, GraphkitWarning, GraphRecursionError, StateGraph

SEED = Path(__file__).parent.parent.parent / "examples" / "seed.py"

HOSTILE = "<script>alert(\"x\")</script> & 'q' {b} \\ é\n中"
"""A node name, value and error text that must render as text everywhere."""


class Log(TypedDict):
    x: int
    log: Annotated[list, operator.add]


def appender(name: str):
    def node(state):
        return {"log": [name]}

    return node


def build(nodes, edges=(), routers=(), waiting=()):
    """A Log graph: ``nodes`` (names or (name, function)), static ``edges``,
    ``routers`` as (source, function, path_map), ``waiting`` edges as (sources, target)."""
    builder = StateGraph(Log)
    for node in nodes:
        name, action = node if isinstance(node, tuple) else (node, appender(node))
        builder.add_node(name, action)
    for start, end in edges:
        builder.add_edge(start, end)
    for source, path, path_map in routers:
        builder.add_conditional_edges(source, path, path_map)
    for sources, target in waiting:
        builder.add_edge(list(sources), target)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphkitWarning)
        return builder.compile()


@pytest.fixture(scope="session")
def make():
    """``build`` itself, for tests that need a graph of their own."""
    return build


@pytest.fixture(scope="session")
def hostile():
    return HOSTILE


@pytest.fixture(scope="session")
def seed():
    """examples/seed.py, loaded as tests/test_seed_example.py does."""
    spec = importlib.util.spec_from_file_location("inspect_seed_example", SEED)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # type hints are resolved through sys.modules
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def seed_app(seed):
    return seed.build_graph()


@pytest.fixture(scope="session")
def seed_run(seed_app):
    return seed_app.trace({"messages": [("user", "hi")], "token_count": 1})


@pytest.fixture(scope="session")
def linear():
    """START -> a -> b -> c -> END."""
    return build("abc", [(START, "a"), ("a", "b"), ("b", "c"), ("c", END)])


@pytest.fixture(scope="session")
def branch():
    """START -> check -(router)-> big | small; x > 5 picks big."""
    return build(
        ["check", "big", "small"],
        [(START, "check")],
        [("check", lambda state: "big" if state["x"] > 5 else "small", ["big", "small"])],
    )


@pytest.fixture(scope="session")
def fan():
    """START -> split -> (left || right) -> join, by two static edges."""
    return build(
        ["split", "left", "right", "join"],
        [
            (START, "split"),
            ("split", "left"),
            ("split", "right"),
            ("left", "join"),
            ("right", "join"),
        ],
    )


@pytest.fixture(scope="session")
def waiting():
    """START -> a; START -> b1 -> b2 -> b; [a, b] -> c waits for both (b comes two
    steps after a)."""
    return build(
        ["a", "b1", "b2", "b", "c"],
        [(START, "a"), (START, "b1"), ("b1", "b2"), ("b2", "b"), ("c", END)],
        waiting=[(("a", "b"), "c")],
    )


@pytest.fixture(scope="session")
def loop():
    """START -> spin, whose router keeps choosing spin (or done, which never comes)."""

    def spin(state):
        return {"x": state["x"] + 1}

    return build(
        [("spin", spin), "done"],
        [(START, "spin")],
        [("spin", lambda state: "spin" if state["x"] < 1000 else "done", ["spin", "done"])],
    )


@pytest.fixture(scope="session")
def loop_run(loop):
    with pytest.raises(GraphRecursionError) as caught:
        loop.trace({"x": 0, "log": []}, {"recursion_limit": 3})
    return caught.value.run


@pytest.fixture(scope="session")
def failing():
    """START -> (ok || bad); ok -> after. bad raises, so step 1 never updates."""

    def bad(state):
        raise ValueError("bad <script>alert(1)</script>")

    return build(["ok", ("bad", bad), "after"], [(START, "ok"), (START, "bad"), ("ok", "after")])


@pytest.fixture(scope="session")
def failing_run(failing):
    with pytest.raises(ValueError) as caught:
        failing.trace({"x": 0, "log": []})
    return caught.value.run


@pytest.fixture(scope="session")
def hostile_run():
    """A node named HOSTILE that writes HOSTILE, then a node that raises HOSTILE."""

    def shout(state):
        return {"log": [HOSTILE]}

    def explode(state):
        raise RuntimeError(HOSTILE)

    app = build([(HOSTILE, shout), ("explode", explode)], [(START, HOSTILE), (HOSTILE, "explode")])
    with pytest.raises(RuntimeError) as caught:
        app.trace({"x": 0, "log": []})
    return caught.value.run
