"""What graphkit says when ``interrupt()`` is called where it cannot pause a run."""

from __future__ import annotations


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
