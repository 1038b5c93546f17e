"""Hand a thread read from LangGraph over to graphkit: ``save_thread`` copies it into a
graphkit saver, so the converted graph steps on from its last checkpoint, and
``interrupt_ids`` says by which id graphkit asks each question the thread waits on.
"""

from __future__ import annotations

from typing import Any

from graphkit.bridge.saved import INTERRUPT, RESUME
from graphkit.checkpoint.saver import takes_task_path
from graphkit.pregel.records import Run, TaskResult, path_text, task_id
from graphkit.types import Interrupt, interrupt_id

__all__ = ["interrupt_ids", "save_thread"]


def save_thread(run: Run, saver: Any, thread_id: str) -> dict[str, Any]:
    """Copy an imported thread into a graphkit ``saver`` (its checkpoints, and what the
    tasks of a step it stopped in saved: a finished task's writes, a paused one's
    interrupts and the answers its ``interrupt()`` calls took), so that the same graph
    running on graphkit (``from_langgraph(app, checkpointer=saver)``) steps on from its
    last checkpoint; return the config naming the thread.

    >>> from graphkit import InMemorySaver
    >>> from graphkit.inspect.examples import counter_run
    >>> saver = InMemorySaver()
    >>> save_thread(counter_run(), saver, "t")["configurable"]["thread_id"]
    't'
    >>> saver.get_tuple({"configurable": {"thread_id": "t"}}).checkpoint.step
    1
    """
    config: dict[str, Any] = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
    for superstep in run.steps:
        checkpoint = superstep.checkpoint
        if checkpoint is None:
            continue
        metadata = {"source": checkpoint.source, "step": checkpoint.step, "parents": {}}
        config = saver.put(config, checkpoint, metadata, dict(checkpoint.channel_versions))
    last = run.steps[-1] if run.steps else None
    if last is not None and last.update is None and last.execution is not None:
        for result in last.execution.results:
            if result.task.kind == "input":
                continue
            saved_id = _saved_task_id(result, config["configurable"]["checkpoint_id"], last.step)
            writes = _saved_writes(result, _asked_again(result, saved_id, run.namespace))
            if writes is not None:
                shown = (path_text(result.task.shown_path),) if takes_task_path(saver) else ()
                saver.put_writes(config, writes, saved_id, *shown)
    return config


def interrupt_ids(run: Run, checkpoint_id: str) -> dict[str, str]:
    """For a run that stopped at ``interrupt()`` calls, copied by ``save_thread`` (its
    last checkpoint saved as ``checkpoint_id``): each question's id in the run → the id
    graphkit asks it by when the step runs again. A LangGraph thread's ids are
    LangGraph's hashes of LangGraph's task ids, so an answer keyed by one
    (``Command(resume={id: answer})``, needed when several wait) must be keyed anew."""
    last = run.steps[-1] if run.steps else None
    if last is None or last.update is not None or last.execution is None:
        return {}
    renamed = {}
    for result in last.execution.results:
        saved_id = _saved_task_id(result, checkpoint_id, last.step)
        asked = _asked_again(result, saved_id, run.namespace)
        renamed.update((was.id, now.id) for was, now in zip(result.interrupts, asked, strict=True))
    return renamed


def _saved_task_id(result: TaskResult, checkpoint_id: str, step: int) -> str:
    """graphkit names a task by its checkpoint, step and path, as it will plan it."""
    return task_id(checkpoint_id, step, result.task.path[:2])


def _asked_again(result: TaskResult, saved_id: str, namespace: tuple[str, ...]) -> list[Any]:
    """The question ``result``'s task waits on, with the id graphkit's run of the task
    (``saved_id``) will ask it by: its namespace's hash, for the answer it waits for
    next. Left as they are: a graphkit task's own (same id), and a subgraph's questions
    (asked deeper, by a subgraph that starts again from its start, see langgraph.md)."""
    asked = list(result.interrupts)
    if result.task.id == saved_id or len(asked) != 1 or result.subruns:
        return asked
    at = (*namespace, f"{result.task.node}:{saved_id}")
    slot = len(result.answers)
    was = asked[0]
    schema = getattr(was, "response_schema", None)
    return [Interrupt(was.value, id=interrupt_id(at, slot), response_schema=schema)]


def _saved_writes(result: TaskResult, asked: list[Any]) -> list[tuple[str, Any]] | None:
    """What graphkit saves for a task of a step that stopped: a finished task's writes;
    a paused task's interrupts (``asked``) and the answers its ``interrupt()`` calls took
    (resumed, it gets them again, and the next answer goes to the question still open);
    nothing for a failed task (it runs again)."""
    if result.ok:
        return list(result.writes)
    if not result.interrupts:
        return None
    answers = [(RESUME, list(result.answers))] if result.answers else []
    return [(INTERRUPT, asked), *answers]
