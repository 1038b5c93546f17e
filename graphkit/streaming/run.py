"""Streaming a run: ``StreamRun`` prepares it as ``stream``/``invoke`` were asked and
``chunks`` drives the stepper to the end, handing each phase to the emitters
(``graphkit.streaming.parts`` shapes them for ``version="v2"`` and collects what
``invoke`` returns). What it was asked is checked in ``options``, where it starts and
the config it inherits there are ``placement``'s, the chunks running tasks send wait in
``listener``'s ``Listener``, and ``one_key`` reads chunks through one key named alone."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from graphkit.diagnostics import run as diagnose
from graphkit.errors import GraphDrained, GraphInterrupt, GraphRecursionError, warn
from graphkit.pregel.config import RunConfig, coerce_context
from graphkit.pregel.runtime import RunControl, Runtime, ServerInfo, outside_tasks
from graphkit.pregel.step_work import stops_the_step
from graphkit.pregel.stepper import Stepper
from graphkit.pregel.tracing import open_trace
from graphkit.streaming.aio import current_async_run
from graphkit.streaming.emitters import EVENTS, CallUpdate, Paused, emitters_for
from graphkit.streaming.listener import Item, Listener, _drain
from graphkit.streaming.messages import without_content_events
from graphkit.streaming.one_key import _one_checkpoint, _one_update, _one_value
from graphkit.streaming.options import (
    RUN_KEYWORDS,
    _known_keys,
    _print_modes,
    _resolve_deprecated,
    checked_modes,
)
from graphkit.streaming.parts import Collector, Parts, checked_version
from graphkit.streaming.placement import _placed

if TYPE_CHECKING:
    from graphkit.pregel.app import CompiledGraph
    from graphkit.pregel.records import TaskResult

__all__ = ["Collector", "Listener", "StreamRun", "open_stream"]


class StreamRun:
    """``app``'s run of ``input``, prepared as ``stream(input, config, **kwargs)`` was
    asked (see its docs); the remaining kwargs are run options (breakpoints, ...)."""

    __slots__ = (
        "async_run",
        "emitters",
        "listener",
        "modes",
        "one_key",
        "parent_listener",
        "parts",
        "print_modes",
        "single",
        "stepper",
        "stream_key",
        "subgraphs",
        "withheld",
    )

    def __init__(self, app: CompiledGraph, input: Any, config: Any, **kwargs: Any) -> None:
        _resolve_deprecated(kwargs)
        version = checked_version(kwargs.pop("version", None))
        self.parts = Parts.of(app) if version == "v2" else None
        asked = kwargs.pop("stream_mode", None)  # (an empty list asks for nothing)
        self.modes, self.single = checked_modes(app.stream_mode if asked is None else asked)
        self.print_modes = _print_modes(app, kwargs)
        output_keys = kwargs.pop("output_keys", None)
        # one key named alone (output_keys="x"): values chunks are its value, as in LangGraph
        self.one_key = output_keys if isinstance(output_keys, str) else None
        # one stream channel named alone (a Pregel's, StateGraph(int)'s): checkpoints show its value
        alone = getattr(app, "stream_channels", None)
        self.stream_key = alone if isinstance(alone, str) else None
        named = (output_keys,) if self.one_key is not None else output_keys
        keys = app.spec.stream_keys if named is None else _known_keys(app, named)
        self.subgraphs = kwargs.pop("subgraphs", False)
        self.withheld: tuple[str, ...] = ()
        parent, config, own_thread_given = _placed(config)
        # the listener of the task running this graph as a subgraph, if it wants chunks
        self.parent_listener = parent.run.options.listener if parent is not None else None
        parent_modes = self.parent_listener.modes if self.parent_listener is not None else ()
        # what this run makes: its own modes, those its parent forwards, those printed
        produced_modes = set(self.modes).union(parent_modes, self.print_modes)
        # a subgraph's chunks come up when the caller (streamed or printed) or a parent asks
        forwarded_modes = (*parent_modes, *(_asked(self) if self.subgraphs else ()))
        # modes whose chunks are handed on while tasks run, not after them
        live_modes = {"custom", "messages"} & produced_modes
        if getattr(app, "calls_tasks", False):  # a called task's chunks come as it runs
            live_modes = live_modes or {"updates", "tasks", "debug"} & produced_modes
        # subgraphs' chunks, forwarded to this stream, are handed on as they come too
        wake = threading.Event() if live_modes or forwarded_modes else None
        self.listener = listener = Listener(tuple(dict.fromkeys(forwarded_modes)), wake)
        own_thread = app.checkpointer is True
        namespace = parent.subgraph_namespace(own_thread) if parent is not None else ()
        writer = listener.sender(namespace, "custom") if "custom" in produced_modes else None
        runtime = _runtime(app, kwargs, writer, parent, config)
        if "messages" in produced_modes:
            config = self._take_messages(listener, namespace, config)
        self.async_run = async_run = current_async_run()  # (None: a sync run)
        # where async nodes run: the loop ainvoke/astream name, not any async run's (a sync
        # node's .invoke is a sync run, as LangGraph's; a subgraph node's: ``_lent_loop``)
        loop = kwargs.pop("loop", None)
        if unknown := sorted(set(kwargs) - RUN_KEYWORDS):
            raise TypeError(diagnose.unknown_run_options(unknown))
        # only a run inside a recorded task keeps supersteps (for its subruns): unread otherwise
        record = parent is not None and parent.run.options.record
        trace = open_trace(config, input, app, async_run, parent, output_keys)
        options = app.run_options(
            runtime=runtime, listener=listener, loop=loop, record=record, trace=trace, **kwargs
        )
        with outside_tasks() if own_thread_given else contextlib.nullcontext():
            self.stepper = stepper = _stepper(app, input, config, options)
        self.emitters = emitters_for(app, stepper, produced_modes, keys, listener.messages_sink)
        # the config's graph handlers (on_resume, on_interrupt) hear the run as emitters do
        if (lifecycle := open_lifecycle(config, trace, stepper, async_run)) is not None:
            self.emitters.append(lifecycle)
        # a task started while its step runs ("tasks"/"debug": a start chunk; "messages":
        # the messages it is given are not streamed back)
        if starting := [emitter for emitter in self.emitters if hasattr(emitter, "called")]:
            listener.call_started = _starts(starting, listener, self.stepper.namespace)

    def chunks(self) -> Iterator[Any]:
        """Run to the end, yielding chunks as ``stream`` documents them."""
        own, parent_listener = self.stepper.namespace, self.parent_listener
        modes, single, subgraphs, parts = self.modes, self.single, self.subgraphs, self.parts
        print_modes, one_key = self.print_modes, self.one_key
        stream_key, trace = self.stream_key, self.stepper.options.trace
        # a sync run inside an async node holds up the loop: no saver call may wait on it
        held_up = self.async_run if self.async_run and self.async_run.on_its_loop() else None
        if held_up is not None:
            held_up.held_up += 1
        try:
            for shown_ns, mode, chunk in self._drive():
                # the run's own chunk (a called task's shows its caller's namespace)
                ours = shown_ns == own or getattr(shown_ns, "run", None) == own
                namespace = tuple(shown_ns)  # (a CallNamespace is the runtime's, not the user's)
                if one_key is not None and mode == "values" and namespace == own:
                    chunk = _one_value(chunk, one_key)
                elif one_key is not None and mode == "updates" and namespace == own:
                    chunk = _one_update(chunk, one_key)
                elif (
                    stream_key is not None and mode in ("checkpoints", "debug") and namespace == own
                ):
                    chunk = _one_checkpoint(chunk, mode, stream_key)
                if type(chunk) is CallUpdate:  # a plain dict for the user
                    chunk = dict(chunk)
                # (custom chunks go to the nearest stream asking for them, as in LangGraph)
                if (
                    parent_listener is not None
                    and mode in parent_listener.modes
                    and (mode != "custom" or "custom" not in modes)
                    and mode not in self.withheld
                ):
                    parent_listener.send((namespace, mode, chunk))
                if mode in print_modes and (ours or subgraphs):
                    _print_chunk(mode, chunk, () if ours else namespace)
                if mode not in modes or not (subgraphs or ours):
                    continue
                if parts is not None:
                    yield parts.part(namespace, mode, chunk)
                elif subgraphs:
                    yield (namespace, chunk) if single else (namespace, mode, chunk)
                else:
                    yield chunk if single else (mode, chunk)
        except GeneratorExit:  # the caller stopped reading: keep what "exit" held back
            self.stepper.abandon()
            if trace is not None:
                trace.fail(GeneratorExit())
            raise
        except BaseException as error:
            # (escaped the step, as a KeyboardInterrupt from a lone task: keep what
            # durability="exit" held back, as LangGraph's loop does on its way out)
            self.stepper.abandon()
            if trace is not None:
                trace.fail(error)
            raise
        finally:
            if held_up is not None:
                held_up.held_up -= 1
        if trace is not None:  # (as in LangGraph: the output invoke would return)
            trace.end(Paused.of(self.stepper) or self.stepper)

    def _drive(self) -> Iterator[Item]:
        """The one loop: step phase by phase; after each, every emitter says what it means.
        LangGraph runs a step's one task inline and streams what it said once the next
        step is planned (not if that Update or Plan fails): its chunks are ``held``. When
        tasks run on the pool instead (not ``_inline``), each is heard as it finishes; a
        subgraph run whose chunks go up puts them straight into its parent's stream."""
        stepper, queue, tell = self.stepper, self.listener.queue, self._teller()
        inline, held = self._inline(), []
        heard: set[str] = set()  # the called tasks whose results were streamed
        yield from tell("started")
        while not stepper.done:
            if self.async_run is not None and self.async_run.cancelled:  # no further step
                raise asyncio.CancelledError()
            try:  # (held chunks are not said if planning fails, as in LangGraph)
                plan = stepper.plan()
            except GraphRecursionError:  # LangGraph gives the last values and checkpoint
                yield from held
                yield from tell("planned", stepper.upcoming_plan())
                raise
            if held:
                yield from held
                held = []
            yield from tell("planned", plan)
            if stepper.done:
                break
            # not_run: results reused or cached (they come first); failed: as in LangGraph,
            # a step a task failed streams nothing more
            results: list[TaskResult] = []
            not_run, failed = 0, False
            for result in stepper.iter_execute():
                if failed:  # (the other tasks end, and are saved, unheard)
                    queue.clear()
                    continue
                # chunks running tasks sent (before a called task finished, when it did)
                if queue or (result is not None and result.task.kind == "call"):
                    yield from _drain(queue, result, heard)
                if result is None:  # (only chunks were waiting)
                    continue
                results.append(result)
                chunks = tell("finished", result)
                if result.reused or result.cached:
                    not_run += 1
                elif held:  # another task started: the first was heard as it finished
                    yield from held
                    held = []
                elif inline and len(results) == len(plan.tasks) == not_run + 1 and result.ok:
                    held, chunks = chunks, []
                yield from chunks
                failed = result.error is not None and stops_the_step(result)
            if stepper.done:  # a task paused the run: no Update
                yield from held
                break
            stepper.update()  # (if it raises, what was held is never streamed)
            held = [*held, *tell("updated", results)]
        yield from held
        # a paused run's last values (applying them raises as that Update would, as in
        # LangGraph), before a breakpoint's updates chunk
        yield from tell("flushed", Paused.of(stepper))
        yield from tell("ended")
        _raise_if_stopped(stepper)

    def _take_messages(self, listener: Listener, namespace: tuple[str, ...], config: Any) -> Any:
        """Stream the chat messages of this run's tasks to ``listener``; ``config`` as the
        run goes on with it (without a v3 run's handlers, for a stream asking for
        "messages" the old way inside one: ``_messages_the_old_way``)."""
        if self._messages_the_old_way():
            self.withheld = ("messages",)  # (not handed to the parent run either)
            listener.take_messages(namespace, None, content_events=False)
            return without_content_events(config)
        listener.take_messages(namespace, self.parent_listener, _v3(config, self.parts))
        return config

    def _messages_the_old_way(self) -> bool:
        """Whether this run, inside a v3 run's task, streams its chat messages to its caller
        as tokens (a v1 ``stream`` asking for "messages" itself), not as the v3 run's
        content events; as in LangGraph, those messages then do not reach the v3 run."""
        parent = self.parent_listener
        sink = parent.messages_sink if parent is not None else None
        in_v3 = sink is not None and sink.content_events
        return in_v3 and self.parts is None and "messages" in self.modes

    def _inline(self) -> bool:
        """Whether a step's one task runs inline (see ``_drive``)."""
        timed = self.stepper.options.step_timeout is not None
        parent = self.parent_listener
        streamed_up = parent is not None and bool(parent.modes)
        return not (timed or self.listener.wake is not None or self.subgraphs or streamed_up)

    def _teller(self) -> Callable[..., list[Item]]:
        """``tell(event, *args)``: what every emitter that speaks at ``event`` says."""
        namespace = self.stepper.namespace
        hooks: dict[str, list[Any]] = {event: [] for event in EVENTS}
        for emitter in self.emitters:  # per event, the emitters that say something at it
            for event in _events_of(type(emitter)):
                hooks[event].append(getattr(emitter, event))

        def tell(event: str, *args: Any) -> list[Item]:
            chunks = []
            for hook in hooks[event]:
                for mode, chunk in hook(*args):
                    chunks.append((namespace, mode, chunk))
            return chunks

        return tell


def open_lifecycle(config: Any, trace: Any, stepper: Stepper, async_run: Any) -> Any:
    """The graph lifecycle handlers (``graphkit.callbacks``) of ``stepper``'s run,
    configured with ``config``; None without any. A run without callbacks has no
    ``trace`` either, and imports nothing."""
    if trace is None:
        return None
    from graphkit.callbacks import run_lifecycle

    return run_lifecycle(config, trace.run.run_id, stepper, async_run)


def _v3(config: Any, parts: Any) -> bool:
    """Whether a v2 stream is a v3 run's (``graphkit.stream`` marks its config), which
    asks for chat-model messages as content-block events."""
    from graphkit.constants import PROTOCOL_MESSAGES_KEY

    configurable = (config or {}).get("configurable") or {}
    return parts is not None and bool(configurable.get(PROTOCOL_MESSAGES_KEY))


def _stepper(app: Any, input: Any, config: Any, options: Any) -> Stepper:
    """The run's stepper; a traced run whose input is refused ends with that error. A
    ``durability`` given to a run that saves nothing is warned of, as LangGraph does."""
    try:
        stepper = Stepper(app.spec, input, RunConfig.from_dict(config), options)
    except BaseException as error:
        if options.trace is not None:
            options.trace.fail(error)
        raise
    if options.durability is not None and stepper.thread is None:
        warn(diagnose.durability_without_checkpointer(options.durability), UserWarning)
    return stepper


def _runtime(app: Any, kwargs: dict[str, Any], writer: Any, parent: Any, config: Any) -> Runtime:
    """What the run's nodes see as ``runtime``, from the run's ``context`` and ``control``
    (taken out of ``kwargs``) and the ``ServerInfo`` its config names. A graph run inside
    a node gets its caller's context when given none, and its caller's ``RunControl`` (it
    drains with it, as in LangGraph), else a new one; it uses its caller's store (none if
    the caller has none), whatever it was compiled with, as in LangGraph."""
    context = coerce_context(app.context_schema, kwargs.pop("context", None))
    if context is None and parent is not None:
        context = parent.run.runtime.context
    control = kwargs.pop("control", None)
    if control is None and parent is not None:
        control = parent.run.runtime.control
    control = control or RunControl()
    store = parent.run.runtime.store if parent is not None else app.store
    given = config is not None and isinstance(config, (dict, Mapping))  # (see RunConfig)
    server = ServerInfo.from_config(config) if given else None
    if writer is None:
        return Runtime(context, store, control=control, server_info=server)
    return Runtime(context, store, writer, control=control, server_info=server)


def _raise_if_stopped(stepper: Stepper) -> None:
    """A paused subgraph pauses the task that runs it, and so the parent run; a run asked
    to drain raises ``GraphDrained`` once it stopped at a step boundary. Else a run one of
    whose saves failed raises that error now that it is over, as LangGraph raises its
    background saves' first failure (a run that failed raises its own)."""
    if stepper.status == "interrupted" and stepper.namespace:
        raise GraphInterrupt(stepper.interrupts)
    if stepper.status == "drained":
        raise GraphDrained(stepper.drain_reason or "shutdown")
    if stepper.save_error is not None:
        raise stepper.save_error


@functools.cache
def _events_of(kind: type) -> tuple[str, ...]:
    return tuple(event for event in EVENTS if hasattr(kind, event))


def open_stream(app: CompiledGraph, input: Any, config: Any, **kwargs: Any) -> StreamRun:
    """``StreamRun(app, input, config, **kwargs)``."""
    return StreamRun(app, input, config, **kwargs)


def _starts(
    emitters: list[Any], listener: Listener, namespace: tuple[str, ...]
) -> Callable[[Any], None]:
    """What the listener does when a task starts while a step runs: queue its chunks."""

    def started(task: Any) -> None:
        for emitter in emitters:
            for mode, chunk in emitter.called(task):
                listener.send((namespace, mode, chunk))

    return started


def _asked(run: StreamRun) -> tuple[str, ...]:
    """The modes a run with ``subgraphs=True`` hears from its subgraphs: those streamed
    and those printed (LangGraph prints a subgraph's chunks too)."""
    return (*run.modes, *run.print_modes)


def _print_chunk(mode: str, chunk: Any, namespace: tuple[str, ...]) -> None:
    """Print a chunk as LangGraph's ``print_mode`` does: its mode in bold, a subgraph's
    namespace in yellow, then the chunk's ``repr``."""
    graph = f" \x1b[1;30;33m[graph={namespace}]\x1b[0m" if namespace else ""
    print(f"\x1b[1m[{mode}]\x1b[0m{graph} {chunk!r}")
