"""One emitter per stream mode: told each phase (by ``graphkit.streaming.run``), it
answers with ``(mode, chunk)`` pairs in LangGraph's shapes and field names."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

from graphkit.channels import AnyValue, BinaryOperatorAggregate, LastValue, UntrackedValue
from graphkit.checkpoint.saver import checkpoint_config, with_checkpoint_map
from graphkit.constants import PUSH, RETURN
from graphkit.errors import ParentCommand
from graphkit.pregel import phases
from graphkit.pregel.calls import returned
from graphkit.pregel.config import NOT_CARRIED
from graphkit.pregel.records import Plan, Task, TaskResult
from graphkit.pregel.runtime import task_config
from graphkit.pregel.spec import fold_writes, shown
from graphkit.pregel.stepper import Stepper
from graphkit.pregel.thread_state import PregelTask, subgraph_of, subgraph_thread, tasks_with_writes
from graphkit.pregel.threads import INTERRUPT

__all__ = ["STREAM_MODES", "Emitter", "emitters_for"]

STREAM_MODES = ("values", "updates", "debug", "tasks", "checkpoints", "custom", "messages")

EVENTS = ("started", "planned", "finished", "updated", "flushed", "ended")

Chunks = Iterable[tuple[str, Any]]


class Emitter:
    """One mode's view of the run. It defines only the events it speaks at (``EVENTS``;
    "flushed": the run stops, told a paused run's ``Paused``), each returning
    ``(mode, chunk)`` pairs."""

    def __init__(
        self, app: Any, stepper: Stepper, modes: set[str], keys: tuple[str, ...], sink: Any
    ) -> None:
        self.app, self.stepper, self.graph = app, stepper, stepper.graph  # (app: compiled)
        self.modes, self.keys = modes, keys
        self.messages_sink = sink  # the run's MessagesSink, when "messages" is streamed

    def _with_debug(self, mode: str, step: int, kind: str, payload: Any) -> Iterator[Any]:
        """``payload`` in ``mode`` and, as a debug event, in "debug" (if asked)."""
        if payload is not None:
            if mode in self.modes:
                yield mode, payload
            if "debug" in self.modes:
                timestamp = datetime.now(UTC).isoformat()
                event = {"step": step, "timestamp": timestamp, "type": kind, "payload": payload}
                yield "debug", event


class Values(Emitter):
    """The state after each step that wrote it, delivered once the next step is planned
    (as in LangGraph: if planning fails, the error comes instead of that chunk)."""

    held: tuple[str, Any] | None = None

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        # the keys whose channel may hold nothing after a write (a Topic written [], a
        # barrier still waiting): only for those is the Update asked
        channels = self.graph.channels
        self.emptiable = frozenset(
            key for key in self.keys if not isinstance(channels.get(key), _ALWAYS_HELD)
        )

    def started(self) -> Chunks:
        # LangGraph shows the state it resumes from
        return [("values", self.stepper.output(self.keys))] if self.stepper.resumed else ()

    def planned(self, plan: Plan | None = None) -> Chunks:
        # the values the last Update held back, said now that a step is planned
        held, self.held = self.held, None
        return [held] if held is not None else []

    def finished(self, result: TaskResult) -> Chunks:
        if not result.interrupts or result.task.kind == "call":  # (its caller pauses too)
            return ()
        # LangGraph 1.2 shows them with the state so far (a single value: alone)
        values = self.stepper.output(self.keys)
        values = values if isinstance(values, dict) else {}
        return [("values", {**values, INTERRUPT: result.interrupts})]

    def updated(self, results: list[TaskResult]) -> Chunks:
        # (the input step's one result is its input: LangGraph streams no values for it)
        input_step = results[0].task.kind == "input" if results else False
        if not input_step and self._wrote_a_value(results):
            self.held = ("values", self.stepper.output(self.keys))
            if self.stepper.done:  # a breakpoint after the step: no Plan comes, say it now
                return self.flushed()
        return ()

    def _wrote_a_value(self, results: Sequence[TaskResult], state: Any = None) -> bool:
        """LangGraph's rule for a values chunk: a task wrote one of the keys (changed or
        not), and it holds a value after the Update (of ``state``, by default the run's)."""
        keys, emptiable = self.keys, self.emptiable
        for result in results:
            for channel, _ in result.writes:
                if channel in keys and (
                    channel not in emptiable
                    or channel in (state or self.stepper.checkpoint).updated_channels
                ):
                    return True
        return False

    def flushed(self, paused: Paused | None = None) -> Chunks:
        chunks = self.planned()
        # a task paused the root run: the state with the step's finished tasks applied
        if paused is not None and self._wrote_a_value(paused.finished, paused.state):
            chunks.append(("values", shown(self.keys, paused.state.read(self.keys))))
        return chunks


class Updates(Emitter):
    """``{node: update}`` per task as it finishes; ``{"__interrupt__": ...}`` for a pause."""

    def finished(self, result: TaskResult) -> Chunks:
        if result.task.kind == "call":
            if result.ok and not result.reused:
                chunk = CallUpdate({result.task.node: returned(result)})
                if result.cached:
                    chunk["__metadata__"] = {"cached": True}
                yield "updates", chunk
            return
        if result.interrupts:
            yield "updates", {INTERRUPT: result.interrupts}
        if chunk := self._chunk(result):
            if result.reused or result.cached:  # saved before the run stopped, or cached
                chunk["__metadata__"] = {"cached": True}
            yield "updates", chunk

    def ended(self) -> Chunks:
        stepper = self.stepper
        if stepper.status == "interrupted" and not stepper.interrupts and not stepper.namespace:
            # a breakpoint, as LangGraph reports it: once, by the root run (a subgraph's
            # stops the task that runs it, and so the root)
            yield "updates", {INTERRUPT: ()}

    def _chunk(self, result: TaskResult) -> dict[str, Any] | None:
        """``{node: update}``, or a list if a key was written twice (e.g. two Commands)."""
        node = self.graph.nodes.get(result.task.node)
        failed = result.error is not None and not result.writes
        if node is None or node.hidden or result.interrupts or result.paused or failed:
            return None
        keys = self.keys  # the run's output keys, as LangGraph filters updates by them
        writes = [(channel, value) for channel, value in result.writes if channel in keys]
        update = dict(writes)
        if len(update) < len(writes):  # a key written twice
            return {node.name: [shown(keys, {channel: value}) for channel, value in writes]}
        return {node.name: shown(keys, update) if update else None}


class CallUpdate(dict):  # type: ignore[type-arg]
    """An updates chunk of a called task, ``{task: returned}``: shown as it is, whatever
    output keys the run has."""


class Checkpoints(Emitter):
    """The checkpoint each Plan starts from (modes "checkpoints" and "debug"), and the one
    a run paused after (``interrupt_after``), with the step it would run next."""

    started_from: str | None = None
    """The parent of the checkpoint the run started from: with durability "exit" nothing
    is saved until the run ends, so LangGraph names that parent in every payload."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self._runs_subgraph: dict[str, bool] = {}  # by node name
        self._loaded_id: str | None = None  # the checkpoint the run resumed from

    def started(self) -> Chunks:
        self.started_from = self.stepper.checkpoint.parent_id
        thread = self.stepper.thread  # (a replay starts from a fork, not from what it loaded)
        if thread is not None and thread.requested_id is None:
            self._loaded_id = thread.checkpoint_id
        return ()

    def updated(self, results: Sequence[TaskResult]) -> Chunks:
        if self.stepper.status != "interrupted":
            return ()
        return self.planned(self.stepper.upcoming_plan())

    def planned(self, plan: Plan) -> Chunks:
        thread, checkpoint = self.stepper.thread, self.stepper.checkpoint
        if _is_input_step(plan) or thread is None or checkpoint.source == "empty":
            return ()
        ids = thread.thread_id, thread.namespace
        exiting = thread.durability == "exit"
        parent_id = self.started_from if exiting else checkpoint.parent_id
        parent = self._run_config(*ids, parent_id) if parent_id else None
        if parent_id and (exiting or checkpoint.id == self._loaded_id):  # a parent as saved
            parent = checkpoint_config(*ids, parent_id)
        pending = self.stepper.pending_writes
        tasks = (
            tasks_with_writes(self.graph, plan, pending)[0]
            if pending
            else [PregelTask(task.id, task.node, task.shown_path) for task in plan.tasks]
        )
        metadata = dict(thread.last_metadata)
        payload = {
            "config": with_checkpoint_map(self._run_config(*ids, checkpoint.id), metadata),
            "parent_config": with_checkpoint_map(parent, metadata),
            "values": self.stepper.output(self.graph.stream_keys),
            "metadata": metadata,
            "next": plan.nodes,
            "tasks": [_listed(self._with_subgraph_thread(task, *ids)) for task in tasks],
        }
        step = payload["metadata"].get("step", -1)
        return self._with_debug("checkpoints", step, "checkpoint", payload)

    def _run_config(self, thread_id: str, namespace: str, checkpoint_id: str) -> dict[str, Any]:
        """The config naming one checkpoint of this run, as LangGraph streams it: the
        run's own ``configurable`` keys (e.g. a ``user_id``) kept beside the checkpoint's."""
        given = self.stepper.config.configurable
        kept = {key: value for key, value in given.items() if not key.startswith("__pregel_")}
        kept.pop("checkpoint_id", None)  # (named anew, last)
        named = checkpoint_config(thread_id, namespace, checkpoint_id)["configurable"]
        return {"configurable": {"checkpoint_ns": namespace, **kept, **named}}

    def _with_subgraph_thread(self, task: PregelTask, thread_id: str, ns: str) -> PregelTask:
        """``task``, whose state is where its subgraph's thread is if it runs one (as
        LangGraph signals that the subgraph has checkpoints)."""
        if task.name not in self._runs_subgraph:  # (looked up once per node and run)
            self._runs_subgraph[task.name] = subgraph_of(self.app, task.name) is not None
        if not self._runs_subgraph[task.name]:
            return task
        return task._replace(state=subgraph_thread(thread_id, ns, task))


def _listed(task: PregelTask) -> dict[str, Any]:
    """A task in a checkpoint payload, in LangGraph's three shapes: failed, finished (with
    its result), or neither (with the interrupts it paused with)."""
    listed: dict[str, Any] = {"id": task.id, "name": task.name}
    if task.error:
        return {**listed, "error": task.error, "state": task.state}
    if task.result:
        listed["result"] = task.result
    interrupts = tuple(dataclasses.asdict(interrupt) for interrupt in task.interrupts)
    return {**listed, "interrupts": interrupts, "state": task.state}


class Tasks(Emitter):
    """Each task as planned and as finished (modes "tasks" and "debug")."""

    def planned(self, plan: Plan) -> Chunks:
        if self.stepper.done:
            return
        for task in plan.tasks:
            payload = self._task(task, self.stepper.config.raw)
            yield from self._with_debug("tasks", plan.step, "task", payload)

    def finished(self, result: TaskResult) -> Chunks:
        if result.cached or result.reused:  # as in LangGraph: it did not run now, no result
            return ()
        if result.task.kind == "call" and result.interrupts:
            return ()  # as in LangGraph: a paused call has none (its caller reports it)
        if result.paused and not result.interrupts:
            return ()  # a subgraph it ran stopped at a breakpoint: no result, as in LangGraph
        if isinstance(result.error, ParentCommand):
            return ()  # it routed its parent (whose task reports it), as in LangGraph
        payload = self._result(result)
        return self._with_debug("tasks", result.task.step, "task_result", payload)

    def called(self, task: Task) -> Chunks:
        """A task started while its step runs, as it starts (planned in LangGraph)."""
        payload = {"id": task.id, "name": task.node, "input": task.input, "triggers": (PUSH,)}
        return self._with_debug("tasks", task.step, "task", payload)

    def _task(self, task: Task, config: Any) -> dict[str, Any] | None:
        """Its metadata: the run's and the node's, without ``langgraph_*`` keys; the tags."""
        node = self.graph.nodes.get(task.node)
        if node is None or node.hidden:
            return None
        triggers = node.sorted_triggers if task.kind == "pull" else task.triggers
        payload = {"id": task.id, "name": task.node, "input": task.input, "triggers": triggers}
        config = config or {}
        merged = {**(config.get("metadata") or {}), **node.metadata}
        metadata = {
            key: value
            for key, value in merged.items()
            if not key.startswith("langgraph_") and key not in NOT_CARRIED
        }
        internal = ("seq:", "langsmith:", "graph:step:")
        if tags := [tag for tag in config.get("tags") or () if not tag.startswith(internal)]:
            metadata["tags"] = tags
        if metadata:
            payload["metadata"] = metadata
        return payload

    def _result(self, result: TaskResult) -> dict[str, Any] | None:
        node = self.graph.nodes.get(result.task.node)
        is_call = result.task.kind == "call"
        if (node is None or node.hidden) and not is_call:
            return None
        keys = self.graph.stream_keys
        shown_writes = (w for w in result.writes if w[0] in keys or (is_call and w[0] == RETURN))
        return {
            "id": result.task.id,
            "name": result.task.node,
            "error": result.error,
            "result": fold_writes(shown_writes),
            "interrupts": [dataclasses.asdict(interrupt) for interrupt in result.interrupts],
        }


class Messages(Emitter):
    """Chat-model messages: streamed tokens reach the listener while a task runs;
    the messages a task returned that no model streamed follow when it finishes."""

    def planned(self, plan: Plan) -> Chunks:
        for task in plan.tasks:  # what a task is given is not streamed back
            node = self.graph.nodes.get(task.node)
            if node is not None and not node.hidden:
                self.messages_sink.saw(task.input)
        return ()

    def called(self, task: Task) -> Chunks:
        """A task started while its step runs: the messages it is given are not sent."""
        if task.kind == "call":  # (its input: the call's arguments)
            args, kwargs = task.input
            self.messages_sink.saw_values([*args, *kwargs.values()])
        return ()

    def finished(self, result: TaskResult) -> Chunks:
        called = result.task.kind == "call"  # (a functional-API task: no node of the graph)
        node = None if called else self.graph.nodes.get(result.task.node)
        if not result.ok or result.cached or result.routed_up or (node is None and not called):
            return ()
        if node is not None and node.hidden:
            return ()
        config = task_config(self.stepper.context, result.task, node)
        metadata = {"ls_integration": "langgraph", **config["metadata"]}
        chunks = self.messages_sink.node_output(result.writes, metadata)
        return [("messages", chunk) for chunk in chunks]


@dataclasses.dataclass(frozen=True)
class Paused:
    """A root run a task paused (by an interrupt, or by a subgraph stopped at its
    breakpoint): the step's ``finished`` results, and the ``state`` with their writes
    applied (what LangGraph shows as the run's last values)."""

    finished: list[TaskResult]
    state: phases.StepState

    @classmethod
    def of(cls, stepper: Stepper) -> Paused | None:
        """As LangGraph does whatever is streamed: applying the writes fails, and so the
        run, as that step's Update would. None if no task paused the run, if it is a
        subgraph's (LangGraph shows nothing), or if no finished task wrote anything."""
        execution = stepper.execution  # (None: paused at a breakpoint, before or after)
        if stepper.status != "interrupted" or execution is None or stepper.namespace:
            return None
        finished = [result for result in execution.results if result.ok and result.writes]
        if not finished:
            return None
        return cls(finished, stepper.state_after(finished))

    def output(self, keys: tuple[str, ...]) -> Any:
        """The values of ``keys`` the paused run ends with (a single-value state: the value)."""
        return shown(keys, self.state.read(keys))


def _is_input_step(plan: Plan) -> bool:
    """The input step writes the input; LangGraph streams no values or checkpoint for it."""
    return bool(plan.tasks) and plan.tasks[0].kind == "input"


_ALWAYS_HELD = (LastValue, BinaryOperatorAggregate, AnyValue, UntrackedValue)
"""Channels that hold a value once written."""

_KINDS: list[tuple[type[Emitter], set[str]]] = [  # in the order LangGraph interleaves chunks
    (Messages, {"messages"}),
    (Updates, {"updates"}),
    (Values, {"values"}),
    (Checkpoints, {"checkpoints", "debug"}),
    (Tasks, {"tasks", "debug"}),
]


def emitters_for(
    app: Any, stepper: Stepper, modes: set[str], keys: tuple[str, ...], messages_sink: Any
) -> list[Emitter]:
    """The emitters ``modes`` need, in the order LangGraph interleaves their chunks."""
    wanted_kinds = [kind for kind, wanted in _KINDS if wanted & modes]
    return [kind(app, stepper, modes, keys, messages_sink) for kind in wanted_kinds]
