"""Cases about subgraphs: a compiled graph added as a node, a graph invoked inside a node,
nesting, `Command(graph=Command.PARENT)` from inside a subgraph, a subgraph that raises, a
retried subgraph, and `stream(..., subgraphs=True)` / `astream(..., subgraphs=True)`
(namespaces compared without their task ids).
"""

import asyncio
import operator
from typing import Annotated, TypedDict

from .harness import Case, Lib, Raised, appender


class Log(TypedDict):
    log: Annotated[list, operator.add]


class Boom(Exception):
    """A user's own exception; it must come out of invoke/stream as itself."""


def _chain(lib: Lib, schema: type, *nodes: tuple[str, object]):
    """START -> each node in turn -> END, as a builder."""
    graph = lib.StateGraph(schema)
    previous = lib.START
    for name, node in nodes:
        graph.add_node(name, node)
        graph.add_edge(previous, name)
        previous = name
    return graph


def _appenders(*names: str) -> list[tuple[str, object]]:
    return [(name, appender(name)) for name in names]


# --- a compiled graph as a node --------------------------------------------------------------


def shared_reducer(lib: Lib):
    """Both sides add to "log": the child returns its whole list and the parent adds it,
    so the items the child started from appear twice (LangGraph's behaviour)."""
    child = _chain(lib, Log, *_appenders("c1", "c2")).compile()
    return _chain(lib, Log, ("a", appender("a")), ("child", child), ("b", appender("b"))).compile()


class Parent(TypedDict):
    log: Annotated[list, operator.add]
    secret: str


class Child(TypedDict):
    log: Annotated[list, operator.add]
    scratch: str


def private_keys(lib: Lib):
    """The child never sees "secret"; the parent never sees "scratch"."""

    def note(state: Child) -> dict:
        return {"scratch": "noted", "log": [f"child keys {sorted(state)}"]}

    def use(state: Child) -> dict:
        return {"log": [f"child read {state['scratch']}"]}

    child = _chain(lib, Child, ("note", note), ("use", use)).compile()

    def check(state: Parent) -> dict:
        return {"log": [f"parent keys {sorted(state)}"]}

    return _chain(lib, Parent, ("child", child), ("check", check)).compile()


def two_levels(lib: Lib):
    inner = _chain(lib, Log, *_appenders("i1", "i2")).compile()
    middle = _chain(lib, Log, ("m1", appender("m1")), ("inner", inner)).compile()
    return _chain(lib, Log, ("a", appender("a")), ("middle", middle)).compile()


def invoked_in_node(lib: Lib):
    """A node runs another graph on its own input and keeps only the new items."""
    child = _chain(lib, Log, *_appenders("c1", "c2")).compile()

    def delegate(state: Log) -> dict:
        result = child.invoke({"log": ["fresh"]})
        return {"log": [f"child gave {result['log']}"]}

    return _chain(lib, Log, ("a", appender("a")), ("delegate", delegate)).compile()


def awaits_in_node(lib: Lib):
    """An async node awaits another graph's `ainvoke`: a subgraph too."""
    child = _chain(lib, Log, *_appenders("c1", "c2")).compile()

    async def delegate(state: Log) -> dict:
        await asyncio.sleep(0)
        result = await child.ainvoke({"log": ["fresh"]})
        return {"log": [f"child gave {result['log']}"]}

    return _chain(lib, Log, ("a", appender("a")), ("delegate", delegate)).compile()


def command_to_parent(lib: Lib):
    """A child node hands control to the parent's "after", so the child's "c2" never runs;
    the parent's static edge child -> static still does."""

    def escalate(state: Log):
        return lib.Command(graph=lib.Command.PARENT, goto="after", update={"log": ["escalated"]})

    child = _chain(lib, Log, ("c1", appender("c1")), ("escalate", escalate))
    child.add_node("c2", appender("c2"))
    child.add_edge("escalate", "c2")
    graph = lib.StateGraph(Log)
    graph.add_node("a", appender("a"))
    graph.add_node("child", child.compile(), destinations=("after",))
    graph.add_node("after", appender("after"))
    graph.add_node("static", appender("static"))
    graph.add_edge(lib.START, "a")
    graph.add_edge("a", "child")
    graph.add_edge("child", "static")
    return graph.compile()


def child_raises(lib: Lib):
    def explode(state: Log) -> dict:
        if "boom" in state["log"]:
            raise Boom("asked to")
        return {"log": ["fine"]}

    child = _chain(lib, Log, ("c1", appender("c1")), ("explode", explode)).compile()
    return _chain(lib, Log, ("a", appender("a")), ("child", child), ("b", appender("b"))).compile()


def raises_in_nested_invoke(lib: Lib):
    """The inner graph is invoked inside a node of a subgraph and raises."""

    def explode(state: Log) -> dict:
        raise Boom("deep")

    inner = _chain(lib, Log, ("explode", explode)).compile()

    def call(state: Log) -> dict:
        return inner.invoke(state)

    middle = _chain(lib, Log, ("call", call)).compile()
    return _chain(lib, Log, ("a", appender("a")), ("middle", middle)).compile()


def retried_subgraph(lib: Lib):
    """A subgraph node with a retry policy: its child fails once, and the whole child
    graph runs again."""
    attempts = [0]

    def reset(state: Log) -> dict:
        attempts[0] = 0
        return {"log": ["reset"]}

    def flaky(state: Log) -> dict:
        attempts[0] += 1
        if attempts[0] == 1:
            raise ConnectionError("down")
        return {"log": [f"flaky on attempt {attempts[0]}"]}

    child = _chain(lib, Log, ("c1", appender("c1")), ("flaky", flaky)).compile()
    graph = _chain(lib, Log, ("reset", reset))
    policy = lib.RetryPolicy(initial_interval=0, jitter=False)
    graph.add_node("child", child, retry_policy=policy)
    graph.add_edge("reset", "child")
    return graph.compile()


SHARED = {"log": ["in"]}
SHARED_OUT = {"log": ["in", "a", "in", "a", "c1", "c2", "b"]}
TWO_LEVELS_OUT = {"log": ["in", "a", "in", "a", "m1", "in", "a", "m1", "i1", "i2"]}
DELEGATE_OUT = {"log": ["in", "a", "child gave ['fresh', 'c1', 'c2']"]}

CASES = [
    Case("subgraph-shared-reducer", shared_reducer, inputs=(SHARED,), expected=(SHARED_OUT,)),
    Case(
        "subgraph-private-keys",
        private_keys,
        inputs=({"log": [], "secret": "s"},),
        expected=(
            {
                "log": ["child keys ['log']", "child read noted", "parent keys ['log', 'secret']"],
                "secret": "s",
            },
        ),
    ),
    Case("subgraph-two-levels", two_levels, inputs=(SHARED,), expected=(TWO_LEVELS_OUT,)),
    Case("subgraph-invoked-in-node", invoked_in_node, inputs=(SHARED,), expected=(DELEGATE_OUT,)),
    Case(
        "subgraph-command-parent",
        command_to_parent,
        inputs=({"log": []},),
        expected=({"log": ["a", "escalated", "after", "static"]},),
    ),
    Case(
        "subgraph-raises",
        child_raises,
        inputs=({"log": ["boom"]}, {"log": []}),
        expected=(Raised("Boom"), {"log": ["a", "a", "c1", "fine", "b"]}),
    ),
    Case(
        "subgraph-raises-in-nested-invoke",
        raises_in_nested_invoke,
        inputs=({"log": []},),
        expected=(Raised("Boom"),),
    ),
    Case(
        "subgraphs-stream-shared-reducer",
        shared_reducer,
        inputs=(SHARED,),
        expected=(SHARED_OUT,),
        subgraphs=True,
    ),
    Case(
        "subgraphs-stream-updates-only",
        shared_reducer,
        inputs=(SHARED,),
        expected=(SHARED_OUT,),
        subgraphs=True,
        stream_mode="updates",
    ),
    Case(
        "subgraphs-stream-two-levels",
        two_levels,
        inputs=(SHARED,),
        expected=(TWO_LEVELS_OUT,),
        subgraphs=True,
    ),
    Case(
        "subgraphs-stream-invoked-in-node",
        invoked_in_node,
        inputs=(SHARED,),
        expected=(DELEGATE_OUT,),
        subgraphs=True,
    ),
    Case(
        "subgraphs-stream-command-parent",
        command_to_parent,
        inputs=({"log": []},),
        expected=({"log": ["a", "escalated", "after", "static"]},),
        subgraphs=True,
    ),
    Case(
        "subgraphs-stream-child-raises",
        child_raises,
        inputs=({"log": ["boom"]},),
        expected=(Raised("Boom"),),
        subgraphs=True,
    ),
    Case(
        "subgraphs-stream-tasks",
        shared_reducer,
        inputs=(SHARED,),
        expected=(SHARED_OUT,),
        subgraphs=True,
        stream_mode="tasks",
    ),
    Case(
        "subgraphs-stream-retried-child",
        retried_subgraph,
        inputs=({"log": []},),
        expected=({"log": ["reset", "reset", "c1", "flaky on attempt 2"]},),
        subgraphs=True,
    ),
    Case(
        "async-subgraphs-stream-compiled-node",
        shared_reducer,
        inputs=(SHARED,),
        expected=(SHARED_OUT,),
        subgraphs=True,
        run_async=True,
    ),
    Case(
        "async-subgraphs-stream-invoked-in-node",
        invoked_in_node,
        inputs=(SHARED,),
        expected=(DELEGATE_OUT,),
        subgraphs=True,
        run_async=True,
    ),
    Case(
        "async-subgraphs-stream-awaited-ainvoke",
        awaits_in_node,
        inputs=(SHARED,),
        expected=(DELEGATE_OUT,),
        subgraphs=True,
        run_async=True,
    ),
]
