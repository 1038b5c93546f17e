"""Driving a run to the end and turning it into LangGraph's stream chunks.

``open_stream`` prepares a run the way ``stream``/``invoke`` were asked to (stream
modes, printing, what a parent graph wants forwarded); ``StreamRun.chunks`` runs it;
``drive`` is the one loop underneath: it advances the ``Stepper`` phase by phase and
says, between phases, which chunks each stream mode gets.
"""

from __future__ import annotations

import functools
import threading
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graphkit.errors import GraphInterrupt, GraphRecursionError
from graphkit.pregel.config import RunConfig
from graphkit.pregel.persistence import INTERRUPT
from graphkit.pregel.records import TaskResult
from graphkit.pregel.runtime import Forward, Runtime, current_scope
from graphkit.pregel.spec import GraphSpec
from graphkit.pregel.stepper import Stepper
from graphkit.pregel.stream import (
    STREAM_MODES,
    debug_event,
    task_payload,
    task_result_payload,
    update_chunk,
    wrote_any,
)

if TYPE_CHECKING:
    from graphkit.pregel.app import CompiledGraph

__all__ = ["StreamRun", "drive", "open_stream"]


@dataclass(slots=True)
class StreamRun:
    """A run prepared for streaming: its stepper, and what to do with each chunk."""

    stepper: Stepper
    streams: _TaskStreams
    keys: tuple[str, ...]
    modes: tuple[str, ...]
    single: bool
    needed: set[str]
    printed: tuple[str, ...]
    subgraphs: bool
    up: Forward | None
    """Where a parent graph wants this run's chunks forwarded (None at the root)."""
    up_modes: tuple[str, ...]

    def chunks(self) -> Iterator[Any]:
        """Run to the end, yielding the chunks the caller asked for, in LangGraph's
        shapes (``chunk``, ``(mode, chunk)``, or prefixed by the namespace)."""
        stepper, modes, single = self.stepper, self.modes, self.single
        raw = drive(stepper, self.needed, self.keys, self.streams)
        if self.up is None and not self.printed and not self.subgraphs:
            # nothing to forward, print or filter: this run's chunks of the modes asked
            for _, mode, chunk in raw:
                yield chunk if single else (mode, chunk)
            return
        up, up_modes, printed, subgraphs = self.up, self.up_modes, self.printed, self.subgraphs
        for namespace, mode, chunk in raw:
            if up is not None and mode in up_modes:
                up((namespace, mode, chunk))
            if mode in printed and namespace == stepper.namespace:
                print(f"\x1b[1m[{mode}]\x1b[0m {chunk}")
            if mode not in modes or (namespace != stepper.namespace and not subgraphs):
                continue
            if subgraphs:
                yield (namespace, chunk) if single else (namespace, mode, chunk)
            else:
                yield chunk if single else (mode, chunk)


def open_stream(
    app: CompiledGraph,
    input: Any,
    config: Mapping[str, Any] | None,
    *,
    context: Any = None,
    stream_mode: str | Sequence[str] | None = None,
    output_keys: Sequence[str] | None = None,
    subgraphs: bool = False,
    print_mode: str | Sequence[str] = (),
    **options: Any,
) -> StreamRun:
    """Prepare ``app``'s run of ``input`` as ``stream`` was asked to (see its docs);
    ``options`` are the remaining run options (checkpointer breakpoints, executor...)."""
    if options:
        _refuse_later_options(options)
    modes, single = _stream_modes(stream_mode or app.stream_mode)
    printed: tuple[str, ...] = ()
    if print_mode or app.debug:
        printed, _ = _stream_modes(print_mode or ("updates", "values"))
    keys = tuple(output_keys) if output_keys is not None else app.spec.stream_keys
    parent = current_scope()
    # A subgraph whose parent streams with subgraphs=True sends its chunks up too.
    up = parent.run.forward if parent is not None else None
    up_modes = parent.run.stream_modes if up is not None else ()
    down_modes = (
        tuple(dict.fromkeys((*up_modes, *(modes if subgraphs else ()))))
        if up_modes or subgraphs
        else ()
    )
    nested: deque[tuple[tuple[str, ...], str, Any]] = deque()
    custom: deque[Any] = deque()
    needed = set(modes).union(up_modes, printed) if up_modes or printed else set(modes)
    if context is None and parent is not None:
        context = parent.run.runtime.context
    # chunks that running tasks send are let through while they run ("live")
    live = threading.Event() if "custom" in needed or "messages" in needed else None
    sink = None
    if "messages" in needed:
        from graphkit.pregel.messages import MessagesSink

        sink = MessagesSink(live)  # type: ignore[arg-type]
    if "custom" in needed:

        def write_custom(chunk: Any) -> None:
            custom.append(chunk)
            if live is not None:
                live.set()

        runtime = Runtime(context, app.store, write_custom)
    else:
        runtime = Runtime(context, app.store)
    run_options = app._options(
        runtime=runtime,
        forward=nested.append if down_modes else None,
        stream_modes=down_modes,
        live=live,
        callbacks=(sink.handler,) if sink is not None else (),
        **options,
    )
    stepper = Stepper(app.spec, input, RunConfig.from_dict(config), run_options)
    return StreamRun(
        stepper,
        _TaskStreams(custom, nested, sink),
        keys,
        modes,
        single,
        needed,
        printed,
        subgraphs,
        up,
        up_modes,
    )


def drive(
    stepper: Stepper,
    modes: set[str],
    keys: tuple[str, ...],
    streams: _TaskStreams,
) -> Iterator[tuple[tuple[str, ...], str, Any]]:
    """Drive the stepper to the end; yield ``(namespace, mode, chunk)`` for every
    chunk of ``modes``, this run's and its subgraphs'."""
    spec = stepper.graph
    here = stepper.namespace
    # As in LangGraph, a step's values chunk is delivered once the next step has
    # been planned: if planning fails (e.g. a node's input does not validate), the
    # error is raised and that chunk is not delivered.
    pending_values = None
    if stepper.resumed and "values" in modes:  # LangGraph shows the state it resumes from
        yield here, "values", stepper.output(keys)
    wants_checkpoints = bool({"checkpoints", "debug"} & modes)
    wants_tasks = bool({"tasks", "debug"} & modes)
    wants_updates, wants_values = "updates" in modes, "values" in modes
    # (stepper.status != "running" is stepper.done, read without a property call: this
    # loop runs a few times per superstep)
    while stepper.status == "running":
        try:
            plan = stepper.plan()
        except GraphRecursionError:
            if pending_values is not None:  # LangGraph delivers it before raising
                yield pending_values
            raise
        if pending_values is not None:
            yield pending_values
            pending_values = None
        is_input = plan.tasks and plan.tasks[0].kind == "input"
        if wants_checkpoints and not is_input:
            yield from _checkpoint_chunks(here, modes, stepper.checkpoint_payload(plan))
        if stepper.status != "running":
            break
        for task in plan.tasks if wants_tasks else ():
            if (payload := task_payload(spec, task, stepper.config.raw)) is not None:
                if "tasks" in modes:
                    yield here, "tasks", payload
                if "debug" in modes:
                    yield here, "debug", debug_event(plan.step, "task", payload)
        if streams.sink is not None:
            for task in plan.tasks:
                streams.sink.saw(_values_of(task.input))
        results = []
        for result in stepper.iter_execute():
            if streams.nested or streams.custom or streams.sink is not None:
                yield from streams.drain(here)
            if result is None:  # only chunks were waiting
                continue
            results.append(result)
            if streams.sink is not None and result.ok and _shows_messages(spec, result):
                metadata = {"ls_integration": "langgraph", **stepper.task_metadata(result.task)}
                streams.sink.node_output(result.writes, metadata)
                yield from streams.drain(here)
            if result.interrupts and wants_updates:
                yield here, "updates", {INTERRUPT: result.interrupts}
            if result.interrupts and wants_values:  # LangGraph 1.2 shows them too
                yield here, "values", {**stepper.output(keys), INTERRUPT: result.interrupts}
            if wants_updates and (chunk := update_chunk(spec, result)):
                yield here, "updates", chunk
            if wants_tasks and (payload := task_result_payload(spec, result)):
                if "tasks" in modes:
                    yield here, "tasks", payload
                if "debug" in modes:
                    yield here, "debug", debug_event(plan.step, "task_result", payload)
        if stepper.status != "running":  # a task paused the run: no Update
            break
        stepper.update()
        if wants_values and not is_input and wrote_any(results, keys):
            pending_values = (here, "values", stepper.output(keys))
    if pending_values is not None:  # stopped at a breakpoint after this step
        yield pending_values
    # as LangGraph: the state with the paused step's finished tasks applied
    if (
        stepper.interrupts
        and "values" in modes
        and (values := stepper.output_with_finished_tasks(keys))
    ):
        yield here, "values", values
    if stepper.status == "interrupted" and not stepper.interrupts and "updates" in modes:
        yield here, "updates", {INTERRUPT: ()}  # a breakpoint, as LangGraph reports it
    if stepper.status == "interrupted" and stepper.namespace:
        # a paused subgraph pauses the task that runs it, and so the parent run
        raise GraphInterrupt(stepper.interrupts)


def _shows_messages(spec: GraphSpec, result: TaskResult) -> bool:
    node = spec.nodes.get(result.task.node)
    return node is not None and not node.hidden


class _TaskStreams:
    """What running tasks send besides their results: custom chunks, chat-model
    messages, and the chunks of subgraphs they run."""

    def __init__(
        self,
        custom: deque[Any],
        nested: deque[tuple[tuple[str, ...], str, Any]],
        sink: Any,
    ) -> None:
        self.custom, self.nested, self.sink = custom, nested, sink

    def drain(self, here: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], str, Any]]:
        while self.nested:
            yield self.nested.popleft()
        while self.custom:
            yield here, "custom", self.custom.popleft()
        while self.sink is not None and self.sink.chunks:
            yield here, "messages", self.sink.chunks.popleft()


def _values_of(value: Any) -> list[Any]:
    return list(value.values()) if isinstance(value, dict) else [value]


def _checkpoint_chunks(
    here: tuple[str, ...], modes: set[str], payload: dict[str, Any] | None
) -> Iterator[tuple[tuple[str, ...], str, Any]]:
    if payload is None:
        return
    if "checkpoints" in modes:
        yield here, "checkpoints", payload
    if "debug" in modes:
        yield here, "debug", debug_event(payload["metadata"].get("step", -1), "checkpoint", payload)


LATER_OPTIONS = ("checkpoint_during",)


def _refuse_later_options(kwargs: dict[str, Any]) -> None:
    for option in LATER_OPTIONS:
        value = kwargs.pop(option, None)
        if value:
            raise NotImplementedError(f"{option}=... is not supported by graphkit yet.")


def _stream_modes(stream_mode: str | Sequence[str]) -> tuple[tuple[str, ...], bool]:
    return _checked_modes(stream_mode if isinstance(stream_mode, str) else tuple(stream_mode))


@functools.lru_cache(maxsize=64)
def _checked_modes(stream_mode: str | tuple[str, ...]) -> tuple[tuple[str, ...], bool]:
    single = isinstance(stream_mode, str)
    modes = (stream_mode,) if isinstance(stream_mode, str) else stream_mode
    for mode in modes:
        if mode not in STREAM_MODES:
            raise ValueError(
                f"Unknown stream_mode {mode!r}; use one of {list(STREAM_MODES)} or a list of them."
            )
    return modes, single
