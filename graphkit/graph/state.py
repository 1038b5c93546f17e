"""StateGraph: declare nodes, edges and conditional edges over a state schema."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from types import GenericAlias
from typing import Any

from graphkit.channels import Channel, LastValue
from graphkit.checkpoint.allowlist import allow_schema_classes
from graphkit.constants import END, START
from graphkit.diagnostics import arguments as diagnose_arguments
from graphkit.diagnostics import building as diagnose
from graphkit.diagnostics import cache as diagnose_cache
from graphkit.diagnostics import graph as diagnose_graph
from graphkit.diagnostics import schemas as diagnose_schemas
from graphkit.diagnostics.parameters import warn_config_type
from graphkit.errors import warn
from graphkit.graph.compile import compile_graph
from graphkit.graph.declaration import (
    DEFAULT_ERROR_HANDLER,
    ERROR_HANDLER_PREFIX,
    Branch,
    NodeDeclaration,
    command_destinations,
    infer_name,
    input_schema_of,
    literal_path_map,
    named_action,
)
from graphkit.graph.schema import (
    channels_from_schema,
    declares_no_keys,
    different_kinds,
    managed_from_schema,
    schema_keys,
)
from graphkit.managed import ManagedValue
from graphkit.pregel.app import CompiledGraph
from graphkit.types import CachePolicy, RetryPolicy, TimeoutPolicy

__all__ = ["CompiledStateGraph", "StateGraph"]

CompiledStateGraph = CompiledGraph
"""LangGraph's name for what ``StateGraph.compile()`` returns."""


class StateGraph:
    """A graph whose nodes read and update a shared state, as in LangGraph.

    Each field of ``state_schema`` becomes a channel: a plain field keeps the last
    value written, ``Annotated[T, reducer]`` combines writes with the reducer.

    >>> import operator
    >>> from typing import Annotated, TypedDict
    >>> from graphkit import StateGraph, START, END
    >>> State = TypedDict("State", {"steps": Annotated[list[str], operator.add]})
    >>> builder = StateGraph(State)
    >>> builder = builder.add_sequence([
    ...     ("plan", lambda s: {"steps": ["plan"]}),
    ...     ("act", lambda s: {"steps": ["act"]}),
    ... ])
    >>> builder = builder.add_edge(START, "plan")
    >>> builder.compile().invoke({"steps": []})
    {'steps': ['plan', 'act']}
    """

    # LangGraph's is generic (``StateGraph[...]`` in annotations); here the types are not
    # checked, so any arguments give a ``types.GenericAlias``, as ``list[int]`` does.
    __class_getitem__ = classmethod(GenericAlias)

    def __init__(
        self,
        state_schema: Any,
        context_schema: Any = None,
        *,
        input_schema: Any = None,
        output_schema: Any = None,
        **deprecated: Any,
    ) -> None:
        old = diagnose_arguments.renamed_arguments(deprecated)
        self.state_schema = state_schema
        self.context_schema = context_schema or old.get("context_schema")
        self.input_schema = input_schema or old.get("input_schema") or state_schema
        self.output_schema = output_schema or old.get("output_schema") or state_schema
        self.channels: dict[str, Channel] = {}
        self.managed: dict[str, type[ManagedValue]] = {}
        self.schemas: dict[Any, tuple[str, ...]] = {}
        self.nodes: dict[str, NodeDeclaration] = {}
        self.edges: set[tuple[str, str]] = set()
        self.waiting_edges: set[tuple[tuple[str, ...], str]] = set()
        self.branches: dict[str, dict[str, Branch]] = {}
        self.compiled = False
        self.default_retry_policies: tuple[RetryPolicy, ...] = ()
        """``set_node_defaults(retry_policy=...)``: for each node given none."""
        self.default_cache_policy: CachePolicy | None = None
        """``set_node_defaults(cache_policy=...)``: for each node given none."""
        self.default_timeout: TimeoutPolicy | None = None
        """``set_node_defaults(timeout=...)``: for each node given none."""
        self.default_error_handler: Any = None
        """``set_node_defaults(error_handler=...)``: for each node given none."""
        self._add_schema(state_schema, of_the_state=True, where="StateGraph({})")
        for schema, option in ((self.input_schema, "input"), (self.output_schema, "output")):
            self._add_schema(schema, False, where=f"StateGraph(..., {option}_schema={{}})")

    def __getattr__(self, name: str) -> Any:
        """Only for a missing attribute: a compiled graph's method, called on the builder
        (``builder.invoke(...)`` without ``compile()``), says to compile it first."""
        raise AttributeError(diagnose.not_compiled(type(self).__name__, name), name=name, obj=self)

    def _add_schema(
        self, schema: Any, allow_managed: bool = True, of_the_state: bool = False, where: str = ""
    ) -> None:
        """Add ``schema``'s keys; as in LangGraph, a key declared again must be the same
        kind of channel (or a plain one), and managed values live in the state only. An
        input or output schema may declare none (the state schema must: refused).
        ``where``: the call that gave it, ``{}`` for the schema (for errors)."""
        diagnose_schemas.check_schema(schema, where, of_the_state)
        if schema in self.schemas:
            return
        if not of_the_state and declares_no_keys(schema):
            self.schemas[schema] = ()
            return
        managed = managed_from_schema(schema)
        if managed and not allow_managed:
            raise ValueError(diagnose_schemas.managed_in_io_schema(schema, sorted(managed)))
        for key, channel in channels_from_schema(schema).items():
            known = self.channels.setdefault(key, channel)
            plain = isinstance(channel, LastValue)  # (a plain key keeps the first kind)
            if known is not channel and not plain and different_kinds(known, channel):
                raise ValueError(diagnose_schemas.channel_redeclared(schema, key, known, channel))
        for key, manager in managed.items():
            if (known_manager := self.managed.setdefault(key, manager)) is not manager:
                raise ValueError(
                    diagnose_schemas.channel_redeclared(schema, key, known_manager, manager)
                )
        self.schemas[schema] = schema_keys(schema)
        for said in diagnose_schemas.typed_dict_defaults(
            schema, self.schemas[schema], of_the_state
        ):
            warn(said)

    # -- nodes ----------------------------------------------------------------------------

    def add_node(
        self,
        node: str | Callable[..., Any] | Any,
        action: Callable[..., Any] | Any = None,
        *,
        defer: bool = False,
        metadata: Mapping[str, Any] | None = None,
        input_schema: Any = None,
        retry_policy: Any = None,
        cache_policy: Any = None,
        destinations: Sequence[str] | Mapping[str, str] | None = None,
        error_handler: Any = None,
        timeout: Any = None,
        **kwargs: Any,
    ) -> StateGraph:
        """Add a node: a function ``(state) -> update`` (or ``(state, config)``), or an
        object with ``.invoke``. The name defaults to the function's ``__name__``.

        >>> from typing import TypedDict
        >>> def shout(state):
        ...     return {"text": state["text"].upper()}
        >>> list(StateGraph(TypedDict("S", {"text": str})).add_node(shout).nodes)
        ['shout']

        ``error_handler``: a function ``(state, error: NodeError) -> update`` (or a
        ``Command``) that runs in the same step, on this node's input, when the node
        fails after its retries; it is added as node ``__error_handler__<name>``.
        ``timeout``: seconds, a ``timedelta`` or a ``TimeoutPolicy`` for each attempt of
        an async node (see ``docs/errors-and-timeouts.md``).
        """
        old = diagnose_arguments.renamed_node_arguments(kwargs)
        retry_policy = retry_policy if retry_policy is not None else old.get("retry_policy")
        input_schema = input_schema if input_schema is not None else old.get("input_schema")
        node, action = named_action(node, action)
        diagnose.check_node_name(node, self.nodes)
        diagnose_cache.check_cache_policy(f"add_node({node!r}, ...)", cache_policy)
        timeout = diagnose.timeout_policy(f"add_node({node!r}, ...)", timeout)
        where = f"Node {node!r}"
        policies = None if retry_policy is None else diagnose.retry_policies(where, retry_policy)
        if self.compiled:
            warn(diagnose.node_added_after_compile(node))
        warn_config_type(where, action)
        schema = input_schema or input_schema_of(action) or self.state_schema
        self._add_schema(schema, where=f"add_node({node!r}, ..., input_schema={{}})")
        if destinations is None:
            destinations = command_destinations(action)
        elif isinstance(destinations, Iterable) and not isinstance(destinations, Mapping):
            destinations = tuple(destinations)  # (anything else: refused at compile)
        handler = None if error_handler is None else self._add_handler(node, error_handler, schema)
        self.nodes[node] = NodeDeclaration(
            node,
            action,
            schema,
            diagnose.node_metadata(node, metadata),
            destinations,
            bool(defer),
            policies,  # None: none given, so set_node_defaults' apply; (): never retried
            cache_policy,
            timeout,
            handler,
        )
        return self

    def _add_handler(self, node: str, error_handler: Any, schema: Any) -> str:
        """Add ``node``'s error handler as its own node; return its name."""
        handler = f"{ERROR_HANDLER_PREFIX}{node}"
        if handler in self.nodes:
            raise ValueError(diagnose.handler_exists(node, handler))
        diagnose.check_action(handler, error_handler, f"add_node({node!r}, ..., error_handler=...)")
        destinations = command_destinations(error_handler)
        self.nodes[handler] = NodeDeclaration(
            handler, error_handler, schema, destinations=destinations, is_error_handler=True
        )
        return handler

    def add_sequence(self, nodes: Sequence[Any]) -> StateGraph:
        """Add nodes (functions or ``(name, function)`` pairs) chained by edges.

        >>> from typing import TypedDict
        >>> builder = StateGraph(TypedDict("S", {"x": int}))
        >>> sorted(builder.add_sequence([("a", lambda s: {}), ("b", lambda s: {})]).edges)
        [('a', 'b')]
        """
        diagnose.check_sequence(nodes)
        if not nodes:
            raise ValueError("add_sequence needs at least one node.")
        previous = None
        for item in nodes:
            diagnose.check_sequence_item(item)
            name, action = item if isinstance(item, tuple) else (infer_name(item), item)
            if name in self.nodes:
                raise ValueError(diagnose.duplicate_in_sequence(name, action))
            self.add_node(name, action)
            if previous is not None:
                self.add_edge(previous, name)
            previous = name
        return self

    # -- edges ----------------------------------------------------------------------------

    def add_edge(self, start_key: str | Sequence[str], end_key: str) -> StateGraph:
        """Run ``end_key`` in the step after ``start_key`` ran. With a list of start
        nodes, ``end_key`` waits until every one of them has run.

        >>> from typing import TypedDict
        >>> builder = StateGraph(TypedDict("S", {"x": int}))
        >>> for name in "abc":
        ...     builder = builder.add_node(name, lambda s: {})
        >>> builder.add_edge(START, "a").add_edge(["a", "b"], "c").waiting_edges
        {(('a', 'b'), 'c')}
        """
        if self.compiled:
            warn(diagnose.edge_added_after_compile(f"Edge {start_key!r} → {end_key!r}"))
        if isinstance(start_key, str):
            diagnose.check_edge(start_key, end_key)
            self.edges.add((start_key, end_key))
        else:
            starts = diagnose.waiting_starts(start_key, end_key)
            diagnose.check_waiting_edge(starts, end_key, self.nodes)
            self.waiting_edges.add((starts, end_key))
        return self

    def add_conditional_edges(
        self,
        source: str,
        path: Callable[..., Any] | Any,
        path_map: Mapping[Hashable, str] | list[str] | None = None,
    ) -> StateGraph:
        """After ``source`` runs, call ``path(state)``; run the node(s) it names (or
        that ``path_map`` maps its result to) in the next step. END stops that branch.
        ``path_map`` is a dict (any Mapping) or a list of names; as in LangGraph,
        anything else (a tuple, a set, one name as a string) is no path_map.

        >>> from typing import TypedDict
        >>> builder = StateGraph(TypedDict("S", {"x": int}))
        >>> builder = builder.add_conditional_edges(
        ...     START, lambda s: "big", ["big", "small"]
        ... )
        >>> builder.branches[START]["condition"].targets()
        ['big', 'small']
        """
        diagnose.check_branch_source(source, path)
        if self.compiled:
            warn(diagnose.edge_added_after_compile(f"The conditional edge from {source!r}"))
        schema = input_schema_of(path) if callable(path) else None
        warn_config_type(f"The router of the conditional edge from {source!r}", path)
        map_source = "path_map"
        if not isinstance(path_map, (Mapping, list)):  # (LangGraph reads no other kind)
            path_map = None
        if path_map is None:  # a router annotated -> Literal["a", "b"] names its targets
            path_map = literal_path_map(path)
            map_source = "-> Literal[...] return annotation"
        runnable = not callable(path)
        name = getattr(path, "name", None) if runnable else None  # (a Runnable's own)
        if runnable:
            if not callable(getattr(path, "invoke", None)):
                raise TypeError(diagnose.path_not_callable(source, path))
            path, name = path.invoke, name or "condition"
        if path_map is not None and not isinstance(path_map, Mapping):
            path_map = {name: name for name in path_map}
        name = name or getattr(path, "__name__", None) or "condition"
        name = "condition" if name == "<lambda>" else name
        branches = self.branches.setdefault(source, {})
        if name in branches:
            raise ValueError(diagnose.duplicate_branch(source, name))
        path_map = dict(path_map) if path_map else None  # (an empty one: none, as in LangGraph)
        branches[name] = Branch(source, path, path_map, name, schema, map_source, runnable)
        if schema is not None:
            self._add_schema(schema)
        return self

    def set_entry_point(self, key: str) -> StateGraph:
        """The same as ``add_edge(START, key)``."""
        return self.add_edge(START, key)

    def set_conditional_entry_point(
        self,
        path: Callable[..., Any],
        path_map: Mapping[Hashable, str] | list[str] | None = None,
    ) -> StateGraph:
        """The same as ``add_conditional_edges(START, path, path_map)``."""
        return self.add_conditional_edges(START, path, path_map)

    def set_finish_point(self, key: str) -> StateGraph:
        """The same as ``add_edge(key, END)``."""
        return self.add_edge(key, END)

    # -- compile --------------------------------------------------------------------------

    def set_node_defaults(
        self,
        *,
        retry_policy: Any = None,
        cache_policy: Any = None,
        error_handler: Any = None,
        timeout: Any = None,
    ) -> StateGraph:
        """Give every node that names none in ``add_node`` this retry policy (one
        ``RetryPolicy`` or a list of them) and cache policy (a ``CachePolicy``), as
        LangGraph 1.2 does. They apply at ``compile()``, to the nodes added before and
        after; None keeps what was set. ``error_handler`` handles the failures of every
        node without its own (declared as node ``__default_error_handler__``);
        ``timeout`` applies to every node without its own, error handlers included.

        >>> from typing import TypedDict
        >>> from graphkit import RetryPolicy
        >>> builder = StateGraph(TypedDict("S", {"x": int}))
        >>> builder = builder.set_node_defaults(retry_policy=RetryPolicy(max_attempts=5))
        >>> app = builder.add_node("a", lambda s: {}).add_edge(START, "a").compile()
        >>> app.spec.nodes["a"].retry_policies[0].max_attempts
        5
        """
        diagnose_cache.check_cache_policy("set_node_defaults(...)", cache_policy)
        if timeout is not None:
            self.default_timeout = diagnose.timeout_policy("set_node_defaults(...)", timeout)
        if error_handler is not None:
            diagnose.check_action(DEFAULT_ERROR_HANDLER, error_handler, "set_node_defaults(...)")
            self.default_error_handler = error_handler
        if retry_policy is not None:
            # read by compile(); the declared nodes stay as declared
            self.default_retry_policies = diagnose.retry_policies(
                "set_node_defaults(retry_policy=...)", retry_policy
            )
        if cache_policy is not None:
            self.default_cache_policy = cache_policy
        return self

    def validate(self) -> None:
        """Raise ValueError for what cannot run; warn about what is likely a mistake.

        >>> from typing import TypedDict
        >>> builder = StateGraph(TypedDict("S", {"x": int})).add_node("a", lambda s: {})
        >>> builder.validate()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ValueError: Graph must have an entrypoint: add an edge from START, ...
        """
        diagnose_graph.validate(self)

    def compile(
        self,
        checkpointer: Any = None,
        *,
        store: Any = None,
        executor: Any = None,
        interrupt_before: Any = None,
        interrupt_after: Any = None,
        cache: Any = None,
        debug: bool = False,
        name: str | None = None,
        **kwargs: Any,
    ) -> CompiledGraph:
        """Check the graph and turn it into a runnable ``CompiledGraph``.

        ``checkpointer``: a saver (``InMemorySaver()``, ``SqliteSaver``...) to keep the
        state of each thread; for a subgraph, ``True`` keeps its own thread across calls
        within its parent's, ``False`` saves nothing, ``None`` saves each call apart (a
        subgraph always saves through its parent's saver, as in LangGraph).

        ``cache``: where nodes with a ``CachePolicy`` keep their writes, e.g.
        ``InMemoryCache()`` or ``SqliteCache("cache.db")`` (``graphkit.cache``).

        ``executor`` (a graphkit extension): a ``concurrent.futures.Executor`` for a step's
        parallel tasks, e.g. a dask client's ``get_executor()``; default: a shared thread pool.

        >>> from typing import TypedDict
        >>> builder = StateGraph(TypedDict("S", {"x": int}))
        >>> builder = builder.add_node("a", lambda s: {"x": 2})
        >>> builder.add_edge(START, "a").compile().invoke({"x": 1})
        {'x': 2}
        """
        transformers = tuple(kwargs.pop("transformers", None) or ())  # (v3 runs': stream)
        diagnose_arguments.refuse_unknown("compile", kwargs, diagnose_arguments.COMPILE_OPTIONS)
        diagnose.refuse_langgraph_saver("compile", checkpointer)
        saver_like = callable(getattr(checkpointer, "get_tuple", None))
        saver_like &= not isinstance(checkpointer, type)  # (the class: InMemorySaver)
        if not (checkpointer is None or isinstance(checkpointer, bool) or saver_like):
            raise TypeError(diagnose.bad_checkpointer(checkpointer))
        spec = compile_graph(self)
        diagnose.check_interrupts(interrupt_before, interrupt_after, self.nodes)
        diagnose_cache.check_cache(cache)
        self.compiled = True
        app = CompiledGraph(
            spec,
            builder=self,
            name=name or "LangGraph",
            store=store,
            cache=cache,
            executor=executor,
            debug=debug,
            # the classes the schemas declare may be rebuilt from its rows (an allow-list)
            checkpointer=allow_schema_classes(checkpointer, [*self.schemas, self.context_schema]),
            interrupt_before=interrupt_before or (),
            interrupt_after=interrupt_after or (),
        )
        app.stream_transformers = transformers
        return app
