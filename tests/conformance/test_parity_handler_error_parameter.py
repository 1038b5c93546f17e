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
