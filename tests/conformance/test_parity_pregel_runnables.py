"""A LangChain Runnable as a step of a low-level ``Pregel`` node (``NodeBuilder().do(runnable)``),
on both libraries: an async run awaits its ``ainvoke`` (a lambda with only an async function
works, a lambda given ``afunc=`` runs that), and ``set_timeout`` takes a node whose every
step has async code of its own (an async function, or a Runnable with async code), refusing
any other when the ``Pregel`` is built. Found by running LangGraph's ``test_retry.py``
behaviours on both."""

import asyncio
from typing import Any

import pytest
from langchain_core.runnables import RunnableLambda, RunnableParallel

from .harness import load_graphkit, load_langgraph

LIBS = [load_langgraph, load_graphkit]


def plus_one(value: int) -> int:
    return value + 1


async def plus_hundred(value: int) -> int:
    return value + 100


async def slow(value: int) -> int:
    await asyncio.sleep(1.0)
    return value + 1000


STEPS: dict[str, Any] = {
    "async lambda": lambda: (RunnableLambda(plus_hundred),),
    "lambda with afunc": lambda: (RunnableLambda(plus_one, afunc=plus_hundred),),
    "bound async lambda": lambda: (RunnableLambda(plus_hundred).with_config(tags=["t"]),),
    "bound sync lambda": lambda: (RunnableLambda(plus_one).with_config(tags=["t"]),),
    "parallel of afunc lambdas": lambda: (
        RunnableParallel(x=RunnableLambda(plus_one, afunc=plus_hundred)),
    ),
    "parallel with a sync branch": lambda: (
        RunnableParallel(x=RunnableLambda(plus_one), y=RunnableLambda(plus_hundred)),
    ),
    "sequence with a sync step": lambda: (
        RunnableLambda(plus_one) | RunnableLambda(plus_one, afunc=plus_hundred),
    ),
    "a function, then an afunc lambda": lambda: (plus_one, RunnableLambda(plus_one, afunc=slow)),
    "an afunc lambda, then a slow function": lambda: (
        RunnableLambda(plus_one, afunc=plus_hundred),
        slow,
    ),
    "slow async lambda": lambda: (RunnableLambda(slow),),
    "sync function, then async function": lambda: (plus_one, plus_hundred),
    "async functions": lambda: (plus_hundred, plus_hundred),
}


def _runs(loader: Any, steps: str, timed: bool) -> Any:
    lib = loader()
    if lib.name == "langgraph":
        from langgraph.channels import EphemeralValue, LastValue
        from langgraph.pregel import NodeBuilder, Pregel
        from langgraph.types import TimeoutPolicy
    else:
        from graphkit.channels import EphemeralValue, LastValue
        from graphkit.pregel import NodeBuilder, Pregel
        from graphkit.types import TimeoutPolicy
    node = NodeBuilder().subscribe_only("input")
    for step in STEPS[steps]():
        node = node.do(step)
    if timed:
        node = node.set_timeout(TimeoutPolicy(idle_timeout=0.05))
    try:
        app = Pregel(
            nodes={"n": node.write_to("output")},
            channels={"input": EphemeralValue(int), "output": LastValue(Any)},
            input_channels="input",
            output_channels="output",
        )
    except ValueError:
        return "refused when built"
    seen = []
    for run in (app.invoke, lambda value: asyncio.run(app.ainvoke(value))):
        try:
            seen.append(run(1))
        except Exception as error:
            seen.append(type(error).__name__)
    return seen


@pytest.mark.parametrize("timed", [False, True], ids=["untimed", "timed"])
@pytest.mark.parametrize("steps", list(STEPS))
def test_runnable_steps_run_and_time_out_alike(steps, timed):
    langgraph, graphkit = (_runs(loader, steps, timed) for loader in LIBS)
    assert graphkit == langgraph


def test_an_async_run_awaits_a_runnable_steps_async_code():
    assert _runs(load_graphkit, "async lambda", timed=False) == ["TypeError", 101]
    assert _runs(load_graphkit, "lambda with afunc", timed=True) == ["ValueError", 101]
