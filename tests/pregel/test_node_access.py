"""``app.nodes``: what graphkit gives beyond LangGraph's (tests/conformance/
test_parity_node_access.py compares the rest), and the low-level Pregel's own nodes."""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

import pytest

from graphkit import START, RetryPolicy, StateGraph
from graphkit.runtime import Runtime
from graphkit.store.memory import InMemoryStore


class State(TypedDict, total=False):
    n: int
    note: str


def test_a_node_alone_gets_a_runtime_with_the_graph_s_store_and_a_quiet_writer():
    store = InMemoryStore()
    store.put(("users",), "ada", {"name": "Ada"})

    def greet(state: State, runtime: Runtime, writer: Any) -> dict:
        writer("nobody hears this")
        user = runtime.store.get(("users",), "ada")
        return {"note": f"hello {user.value['name']}", "n": runtime.context}

    retry = RetryPolicy(max_attempts=2)
    builder = StateGraph(State).add_node("greet", greet, retry_policy=retry)
    app = builder.add_edge(START, "greet").compile(store=store)
    node = app.nodes["greet"]
    assert node.invoke({}) == {"note": "hello Ada", "n": None}
    assert asyncio.run(node.ainvoke({})) == {"note": "hello Ada", "n": None}
    assert (repr(node), node.name, node.retry_policy, node.cache_policy) == (
        "GraphNode('greet')",
        "greet",
        (retry,),
        None,
    )


def test_an_async_node_s_error_says_how_to_call_it():
    async def later(state: State) -> dict:
        return {"n": 1}

    app = StateGraph(State).add_node("later", later).add_edge(START, "later").compile()
    with pytest.raises(TypeError, match=r"await app.nodes\['later'\].ainvoke\(...\)"):
        app.nodes["later"].invoke({})


def test_a_low_level_pregel_keeps_the_nodes_it_was_given():
    from graphkit.channels import EphemeralValue, LastValue
    from graphkit.pregel import NodeBuilder, Pregel

    double = NodeBuilder().subscribe_only("a").do(lambda x: x + x).write_to("b")
    app = Pregel(
        nodes={"double": double},
        channels={"a": EphemeralValue(str), "b": LastValue(str)},
        input_channels="a",
        output_channels="b",
    )
    assert list(app.nodes) == ["double"]
    assert type(app.nodes["double"]).__name__ == "PregelNode"
    assert app.invoke("ab") == "abab"
