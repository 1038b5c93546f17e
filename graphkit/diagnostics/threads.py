"""What graphkit says when a run's config, thread or checkpoint is wrong (raised or
warned by ``graphkit.pregel.threads`` and ``graphkit.pregel.config``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from graphkit.errors import CheckpointNotFoundError

if TYPE_CHECKING:
    from graphkit.checkpoint.saver import BaseCheckpointSaver


def config_not_dict(config: Any) -> str:
    return (
        f"A run's config must be a dict, got {type(config).__name__} {config!r}. "
        "For a thread, write {'configurable': {'thread_id': ...}}."
    )


def recursion_limit_not_int(limit: Any) -> str:
    return f"recursion_limit must be an int, got {limit!r}."


def recursion_limit_below_one(limit: int) -> str:
    return (
        f"recursion_limit must be at least 1, got {limit}; it counts the supersteps "
        "a run may take after its input."
    )


def no_thread_id() -> str:
    return (
        "This graph has a checkpointer, so a run needs a thread: pass "
        "config={'configurable': {'thread_id': 'some-id'}}."
    )


def bad_durability(durability: str, allowed: Sequence[str]) -> str:
    return f"durability must be one of {list(allowed)}, got {durability!r}."


def no_checkpointer() -> str:
    return (
        "This graph has no checkpointer, so it keeps no state between runs; compile it "
        "with one, e.g. builder.compile(checkpointer=InMemorySaver())."
    )


def missing_checkpoint(
    saver: BaseCheckpointSaver, config: Mapping[str, Any], checkpoint_id: str
) -> CheckpointNotFoundError:
    """The error for a ``checkpoint_id`` the thread does not have, listing its newest ids."""
    configurable = config.get("configurable", {})
    thread_id = configurable.get("thread_id")
    ns = configurable.get("checkpoint_ns", "")
    thread = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns}}
    shown = 5
    ids = [saved.checkpoint.id for saved in saver.list(thread, limit=shown + 1)]
    if not ids:
        return CheckpointNotFoundError(
            f"Thread {thread_id!r} has no checkpoint {checkpoint_id!r}: it has no checkpoints "
            "at all. Check the thread_id, or leave checkpoint_id out."
        )
    listed = ", ".join(map(repr, ids[:shown]))
    if len(ids) > shown:
        listed += f" (and {sum(1 for _ in saver.list(thread)) - shown} older)"
    return CheckpointNotFoundError(
        f"Thread {thread_id!r} has no checkpoint {checkpoint_id!r}. Its newest checkpoints: "
        f"{listed}. Copy an id from app.get_state_history(config), or leave checkpoint_id "
        "out to use the latest."
    )


def command_input() -> str:
    return "A Command as input can only resume (Command(resume=...)) so far."


def no_input() -> str:
    return (
        "Received no input and there is nothing to resume: a new run needs an "
        "input, e.g. app.invoke({'key': value})."
    )


def nothing_to_resume(thread_id: str) -> str:
    return (
        f"Command(resume=...) on thread {thread_id!r}, which has no checkpoint: "
        "there is nothing to resume, so the graph runs from START with no input and "
        "the answer is unused (as in LangGraph). Check the thread_id; to start a "
        "thread, invoke with an input."
    )


def finished_thread(thread_id: str, checkpoint_id: str) -> str:
    return (
        f"Command(resume=...) on thread {thread_id!r}, whose run has finished: its "
        f"checkpoint {checkpoint_id!r} has nothing left to run and no interrupt "
        "waiting, so the answer is ignored and the state is returned as it is (as in "
        "LangGraph). To run the graph again on this thread, invoke it with a new input."
    )


def several_interrupts() -> str:
    return (
        "When there are multiple pending interrupts, you must specify the "
        "interrupt id when resuming: Command(resume={interrupt.id: answer, ...})."
    )


def unknown_as_node(node: str, nodes: Mapping[str, Any]) -> str:
    return f"update_state(as_node={node!r}): there is no such node; use one of {sorted(nodes)}."


def ambiguous_update(candidates: Sequence[str]) -> str:
    return (
        f"Ambiguous update: nodes {candidates} ran last together; say which one it is "
        "as, e.g. update_state(config, values, as_node=" + repr(candidates[0]) + ")."
    )
