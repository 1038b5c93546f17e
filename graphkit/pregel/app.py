"""CompiledGraph: the runnable graph, with LangGraph's invoke/stream interface built
on the stepper (one loop, run to the end)."""

from __future__ import annotations

import asyncio
import contextlib
import copy
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor
from types import GenericAlias
from typing import Any

from graphkit.constants import START
from graphkit.diagnostics import building as diagnose_building
from graphkit.diagnostics import cache as diagnose_cache
from graphkit.diagnostics import threads as diagnose_threads
from graphkit.errors import warn
from graphkit.pregel import thread_edits, thread_state
from graphkit.pregel.config import (
    RunConfig,
    RunOptions,
    coerce_context,
    loose_keys_configurable,
    merge_configs,
)
from graphkit.pregel.records import Run
from graphkit.pregel.runnable import RunnableMethods, runs_coroutines
from graphkit.pregel.runtime import RunControl, Runtime, ServerInfo
from graphkit.pregel.spec import GraphSpec
from graphkit.pregel.stepper import Stepper
from graphkit.streaming import Collector, open_stream
from graphkit.streaming.aio import astream_from, background_loop, current_async_run
from graphkit.streaming.events import count_as_runnable
from graphkit.types import StateUpdate

__all__ = ["CompiledGraph"]


class CompiledGraph(RunnableMethods):
    """A graph ready to run. Build one with ``StateGraph(...).compile()``.

    >>> from typing import TypedDict
    >>> from graphkit import StateGraph, START
    >>> class State(TypedDict):
    ...     text: str
    >>> builder = StateGraph(State)
    >>> _ = builder.add_node("shout", lambda state: {"text": state["text"].upper()})
    >>> _ = builder.add_edge(START, "shout")
    >>> app = builder.compile()
    >>> app
    CompiledGraph(name='LangGraph', nodes=['shout'], saver=None)
    >>> app.invoke({"text": "hi"})
    {'text': 'HI'}
    >>> list(app.stream({"text": "hi"}))
    [{'shout': {'text': 'HI'}}]
    >>> [superstep.plan.nodes for superstep in app.trace({"text": "hi"}).steps]
    [['__input__'], ['__start__'], ['shout']]
    """

    # LangGraph's is generic (``CompiledStateGraph[...]`` in annotations); here the types are not
    # checked, so any arguments give a ``types.GenericAlias``, as ``list[int]`` does.
    __class_getitem__ = classmethod(GenericAlias)

    stream_transformers: tuple[Any, ...] = ()
    """Transformer factories every v3 run of this graph adds (``compile(transformers=...)``;
    see ``graphkit.stream``)."""

    def __init__(
        self,
        spec: GraphSpec,
        *,
        builder: Any = None,
        name: str = "LangGraph",
        executor: Executor | None = None,
        store: Any = None,
        cache: Any = None,
        debug: bool = False,
        checkpointer: Any = None,
        interrupt_before: Sequence[str] | str = (),
        interrupt_after: Sequence[str] | str = (),
    ) -> None:
        self.spec = spec
        self.channels: dict[str, Any] = dict(spec.channels)
        """The graph's channels by name, as LangGraph's attribute shows them (its state
        keys, ``__start__``, ``__pregel_tasks``, ``branch:to:...``): what runs copy."""
        self.trigger_to_nodes = {k: list(v) for k, v in spec.trigger_to_nodes.items()}
        """Which nodes a write to each channel wakes (LangGraph's attribute; read back)."""
        self.checkpointer = checkpointer
        self.interrupt_before = interrupt_before
        self.interrupt_after = interrupt_after
        self.debug = debug
        self.builder = builder
        self.context_schema = getattr(builder, "context_schema", None)
        """What ``context=`` is (a dict given for a dataclass or pydantic one becomes one)."""
        self.name = name
        self.executor = executor
        self.store = store
        self.cache = cache
        self.stream_mode = "updates"
        self.config: dict[str, Any] | None = None
        """Defaults every call's config is merged over (``with_config``)."""
        self.step_timeout: float | None = None
        """Seconds a whole step may take (LangGraph's attribute; set it after compile):
        past it the run fails with ``TimeoutError``, keeping what finished."""

    def __repr__(self) -> str:
        """Its name, nodes (without ``__start__``) and saver, e.g.
        ``CompiledGraph(name='agent', nodes=['model', 'tools'], saver=InMemorySaver)``
        (LangGraph's compiled graph keeps Python's default, which says none of them)."""
        nodes = [name for name in self.spec.nodes if name != START]
        saver = self.checkpointer
        saver = saver if saver is None or isinstance(saver, bool) else type(saver).__name__
        return f"{type(self).__name__}(name={self.name!r}, nodes={nodes}, saver={saver})"

    # -- stepping ---------------------------------------------------------------------

    def stepper(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        context: Any = None,
        **options: Any,
    ) -> Stepper:
        """Start a run you advance phase by phase (see ``Stepper``); ``options`` are
        ``RunOptions`` fields, ``context`` is what nodes see as ``runtime.context``."""
        context = coerce_context(self.context_schema, context)
        config = self._configured(config)
        if options.get("loop") is None and self._has_async_nodes():
            options["loop"] = background_loop()  # (the caller's thread only steps)
        server = ServerInfo.from_config(config) if isinstance(config, Mapping) else None
        runtime = Runtime(context, self.store, control=RunControl(), server_info=server)
        run = self.run_options(runtime=runtime, **options)
        return Stepper(self.spec, input, RunConfig.from_dict(config), run)

    def _has_async_nodes(self) -> bool:
        """Whether it, or a graph or task its nodes reach (at any depth), has an ``async
        def`` node (see ``runs_coroutines``). Worked out once: every ``stepper()`` asks,
        and what a compiled graph reaches is fixed then, as LangGraph fixes a node's
        subgraphs at compile time."""
        found = self.__dict__.get("_runs_coroutines")
        if found is None:
            found = self.__dict__["_runs_coroutines"] = runs_coroutines(self)
        return found

    def run_options(self, **options: Any) -> RunOptions:
        """A run's options, with this graph's compile-time defaults filled in (as in
        LangGraph, an empty per-call breakpoint list keeps the compiled ones)."""
        diagnose_building.check_run_interrupts(options, self.spec.nodes)
        executor = options.pop("executor", None) or self.executor
        before = options.pop("interrupt_before", None) or self.interrupt_before
        after = options.pop("interrupt_after", None) or self.interrupt_after
        return RunOptions(
            checkpointer=self.checkpointer,
            cache=self.cache,
            step_timeout=self.step_timeout,
            executor=executor,
            interrupt_before=before,
            interrupt_after=after,
            **options,
        )

    def trace(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Run:
        """Run to completion and return the recorded ``Run``; on an error, the partial
        run is attached to it as ``error.run``. A save that failed while the run went on
        (``Stepper.save_error``) is raised at the end, as ``invoke`` raises it."""
        return _recorded(self.stepper(input, config, **kwargs))

    async def atrace(
        self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> Run:
        """``trace`` for async code: async nodes run concurrently on this event loop, as
        ``ainvoke`` runs them, and the recorded ``Run`` is returned. As with ``trace``, an
        error raised has the run so far as ``error.run``; so has the ``CancelledError``
        of a cancelled call (``asyncio.wait_for`` that timed out: its ``__context__``).

        >>> import asyncio
        >>> from typing import TypedDict
        >>> from graphkit import START, StateGraph
        >>> class State(TypedDict):
        ...     n: int
        >>> async def double(state):
        ...     await asyncio.sleep(0)
        ...     return {"n": state["n"] * 2}
        >>> builder = StateGraph(State).add_node("double", double)
        >>> app = builder.add_edge(START, "double").compile()
        >>> run = asyncio.run(app.atrace({"n": 3}))
        >>> run.values, run.status, [task.node for task in run.step(1).plan.tasks]
        ({'n': 6}, 'done', ['double'])
        """

        if "loop" in kwargs:
            raise TypeError(
                "atrace() runs the graph's async nodes on the event loop that awaits it, so "
                "it takes no loop=: await it on the loop you want, or call "
                "app.trace(..., loop=your_loop) from another thread."
            )
        started: list[Stepper] = []

        def start(loop: Any) -> Iterator[Run]:
            started.append(stepper := self.stepper(input, config, loop=loop, **kwargs))
            yield _recorded(stepper)

        try:
            return await _made_in_a_thread(start)
        except asyncio.CancelledError as cancelled:  # (its thread has stopped by now)
            if started:  # a cancelled run's records are wanted most (a wait_for timed out)
                cancelled.run = started[0].run_so_far  # type: ignore[attr-defined]
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
        """Run to the end; return the final output, or the chunks of another stream mode."""
        keys = self.spec.output_keys if output_keys is None else output_keys
        collector = Collector(stream_mode, kwargs.get("version"), kwargs.get("subgraphs", False))
        config = self._configured(config)
        run = open_stream(self, input, config, stream_mode=stream_mode, output_keys=keys, **kwargs)
        for chunk in run.chunks():
            collector.add(chunk)
        return collector.result()

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
        """Run to the end, yielding chunks as the run goes (modes: docs/control-flow.md)."""
        yield from open_stream(
            self,
            input,
            self._configured(config),
            context=context,
            stream_mode=stream_mode,
            output_keys=output_keys,
            subgraphs=subgraphs,
            print_mode=print_mode,
            **kwargs,
        ).chunks()

    # -- copies ----------------------------------------------------------------------------

    def copy(self, update: Mapping[str, Any] | None = None) -> CompiledGraph:
        """A copy of this graph, with the attributes in ``update`` replaced (LangGraph's).

        >>> from typing import TypedDict
        >>> from graphkit import StateGraph, START
        >>> app = StateGraph(TypedDict("S", {"x": int})).add_node("a", lambda s: {})
        >>> app = app.add_edge(START, "a").compile()
        >>> app.copy({"step_timeout": 5.0}).step_timeout, app.step_timeout
        (5.0, None)
        """
        copied = copy.copy(self)
        for name, value in (update or {}).items():
            setattr(copied, name, value)
        return copied

    def with_config(self, config: Mapping[str, Any] | None = None, **kwargs: Any) -> CompiledGraph:
        """A copy whose runs (and state calls) start from ``config`` (and ``kwargs``):
        each call's own config is merged over it, as in LangGraph.

        >>> from typing import TypedDict
        >>> from graphkit import StateGraph, START
        >>> builder = StateGraph(TypedDict("S", {"x": int}))
        >>> builder = builder.add_node(
        ...     "a", lambda s, config: {"x": config["configurable"]["x"]}
        ... )
        >>> app = builder.add_edge(START, "a").compile()
        >>> app = app.with_config(configurable={"x": 7})
        >>> app.invoke({"x": 0})
        {'x': 7}
        """
        merged = merge_configs(self.config, config, kwargs)
        merged.setdefault("configurable", {})  # (as LangGraph's: `app.config["configurable"]`)
        return self.copy({"config": merged})

    def _configured(self, config: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
        """The call's ``config`` over the graph's ``with_config`` defaults, each read as
        LangGraph reads a config (keys beside ``configurable`` moved under it)."""
        if config and not isinstance(config, Mapping):  # (a snapshot failed on .get)
            raise TypeError(diagnose_threads.config_not_dict(config))
        config = loose_keys_configurable(config)
        return (
            merge_configs(loose_keys_configurable(self.config), config) if self.config else config
        )

    # -- the node cache ---------------------------------------------------------------------

    def clear_cache(self, nodes: Sequence[str] | None = None) -> None:
        """Forget the cached writes of ``nodes`` (all nodes when None), as LangGraph does;
        ValueError if the graph was compiled without ``cache=``.

        >>> from typing import TypedDict
        >>> from graphkit import StateGraph, START
        >>> from graphkit.cache.memory import InMemoryCache
        >>> from graphkit.types import CachePolicy
        >>> builder = StateGraph(TypedDict("S", {"x": int}))
        >>> builder = builder.add_node(
        ...     "a", lambda s: {"x": 2}, cache_policy=CachePolicy()
        ... )
        >>> app = builder.add_edge(START, "a").compile(cache=InMemoryCache())
        >>> list(app.stream({"x": 1})), list(app.stream({"x": 1}))[0]["__metadata__"]
        ([{'a': {'x': 2}}], {'cached': True})
        >>> app.clear_cache(["a"]); list(app.stream({"x": 1}))
        [{'a': {'x': 2}}]
        """
        self._require_cache("clear_cache").clear(self._cache_namespaces("clear_cache", nodes))

    async def aclear_cache(self, nodes: Sequence[str] | None = None) -> None:
        """``clear_cache`` for async code."""
        namespaces = self._cache_namespaces("aclear_cache", nodes)
        await self._require_cache("aclear_cache").aclear(namespaces)

    def _require_cache(self, method: str) -> Any:
        if not self.cache:
            raise diagnose_cache.no_cache(method)
        return self.cache

    def _cache_namespaces(self, method: str, nodes: Sequence[str] | None) -> list[tuple[str, ...]]:
        """The cache namespaces of ``nodes`` (LangGraph's: every node when empty). LangGraph
        skips unknown names silently; so does graphkit (a warning says so)."""
        known = {name: node for name, node in self.spec.nodes.items() if not node.hidden}
        nodes = list(nodes or known)
        if unknown := [name for name in nodes if name not in known]:
            warn(diagnose_cache.unknown_nodes(method, unknown, known))
        return [known[name].cache_namespace for name in nodes if name in known]

    # -- deprecated (LangGraph 1.0) -----------------------------------------------------

    def config_schema(self, *, include: Sequence[str] | None = None) -> Any:
        """Deprecated, as in LangGraph: a pydantic model of the configuration (its
        ``configurable`` field is the context schema). Needs pydantic; warns
        ``LangGraphDeprecatedSinceV10``. Read ``context_schema`` instead."""
        from graphkit.diagnostics.graph import legacy_config_model

        # (the graph's own: an entrypoint's or a low-level Pregel's has no builder's)
        context_schema = getattr(self, "context_schema", None)
        return legacy_config_model(self.name, context_schema, include or ())

    def get_config_jsonschema(self, *, include: Sequence[str] | None = None) -> dict[str, Any]:
        """Deprecated, as in LangGraph: the JSON schema of ``config_schema()``."""
        from graphkit.diagnostics.graph import legacy_config_model

        context_schema = getattr(self, "context_schema", None)
        model = legacy_config_model(
            self.name, context_schema, include or (), "get_config_jsonschema"
        )
        return model.model_json_schema()

    # -- threads: reading and editing saved state ----------------------------------------

    def get_state(self, config: Mapping[str, Any], *, subgraphs: bool = False) -> Any:
        """The thread's state: values, next nodes, pending tasks and interrupts."""
        return thread_state.get_state(self, self._configured(config), subgraphs)

    def get_state_history(
        self,
        config: Mapping[str, Any],
        *,
        filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> Iterator[Any]:
        """The thread's checkpoints as state snapshots, newest first."""
        history = thread_state.get_state_history
        return history(self, self._configured(config), filter=filter, before=before, limit=limit)

    def update_state(
        self,
        config: Mapping[str, Any],
        values: Any,
        as_node: str | None = None,
        task_id: str | None = None,
    ) -> dict[str, Any]:
        """Write ``values`` as if ``as_node`` had returned them (as its pending task
        ``task_id``, when given); returns the new config."""
        edit = StateUpdate(values, as_node, task_id)
        return thread_edits.bulk_update_state(self, self._configured(config), [[edit]])

    def bulk_update_state(
        self, config: Mapping[str, Any], supersteps: Sequence[Sequence[Any]]
    ) -> dict[str, Any]:
        """Apply supersteps of updates (each a list of ``StateUpdate(values, as_node)``
        applied together as one step); returns the config of the last checkpoint.

        >>> from typing import TypedDict
        >>> from graphkit import START, InMemorySaver, StateGraph
        >>> from graphkit.types import StateUpdate
        >>> class State(TypedDict):
        ...     x: int
        ...     y: int
        >>> builder = StateGraph(State).add_node("a", lambda s: {})
        >>> builder = builder.add_node("b", lambda s: {})
        >>> builder = builder.add_edge(START, "a").add_edge(START, "b")
        >>> app = builder.compile(checkpointer=InMemorySaver())
        >>> thread = {"configurable": {"thread_id": "1"}}
        >>> _ = app.invoke({"x": 0, "y": 0}, thread)
        >>> steps = [[StateUpdate({"x": 1}, "a"), StateUpdate({"y": 2}, "b")]]
        >>> _ = app.bulk_update_state(thread, steps)
        >>> app.get_state(thread).values, app.get_state(thread).metadata["step"]
        ({'x': 1, 'y': 2}, 2)
        """
        return thread_edits.bulk_update_state(self, self._configured(config), supersteps)

    async def aget_state(self, config: Mapping[str, Any], *, subgraphs: bool = False) -> Any:
        """``get_state`` for async code."""
        return await thread_state.aget_state(self, self._configured(config), subgraphs)

    async def aget_state_history(
        self,
        config: Mapping[str, Any],
        *,
        filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[Any]:
        """``get_state_history`` for async code: ``async for snapshot in ...``."""
        history = thread_state.aget_state_history(
            self, self._configured(config), filter=filter, before=before, limit=limit
        )
        async for snapshot in history:
            yield snapshot

    async def aupdate_state(
        self,
        config: Mapping[str, Any],
        values: Any,
        as_node: str | None = None,
        task_id: str | None = None,
    ) -> dict[str, Any]:
        """``update_state`` for async code."""
        edit = StateUpdate(values, as_node, task_id)
        return await thread_edits.abulk_update_state(self, self._configured(config), [[edit]])

    async def abulk_update_state(
        self, config: Mapping[str, Any], supersteps: Sequence[Sequence[Any]]
    ) -> dict[str, Any]:
        """``bulk_update_state`` for async code."""
        return await thread_edits.abulk_update_state(self, self._configured(config), supersteps)

    async def ainvoke(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        stream_mode: str = "values",
        output_keys: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> Any:
        """``invoke`` for async code: async nodes run concurrently on this event loop."""
        keys = self.spec.output_keys if output_keys is None else output_keys  # ([]: none)

        # The chunks are collected where the run makes them: handed to this loop one by
        # one, as astream must, each cost two thread switches (benchmark case 9: ainvoke
        # of a 3-node chain took 3-4x its invoke).
        def start(loop: Any) -> Iterator[Any]:
            owner = current_async_run()
            subgraphs = kwargs.get("subgraphs", False)
            collector = Collector(stream_mode, kwargs.get("version"), subgraphs)
            chunks = self.stream(
                input,
                config,
                stream_mode=stream_mode,
                output_keys=keys,
                **{**kwargs, "loop": kwargs.get("loop") or loop},
            )
            with contextlib.closing(chunks):
                for chunk in chunks:
                    if owner is not None and owner.cancelled:  # (the caller was cancelled)
                        return
                    collector.add(chunk)
            yield collector.result()

        return await _made_in_a_thread(start)

    async def astream(
        self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """``stream`` for async code: async nodes run concurrently on this event loop."""

        def start(loop: Any) -> Iterator[Any]:
            return self.stream(input, config, **{**kwargs, "loop": kwargs.get("loop") or loop})

        # closed with this generator: a caller who stops reading stops the run now (and
        # what durability="exit" held is saved before aclose() returns), not when the
        # garbage collector finalizes it
        async with contextlib.aclosing(astream_from(start)) as chunks:
            async for chunk in chunks:
                yield chunk


count_as_runnable(CompiledGraph)


async def _made_in_a_thread(start: Callable[[Any], Iterator[Any]]) -> Any:
    """What ``start(loop)`` yields (its one item), made in ``astream_from``'s thread while
    this loop runs the async nodes; cancelling the caller cancels the run."""
    async with contextlib.aclosing(astream_from(start)) as made:
        async for item in made:
            return item
    raise AssertionError("the run ends with its one item or raises")  # (never reached)


def _recorded(stepper: Stepper) -> Run:
    """``stepper`` run to completion, its ``Run``; on an error, the partial run is
    attached to it as ``error.run``. A save that failed while the run went on
    (``Stepper.save_error``) is raised at the end, as ``invoke`` raises it."""
    try:
        run = stepper.run()
        if stepper.save_error is not None:
            raise stepper.save_error
        return run
    except BaseException as error:  # (a KeyboardInterrupt too: what ran before it)
        error.run = stepper.run_so_far  # type: ignore[attr-defined]
        raise
