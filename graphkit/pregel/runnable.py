"""The parts of LangChain's Runnable interface a compiled LangGraph graph has besides
``invoke`` and ``stream``: ``batch`` / ``abatch`` (and their ``_as_completed`` forms),
``get_subgraphs``, the input and output JSON schemas, ``astream_events`` /
``astream_log`` (made by LangChain over the graph: ``graphkit.streaming.events``), and
``nodes`` (each node alone, for tests). The attributes LangGraph reads back
(``input_channels``, ``stream_channels_list``, ``interrupt_before_nodes``...) and
``get_name`` are here too. (The input and output models are in
``graphkit.pregel.schemas``, ``graph | runnable`` and LangChain's other compositions in
``graphkit.pregel.composing``.)"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import dataclasses
import dis
import functools
import inspect
import sys
import types
import typing
import warnings
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any

from graphkit.constants import ROOT, START
from graphkit.graph.schema import is_root_schema
from graphkit.pregel.composing import ComposingMethods
from graphkit.pregel.schemas import RunnableSchemas

__all__ = ["GraphNode", "RunnableMethods", "graph_in"]


class RunnableMethods(RunnableSchemas, ComposingMethods):
    """Mixed into ``CompiledGraph``: what these methods need is its ``invoke``,
    ``ainvoke`` and ``builder``. The input and output types are ``RunnableSchemas``'
    (``graphkit.pregel.schemas``), ``graph | runnable`` and the other compositions
    ``ComposingMethods``' (``graphkit.pregel.composing``)."""

    builder: Any
    checkpointer: Any
    interrupt_after: Any
    interrupt_before: Any
    invoke: Any
    ainvoke: Any
    name: str
    spec: Any
    store: Any

    @property
    def nodes(self) -> dict[str, GraphNode]:
        """Each node by name, START first (LangGraph's ``compiled.nodes``): call one alone,
        e.g. in a unit test, with ``app.nodes["name"].invoke(state)``.

        >>> from typing import TypedDict
        >>> from graphkit import StateGraph, START
        >>> builder = StateGraph(TypedDict("S", {"n": int}))
        >>> builder = builder.add_node("double", lambda s: {"n": s["n"] * 2})
        >>> app = builder.add_edge(START, "double").compile()
        >>> list(app.nodes), app.nodes["double"].invoke({"n": 4})
        (['__start__', 'double'], {'n': 8})
        """
        declared = getattr(self.builder, "nodes", None) or {}
        return {
            name: GraphNode(node, self.store, getattr(declared.get(name), "action", None))
            for name, node in self.spec.nodes.items()
        }

    # -- LangGraph's attributes, read back (a low-level ``Pregel`` keeps those it was given)

    @property
    def input_channels(self) -> str:
        """Where the input goes in: a StateGraph's START."""
        return START

    @property
    def output_channels(self) -> str | list[str]:
        """The keys ``invoke`` returns (a single-value state: its one channel's name)."""
        return _channel_names(self.spec.output_keys)

    @property
    def stream_channels(self) -> str | list[str]:
        """The keys "values" chunks show."""
        return _channel_names(self.spec.stream_keys)

    @property
    def stream_channels_asis(self) -> str | list[str]:
        """The channels "values" chunks show, as LangGraph names them (a single-value
        state's one channel alone): a StateGraph's ``stream_channels``."""
        return self.stream_channels

    @property
    def stream_channels_list(self) -> list[str]:
        """``stream_channels_asis`` as a list, even when it names one channel.

        >>> from graphkit import StateGraph, START
        >>> app = StateGraph(int).add_node("a", lambda n: n + 1).add_edge(START, "a").compile()
        >>> app.stream_channels_asis, app.stream_channels_list
        ('__root__', ['__root__'])
        """
        channels = self.stream_channels_asis
        return [channels] if isinstance(channels, str) else list(channels)

    stream_eager: bool = False
    """LangGraph's switch to stream each chunk as soon as it is made (an entrypoint's is
    True); read back only: graphkit always streams chunks as they are made."""

    cache_policy: Any = None
    """The graph-wide ``CachePolicy`` (a low-level ``Pregel``'s, as given; a StateGraph's
    cache policies are its nodes')."""

    @property
    def interrupt_before_nodes(self) -> str | list[str]:
        """The nodes the run pauses before (``"*"``: all), as ``compile`` was given them."""
        return _node_names(self.interrupt_before)

    @property
    def interrupt_after_nodes(self) -> str | list[str]:
        """The nodes the run pauses after (``"*"``: all)."""
        return _node_names(self.interrupt_after)

    @property
    def retry_policy(self) -> tuple[Any, ...]:
        """The graph's own retry policies: none (a StateGraph's are its nodes')."""
        return ()

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        """The graph's name (``compile(name=...)``), or ``name``, with ``suffix`` added as
        LangChain's Runnables add it.

        >>> from typing import TypedDict
        >>> from graphkit import StateGraph, START
        >>> app = StateGraph(TypedDict("S", {"n": int})).add_node("a", lambda s: {})
        >>> app = app.add_edge(START, "a").compile()
        >>> app.get_name(), app.get_name("input"), app.get_name("x", name="mine")
        ('LangGraph', 'LangGraphInput', 'mine_x')
        """
        named = name or self.name or type(self).__name__
        if not suffix:
            return named
        return named + suffix.title() if named[0].isupper() else f"{named}_{suffix.lower()}"

    def batch(
        self,
        inputs: Sequence[Any],
        config: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Any]:
        """``invoke`` each input, several at once (at most ``config["max_concurrency"]``),
        and return their outputs in order. ``config``: one for all, or one per input;
        ``return_exceptions``: an input's error is its output instead of being raised.

        >>> from typing import TypedDict
        >>> from graphkit import StateGraph, START
        >>> builder = StateGraph(TypedDict("S", {"n": int}))
        >>> builder = builder.add_node("double", lambda state: {"n": state["n"] * 2})
        >>> app = builder.add_edge(START, "double").compile()
        >>> app.batch([{"n": 1}, {"n": 2}])
        [{'n': 2}, {'n': 4}]
        >>> app.batch([{"n": 1}, {"n": None}], return_exceptions=True)[1]
        TypeError("unsupported operand type(s) for *: 'NoneType' and 'int'")
        """
        configs = _one_per_input("batch", config, len(inputs))
        one = _run_one(self.invoke, return_exceptions, kwargs)
        pairs = list(zip(inputs, configs, strict=True))
        if len(pairs) <= 1:
            return [one(given, given_config) for given, given_config in pairs]
        limit = (configs[0] or {}).get("max_concurrency") or None
        with ThreadPoolExecutor(max_workers=limit or len(pairs)) as pool:
            # each run sees the caller's context (a graph batched inside a node: its task)
            futures = [
                pool.submit(contextvars.copy_context().run, one, given, given_config)
                for given, given_config in pairs
            ]
            return [future.result() for future in futures]

    async def abatch(
        self,
        inputs: Sequence[Any],
        config: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Any]:
        """``ainvoke`` each input concurrently (at most ``config["max_concurrency"]`` at
        once); as ``batch``."""
        configs = _one_per_input("abatch", config, len(inputs))
        one = _await_one(self.ainvoke, configs, return_exceptions, kwargs)
        runs = [one(given, config) for given, config in zip(inputs, configs, strict=True)]
        return list(await asyncio.gather(*runs))

    def batch_as_completed(
        self,
        inputs: Sequence[Any],
        config: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> Iterator[tuple[int, Any]]:
        """``batch``, yielding ``(index, output)`` as each run ends (LangGraph's).

        >>> from typing import TypedDict
        >>> from graphkit import StateGraph, START
        >>> builder = StateGraph(TypedDict("S", {"n": int}))
        >>> builder = builder.add_node("double", lambda state: {"n": state["n"] * 2})
        >>> app = builder.add_edge(START, "double").compile()
        >>> sorted(app.batch_as_completed([{"n": 1}, {"n": 2}]))
        [(0, {'n': 2}), (1, {'n': 4})]
        """
        configs = _one_per_input("batch_as_completed", config, len(inputs))
        one = _run_one(self.invoke, return_exceptions, kwargs)
        limit = (configs[0] or {}).get("max_concurrency") if configs else None
        with ThreadPoolExecutor(max_workers=limit or max(len(inputs), 1)) as pool:
            started = {
                pool.submit(contextvars.copy_context().run, one, given, given_config): index
                for index, (given, given_config) in enumerate(zip(inputs, configs, strict=True))
            }
            for future in as_completed(started):
                yield started[future], future.result()

    async def abatch_as_completed(
        self,
        inputs: Sequence[Any],
        config: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> AsyncIterator[tuple[int, Any]]:
        """``abatch``, yielding ``(index, output)`` as each run ends (LangGraph's)."""
        configs = _one_per_input("abatch_as_completed", config, len(inputs))
        one = _await_one(self.ainvoke, configs, return_exceptions, kwargs)

        async def numbered(index: int, given: Any, given_config: Any) -> tuple[int, Any]:
            return index, await one(given, given_config)

        pairs = enumerate(zip(inputs, configs, strict=True))
        for finished in asyncio.as_completed([numbered(i, g, c) for i, (g, c) in pairs]):
            yield await finished

    def get_subgraphs(
        self, *, namespace: str | None = None, recurse: bool = False
    ) -> Iterator[tuple[str, Any]]:
        """Each node's subgraph as ``(node name, graph)``: a compiled graph added as the
        node, or one its function reaches (found as LangGraph looks: see ``graph_in``).
        ``namespace``: only the one at that
        path of node names, e.g. ``"outer|inner"`` (a nested one needs ``recurse``);
        ``recurse``: the subgraphs' own too, named by their path."""
        for name, node in (getattr(self.builder, "nodes", None) or {}).items():
            if namespace is not None and namespace != name and not namespace.startswith(f"{name}|"):
                continue
            graph = graph_in(node.action)
            if graph is None or graph is self:  # (a node that reads its own graph's name)
                continue
            if namespace == name:
                yield name, graph
                return
            if namespace is None:
                yield name, graph
            if recurse:
                deeper = None if namespace is None else namespace[len(name) + 1 :]
                for path, inner in graph.get_subgraphs(namespace=deeper, recurse=True):
                    yield f"{name}|{path}", inner

    async def aget_subgraphs(
        self, *, namespace: str | None = None, recurse: bool = False
    ) -> AsyncIterator[tuple[str, Any]]:
        """``get_subgraphs``, for async code (LangGraph's twin)."""
        for found in self.get_subgraphs(namespace=namespace, recurse=recurse):
            yield found

    def get_input_jsonschema(self, config: Any = None) -> dict[str, Any]:
        """The JSON schema of the graph's input schema, as LangGraph makes it (with
        pydantic, which must be installed)."""
        return _json_schema(self, "input_schema")

    def get_output_jsonschema(self, config: Any = None) -> dict[str, Any]:
        """The JSON schema of the graph's output schema (see ``get_input_jsonschema``)."""
        return _json_schema(self, "output_schema")

    def get_context_jsonschema(self) -> dict[str, Any] | None:
        """The JSON schema of the graph's ``context_schema`` (None without one), as
        LangGraph makes it (with pydantic, which must be installed)."""
        schema = getattr(self, "context_schema", None)
        return None if schema is None else _type_json_schema(schema, "get_context_jsonschema()")

    def stream_events(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        version: str = "v2",
        transformers: Sequence[Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        """``version="v3"``: the run as LangGraph's v3 event protocol, a
        ``graphkit.stream.GraphRunStream`` (read it to run the graph; see
        ``graphkit.stream``). Other versions raise ``NotImplementedError``, as in
        LangGraph (LangChain has no sync event stream): use ``astream_events``."""
        if version == "v3":
            from graphkit.stream._start import open_run, refuse_owned_options

            refuse_owned_options(kwargs)
            return open_run(self, input, config, transformers, kwargs)
        from graphkit.streaming.events import as_runnable

        return as_runnable(self).stream_events(input, config, version=version, **kwargs)

    def astream_events(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        version: str = "v2",
        transformers: Sequence[Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        """LangChain's event stream of a run (``version="v2"``; needs langchain-core):
        the graph, each task and router, and what they call (chat models...) start,
        stream and end, as in LangGraph. Other keywords filter events as LangChain's do
        (``include_names=``...) or go to ``astream`` (``stream_mode=``...).
        ``version="v3"``: an awaitable of a ``graphkit.stream.AsyncGraphRunStream``.

        >>> import asyncio
        >>> from typing import TypedDict
        >>> from graphkit import StateGraph, START
        >>> app = StateGraph(TypedDict("S", {"x": int})).add_node("a", lambda s: {"x": 1})
        >>> app = app.add_edge(START, "a").compile()
        >>> async def names():
        ...     return [(e["event"], e["name"]) async for e in app.astream_events({"x": 0})]
        >>> asyncio.run(names())  # doctest: +NORMALIZE_WHITESPACE
        [('on_chain_start', 'LangGraph'), ('on_chain_start', 'a'), ('on_chain_stream', 'a'),
         ('on_chain_end', 'a'), ('on_chain_stream', 'LangGraph'), ('on_chain_end', 'LangGraph')]
        """
        if version == "v3":
            from graphkit.stream._start import open_async_run, refuse_owned_options

            refuse_owned_options(kwargs)
            return open_async_run(self, input, config, transformers, kwargs)
        from graphkit.streaming.events import as_runnable

        return as_runnable(self).astream_events(input, config, version=version, **kwargs)

    def astream_log(
        self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """LangChain's run log of a run (``RunLogPatch`` objects; needs langchain-core)."""
        from graphkit.streaming.events import as_runnable

        return as_runnable(self).astream_log(input, config, **kwargs)


class GraphNode:
    """One node of a compiled graph, outside any run: ``invoke(input)`` calls its
    function on ``input`` as given and returns what it returned (a dict, a ``Command``,
    None), with no state, edges or checkpointer, as LangGraph's ``PregelNode.invoke``.
    A ``config``, ``store``, ``writer`` or ``runtime`` parameter is given the config
    passed (with ``configurable``), the graph's store, a writer that discards, and a
    ``Runtime`` with that store (LangGraph refuses a runtime here); keywords given to
    ``invoke`` (``store=...``) go to the function, over those, as in LangGraph."""

    __slots__ = ("_action", "_node", "_store", "name")

    def __init__(self, node: Any, store: Any, action: Any = None) -> None:
        self._node, self._store, self.name = node, store, node.name
        self._action = action  # (what `add_node` was given: None for START)

    def __repr__(self) -> str:
        return f"GraphNode({self.name!r})"

    @property
    def triggers(self) -> list[str]:
        """The channels whose change runs it."""
        return list(self._node.triggers)

    @property
    def channels(self) -> list[str] | str:
        """What it reads: the state keys, or START's one input channel."""
        reads = self._node.reads
        return reads if isinstance(reads, str) else list(reads)

    @property
    def metadata(self) -> dict[str, Any] | None:
        """``add_node(..., metadata=...)``; None when it was given none."""
        return dict(self._node.metadata) or None

    @property
    def retry_policy(self) -> tuple[Any, ...] | None:
        """Its ``RetryPolicy`` list; None when it retries nothing."""
        return tuple(self._node.retry_policies) or None

    @property
    def cache_policy(self) -> Any:
        """Its ``CachePolicy``, or None."""
        return self._node.cache_policy

    @property
    def subgraphs(self) -> list[Any]:
        """The graph it runs as a subgraph (the node itself, or one its function
        reaches; see ``get_subgraphs``), in a list, as LangGraph's; ``[]`` if none."""
        graph = graph_in(self._action) if self._action is not None else None
        return [graph] if graph is not None else []

    def invoke(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
        """Call the node's function on ``input`` and return what it returned."""
        if self._node.is_async:
            raise TypeError(
                f"Node {self.name!r} is async: await app.nodes[{self.name!r}].ainvoke(...) "
                "to call it alone."
            )
        return self._node.call(input, **{**self._injected(config), **kwargs})

    async def ainvoke(
        self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> Any:
        """Call the node's function on ``input`` (awaiting it, if it is async; a
        Runnable node's ``ainvoke``, as in an async run)."""
        call = self._node.async_call or self._node.call
        returned = call(input, **{**self._injected(config), **kwargs})
        return await returned if inspect.isawaitable(returned) else returned

    def _injected(self, config: Mapping[str, Any] | None) -> dict[str, Any]:
        from graphkit.pregel.runtime import Runtime

        given, runtime = dict(config or {}), Runtime(store=self._store)
        offered = {
            "config": {**given, "configurable": dict(given.get("configurable") or {})},
            "store": self._store,
            "writer": runtime.stream_writer,  # (the Runtime's writer, which discards)
            "runtime": runtime,
            "error": None,
        }
        return {name: offered[name] for name in self._node.injected}


def _run_one(invoke: Any, return_exceptions: bool, kwargs: dict[str, Any]) -> Any:
    """``invoke(given, config)`` with the batch's kwargs; its error returned instead of
    raised when ``return_exceptions``."""

    def one(given: Any, given_config: Any) -> Any:
        try:
            return invoke(given, given_config, **kwargs)
        except Exception as error:
            if return_exceptions:
                return error
            raise

    return one


def _await_one(
    ainvoke: Any, configs: list[Any], return_exceptions: bool, kwargs: dict[str, Any]
) -> Any:
    """``_run_one`` for ``ainvoke``, at most ``max_concurrency`` (of the first config) at
    once."""
    limit = (configs[0] or {}).get("max_concurrency") if configs else None
    gate = asyncio.Semaphore(limit) if limit else None

    async def one(given: Any, given_config: Any) -> Any:
        try:
            if gate is None:
                return await ainvoke(given, given_config, **kwargs)
            async with gate:
                return await ainvoke(given, given_config, **kwargs)
        except Exception as error:
            if return_exceptions:
                return error
            raise

    return one


def _one_per_input(method: str, config: Any, count: int) -> list[Any]:
    if isinstance(config, Sequence) and not isinstance(config, (str, Mapping)):
        if len(config) != count:
            raise ValueError(
                f"{method}() was given {len(config)} configs for {count} inputs: give one "
                "config for all, or exactly one per input."
            )
        return list(config)
    if count > 1 and isinstance(config, Mapping) and config.get("run_id") is not None:
        # one run id names one run: LangChain's batch gives it to the first input only
        warnings.warn(
            "Provided run_id be used only for the first element of the batch.",
            RuntimeWarning,
            stacklevel=3,
        )
        rest = {key: value for key, value in config.items() if key != "run_id"}
        return [config, *[rest] * (count - 1)]
    return [config] * count


def graph_in(action: Any) -> Any:
    """The compiled graph a node's ``action`` is or calls (the first found among what its
    function reaches, as LangGraph looks: see ``_reached``; through decorators that keep
    ``__wrapped__``, such as a converted LangGraph node's; in a LangChain chain, its steps
    and what a ``RunnableLambda`` names), else None. A graph compiled
    with ``checkpointer=False`` keeps no state: LangGraph does not count it as a
    subgraph, nor does graphkit."""
    candidates, function, seen = _chain_parts(action), action, set()
    while function is not None and id(function) not in seen:
        seen.add(id(function))
        # a bound method's object stands for it: `sub.invoke` reaches `sub`
        candidates += [_attribute(value, "__self__") or value for value in _reached(function)]
        function = getattr(function, "__wrapped__", None)
    graphs = (c for c in candidates if isinstance(c, RunnableMethods))
    return next((graph for graph in graphs if graph.checkpointer is not False), None)


def _chain_parts(action: Any) -> list[Any]:
    """``action`` and, as LangGraph searches them, the steps of a LangChain sequence
    (``prep | graph``) and the runnables a ``RunnableLambda``'s function names (its
    ``deps``, read by langchain-core from its source), and theirs in turn, each once (a
    function may name the chain it is a step of)."""
    runnables = sys.modules.get("langchain_core.runnables.base")
    parts, seen = [action], {id(action)}
    for part in parts if runnables is not None else ():
        if isinstance(part, runnables.RunnableSequence):
            inner = part.steps
        elif isinstance(part, runnables.RunnableLambda):
            inner = part.deps
        else:
            continue
        parts += [step for step in inner if id(step) not in seen]
        seen.update(map(id, inner))
    return parts


def _reached(function: Any) -> list[Any]:
    """What ``function`` reaches outside its own scope, as LangGraph's subgraph search
    reads it from the bytecode: the values of its closure (a cell never filled, as for a
    variable assigned only on a branch not taken, is skipped), the module globals its own
    code names, and every value along an attribute path loaded from one of those
    (``holder.graph.invoke``), in its code or in that of the functions it defines."""
    function = getattr(function, "__func__", function)  # a bound method's function
    if not inspect.isfunction(function):
        return []
    code, cells = function.__code__, {}
    for name, cell in zip(code.co_freevars, function.__closure__ or (), strict=True):
        with contextlib.suppress(ValueError):  # (an empty cell)
            cells[name] = cell.cell_contents
    module = function.__globals__
    names = {name: module[name] for name in code.co_names if name in module}
    found, codes = list(cells.values()), [code]
    for each in codes:
        codes += [const for const in each.co_consts if isinstance(const, types.CodeType)]
        value: Any = None
        for opname, argval in _loads(each):
            if opname == "LOAD_GLOBAL":
                value = names.get(argval)
            elif opname == "LOAD_DEREF":
                value = cells.get(argval)
            elif opname in ("LOAD_ATTR", "LOAD_METHOD") and value is not None:
                value = _attribute(value, argval)
            else:
                value = None  # anything else ends the path: `a, b.c` is not `a.c`
            if value is not None:
                found.append(value)
    return found


@functools.lru_cache(maxsize=1024)
def _loads(code: types.CodeType) -> tuple[tuple[str, Any], ...]:
    """``code``'s instructions as (name, argument): disassembled once per function, as
    every snapshot of a thread's history asks for its nodes' subgraphs (a third of a
    ``get_state_history`` before)."""
    return tuple((each.opname, each.argval) for each in dis.get_instructions(code))


def _attribute(value: Any, name: str) -> Any:
    """``value.name``, or None when reading it fails (a property may raise anything)."""
    try:
        return getattr(value, name, None)
    except Exception:
        return None


def _json_schema(app: Any, which: str) -> dict[str, Any]:
    side = which.split("_")[0]
    schema = getattr(app.builder, which, None)
    if dataclasses.is_dataclass(schema):
        return _dataclass_json_schema(app, schema, side)
    if schema is not None and is_root_schema(schema):
        return _root_json_schema(app, side)
    if schema is not None:
        return _type_json_schema(schema, f"get_{side}_jsonschema()")
    # a graph without a state schema (a low-level Pregel, an entrypoint): as LangGraph,
    # the type of its one input (output) channel, titled by the graph's name
    channel = getattr(app, f"{side}_channels", None)
    typ = getattr(app.channels.get(channel), "typ", None) if isinstance(channel, str) else None
    if typ is None:
        raise NotImplementedError(
            f"get_{side}_jsonschema() is not supported by graphkit yet for a graph without "
            f"a state schema whose {side} is not one typed channel (a low-level Pregel "
            f"with {side}_channels as a list)."
        )
    from graphkit.extras import require

    require("pydantic", extra="agents", feature=f"get_{side}_jsonschema()")
    from pydantic import RootModel

    title = app.get_name(side.capitalize())
    return type(title, (RootModel[typ],), {"__module__": __name__}).model_json_schema()


def _root_json_schema(app: Any, side: str) -> dict[str, Any]:
    """A single-value state's schema as LangGraph makes it: its one value, what the
    channel takes, titled by the graph's name (``LangGraphInput``), defaulting to None."""
    from graphkit.extras import require

    require("pydantic", extra="agents", feature=f"get_{side}_jsonschema()")
    from pydantic import RootModel, create_model

    typ = app.channels[ROOT].UpdateType
    title = app.get_name(side.capitalize())
    model = create_model(title, __base__=RootModel[typ], __module__=__name__, root=(typ, None))
    return model.model_json_schema()


def _dataclass_json_schema(app: Any, schema: Any, side: str) -> dict[str, Any]:
    """A dataclass state's schema as LangGraph makes it: a model titled by the graph's
    name (``LangGraphInput``) with a field per state key, typed by what its channel takes;
    a field's default is the dataclass's (a factory's value), else None for an optional
    type, else the field is required."""
    from graphkit.extras import require

    require("pydantic", extra="agents", feature=f"get_{side}_jsonschema()")
    from pydantic import create_model

    declared = {field.name: field for field in dataclasses.fields(schema)}
    fields = {}
    for key in app.builder.schemas[schema]:
        channel = app.channels.get(key)
        if channel is not None and hasattr(channel, "UpdateType"):
            typ = channel.UpdateType
            fields[key] = (typ, _field_default(declared.get(key), typ))
    title = app.get_name(side.capitalize())
    return create_model(title, __module__=__name__, **fields).model_json_schema()


def _field_default(field: Any, typ: Any) -> Any:
    if field is not None and field.default is not dataclasses.MISSING and field.default is not ...:
        return field.default
    if field is not None and field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    while typing.get_origin(typ) is typing.Annotated:
        typ = typ.__origin__
    optional = type(None) in typing.get_args(typ) or typ in (None, type(None))
    return None if optional else ...


def _type_json_schema(schema: Any, feature: str) -> dict[str, Any]:
    from graphkit.extras import require

    require("pydantic", extra="agents", feature=feature)
    from pydantic import TypeAdapter

    return TypeAdapter(schema).json_schema()


def _channel_names(keys: Sequence[str]) -> str | list[str]:
    """LangGraph's form of a list of channels: a single-value state's one name alone."""
    return ROOT if tuple(keys) == (ROOT,) else list(keys)


def _node_names(nodes: Sequence[str] | str | None) -> str | list[str]:
    return nodes if isinstance(nodes, str) else list(nodes or ())
