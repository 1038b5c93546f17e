"""A LangChain chain (``prompt | model``) given as a node, run step by step as LangGraph
runs it: LangGraph puts the chain's steps in the node's own sequence, so a tracer (and
``astream_events``) sees each step inside the node's run, tagged ``seq:step:1``,
``seq:step:2``..., with no run of the chain around them, and the node's routers come
after them in that sequence. langchain-core is read only if it is already imported."""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["SteppedSequence", "extra_steps", "stepped"]

FIRST_STEP = "seq:step:1"
"""The tag of the node's own step in LangGraph's node sequence (graphkit.pregel.tracing)."""


class SteppedSequence:
    """The steps of a ``RunnableSequence`` node, each run with the node's config, as step
    ``k`` of the node's sequence."""

    __slots__ = ("steps",)

    def __init__(self, steps: list[Any]) -> None:
        self.steps = steps

    def __repr__(self) -> str:
        return f"SteppedSequence({[type(step).__name__ for step in self.steps]})"

    def invoke(self, value: Any, config: Any = None) -> Any:
        for position, step in enumerate(self.steps, start=1):
            value = step.invoke(value, _as_step(config, position))
        return value

    async def ainvoke(self, value: Any, config: Any = None) -> Any:
        for position, step in enumerate(self.steps, start=1):
            value = await step.ainvoke(value, _as_step(config, position))
        return value


def stepped(action: Any) -> Any:
    """``action`` run step by step if it is a ``RunnableSequence``, else ``action``."""
    runnables = sys.modules.get("langchain_core.runnables.base")
    if runnables is None or not isinstance(action, runnables.RunnableSequence):
        return action
    return SteppedSequence(list(action.steps))


def extra_steps(action: Any) -> int:
    """How many more steps than one ``action`` takes in its node's sequence."""
    runnable = stepped(action)
    return len(runnable.steps) - 1 if isinstance(runnable, SteppedSequence) else 0


def _as_step(config: Any, position: int) -> Any:
    """The node's ``config`` with its callbacks tagged as step ``position`` (the node's
    run's child, as LangGraph makes one per step); unchanged for the first step, or
    when the run is not traced."""
    callbacks = config.get("callbacks") if isinstance(config, dict) else None
    if position == 1 or FIRST_STEP not in getattr(callbacks, "tags", ()):
        return config
    manager = callbacks.copy()
    manager.remove_tags([FIRST_STEP])
    manager.add_tags([f"seq:step:{position}"], inherit=False)
    return {**config, "callbacks": manager}
