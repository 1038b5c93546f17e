"""CompiledGraph: the runnable graph, with LangGraph's invoke/stream interface built
on the stepper (one loop, run to the end)."""

from __future__ import annotations

import functools
import threading
from collections import deque
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from concurrent.futures import Executor
from typing import Any

from graphkit.errors import GraphInterrupt, GraphRecursionError
from graphkit.pregel.config import RunConfig
from graphkit.pregel.persistence import INTERRUPT
from graphkit.pregel.records import Run, TaskResult
from graphkit.pregel.runtime import Runtime, current_scope
from graphkit.pregel.spec import GraphSpec
from graphkit.pregel.stepper import RunOptions, Stepper
from graphkit.pregel.stream import (
    STREAM_MODES,
    debug_event,
    task_payload,
    task_result_payload,
    update_chunk,
    wrote_any,
)

__all__ = ["CompiledGraph"]


class CompiledGraph:
    """A graph ready to run. Build one with ``StateGraph(...).compile()``.

    >>> from typing import TypedDict
    >>> from graphkit import StateGraph, START
    >>> class State(TypedDict):
    ...     text: str
    >>> builder = StateGraph(State)
    >>> _ = builder.add_node("shout", lambda state: {"text": state["text"].upper()})
    >>> _ = builder.add_edge(START, "shout")
    >>> app = builder.compile()
    >>> app.invoke({"text": "hi"})
    {'text': 'HI'}
    >>> list(app.stream({"text": "hi"}))
    [{'shout': {'text': 'HI'}}]
    >>> [superstep.plan.nodes for superstep in app.trace({"text": "hi"}).steps]
    [['__input__'], ['__start__'], ['shout']]
    """

    def __init__(
        self,
        spec: GraphSpec,
        *,
        builder: Any = None,
        name: str = "LangGraph",
        executor: Executor | None = None,
        store: Any = None,
        debug: bool = False,
        checkpointer: Any = None,
        interrupt_before: Sequence[str] | str = (),
        interrupt_after: Sequence[str] | str = (),
    ) -> None:
        self.spec = spec
        self.checkpointer = checkpointer
        self.interrupt_before = interrupt_before
        self.interrupt_after = interrupt_after
        self.debug = debug
        self.builder = builder
        self.name = name
        self.executor = executor
        self.store = store
        self.stream_mode = "updates"

    # -- stepping ---------------------------------------------------------------------

    def stepper(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        context: Any = None,
        record: bool = True,
        executor: Executor | None = None,
        interrupt_before: Sequence[str] | str | None = None,
        interrupt_after: Sequence[str] | str | None = None,
        durability: str | None = None,
    ) -> Stepper:
        """Start a run you advance phase by phase (see ``Stepper``). ``context`` is
        what nodes see as ``runtime.context``; with a checkpointer, ``config`` names the
        thread, ``input=None`` or ``Command(resume=...)`` resumes it."""
        options = self._options(
            record=record,
            executor=executor,
            interrupt_before=interrupt_before,
            interrupt_after=interrupt_after,
            durability=durability,
            runtime=Runtime(context=context, store=self.store),
        )
        return Stepper(self.spec, input, RunConfig.from_dict(config), options)

    def _options(
        self,
        *,
        executor: Executor | None = None,
        interrupt_before: Sequence[str] | str | None = None,
        interrupt_after: Sequence[str] | str | None = None,
        **options: Any,
    ) -> RunOptions:
        """A run's options, with this graph's compile-time defaults filled in."""
        return RunOptions(
            executor=executor or self.executor,
            checkpointer=self.checkpointer,
            # as LangGraph: an empty per-call list keeps the compiled breakpoints
            interrupt_before=interrupt_before or self.interrupt_before,
            interrupt_after=interrupt_after or self.interrupt_after,
            **options,
        )

    def trace(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Run:
        """Run to completion and return the recorded ``Run``.

        If a node fails or the recursion limit is hit, the error is raised; the
        partial run is attached to it as ``error.run``.
        """
        stepper = self.stepper(input, config, **kwargs)
        try:
            return stepper.run()
        except Exception as error:
            error.run = stepper.run_so_far  # type: ignore[attr-defined]
            raise

    # -- LangGraph's interface ------------------------------------------------------------

    def invoke(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        stream_mode: str = "values",
        output_keys: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> Any:
        """Run to the end; return the final output (``stream_mode="values"``) or the
        list of chunks of another stream mode, as LangGraph does."""
        keys = tuple(output_keys) if output_keys is not None else self.spec.output_keys
        latest: Any = None
        interrupts: list[Any] = []
        chunks = []
        for chunk in self.stream(
            input, config, stream_mode=stream_mode, output_keys=keys, **kwargs
        ):
            if stream_mode != "values":
                chunks.append(chunk)
            elif isinstance(chunk, dict) and INTERRUPT in chunk:  # a task paused the run
                interrupts.extend(chunk[INTERRUPT])
                latest = {k: v for k, v in chunk.items() if k != INTERRUPT}
            else:
                latest = chunk
        if stream_mode != "values":
            return chunks
        if interrupts:  # as LangGraph: the state so far, and what the run waits for
            return {**latest, INTERRUPT: interrupts} if isinstance(latest, dict) else latest
        return latest

    def stream(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        context: Any = None,
        stream_mode: str | Sequence[str] | None = None,
        output_keys: Sequence[str] | None = None,
        subgraphs: bool = False,
        print_mode: str | Sequence[str] = (),
        **kwargs: Any,
    ) -> Iterator[Any]:
        """Run to the end, yielding chunks as the run goes.

        ``stream_mode`` is ``"updates"`` (default: ``{node: update}`` per task, as it
        finishes), ``"values"`` (the whole state after each step that wrote it),
        ``"tasks"`` / ``"debug"`` (task start and result payloads, LangGraph's shapes),
        ``"custom"`` (what nodes send with ``get_stream_writer()`` or a ``writer``
        parameter), ``"checkpoints"`` (nothing until a checkpointer is set, as in
        LangGraph), or a list of modes, which yields ``(mode, chunk)`` pairs.
        With ``subgraphs=True`` every chunk is prefixed by the namespace it comes from
        (``()`` for this graph, ``("node:task_id",)`` for a subgraph run by a task).
        ``print_mode`` prints the chunks of those modes as ``[mode] chunk`` (as
        LangGraph does; ``compile(debug=True)`` prints updates and values).
        ``context`` is handed to nodes as ``runtime.context``.
        """
        _refuse_later_options(kwargs)
        modes, single = _stream_modes(stream_mode or self.stream_mode)
        printed, _ = _stream_modes(print_mode or (("updates", "values") if self.debug else ()))
        keys = tuple(output_keys) if output_keys is not None else self.spec.stream_keys
        parent = current_scope()
        # A subgraph whose parent streams with subgraphs=True sends its chunks up too.
        up = parent.run.forward if parent is not None else None
        up_modes = parent.run.stream_modes if up is not None else ()
        down_modes = tuple(dict.fromkeys((*up_modes, *(modes if subgraphs else ()))))
        nested: deque[tuple[tuple[str, ...], str, Any]] = deque()
        custom: deque[Any] = deque()
        needed = set(modes) | set(up_modes) | set(printed)
        if context is None and parent is not None:
            context = parent.run.runtime.context
        # chunks that running tasks send are let through while they run ("live")
        live = threading.Event() if {"custom", "messages"} & needed else None

        def write_custom(chunk: Any) -> None:
            custom.append(chunk)
            if live is not None:
                live.set()

        sink = None
        if "messages" in needed:
            from graphkit.pregel.messages import MessagesSink

            sink = MessagesSink(live)  # type: ignore[arg-type]
        runtime = Runtime(
            context=context,
            store=self.store,
            stream_writer=write_custom if "custom" in needed else Runtime().stream_writer,
        )
        options = self._options(
            runtime=runtime,
            forward=nested.append if down_modes else None,
            stream_modes=down_modes,
            live=live,
            callbacks=(sink.handler,) if sink is not None else (),
            **kwargs,
        )
        stepper = Stepper(self.spec, input, RunConfig.from_dict(config), options)
        streams = _TaskStreams(custom, nested, sink)
        for namespace, mode, chunk in self._chunks(stepper, needed, keys, streams):
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

    def _chunks(
        self,
        stepper: Stepper,
        modes: set[str],
        keys: tuple[str, ...],
        streams: _TaskStreams,
    ) -> Iterator[tuple[tuple[str, ...], str, Any]]:
        """Drive the stepper to the end; yield ``(namespace, mode, chunk)`` for every
        chunk of ``modes``, this run's and its subgraphs'."""
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
        while not stepper.done:
            try:
                plan = stepper.plan()
            except GraphRecursionError:
                if pending_values is not None:  # LangGraph delivers it before raising
                    yield pending_values
                raise
            if pending_values is not None:
                yield pending_values
                pending_values = None
            if wants_checkpoints and not plan_is_input(plan):
                yield from _checkpoint_chunks(here, modes, stepper.checkpoint_payload(plan))
            if stepper.done:
                break
            for task in plan.tasks if wants_tasks else ():
                if (payload := task_payload(self.spec, task, stepper.config.raw)) is not None:
                    if "tasks" in modes:
                        yield here, "tasks", payload
                    if "debug" in modes:
                        yield here, "debug", debug_event(plan.step, "task", payload)
            if streams.sink is not None:
                for task in plan.tasks:
                    streams.sink.saw(_values_of(task.input))
            results = []
            for result in stepper.iter_execute():
                if streams.waiting():
                    yield from streams.drain(here)
                if result is None:  # only chunks were waiting
                    continue
                results.append(result)
                if streams.sink is not None and result.ok and self._shows_messages(result):
                    metadata = {"ls_integration": "langgraph", **stepper.task_metadata(result.task)}
                    streams.sink.node_output(result.writes, metadata)
                    yield from streams.drain(here)
                if result.interrupts and wants_updates:
                    yield here, "updates", {INTERRUPT: result.interrupts}
                if result.interrupts and wants_values:  # LangGraph 1.2 shows them too
                    yield here, "values", {**stepper.output(keys), INTERRUPT: result.interrupts}
                if wants_updates and (chunk := update_chunk(self.spec, result)):
                    yield here, "updates", chunk
                if wants_tasks and (
                    payload := task_result_payload(self.spec, result)
                ):
                    if "tasks" in modes:
                        yield here, "tasks", payload
                    if "debug" in modes:
                        yield here, "debug", debug_event(plan.step, "task_result", payload)
            if stepper.done:  # a task paused the run: no Update
                break
            stepper.update()
            if wants_values and not plan_is_input(plan) and wrote_any(results, keys):
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

    def _shows_messages(self, result: TaskResult) -> bool:
        node = self.spec.nodes.get(result.task.node)
        return node is not None and not node.hidden

    # -- threads: reading and editing saved state ----------------------------------------

    def get_state(self, config: Mapping[str, Any], *, subgraphs: bool = False) -> Any:
        """The thread's state: values, next nodes, pending tasks and interrupts."""
        from graphkit.pregel.state_api import get_state

        return get_state(self, config)

    def get_state_history(
        self,
        config: Mapping[str, Any],
        *,
        filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> Iterator[Any]:
        """The thread's checkpoints as state snapshots, newest first."""
        from graphkit.pregel.state_api import get_state_history

        return get_state_history(self, config, filter=filter, before=before, limit=limit)

    def update_state(
        self, config: Mapping[str, Any], values: Any, as_node: str | None = None
    ) -> dict[str, Any]:
        """Write ``values`` as if ``as_node`` had returned them; returns the new config."""
        from graphkit.pregel.state_api import update_state

        return update_state(self, config, values, as_node)

    async def ainvoke(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        stream_mode: str = "values",
        **kwargs: Any,
    ) -> Any:
        """``invoke`` for async code: async nodes run concurrently on this event loop."""
        latest: Any = None
        chunks = []
        keys = kwargs.pop("output_keys", None) or self.spec.output_keys
        async for chunk in self.astream(
            input, config, stream_mode=stream_mode, output_keys=keys, **kwargs
        ):
            if stream_mode == "values":
                latest = chunk
            else:
                chunks.append(chunk)
        return latest if stream_mode == "values" else chunks

    async def astream(
        self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """``stream`` for async code: the same loop, its chunks handed to this event
        loop; async nodes run concurrently on it."""
        from graphkit.pregel.aio import astream_from

        def start(loop: Any) -> Iterator[Any]:
            return self.stream(input, config, loop=loop, **kwargs)

        async for chunk in astream_from(start):
            yield chunk

    def get_graph(self, xray: bool | int = False) -> Any:
        """The graph as drawn: ``.to_dot()``, ``.draw_mermaid()``, ``.draw_svg()``.
        ``xray=True`` draws subgraph nodes as their own nodes (``xray=n``: n levels)."""
        from graphkit.render import graph_from_builder

        return graph_from_builder(self.builder, name=self.name, xray=xray, only=self.spec.nodes)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        from graphkit.render import mimebundle

        return mimebundle(self, include=include, exclude=exclude)


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

    def waiting(self) -> bool:
        """True when some chunk waits to be drained."""
        return bool(self.nested or self.custom or (self.sink is not None and self.sink.chunks))

    def drain(self, here: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], str, Any]]:
        while self.nested:
            yield self.nested.popleft()
        while self.custom:
            yield here, "custom", self.custom.popleft()
        while self.sink is not None and self.sink.chunks:
            yield here, "messages", self.sink.chunks.popleft()


def _values_of(value: Any) -> list[Any]:
    return list(value.values()) if isinstance(value, dict) else [value]


def plan_is_input(plan: Any) -> bool:
    """True for the input step's plan (it is planned from no saved checkpoint)."""
    return bool(plan.tasks) and plan.tasks[0].kind == "input"


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
