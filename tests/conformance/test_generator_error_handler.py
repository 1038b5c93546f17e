"""An error handler written as a generator (``def h(state, error: NodeError): yield
{...}``, or its async form): LangGraph 1.2 wraps a generator in a ``RunnableLambda``,
which injects nothing, so the handler fails with ``TypeError: missing 1 required
positional argument: 'error'`` even when ``error`` is annotated; graphkit hands it the
error as it does any other handler. A deliberate difference, listed in
docs/compatibility.md."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, TypedDict

import pytest
from langgraph.errors import NodeError as TheirNodeError
from langgraph.graph import START as THEIR_START
from langgraph.graph import StateGraph as TheirStateGraph

from graphkit import START, StateGraph
from graphkit.errors import NodeError


class Order(TypedDict):
    total: Annotated[int, operator.add]


def shipping(state: Order) -> dict:
    raise ConnectionError("down")


def graph(state_graph, start, handler):
    builder = state_graph(Order)
    builder.add_node("shipping", shipping, error_handler=handler)
    builder.add_edge(start, "shipping")
    return builder.compile()


# (module level: under ``from __future__ import annotations`` the runtime resolves the
# ``NodeError`` annotation in the handler's globals)
def their_flat_rate(state, error: TheirNodeError):
    yield {"total": 7 if isinstance(error, TheirNodeError) else 1}


async def their_async_flat_rate(state, error: TheirNodeError):
    yield {"total": 7 if isinstance(error, TheirNodeError) else 1}


def flat_rate(state, error: NodeError):
    yield {"total": 7 if isinstance(error, NodeError) else 1}


async def async_flat_rate(state, error: NodeError):
    yield {"total": 7 if isinstance(error, NodeError) else 1}


THEIRS = {"sync": (their_flat_rate, False), "async": (their_async_flat_rate, True)}
OURS = {"sync": (flat_rate, False), "async": (async_flat_rate, True)}


def run(app, in_async: bool):
    return asyncio.run(app.ainvoke({"total": 0})) if in_async else app.invoke({"total": 0})


@pytest.mark.parametrize("form", ["sync", "async"])
def test_langgraph_does_not_hand_a_generator_handler_its_error(form):
    handler, in_async = THEIRS[form]
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'error'"):
        run(graph(TheirStateGraph, THEIR_START, handler), in_async)


@pytest.mark.parametrize("form", ["sync", "async"])
def test_graphkit_hands_a_generator_handler_its_error(form):
    handler, in_async = OURS[form]
    assert run(graph(StateGraph, START, handler), in_async) == {"total": 7}
