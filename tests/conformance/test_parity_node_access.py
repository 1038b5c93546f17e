"""``compiled.nodes``: each node of a compiled graph by name, as LangGraph's testing guide
uses it to test one node alone (``app.nodes["node1"].invoke(state)``).

The mapping lists START first, then the nodes in the order they were added. ``invoke``
calls the node's function on the input as given and returns what it returned (a dict, a
``Command``, None), without the graph's state, checkpointer or edges; ``ainvoke`` awaits
an async node (and runs a sync one); ``invoke`` on an async node is a ``TypeError``.
Each case runs on both libraries.
"""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

import pytest
from typing_extensions import TypedDict

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import _interrupt

LIBRARIES = [
    pytest.param(load_langgraph, id="langgraph"),
    pytest.param(load_graphkit, id="graphkit"),
]


class State(TypedDict, total=False):
    n: int
    note: str


def _app(lib: Lib) -> Any:
    interrupt = _interrupt(lib.name)

    def inc(state: State) -> dict:
        return {"n": state["n"] + 1}

    def routes(state: State) -> Any:
        return lib.Command(update={"note": "routed"}, goto="inc")

    async def later(state: State) -> dict:
        await asyncio.sleep(0)
        return {"n": state["n"] + 10}

    def reads_config(state, config):  # type: ignore[no-untyped-def]  # (LangGraph injects it by name)
        return {"note": repr(sorted(config))}

    def asks(state: State) -> dict:
        return {"note": interrupt("why?")}

    inner = lib.StateGraph(State).add_node("x", lambda state: {"n": state["n"] * 10})
    inner = inner.add_edge(lib.START, "x").compile()
    builder = lib.StateGraph(State).add_node("inc", inc, metadata={"owner": "me"})
    builder.add_node("routes", routes, destinations=("inc",))
    builder.add_node("nothing", lambda state: None).add_node("later", later)
    builder.add_node("reads_config", reads_config).add_node("asks", asks)
    builder.add_node("inner", inner)
    from langchain_core.runnables import RunnableLambda

    builder.add_node("both_sides", RunnableLambda(inc, afunc=later))
    builder.add_node("async_only", RunnableLambda(later))
    with warnings.catch_warnings():  # (graphkit warns that most nodes are unreachable)
        warnings.simplefilter("ignore")
        return builder.add_edge(lib.START, "inc").compile()


def _call(lib: Lib, run: Any) -> Any:
    try:
        result = run()
    except Exception as error:
        return "raised", type(error).__name__
    if type(result).__name__ == "Command":
        return "Command", result.update, result.goto
    return result


def _observe(lib: Lib) -> list[Any]:
    app = _app(lib)
    nodes = app.nodes
    seen: list[Any] = [list(nodes), "inc" in nodes, nodes["inc"].metadata]
    seen.append((nodes["nothing"].metadata, nodes["inc"].triggers, nodes["inc"].channels))
    for name in ("__start__", "inc", "routes", "nothing", "reads_config", "inner", "later"):
        seen.append((name, _call(lib, lambda name=name: nodes[name].invoke({"n": 1}))))
    seen.append(_call(lib, lambda: nodes["reads_config"].invoke({"n": 1}, {"configurable": {}})))
    seen.append(_call(lib, lambda: nodes["inc"].invoke({"n": 1, "extra": True})))
    seen.append(_call(lib, lambda: nodes["inc"].invoke({})))
    seen.append(_call(lib, lambda: nodes["asks"].invoke({"n": 1})))
    seen.append(_call(lib, lambda: nodes["nope"]))
    seen.append(asyncio.run(nodes["later"].ainvoke({"n": 1})))
    seen.append(asyncio.run(nodes["inc"].ainvoke({"n": 1})))
    for name in ("both_sides", "async_only"):  # a Runnable's own sides
        seen.append((name, _call(lib, lambda name=name: nodes[name].invoke({"n": 1}))))
        seen.append((name, asyncio.run(nodes[name].ainvoke({"n": 1}))))
    return seen


def test_each_node_runs_alone_as_on_langgraph():
    assert _observe(load_graphkit()) == _observe(load_langgraph())


@pytest.mark.parametrize("load", LIBRARIES)
def test_an_async_node_called_synchronously_says_to_await_it(load):
    lib = load()
    with pytest.raises(TypeError):
        _app(lib).nodes["later"].invoke({"n": 1})


def _given_a_store(lib: Lib) -> list[Any]:
    """A node that takes a store, called alone with ``store=`` (LangGraph's way to test
    it without a graph run), sync and async."""
    store_module = "langgraph.store.memory" if lib.name == "langgraph" else "graphkit.store.memory"
    store = __import__(store_module, fromlist=["InMemoryStore"]).InMemoryStore()
    store.put(("notes",), "n1", {"text": "from the store"})

    def remember(state: State, store: Any) -> dict:
        return {"note": store.get(("notes",), "n1").value["text"] if store else "no store"}

    async def aremember(state: State, store: Any) -> dict:
        return remember(state, store)

    graph = lib.StateGraph(State).add_node("remember", remember).add_node("aremember", aremember)
    graph.add_edge(lib.START, "remember").add_edge(lib.START, "aremember")
    nodes = graph.compile().nodes
    return [
        nodes["remember"].invoke({"n": 1}, store=store),
        asyncio.run(nodes["aremember"].ainvoke({"n": 1}, store=store)),
        asyncio.run(nodes["remember"].ainvoke({"n": 1}, None, store=store)),
    ]


def test_a_store_given_to_a_node_called_alone_reaches_it():
    expected = _given_a_store(load_langgraph())
    assert expected[0] == {"note": "from the store"}
    assert _given_a_store(load_graphkit()) == expected
