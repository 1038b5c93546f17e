"""Threads: where a run starts and where it saves.

``open_thread`` finds where a run starts (a new input step, or a saved checkpoint it
resumes, forking a new branch when that is not the thread's latest) and the answers its
``interrupt()`` calls get; ``run_links`` which thread it saves to, through a
``ThreadLink`` (``graphkit.pregel.thread_saves``). The writes a thread keeps for its
tasks, and what a resumed run reuses of them, are ``graphkit.pregel.saved_writes``;
reading and editing a saved thread, ``graphkit.pregel.thread_state`` and
``graphkit.pregel.thread_edits``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphkit.checkpoint.saver import BaseCheckpointSaver, CheckpointTuple, config_key
from graphkit.constants import (
    BRANCH_CHANNEL_PREFIX,
    END,
    INTERRUPT,
    PREVIOUS,
    ROOT,
    START,
    TASKS,
)
from graphkit.diagnostics import threads as diagnose
from graphkit.errors import EmptyInputError, InvalidUpdateError, UnknownInterruptError, warn
from graphkit.pregel import phases
from graphkit.pregel.config import RunOptions
from graphkit.pregel.interrupts import NO_ANSWER, Resume, is_answer_map
from graphkit.pregel.records import Task
from graphkit.pregel.replay import ReplayPoint, replay_point
from graphkit.pregel.saved_writes import ANSWERS, NULL_TASK, SPECIAL, kept_answers, null_writes
from graphkit.pregel.spec import GraphSpec
from graphkit.pregel.task_scope import TaskScope, without_task_ids
from graphkit.pregel.thread_saves import ThreadLink
from graphkit.types import Command, Send

__all__ = [
    "INTERRUPT",
    "Opening",
    "ThreadLink",
    "open_thread",
]

COPY, INPUT_NODE = "__copy__", "__input__"
"""``as_node`` values of ``bulk_update_state`` that fork the checkpoint, or write an input."""


# -- starting a run ----------------------------------------------------------------------


@dataclass(slots=True)
class Opening:
    """Where a run starts: the state, the input step's value, the tasks a new input
    replaces (they count as having seen their triggers), the saved task writes, the
    answers for ``interrupt()``, and whether the subgraphs its tasks start resume theirs."""

    state: phases.StepState
    input: Any
    resuming: bool
    pending: list[Any]
    discarded: tuple[Task, ...]
    resume: Resume | None
    answers: dict[str, tuple[Any, ...]]
    resumes_subgraphs: bool
    command_writes: list[tuple[str, Any]]
    """A ``Command`` input's writes, made before anything runs: on a new thread its
    update (its START task routes its goto), on a saved one its update and goto."""
    null_writes: list[tuple[str, Any]]
    """The writes an earlier ``Command`` input saved on the checkpoint a run starts
    from (its next step had paused or failed): applied again first, as in LangGraph,
    whether the run resumes, replays that checkpoint or brings a new input."""
    forks: bool
    """The run replays an older checkpoint: it continues on a new branch, from a "fork"
    checkpoint that holds a ``Command`` input's writes."""
    answer_writes: list[tuple[str, Any]]
    """The ``Command(resume=...)`` answer to save before anything runs, by interrupt id
    (see ``saved_writes.kept_answers``); none when the run brings no answer."""


def thread_link(
    checkpointer: BaseCheckpointSaver | bool | None,
    config: Any,
    durability: str | None,
    parent: TaskScope | None,
    namespace: tuple[str, ...] = (),
    untracked: frozenset[str] = frozenset(),
) -> ThreadLink | None:
    """Where a run saves. A root run: its own checkpointer, or nowhere. A subgraph run
    (``namespace`` given by its parent task): the parent lends its saver, as in
    LangGraph, whatever saver the subgraph was compiled with; ``checkpointer=False``
    saves nowhere, ``True`` keeps the subgraph's own thread (its namespace without task
    ids), None saves this call under its task's namespace."""
    if parent is None:
        if checkpointer is True:
            raise RuntimeError(diagnose.own_thread_at_root())
        if checkpointer is None or checkpointer is False:
            return None
        link = ThreadLink(checkpointer, _addressed(config, ""), "", durability, untracked=untracked)
        link.parents = dict(config_key(config, "checkpoint_map") or {})  # (as LangGraph's)
        return link
    outer = parent.run.lends
    if outer is None or checkpointer is False:
        return None
    joined = "|".join(namespace)
    if checkpointer is True:
        joined = own_thread_namespace(joined)
    # the parent's thread, and what the task's config carries into metadata
    config = _addressed({**config, "configurable": {**config["configurable"]}}, joined)
    config["configurable"]["thread_id"] = outer.thread_id
    return ThreadLink(outer.saver, config, joined, outer.durability, outer, untracked)


def run_links(
    options: RunOptions,
    config: Any,
    parent: TaskScope | None,
    namespace: tuple[str, ...],
    untracked: frozenset[str],
) -> tuple[ThreadLink | None, ThreadLink | None]:
    """Where a run saves (``thread_link``), and the thread the subgraphs its tasks start
    save through: its own; for a ``checkpointer=False`` subgraph run, which saves
    nothing, its parent's saver under the run's namespace, as LangGraph's passes on the
    saver its parent gave it (so a ``checkpointer=True`` graph inside keeps its state)."""
    checkpointer = options.checkpointer
    thread = thread_link(checkpointer, config, options.durability, parent, namespace, untracked)
    if checkpointer is not False or parent is None or parent.run.lends is None:
        return thread, thread
    return thread, thread_link(None, config, None, parent, namespace)


def _addressed(config: Any, namespace: str) -> Any:
    """``config`` naming the checkpoint a run under ``namespace`` starts from. A
    subgraph's config (from ``get_state(subgraphs=True)`` or ``update_state``) names the
    subgraph's checkpoint and, in its ``checkpoint_map``, the parent's (under ""): given to
    the parent, the parent starts from its own, and each run whose namespace the map
    names from the checkpoint it gives (time travel into a subgraph, as in LangGraph)."""
    configurable = config.get("configurable") or {}
    mapped = configurable.get("checkpoint_map") or {}
    if namespace in mapped:
        wanted = mapped[namespace]
    elif namespace or configurable.get("checkpoint_ns"):
        wanted = None  # (a task's config names no checkpoint of the subgraph's)
    else:
        return config
    return {**config, "configurable": {**configurable, "checkpoint_id": wanted}}


def own_thread_namespace(namespace: str) -> str:
    """Where a ``checkpointer=True`` subgraph keeps its thread: its namespace without
    task ids, so one history per node name (and call number) per parent thread.

    >>> own_thread_namespace("outer:1f2e|inner:9a8b|1")
    'outer|inner|1'
    """
    return "|".join(without_task_ids(tuple(namespace.split("|"))))


def open_thread(
    graph: GraphSpec, thread: ThreadLink | None, parent: TaskScope | None, input: Any
) -> Opening:
    """Load the thread's checkpoint, if any, and decide what the run does with
    ``input``: apply it as a new input step, or resume (None / ``Command(resume=...)``)."""
    answer, writes = _command_input(graph, input, thread, parent)
    forks = False
    outer = parent.run if parent is not None else None
    saved, replayed = _load(thread, outer is None, input, answer)
    # a retried task's subgraphs resume too, as LangGraph's retry marks their config so
    retried = parent is not None and parent.attempt > 0
    outer_resumes = outer is not None and (outer.resuming or retried) and not replayed
    if outer_resumes and saved is not None:
        input, writes = None, []  # the parent resumes, so this subgraph resumes where it paused
    # a root thread whose checkpoint holds nothing (update_state(config, None) on a new
    # thread) has nothing to resume either: LangGraph runs a Command input as a new one
    blank = saved is not None and outer is None and not saved.checkpoint.channel_versions
    fresh = saved is None or blank
    if fresh and isinstance(input, Command):
        answer, input, writes = NO_ANSWER, *_command_as_input(thread, outer, input, writes, blank)
    resuming = input is None or (isinstance(input, Command) and not fresh)
    pending: list[Any] = list(saved.pending_writes) if saved is not None else []
    # an earlier Command input's writes are the checkpoint's own state (get_state shows
    # them), so a run applies them first, a replay of the checkpoint too, as LangGraph's
    earlier_command_writes = null_writes(pending)
    discarded: tuple[Task, ...] = ()
    # nothing to resume: no checkpoint, or a root run's that holds nothing (as above)
    empty = saved is None or (outer is None and not saved.checkpoint.channel_versions)
    if resuming and input is None and empty:
        raise EmptyInputError(diagnose.no_input())
    if saved is None:
        state = phases.StepState.fresh(graph)
    else:
        state = phases.StepState.restored(graph, saved.checkpoint)
        if not resuming:  # a new input replaces what the thread was about to run
            discarded = phases.plan(graph, state).tasks
        else:
            state.pass_breakpoints()
            # LangGraph returns a finished thread's state and drops the answer silently
            answered = isinstance(input, Command) and outer is None and not (pending or writes)
            if answered and not phases.plan(graph, state).tasks:
                warn(diagnose.finished_thread(thread.thread_id, state.checkpoint.id))
            forks = _forks(thread, saved, answer)
            if forks:  # replaying starts a new branch (the stepper saves it), its tasks anew
                pending = []
    resume, answer_writes = _answering(thread, outer, input, answer, pending, forks)
    return Opening(
        state=state,
        input=input,
        resuming=resuming,
        pending=pending,
        discarded=discarded,
        resume=resume,
        answers={k: tuple(v) for k, c, v in pending if c == ANSWERS and k != NULL_TASK},
        resumes_subgraphs=thread is not None and (resuming or outer_resumes),
        command_writes=writes,
        null_writes=earlier_command_writes,  # (a new input's run applies them too)
        forks=forks,
        answer_writes=answer_writes,
    )


def _command_as_input(
    thread: ThreadLink | None, outer: Any, command: Any, writes: list[Any], blank: bool
) -> tuple[Any, list[Any]]:
    """A ``Command`` input on a thread with nothing to resume: a new input step that
    START reads the Command's update in, or, with no update, a run with no input (as
    LangGraph's); the input and its writes."""
    if writes:
        return command, [(key, value) for key, value in writes if not _is_route(key)]
    if thread is not None and outer is None:
        warn(diagnose.nothing_to_resume(thread.thread_id, blank, command))
    return {}, writes


def _load(
    thread: ThreadLink | None, root: bool, input: Any, answer: Any
) -> tuple[CheckpointTuple | None, bool]:
    """The checkpoint a run starts from, and whether it is a subgraph thread's state at
    the point its root run time-travels to (reached first, it takes its input anew)."""
    if thread is None:
        return None, False
    replay = thread.replay
    pinned = thread.requested_id is not None  # (a subgraph's, by the config's checkpoint_map)
    replayed = replay is not None and not pinned and replay.first_reach(thread.namespace)
    saved = thread.load(replay.checkpoint_id if replay is not None and replayed else None)
    if root:  # where it time-travels to, for the subgraph threads it reaches
        thread.replay = _time_travel(thread, saved, input, answer)
    return saved, replayed


def _command_input(
    graph: GraphSpec, input: Any, thread: ThreadLink | None, parent: TaskScope | None
) -> tuple[Any, list[tuple[str, Any]]]:
    """The answer and the writes a run's input ``Command`` brings (none for other input)."""
    if not isinstance(input, Command):
        return NO_ANSWER, []
    if input.graph is not None:
        raise InvalidUpdateError(diagnose.command_input_to_parent(input))
    if input.resume is not None and thread is None and parent is None:
        raise RuntimeError(diagnose.resume_without_checkpointer())
    answer = NO_ANSWER if input.resume is None else input.resume
    try:
        writes = command_input_writes(input, root=graph.state_keys == (ROOT,))
    except InvalidUpdateError:
        if PREVIOUS not in graph.channels:
            raise
        # an @entrypoint has no state keys: say what changes its saved value instead
        entry = next(iter(graph.nodes))
        raise InvalidUpdateError(diagnose.entrypoint_input_update(entry, input)) from None
    ends = END in input.destinations()  # (LangGraph writes it, to a channel no graph has)
    if answer is NO_ANSWER and not writes and not ends:  # (LangGraph means it, langgraph#7034)
        raise EmptyInputError(diagnose.empty_command(input))
    return answer, writes


def _forks(thread: ThreadLink, saved: CheckpointTuple, answer: Any) -> bool:
    """Whether resuming ``saved`` starts a new branch: it is not the thread's latest; or,
    as in LangGraph, a run addressed at it (its id in the config, or a subgraph's in the
    config's ``checkpoint_map``) brings no answer, so it is replayed, unless it is a
    branch already (made by ``update_state``, a fork)."""
    latest = thread._get_tuple(thread.thread_config)
    if latest is None or latest.checkpoint.id != saved.checkpoint.id:
        return True
    source = (saved.metadata or {}).get("source")
    addressed = thread.requested_id is not None  # (a subgraph's: by a checkpoint_map)
    return addressed and answer is NO_ANSWER and source not in ("update", "fork")


def _time_travel(
    thread: ThreadLink, saved: CheckpointTuple | None, input: Any, answer: Any
) -> ReplayPoint | None:
    """Where a root run time-travels to: the checkpoint its config names, unless it
    answers an interrupt there (``Command(resume=...)``) or brings a new input (which
    starts from now: its subgraphs read their latest), as in LangGraph."""
    if saved is None or thread.requested_id is None or answer is not NO_ANSWER:
        return None
    if input is not None and not isinstance(input, Command):
        return None
    return replay_point(saved.checkpoint.id, saved.metadata, saved.parent_config)


def _strict(thread: ThreadLink | None, outer: Any, forks: bool) -> bool:
    """Whether the answer is checked strictly: asked for, by a root run that does not
    replay an older checkpoint (its tasks may ask again), as in LangGraph."""
    return thread is not None and thread.strict_resume and outer is None and not forks


def _waiting(pending: Sequence[Any]) -> dict[Any, tuple[str, Any]]:
    """The interrupts still waiting for an answer: by id, their task and themselves."""
    # a task resumed past its interrupt keeps it saved beside its writes: not waiting; a
    # called task's interrupt is saved by the call and by its caller: counted once
    finished = {task_id for task_id, channel, _ in pending if channel not in SPECIAL}
    return {  # (an interrupt with no id is known by its task and place: what errors show)
        getattr(interrupt, "id", None) or (task_id, index): (task_id, interrupt)
        for task_id, channel, value in pending
        if channel == INTERRUPT and task_id not in finished
        for index, interrupt in enumerate(value)
    }


def _answering(
    thread: ThreadLink | None,
    outer: Any,
    input: Any,
    answer: Any,
    pending: Sequence[Any],
    forks: bool,
) -> tuple[Resume | None, list[tuple[str, Any]]]:
    """What ``interrupt()`` calls are answered with (``_resume``), and the writes that
    save a root run's answer before anything runs (``_answer_to_keep``)."""
    waiting = _waiting(pending)
    strict = _strict(thread, outer, forks)
    answer_writes: list[tuple[str, Any]] = []
    if thread is not None and outer is None and not forks:
        answer, answer_writes = _answer_to_keep(answer, input, pending, waiting)
        strict = strict and input is not None  # (a kept answer is not checked again)
    return _resume(thread, outer, answer, waiting, strict=strict), answer_writes


def _answer_to_keep(
    answer: Any, input: Any, pending: Sequence[Any], waiting: Mapping[Any, tuple[str, Any]]
) -> tuple[Any, list[tuple[str, Any]]]:
    """A root run's answer and the writes that save it before anything runs: the one
    it brings, by interrupt id; or, resumed with none, the one a run that stopped short
    saved, for the interrupts still waiting (``saved_writes.kept_answers``)."""
    if answer is NO_ANSWER and input is None:
        kept = {key: value for key, value in kept_answers(pending).items() if key in waiting}
        return (kept or NO_ANSWER), []
    keyed = _keyed(answer, waiting) if answer is not NO_ANSWER else {}
    return answer, [(ANSWERS, keyed)] if keyed else []


def _keyed(answer: Any, waiting: Mapping[Any, tuple[str, Any]]) -> dict[str, Any]:
    """``answer`` by the id of the interrupt it answers (a map: those of its ids still
    waiting), to be saved before the run goes on; ``{}`` when that is not known."""
    if is_answer_map(answer):
        return {key: value for key, value in answer.items() if key in waiting}
    ids = [key for key in waiting if isinstance(key, str)]
    return {ids[0]: answer} if len(ids) == len(waiting) == 1 else {}


def _resume(
    thread: ThreadLink | None,
    outer: Any,
    answer: Any,
    waiting: Mapping[Any, tuple[str, Any]],
    strict: bool,
) -> Resume | None:
    """What ``interrupt()`` calls are answered with: this run's answer; or, when it has
    none, the answers the whole run was resumed with (a subgraph saving nothing, with
    ``checkpointer=False``, starts over and takes them, as LangGraph's does); None when
    no thread here or above could answer."""
    if strict and answer is not NO_ANSWER:
        _check_answer_strictly(answer, waiting)
    if len(waiting) > 1 and answer is not NO_ANSWER and not is_answer_map(answer):
        raise RuntimeError(diagnose.several_interrupts(answer, waiting))
    if outer is not None and outer.resume is not None and answer is NO_ANSWER:
        return outer.resume  # type: ignore[no-any-return]
    return Resume(answer) if thread is not None else None


def _check_answer_strictly(answer: Any, waiting: Mapping[Any, tuple[str, Any]]) -> None:
    """Raise ``UnknownInterruptError`` for an answer that does not match the interrupts
    ``waiting`` (by id): an empty map, a map naming others, one answer for several.
    One answer with none waiting is a breakpoint's, and passes."""
    pending = sorted(id_ for id_ in waiting if isinstance(id_, str))
    if is_answer_map(answer):
        if not answer:
            raise UnknownInterruptError(
                diagnose.answers_nothing(pending), reason="empty_map", pending_ids=pending
            )
        if unknown := sorted(answer.keys() - waiting):
            raise UnknownInterruptError(
                diagnose.not_waiting(unknown, pending),
                reason="not_pending",
                interrupt_ids=unknown,
                pending_ids=pending,
            )
    elif len(waiting) > 1:
        raise UnknownInterruptError(
            diagnose.several_interrupts(answer, waiting), reason="ambiguous", pending_ids=pending
        )


def command_input_writes(command: Command, root: bool = False) -> list[tuple[str, Any]]:
    """The writes a ``Command`` given as a run's input makes, as LangGraph's: each goto
    target wakes its node (or sends its packet), then each update key is written; in a
    single-value state (``root``), an update that is not a dict or pairs is the new value.

    >>> command_input_writes(Command(update={"x": 1}, goto="b"))
    [('branch:to:b', '__start__'), ('x', 1)]
    >>> command_input_writes(Command(update=5), root=True)
    [('__root__', 5)]
    """
    writes: list[tuple[str, Any]] = []
    for target in command.destinations():
        if isinstance(target, Send):
            writes.append((TASKS, target))
        elif isinstance(target, str):
            if target != END:
                writes.append((f"{BRANCH_CHANNEL_PREFIX}{target}", START))
        else:
            raise TypeError(diagnose.bad_input_goto(target))
    update = command.update
    if not update:  # (LangGraph skips an empty or falsy update)
        return writes
    if not root and isinstance(update, list) and all(_is_list_pair(item) for item in update):
        return writes + [tuple(item) for item in update]  # (graphkit's: LangGraph drops them)
    items = command.update_items(root)
    if items is None:
        raise InvalidUpdateError(diagnose.bad_input_update(update))
    return writes + items


def _is_list_pair(item: Any) -> bool:
    return isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)


def _is_route(channel: str) -> bool:
    return channel == TASKS or channel.startswith(BRANCH_CHANNEL_PREFIX)
