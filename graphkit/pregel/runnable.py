"""The parts of LangChain's Runnable interface a compiled LangGraph graph has besides
``invoke`` and ``stream``: ``batch`` / ``abatch`` (and their ``_as_completed`` forms),
``get_subgraphs``, the input and output JSON schemas, ``astream_events`` /
``astream_log`` (made by LangChain over the graph: ``graphkit.streaming.events``), and
``nodes`` (each node alone, for tests). The attributes LangGraph reads back
(``input_channels``, ``stream_channels_list``, ``interrupt_before_nodes``...) and
``get_name`` are here too. (The input and output models are in
``graphkit.pregel.schemas``, ``graph | runnable`` and LangChain's other compositions in
``graphkit.pregel.composing``, the batch methods in ``graphkit.pregel.batching``, the
JSON schemas' making in ``graphkit.pregel.json_schemas``, and the search of a node's
function for the subgraphs it reaches in ``graphkit.pregel.subgraph_search``.)"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any

from graphkit.constants import ROOT, START
from graphkit.pregel.batching import BatchMethods
from graphkit.pregel.composing import ComposingMethods
from graphkit.pregel.json_schemas import _json_schema, _type_json_schema
from graphkit.pregel.schemas import RunnableSchemas
from graphkit.pregel.subgraph_search import _attribute, _chain_parts, _reached, unbound

__all__ = ["GraphNode", "RunnableMethods", "graph_in", "runs_coroutines"]


class RunnableMethods(RunnableSchemas, ComposingMethods, BatchMethods):
    """Mixed into ``CompiledGraph``: what these methods need is its ``invoke``,
    ``ainvoke`` and ``builder``. The input and output types are ``RunnableSchemas``'
    (``graphkit.pregel.schemas``), ``graph | runnable`` and the other compositions
    ``ComposingMethods``' (``graphkit.pregel.composing``), ``batch`` and its forms
    ``BatchMethods``' (``graphkit.pregel.batching``)."""

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
        >>> builder = StateGraph(int).add_node("a", lambda n: n + 1)
        >>> app = builder.add_edge(START, "a").compile()
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
        ...     events = app.astream_events({"x": 0})
        ...     return [(e["event"], e["name"]) async for e in events]
        >>> asyncio.run(names())  # doctest: +NORMALIZE_WHITESPACE
        [('on_chain_start', 'LangGraph'), ('on_chain_start', 'a'),
         ('on_chain_stream', 'a'), ('on_chain_end', 'a'),
         ('on_chain_stream', 'LangGraph'), ('on_chain_end', 'LangGraph')]
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


def graph_in(action: Any) -> Any:
    """The compiled graph a node's ``action`` is or calls (the first found among what its
    function reaches, as LangGraph looks: see ``_reached``; through decorators that keep
    ``__wrapped__``, such as a converted LangGraph node's; in a LangChain chain, its steps
    and what a ``RunnableLambda`` names), else None. A graph compiled
    with ``checkpointer=False`` keeps no state: LangGraph does not count it as a
    subgraph, nor does graphkit."""
    graphs = (c for c in _reached_by(action) if isinstance(c, RunnableMethods))
    return next((graph for graph in graphs if graph.checkpointer is not False), None)


def _reached_by(action: Any) -> list[Any]:
    """``action`` and what it reaches, as ``graph_in`` looks (before it picks a graph)."""
    candidates, function, seen = _chain_parts(action), action, set()
    while function is not None and id(function) not in seen:
        seen.add(id(function))
        # a bound method's object stands for it: `sub.invoke` reaches `sub`
        candidates += [_attribute(value, "__self__") or value for value in _reached(function)]
        function = getattr(function, "__wrapped__", None)
    return candidates


def runs_coroutines(graph: Any) -> bool:
    """Whether a run of ``graph`` may have a coroutine to await: a node of it is ``async
    def``, or of a graph or ``@task`` a node reaches, at any depth. It looks where
    ``graph_in`` looks, but at every graph found, not the first, and at one compiled with
    ``checkpointer=False`` too (it keeps no state, yet its async nodes still run), and
    at the tasks a node or task names (an async ``@task`` a sync entrypoint calls). A
    Runnable node with only async code (``RunnableLambda(async_function)``) counts too:
    like an ``async def`` node, it runs only when awaited."""
    from graphkit.pregel.calls import CallSpec
    from graphkit.pregel.node_builder import only_async_code

    pending, seen = [graph], set()
    while pending:
        item = pending.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, RunnableMethods):
            if any(node.is_async for node in item.spec.nodes.values()):
                return True
            declared = getattr(item.builder, "nodes", None) or {}
            actions = [declaration.action for declaration in declared.values()]
            # (a low-level Pregel's step is the Runnable's bound invoke)
            if any(only_async_code(_attribute(a, "__self__") or a) for a in actions):
                return True
        elif isinstance(spec := _attribute(item, "spec"), CallSpec):  # a @task
            if spec.node.is_async:
                return True
            actions = [spec.function]
        else:
            continue
        pending += [found for action in actions for found in _reached_by(_unwrapped(action))]
    return False


def _unwrapped(action: Any) -> Any:
    """What a LangChain binding round a node runs (``sub.with_retry()``: a ``RunnableRetry``
    round graphkit's graph as LangChain sees it, round ``sub``), which ``ainvoke`` awaits
    as it awaits ``sub``; ``action`` itself if it is none."""
    inner = unbound(action)
    graph = _attribute(inner, "app") if inner is not action else None
    return graph if isinstance(graph, RunnableMethods) else inner


def _channel_names(keys: Sequence[str]) -> str | list[str]:
    """LangGraph's form of a list of channels: a single-value state's one name alone."""
    return ROOT if tuple(keys) == (ROOT,) else list(keys)


def _node_names(nodes: Sequence[str] | str | None) -> str | list[str]:
    return nodes if isinstance(nodes, str) else list(nodes or ())
