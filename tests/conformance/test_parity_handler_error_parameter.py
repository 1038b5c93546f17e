"""An error handler whose ``error`` parameter lacks the ``NodeError`` annotation is
handed the state alone, so calling it raises ``TypeError: missing 1 required positional
argument: 'error'`` in both libraries. graphkit keeps the type and says which node's
handler it is and how to fix it; a ``TypeError`` raised inside a handler is left as is."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from graphkit.errors import NodeError


class Order(TypedDict):
    total: Annotated[int, operator.add]


def shipping(state: Order) -> dict:
    raise ConnectionError("shipping API is down")


def build(lib: str, handler):
    if lib == "langgraph":
        from langgraph.graph import START, StateGraph
    else:
        from graphkit import START, StateGraph
    builder = StateGraph(Order)
    builder.add_node("shipping", shipping, error_handler=handler)
    builder.add_edge(START, "shipping")
    return builder.compile()


def flat_rate(state, error):
    return {"total": 7}


@pytest.mark.parametrize("lib", ["langgraph", "graphkit"])
def test_an_unannotated_error_parameter_raises_type_error(lib):
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'error'"):
        build(lib, flat_rate).invoke({"total": 0})


@pytest.mark.parametrize("run", ["invoke", "ainvoke"])
def test_graphkit_says_whose_handler_and_how_to_fix_it(run):
    import asyncio

    async def async_rate(state, error):
        return {"total": 7}

    app = build("graphkit", flat_rate if run == "invoke" else async_rate)
    with pytest.raises(TypeError) as raised:
        if run == "invoke":
            app.invoke({"total": 0})
        else:
            asyncio.run(app.ainvoke({"total": 0}))
    text = str(raised.value)
    assert "missing 1 required positional argument: 'error'" in text
    assert "the error handler of node 'shipping'" in text
    assert "error: NodeError" in text


def test_a_type_error_inside_a_handler_is_its_own():
    def careless(state, error: NodeError):
        return flat_rate(state)  # (its own call misses 'error')

    with pytest.raises(TypeError) as raised:
        build("graphkit", careless).invoke({"total": 0})
    assert str(raised.value) == "flat_rate() missing 1 required positional argument: 'error'"


def test_an_annotated_handler_is_handed_the_error():
    def annotated(state, error: NodeError):
        return {"total": 7 if isinstance(error.error, ConnectionError) else 0}

    assert build("graphkit", annotated).invoke({"total": 0}) == {"total": 7}


async def failing_async(state: Order) -> dict:
    raise ConnectionError("shipping API is down")


def through_a_subgraph(lib: str, handler):
    if lib == "langgraph":
        from langgraph.graph import START, StateGraph
    else:
        from graphkit import START, StateGraph
    builder = StateGraph(Order)
    builder.add_node("outer", build(lib, handler))
    builder.add_edge(START, "outer")
    return builder.compile()


def through_a_send(lib: str, handler, timeout=None):
    if lib == "langgraph":
        from langgraph.graph import START, StateGraph
        from langgraph.types import Send
    else:
        from graphkit import START, StateGraph
        from graphkit.types import Send
    builder = StateGraph(Order)
    builder.add_node("shipping", shipping, error_handler=handler)
    sent = {} if timeout is None else {"timeout": timeout}
    builder.add_conditional_edges(START, lambda state: [Send("shipping", state, **sent)])
    return builder.compile()


def timed(lib: str, handler):
    """An async node with a timeout; its (sync or async) handler runs without one."""
    if lib == "langgraph":
        from langgraph.graph import START, StateGraph
    else:
        from graphkit import START, StateGraph
    builder = StateGraph(Order)
    builder.add_node("shipping", failing_async, timeout=5, error_handler=handler)
    builder.add_edge(START, "shipping")
    return builder.compile()


async def async_flat_rate(state, error):
    return {"total": 7}


# every way a handler's node is reached: each fails alike in both libraries, and graphkit
# explains each
PATHS = {
    "timed node, sync handler": (lambda lib: timed(lib, flat_rate), True),
    "timed node, async handler": (lambda lib: timed(lib, async_flat_rate), True),
    "in a subgraph": (lambda lib: through_a_subgraph(lib, flat_rate), False),
    "in a subgraph, async run": (lambda lib: through_a_subgraph(lib, flat_rate), True),
    "sent": (lambda lib: through_a_send(lib, flat_rate), False),
    "sent with a timeout": (lambda lib: through_a_send(lib, flat_rate, timeout=5), True),
}


@pytest.mark.parametrize("lib", ["langgraph", "graphkit"])
@pytest.mark.parametrize("path", list(PATHS))
def test_each_way_to_a_handler_raises_the_type_error(lib, path):
    import asyncio

    make, awaited = PATHS[path]
    app = make(lib)
    with pytest.raises(
        TypeError, match="missing 1 required positional argument: 'error'"
    ) as raised:
        if awaited:
            asyncio.run(app.ainvoke({"total": 0}))
        else:
            app.invoke({"total": 0})
    if lib == "graphkit":
        assert "the error handler of node 'shipping'" in str(raised.value)


def test_a_low_level_handler_of_several_steps_is_explained():
    # graphkit only: LangGraph's Pregel given node_error_handler_map alone (no
    # error_handler_node on its PregelNode) never runs the handler
    from graphkit.channels import LastValue
    from graphkit.pregel import NodeBuilder, Pregel

    def fail(value):
        raise ConnectionError("shipping API is down")

    def handle(value, error):
        return 7

    nodes = {
        "n": NodeBuilder().subscribe_only("a").do(fail).write_to("b"),
        "h": NodeBuilder().do(lambda value: value).do(handle).write_to("b"),
    }
    app = Pregel(
        nodes=nodes,
        channels={"a": LastValue(int), "b": LastValue(int)},
        input_channels="a",
        output_channels=["b"],
        node_error_handler_map={"n": "h"},
    )
    with pytest.raises(TypeError) as raised:
        app.invoke(1)
    assert "handle() missing 1 required positional argument: 'error'" in str(raised.value)
    assert "the error handler of node 'n'" in str(raised.value)
