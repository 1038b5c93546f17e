"""How a run starts on its thread: which thread (and namespace) it saves to, whether it
applies its input or resumes a saved checkpoint (forking when that checkpoint is not
the thread's latest), and the answers and pending writes it resumes with.

The ``Stepper`` calls ``thread_link`` and ``open_run`` once, when it is made; nothing
here runs between phases.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from graphkit.checkpoint import Checkpoint, new_checkpoint_id
from graphkit.checkpoint.saver import BaseCheckpointSaver
from graphkit.errors import EmptyInputError, warn
from graphkit.pregel import phases
from graphkit.pregel.persistence import INTERRUPT, restore, saved_answers
from graphkit.pregel.records import Task
from graphkit.pregel.runtime import _NO_VALUE as _NO_ANSWER
from graphkit.pregel.runtime import Resume, RunContext, TaskScope
from graphkit.pregel.spec import GraphSpec
from graphkit.pregel.thread import ThreadLink
from graphkit.types import Command

__all__ = ["Opening", "open_run", "thread_link"]


def thread_link(
    checkpointer: BaseCheckpointSaver | None,
    config: Any,
    durability: str | None,
    namespace: tuple[str, ...],
    parent: TaskScope | None,
) -> ThreadLink | None:
    """Where a run saves: its checkpointer's thread, its parent run's thread (a
    subgraph, under its task's namespace), or nowhere."""
    joined = "|".join(namespace)
    if checkpointer is not None:
        return ThreadLink(checkpointer, config, joined, durability)
    outer = parent.run.thread if parent is not None else None
    if outer is None:
        return None
    # A subgraph of a run with a checkpointer saves in the same thread, under its
    # task's namespace, so that it can be interrupted and resumed (as in LangGraph).
    thread = {"configurable": {"thread_id": outer.thread_id}}
    return ThreadLink(outer.saver, thread, joined, outer.durability)


@dataclass(slots=True)
class Opening:
    """What a run starts from: the state the first Plan reads and what it knows of
    the thread. ``discarded`` are the tasks a new input replaces (they count as having
    seen their triggers); ``pending`` the writes saved by tasks that finished before
    the run stopped."""

    state: phases.StepState
    input: Any
    resuming: bool
    pending: list[Any]
    discarded: tuple[Task, ...]
    first_step: int
    run_context: RunContext


def open_run(
    graph: GraphSpec,
    thread: ThreadLink | None,
    parent: TaskScope | None,
    input: Any,
    run_context: RunContext,
) -> Opening:
    """Load the thread's checkpoint, if any, and decide what this run does with the
    input: apply it as a new input step, or resume (None / ``Command(resume=...)``)."""
    answer = _NO_ANSWER
    if isinstance(input, Command):
        if input.update is not None or input.goto or input.graph is not None:
            raise NotImplementedError(
                "A Command as input can only resume (Command(resume=...)) so far."
            )
        answer = input.resume
    saved = thread.load() if thread is not None else None
    outer = parent.run if parent is not None else None
    if outer is not None and outer.resuming and saved is not None:
        input = None  # the parent resumes, so this subgraph resumes where it paused
    if saved is None and isinstance(input, Command):
        # LangGraph runs a new thread from START when asked to resume it, and the
        # answer goes unused
        if thread is not None and outer is None:
            warn(
                f"Command(resume=...) on thread {thread.thread_id!r}, which has no checkpoint: "
                "there is nothing to resume, so the graph runs from START with no input and "
                "the answer is unused (as in LangGraph). Check the thread_id; to start a "
                "thread, invoke with an input."
            )
        input, answer = {}, _NO_ANSWER
    resuming = input is None or isinstance(input, Command)
    pending: list[Any] = list(saved.pending_writes) if saved is not None else []
    discarded: tuple[Task, ...] = ()
    if saved is None:
        if resuming:
            raise EmptyInputError(
                "Received no input and there is nothing to resume: a new run needs an "
                "input, e.g. app.invoke({'key': value})."
            )
        state = phases.StepState.fresh(graph)
    else:
        state = restore(graph, saved.checkpoint)
        if resuming:  # the breakpoint that stopped the run is passed this time
            state.versions_seen[INTERRUPT] = dict(state.versions)
            if isinstance(input, Command) and outer is None and not pending:
                _warn_if_finished(graph, thread, state)
            if thread is not None and not thread.is_latest(saved.checkpoint.id):
                _fork(thread, state, saved.checkpoint)
                pending = []
        else:  # a new input replaces what the thread was about to run
            discarded = phases.plan(graph, state).tasks
    if answer is not _NO_ANSWER and not isinstance(answer, dict):
        waiting = [v for _, channel, v in pending if channel == INTERRUPT]
        if sum(len(v) for v in waiting) > 1:
            raise RuntimeError(
                "When there are multiple pending interrupts, you must specify the "
                "interrupt id when resuming: Command(resume={interrupt.id: answer, ...})."
            )
    first_step = saved.checkpoint.step + 1 if saved is not None else -1
    if thread is not None:
        resume = Resume(answer)
        if outer is not None and outer.resume is not None and answer is _NO_ANSWER:
            resume = outer.resume  # the answers the whole run was resumed with
        run_context = dataclasses.replace(
            run_context,
            resume=resume,
            answers=saved_answers(pending),
            thread=thread,
            resuming=resuming or (outer is not None and outer.resuming),
        )
    return Opening(state, input, resuming, pending, discarded, first_step, run_context)


def _fork(thread: ThreadLink, state: phases.StepState, checkpoint: Checkpoint) -> None:
    # Replaying from an older checkpoint starts a new branch of the thread.
    fork = dataclasses.replace(
        checkpoint,
        id=new_checkpoint_id(after=checkpoint.id),
        source="fork",
        parent_id=checkpoint.id,
        step=checkpoint.step + 1,
    )
    thread.save_checkpoint(fork, {})
    state.checkpoint = fork
    state.step = fork.step + 1


def _warn_if_finished(graph: GraphSpec, thread: ThreadLink | None, state: phases.StepState) -> None:
    # LangGraph returns a finished thread's state and drops the answer without a word
    if thread is None or phases.plan(graph, state).tasks:
        return
    warn(
        f"Command(resume=...) on thread {thread.thread_id!r}, whose run has finished: its "
        f"checkpoint {state.checkpoint.id!r} has nothing left to run and no interrupt "
        "waiting, so the answer is ignored and the state is returned as it is (as in "
        "LangGraph). To run the graph again on this thread, invoke it with a new input."
    )
