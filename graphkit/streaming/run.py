"""Streaming a run: ``StreamRun`` prepares it as ``stream``/``invoke`` were asked and
``chunks`` drives the stepper to the end, handing each phase to the emitters
(``graphkit.streaming.parts`` shapes them for ``version="v2"`` and collects what
``invoke`` returns)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import sys
import threading
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from graphkit.diagnostics import run as diagnose
from graphkit.errors import (
    GraphDrained,
    GraphInterrupt,
    GraphRecursionError,
    LangGraphDeprecatedSinceV10,
    warn,
)
from graphkit.pregel.config import RunConfig, coerce_context, merged_callbacks, merged_metadata
from graphkit.pregel.runtime import (
    RunControl,
    Runtime,
    ServerInfo,
    current_scope,
    outside_tasks,
    scope_config,
)
from graphkit.pregel.step_work import stops_the_step
from graphkit.pregel.stepper import Stepper
from graphkit.pregel.threads import INTERRUPT
from graphkit.pregel.tracing import open_trace, with_ambient_tracer
from graphkit.streaming.aio import current_async_run
from graphkit.streaming.emitters import EVENTS, STREAM_MODES, CallUpdate, Paused, emitters_for
from graphkit.streaming.messages import without_content_events
from graphkit.streaming.parts import Collector, Parts, checked_version

if TYPE_CHECKING:
    from graphkit.pregel.app import CompiledGraph
    from graphkit.pregel.records import TaskResult

__all__ = ["Collector", "Listener", "StreamRun", "open_stream"]

Item = tuple[tuple[str, ...], str, Any]  # (namespace, mode, chunk)

RUN_KEYWORDS = frozenset({"interrupt_before", "interrupt_after", "durability", "executor"})
"""The run options ``invoke`` / ``stream`` take besides their own named parameters
(``executor`` is graphkit's: where a step's tasks run; ``control``, LangGraph's
``RunControl``, goes into the run's ``Runtime``)."""


class Listener:
    """Where running tasks send chunks while they run: custom chunks, chat-model
    messages, and the chunks of subgraphs they start. ``modes`` are the modes those
    subgraphs forward; ``wake`` (when set) wakes Execute as a chunk comes
    (``StepWork.results``), so that the stream hands it on at once."""

    def __init__(self, modes: tuple[str, ...], wake: threading.Event | None) -> None:
        self.modes, self.wake = modes, wake
        self.queue: deque[Item] = deque()
        self.callbacks: tuple[Any, ...] = ()
        self.messages_sink: Any = None  # the run's MessagesSink, when "messages" is streamed
        self.call_started: Callable[[Any], None] | None = None
        """Told of each task started while a step runs (a called task; an error handler
        on resume)."""

    def send(self, item: Item) -> None:
        self.queue.append(item)
        if self.wake is not None:
            self.wake.set()

    def finished(self, task_id: str) -> None:
        """Mark where, among the chunks sent so far, a called task finished."""
        self.queue.append(((), _FINISHED, task_id))

    def take_messages(
        self, namespace: tuple[str, ...], parent: Listener | None, content_events: bool = False
    ) -> None:
        """Stream the chat-model messages of this run's tasks (from ``namespace``),
        through a sink shared with the ``parent`` run's: one set of message ids seen
        (``content_events``: a v3 run's, see ``graphkit.streaming.messages``)."""
        from graphkit.streaming.messages import MessagesSink

        shared = parent.messages_sink if parent is not None else None
        send = self.sender(namespace, "messages")
        sink = MessagesSink(send, shared, namespace, content_events)
        self.callbacks, self.messages_sink = (sink.handler,), sink

    def sender(self, namespace: tuple[str, ...], mode: str) -> Callable[[Any], None]:
        """A function sending its chunk here, in ``mode``, from ``namespace`` (a custom
        chunk from a called task of this run: see ``CallNamespace``)."""

        def send(chunk: Any) -> None:
            self.send((namespace, mode, chunk))

        def send_custom(chunk: Any) -> None:
            scope = current_scope()
            caller = scope.task.caller_namespace if scope is not None else None
            if caller is not None and scope.run.namespace == namespace:  # type: ignore[union-attr]
                self.send((CallNamespace(caller, namespace), mode, chunk))
            else:
                self.send((namespace, mode, chunk))

        return send_custom if mode == "custom" else send


class CallNamespace(tuple):  # type: ignore[type-arg]
    """The namespace a called task's chunk shows, as in LangGraph: its caller's (so a
    call inside a call shows both). The chunk still belongs to the run the task is part
    of, at namespace ``run``: it is streamed without ``subgraphs=True``."""

    run: tuple[str, ...]

    def __new__(cls, shown: tuple[str, ...], run: tuple[str, ...]) -> CallNamespace:
        namespace = super().__new__(cls, shown)
        namespace.run = run
        return namespace


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
        # a subgraph's chunks come up to this run when the caller or a parent asked for them
        forwarded_modes = (*parent_modes, *(self.modes if self.subgraphs else ()))
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
        # where async nodes run: the async run's loop (or, for a caller driving the
        # stream itself, the loop it names)
        loop = kwargs.pop("loop", None) or (async_run.loop if async_run is not None else None)
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
                if mode in print_modes and ours:
                    print(f"\x1b[1m[{mode}]\x1b[0m {chunk}")
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


def _known_keys(app: Any, keys: Sequence[str]) -> tuple[str, ...]:
    """``output_keys``, each a channel of ``app`` (a ``ValueError`` if not, as in LangGraph)."""
    if keys is app.spec.output_keys:  # (``invoke``'s default: compile made them of channels)
        return keys
    if not isinstance(keys, Iterable):  # (LangGraph's TypeError, "not iterable")
        raise TypeError(diagnose.not_names("output_keys", keys, "['answer']"))
    keys = tuple(keys)
    if unknown := [key for key in keys if key not in app.spec.channels]:
        raise ValueError(diagnose.unknown_output_keys(unknown, app.spec.stream_keys))
    return keys


def _print_modes(app: Any, kwargs: dict[str, Any]) -> tuple[str, ...]:
    """The modes the run prints as it goes: ``print_mode``, else (LangGraph's ``debug``)
    updates and values."""
    debug = kwargs.pop("debug", None)
    debug = app.debug if debug is None else debug
    print_mode = kwargs.pop("print_mode", ()) or (("updates", "values") if debug else ())
    return checked_modes(print_mode)[0] if print_mode else ()


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


def _placed(config: Any) -> tuple[Any, Any, bool]:
    """Where a run starts: the task it runs inside (a ``TaskScope``; None at the root,
    and for a run inside a node that names its own thread: a run of its own, with its
    own thread, saver and store, as in LangGraph), its config as inherited there (with
    LangSmith's tracer when tracing is on: ``with_ambient_tracer``), and whether it names
    its own thread."""
    parent = current_scope()
    own_thread = parent is not None and _names_own_thread(parent, config)
    config = with_ambient_tracer(_inherited(parent, config))
    return (None if own_thread else parent), config, own_thread


def _inherited(parent: Any, config: Any) -> Any:
    """``config``, for a graph run inside the task ``parent`` (a ``TaskScope``), as
    LangGraph's ``ensure_config`` makes it there: the task's config (its thread and
    ``configurable`` keys, tags, metadata, callbacks, recursion limit) under what
    ``config`` gives, ``configurable``, ``metadata`` and ``callbacks`` merged, the tags
    the task has not added again. A config naming its own thread starts a
    ``configurable`` of its own. (A config that is not a dict is left for ``RunConfig``
    to refuse.)"""
    if not (config is None or isinstance(config, Mapping)):
        return config
    if parent is None:
        return _under_runnable(config)
    task = scope_config(parent)
    given = {key: value for key, value in (config or {}).items() if value is not None}
    inherited = {} if _names_own_thread(parent, config) else task.get("configurable") or {}
    merged = {**task, **given}
    merged["configurable"] = {**inherited, **(given.get("configurable") or {})}
    merged["metadata"] = merged_metadata(task.get("metadata"), given.get("metadata"))
    return _under_caller(merged, given, _ambient_callbacks(task), task.get("tags"))


def _ambient_callbacks(task: Mapping[str, Any]) -> Any:
    """The callbacks of the langchain-core runnable running inside the task, if any (a
    ``RunnableSequence`` or ``RunnableLambda`` the graph is called from: its run is the
    graph's parent, as LangGraph's ``ensure_config`` reads it), else the task's."""
    return (_running_config() or task).get("callbacks")


def _running_config() -> Any:
    """The config of the langchain-core runnable running here, or None (graphkit never
    imports langchain-core: if nobody did, nothing runs)."""
    langchain = sys.modules.get("langchain_core.runnables.config")
    return langchain.var_child_runnable_config.get() if langchain is not None else None


def _under_runnable(config: Any) -> Any:
    """``config``, for a graph run outside any graph but called from a langchain-core
    runnable (a ``RunnableLambda``, a tool, a LangGraph node): that runnable's callbacks,
    tags and metadata under what ``config`` gives, as LangGraph's ``ensure_config`` reads
    them, so tracing and ``astream_events`` show the graph as its child; its recursion
    limit and ``max_concurrency`` too, unless ``config`` sets them (langchain-core gives
    every runnable's config a limit of 25, which LangGraph's graph then runs under). (Its
    ``configurable`` is not taken: a thread stays the caller's to name.)"""
    if not (running := _running_config()):
        return config
    given = {key: value for key, value in (config or {}).items() if value is not None}
    limits = ("recursion_limit", "max_concurrency")
    merged = {key: running[key] for key in limits if running.get(key) is not None} | given
    if running.get("metadata"):
        merged["metadata"] = merged_metadata(running["metadata"], given.get("metadata"))
    return _under_caller(merged, given, running.get("callbacks"), running.get("tags"))


def _under_caller(
    merged: dict[str, Any], given: Mapping[str, Any], callbacks: Any, tags: Any
) -> Any:
    """``merged`` with the caller's ``callbacks`` (its handlers, tracing and
    ``astream_events``, hear the graph's run too) and ``tags`` (first, none twice) under
    what the run was ``given``."""
    if callbacks is not None:
        own = given.get("callbacks")
        merged["callbacks"] = callbacks if own is None else merged_callbacks(callbacks, own)
    first = list(tags or ())
    if joined := [*first, *(tag for tag in given.get("tags", ()) if tag not in first)]:
        merged["tags"] = joined
    return merged


def _names_own_thread(parent: Any, config: Any) -> bool:
    """Whether ``config``, given to a graph run inside the task ``parent``, addresses a
    checkpoint lineage of its own (a ``thread_id``, ``checkpoint_ns``, ``checkpoint_id``
    or ``checkpoint_map``), other than the task's: the task's own config (a node handing
    its ``config`` on, a subgraph node) keeps the run the task's subgraph."""
    configurable = (config or {}).get("configurable") if isinstance(config, Mapping) else None
    if not configurable or not any(configurable.get(key) for key in _OWN_THREAD_KEYS):
        return False
    return configurable.get("checkpoint_ns") != "|".join(parent.namespace)


_OWN_THREAD_KEYS = ("thread_id", "checkpoint_ns", "checkpoint_id", "checkpoint_map")


def _one_value(chunk: Any, key: str) -> Any:
    """A values chunk for ``output_keys=key``: the key's value; a pause shows its
    interrupts (added to the value when that is a dict, as in LangGraph)."""
    if not isinstance(chunk, dict):
        return chunk
    if INTERRUPT in chunk:
        value = chunk.get(key)
        return (
            {**value, INTERRUPT: chunk[INTERRUPT]}
            if isinstance(value, dict)
            else {INTERRUPT: chunk[INTERRUPT]}
        )
    return chunk.get(key)


def _one_checkpoint(chunk: Any, mode: str, key: str) -> Any:
    """A checkpoint payload (mode "checkpoints", or a "debug" checkpoint event) whose
    values are read through one stream channel named alone: that channel's value."""
    event = mode == "debug" and isinstance(chunk, dict) and chunk.get("type") == "checkpoint"
    payload = chunk["payload"] if event else chunk
    if not isinstance(payload, dict) or not isinstance(payload.get("values"), dict):
        return chunk
    payload = {**payload, "values": payload["values"].get(key)}
    return {**chunk, "payload": payload} if event else payload


def _drain(queue: deque[Item], result: TaskResult | None, heard: set[str]) -> Iterator[Item]:
    """The chunks waiting in ``queue`` before ``result`` is streamed: all, or if it is a
    called task's, those sent before it finished (its ``Listener.finished`` mark), so
    that they keep their order. The mark of a called task whose result is not streamed
    yet (not in ``heard``) stops it too: what its caller sent after it (the start of its
    next call) follows that result."""
    until = None
    if result is not None and result.task.kind == "call":
        until = result.task.id
        heard.add(until)
    while queue:
        item = queue.popleft()
        namespace, mode, chunk = item
        if mode is _FINISHED:
            if chunk == until:
                return
            if chunk not in heard:
                queue.appendleft(item)
                return
            continue
        yield namespace, mode, chunk


_FINISHED: Any = object()  # the mode of the mark a finished called task leaves in the queue


def _one_update(chunk: Any, key: str) -> Any:
    """An updates chunk for ``output_keys=key``: what each node wrote to the key (None
    if nothing), as in LangGraph; ``__interrupt__`` and ``__metadata__`` stay as they are,
    and so does a called task's (``CallUpdate``)."""
    if not isinstance(chunk, dict) or isinstance(chunk, CallUpdate):
        return chunk

    def value(update: Any) -> Any:
        if isinstance(update, list):
            return [part.get(key) for part in update if isinstance(part, dict)]
        return update.get(key) if isinstance(update, dict) else update

    return {k: v if k.startswith("__") else value(v) for k, v in chunk.items()}


@functools.cache
def _events_of(kind: type) -> tuple[str, ...]:
    return tuple(event for event in EVENTS if hasattr(kind, event))


def open_stream(app: CompiledGraph, input: Any, config: Any, **kwargs: Any) -> StreamRun:
    """``StreamRun(app, input, config, **kwargs)``."""
    return StreamRun(app, input, config, **kwargs)


def checked_modes(stream_mode: str | Sequence[str]) -> tuple[tuple[str, ...], bool]:
    """``(modes, single)``: the modes asked, and whether one was asked as a string."""
    single = isinstance(stream_mode, str)
    if not single and not isinstance(stream_mode, Iterable):  # (LangGraph's TypeError too)
        raise TypeError(diagnose.not_names("stream_mode", stream_mode, "['values', 'updates']"))
    modes = (stream_mode,) if single else tuple(stream_mode)
    for mode in modes:
        if mode not in STREAM_MODES:
            raise ValueError(
                f"Unknown stream_mode {mode!r}; use one of {list(STREAM_MODES)} or a list of them."
            )
    return modes, single


def _resolve_deprecated(kwargs: dict[str, Any]) -> None:
    """Map ``checkpoint_during`` to ``durability`` (LangGraph's deprecated name for it)."""
    checkpoint_during = kwargs.pop("checkpoint_during", None)
    if checkpoint_during is None:
        return
    warnings.warn(
        "`checkpoint_during` is deprecated and will be removed. Please use `durability` "
        "instead: durability='async' for True, durability='exit' for False.",
        LangGraphDeprecatedSinceV10,
        stacklevel=4,
    )
    if kwargs.get("durability") is not None:
        raise ValueError("Pass durability= or checkpoint_during=, not both; keep durability=.")
    kwargs["durability"] = "async" if checkpoint_during else "exit"


def _starts(
    emitters: list[Any], listener: Listener, namespace: tuple[str, ...]
) -> Callable[[Any], None]:
    """What the listener does when a task starts while a step runs: queue its chunks."""

    def started(task: Any) -> None:
        for emitter in emitters:
            for mode, chunk in emitter.called(task):
                listener.send((namespace, mode, chunk))

    return started
