"""What graphkit says when ``interrupt()`` is called where it cannot pause a run, or is
answered with what its ``response_schema`` refuses."""

from __future__ import annotations

from typing import Any


def interrupt_outside_node() -> RuntimeError:
    return RuntimeError(
        "interrupt() works only inside a running node (of a graph compiled with a "
        "checkpointer, e.g. builder.compile(checkpointer=InMemorySaver()), to resume it)."
    )


def interrupt_without_checkpointer(node: str, step: int) -> str:
    return (
        f"interrupt() in node {node!r} (step {step}) of a graph "
        "without a checkpointer: the run stops and returns the interrupt, as in "
        "LangGraph, but nothing is saved, so it cannot be resumed. Compile the graph "
        "with one to resume it, e.g. builder.compile(checkpointer=InMemorySaver())."
    )


def answer_does_not_fit(node: str, step: int, value: Any) -> str:
    return (
        f"The answer to interrupt({value!r}) in node {node!r} (step {step}) does not fit "
        "the response_schema it asked with (the errors above say where). Nothing of the "
        "task was saved: the interrupt still waits, so answer it again with "
        "Command(resume=...)."
    )
