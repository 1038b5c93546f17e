"""What graphkit says when a run's config, thread or checkpoint is wrong (raised or
warned by ``graphkit.pregel.threads``, ``graphkit.pregel.thread_saves`` and
``graphkit.pregel.config``)."""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from graphkit.diagnostics import some_names

# (the messages of a resume map that names no one question have a module of their own;
# graphkit.pregel.threads and the answer box read them from here)
from graphkit.diagnostics.resume_keys import SHORTEST_ID as SHORTEST_ID
from graphkit.diagnostics.resume_keys import answers_nothing as answers_nothing
from graphkit.diagnostics.resume_keys import ids_begun_by as ids_begun_by
from graphkit.diagnostics.resume_keys import not_waiting as not_waiting
from graphkit.diagnostics.resume_keys import several_interrupts as several_interrupts
from graphkit.diagnostics.resume_keys import unclear_id as unclear_id
from graphkit.errors import CheckpointNotFoundError

if TYPE_CHECKING:
    from graphkit.checkpoint.saver import BaseCheckpointSaver


def config_not_dict(config: Any) -> str:
    # a checkpoint (a StateSnapshot, a saver's CheckpointTuple) has a parent_config; a
    # graph made with with_config, or another runnable, has a .config and is none
    if isinstance(getattr(config, "config", None), Mapping) and hasattr(config, "parent_config"):
        snapshot = hasattr(config, "values")
        gives = (
            "get_state or get_state_history" if snapshot else "a checkpointer's get_tuple or list"
        )
        return (  # (not its repr: a snapshot shows the whole state, pages of it)
            f"A config must be a dict, got a {type(config).__name__} (a checkpoint as "
            f"{gives} give it): pass its config, {'snapshot' if snapshot else 'checkpoint'}"
            ".config, which names its thread and checkpoint."
        )
    return (
        f"A run's config must be a dict, got {type(config).__name__} {config!r}. "
        "For a thread, write {'configurable': {'thread_id': ...}}."
    )


def check_history_options(limit: Any, before: Any) -> None:
    """Refuse a ``get_state_history`` ``limit`` that is no count and a ``before`` that is
    no config. LangGraph's in-memory saver lists nothing for a negative limit and its
    SQLite saver everything (SQL's ``LIMIT -1``), so -1 has no one meaning to keep."""
    # (a bool is the int it equals and NumPy's ints are ints, as for recursion_limit)
    if limit is not None and not isinstance(limit, numbers.Integral):
        raise TypeError(
            f"get_state_history(limit={limit!r}): give an int, how many checkpoints to "
            "list, newest first, or leave limit out (None) to list them all."
        )
    if limit is not None and limit < 0:
        raise ValueError(
            f"get_state_history(limit={limit}): a limit counts the checkpoints to list and "
            "cannot be negative; to list them all, leave it out or pass limit=None."
        )
    if before is None or isinstance(before, Mapping):
        return
    if isinstance(getattr(before, "config", None), Mapping) and hasattr(before, "values"):
        raise TypeError(
            f"get_state_history(before=...) got a {type(before).__name__}: pass its config, "
            "before=snapshot.config, which names the checkpoint to list from."
        )
    raise TypeError(
        f"get_state_history(before={before!r}): give the config of a checkpoint, e.g. "
        "before=snapshot.config of a snapshot from get_state or get_state_history; the "
        "checkpoints saved before it are listed."
    )


def recursion_limit_not_int(limit: Any) -> str:
    return f"recursion_limit must be an int, got {limit!r}."


def recursion_limit_below_one(limit: Any) -> str:
    return (
        f"recursion_limit must be at least 1, got {limit!r}; it counts the supersteps "
        "a run may take after its input."
    )


def config_part_not_dict(key: str, value: Any) -> str:
    example = "{'thread_id': 't1'}" if key == "configurable" else "{'user': 'ada'}"
    got = f"{type(value).__name__} {value!r}"
    return f"The config's {key!r} must be a dict, got {got}: write {key!r}: {example}."


def max_concurrency_not_number(limit: Any) -> str:
    return (
        f"max_concurrency must be a number (how many tasks of a step run at once), got "
        f"{type(limit).__name__} {limit!r}: write 'max_concurrency': 4, or leave it out "
        "for no limit."
    )


def max_concurrency_not_positive(limit: Any) -> str:
    return (
        f"max_concurrency must be above 0, got {limit!r}: it is how many tasks of a step "
        "run at once; leave it out (or None) for no limit."
    )


def no_thread_id(config: Mapping[str, Any] | None = None) -> str:
    if "thread_id" in ((config or {}).get("configurable") or {}):  # given as None
        # (LangGraph saves such a run under a thread get_state cannot read)
        return (
            "This graph has a checkpointer, and the config's thread_id is None: a run "
            "needs a thread to save to. Pass a name or number, e.g. "
            "config={'configurable': {'thread_id': 'some-id'}}."
        )
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


def own_thread_at_root() -> str:
    return (
        "checkpointer=True cannot be used for root graphs: it gives a subgraph its own "
        "thread inside its parent's. Run this graph as a node (or from a node) of a graph "
        "compiled with a checkpointer, or compile it with a saver, e.g. "
        "compile(checkpointer=InMemorySaver())."
    )


def no_subgraph_at(namespace: str) -> str:
    return (
        f"No subgraph at checkpoint_ns {namespace!r}: no node of this graph runs one by "
        "that name. Use the config of a subgraph task's state (get_state(config, "
        "subgraphs=True).tasks[i].state.config), or leave checkpoint_ns out."
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
    try:
        ids = [saved.checkpoint.id for saved in saver.list(thread, limit=shown + 1)]
        older = sum(1 for _ in saver.list(thread)) - shown if len(ids) > shown else 0
    except Exception as error:  # (a saver that cannot list must not hide the not-found)
        return CheckpointNotFoundError(
            f"Thread {thread_id!r} has no checkpoint {checkpoint_id!r} (its checkpoints "
            f"could not be listed: {type(error).__name__}: {error}). Copy an id from "
            "app.get_state_history(config), or leave checkpoint_id out to use the latest."
        )
    if not ids:
        return CheckpointNotFoundError(
            f"Thread {thread_id!r} has no checkpoint {checkpoint_id!r}: it has no checkpoints "
            "at all. Check the thread_id, or leave checkpoint_id out."
        )
    listed = ", ".join(map(repr, ids[:shown]))
    if older:
        listed += f" (and {older} older)"
    return CheckpointNotFoundError(
        f"Thread {thread_id!r} has no checkpoint {checkpoint_id!r}. Its newest checkpoints: "
        f"{listed}. Copy an id from app.get_state_history(config), or leave checkpoint_id "
        "out to use the latest."
    )


def command_input_to_parent(command: object) -> str:
    return (
        f"The run's input {command!r} is a Command for the parent graph, but this run "
        "has no parent graph. Give the run Command(update=..., goto=..., resume=...) "
        "without graph=Command.PARENT."
    )


def bad_input_goto(target: object) -> str:
    return (
        f"The run's input Command(goto=...) names {target!r} ({type(target).__name__}); "
        "goto takes a node name, a Send, or a list of them, e.g. Command(goto='node')."
    )


def bad_input_update(update: object) -> str:
    return (
        f"The run's input Command(update=...) is {type(update).__name__} {update!r}; "
        "unless the state is a single value (e.g. StateGraph(int)), update takes a dict "
        "of state keys, (key, value) pairs or a state object, e.g. "
        "Command(update={'key': value})."
    )


def entrypoint_input_update(name: str, command: Any) -> str:
    return (
        f"The run's input {command!r} cannot update the entrypoint {name!r}: an "
        "@entrypoint has no state keys for Command(update=...) to write. To change the "
        f"value its next run gets as `previous`, call {name}.update_state(config, "
        f"{command.update!r}); to answer an interrupt, pass Command(resume=answer); to "
        f"run it, pass its input, e.g. {name}.invoke(value, config)."
    )


def no_input() -> str:
    return (
        "Received no input and there is nothing to resume: a new run needs an "
        "input, e.g. app.invoke({'key': value})."
    )


def empty_command(command: Any) -> str:
    return (
        f"Received empty Command input: {command!r} has no update, no goto and no "
        "resume value, so the run has nothing to apply. To answer a paused run pass "
        "Command(resume=answer); to go on from a saved checkpoint, None; to start a "
        "run, its input, e.g. app.invoke({'key': value})."
    )


def nothing_to_resume(thread_id: str, blank: bool = False, command: Any = None) -> str:
    holds = "whose checkpoint holds no value yet" if blank else "which has no checkpoint"
    if command is not None and command.resume is None:  # (a goto to END alone)
        return (
            f"{command!r} on thread {thread_id!r}, {holds}: END is no node, so the goto "
            "routes nothing and the graph runs from START with no input (as in "
            "LangGraph). To start a thread, invoke with an input."
        )
    return (
        f"Command(resume=...) on thread {thread_id!r}, {holds}: "
        "there is nothing to resume, so the graph runs from START with no input and "
        "the answer is unused (as in LangGraph). Check the thread_id; to start a "
        "thread, invoke with an input."
    )


def saved_writes_refused(step: int) -> str:
    """Why ``get_state`` raised a failed step's error again, and the two ways on."""
    return (
        f"get_state applies the saved writes of step {step}'s finished tasks, as the run "
        "did, and they fail as they did then. A resume applies these same writes (it does "
        "not run their nodes again): fix the reducer and call invoke(None, config), or "
        "replace the step's writes with update_state(config, values, as_node=...)."
    )


def finished_thread(thread_id: str, checkpoint_id: str) -> str:
    return (
        f"Command(resume=...) on thread {thread_id!r}, whose run has finished: its "
        f"checkpoint {checkpoint_id!r} has nothing left to run and no interrupt "
        "waiting, so the answer is ignored and the state is returned as it is (as in "
        "LangGraph). To run the graph again on this thread, invoke it with a new input."
    )


def update_read_as_node(node: str) -> str:
    """Named as read, whether ``as_node`` was given or defaulted (to the node that wrote
    last): an ``as_node=`` quoted here the caller may never have written."""
    return (
        f"(update_state's values are read as what node {node!r} returned, so they must "
        "be what that node could return)"
    )


def unknown_as_node(node: str, nodes: Mapping[str, Any]) -> str:
    return f"update_state(as_node={node!r}): there is no such node; use one of {some_names(nodes)}."


def update_after_resume_unattributed() -> str:
    return (
        "Ambiguous update: no node has run on this branch since a resumed run started it "
        "(a replay's fork of an earlier checkpoint, or invoke(None)), so there is no last "
        "node to make the update as; say which, e.g. update_state(config, values, "
        "as_node='__start__') to edit it as the input."
    )


def ambiguous_update(candidates: Sequence[str]) -> str:
    together = (
        f"nodes {candidates} ran last together"
        if len(candidates) > 1
        else f"node {candidates[0]!r}, which ran last, read two channels written in one "
        "step, which LangGraph counts as two updates at once"
    )
    return (
        f"Ambiguous update: {together}; say which node the update is "
        "as, e.g. update_state(config, values, as_node=" + repr(candidates[0]) + ")."
    )


def no_supersteps() -> str:
    return (
        "bulk_update_state got no supersteps: pass a list of supersteps, each a list of "
        "StateUpdate(values, as_node), e.g. [[StateUpdate({'n': 1}, 'count')]]."
    )


def no_updates() -> str:
    return (
        "bulk_update_state got a superstep with no updates: each superstep is a non-empty "
        "list of StateUpdate(values, as_node); leave the empty one out."
    )


def not_a_state_update(update: Any) -> str:
    return (
        f"bulk_update_state: {update!r} is not an update; write StateUpdate(values, as_node) "
        "or a (values, as_node, task_id) triple (task_id may be None)."
    )


def special_update_alone(as_node: str) -> str:
    what = {"__end__": "ending the pending tasks", "__input__": "writing an input"}
    return (
        f"An update as_node={as_node!r} ({what.get(as_node, 'copying the checkpoint')}) "
        "must be the only update of its superstep; put the other updates in a superstep "
        "of their own."
    )


def as_node_required() -> str:
    return (
        "as_node is required when applying multiple updates in one superstep: give each "
        "StateUpdate the node it acts as, e.g. StateUpdate({'n': 1}, 'count')."
    )


def no_input_writes(input_channel: str) -> str:
    return (
        f"An update as_node='__input__' with values None writes nothing to the input "
        f"({input_channel!r}); pass the input, e.g. ({{'key': value}}, '__input__', None)."
    )


def copy_of_nothing(thread_id: str) -> str:
    return (
        f"Cannot copy a non-existent checkpoint: thread {thread_id!r} has none. Run the "
        "graph on it first, or check the thread_id and checkpoint_id."
    )


def bad_copy_item(item: Any) -> str:
    return (
        f"Invalid update item {item!r} when copying a checkpoint: the values of an "
        "as_node='__copy__' update are a list of (values, as_node) pairs."
    )


def resume_without_checkpointer() -> str:
    return (  # (LangGraph's sentence, then ours broken at clauses: see recursion_limit)
        "Cannot use Command(resume=...) without checkpointer:\na run that paused kept "
        "nothing to resume.\nCompile the graph with checkpointer=InMemorySaver() (or another "
        "saver)\nand pass the same thread_id to the run that pauses and to the resume."
    )
