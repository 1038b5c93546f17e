"""``from_langgraph``: a compiled LangGraph ``StateGraph`` rebuilt as a graphkit graph.

The LangGraph graph's builder is read declaration by declaration and replayed on
graphkit's ``StateGraph``, so the result is the graph graphkit would have compiled from
the same code: schemas (a field annotated with one of LangGraph's channels or managed
values gets graphkit's), nodes with their original functions (wrapped so that code written
for LangGraph runs, see ``graphkit.bridge.interop``) and options, edges, waiting edges,
conditional edges with their path maps, and the compile options. A compiled LangGraph
graph used as a node, or held in a node function's closure, is converted too. What
graphkit cannot carry over is refused with an error that names it.
"""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from typing import Annotated, Any, NotRequired, Required, get_args, get_origin, get_type_hints

from graphkit import channels as gk_channels
from graphkit import managed as gk_managed
from graphkit.bridge.interop import ConvertedGraph, InLangGraphContext, wrap
from graphkit.bridge.stores import observed
from graphkit.diagnostics.building import refuse_langgraph_saver
from graphkit.diagnostics.threads import config_not_dict
from graphkit.errors import warn
from graphkit.graph.declaration import DEFAULT_ERROR_HANDLER
from graphkit.pregel.app import CompiledGraph
from graphkit.pregel.config import loose_keys_configurable, merge_configs
from graphkit.pregel.records import Run

__all__ = ["TESTED_LANGGRAPH", "as_graphkit", "check_langgraph_version", "from_langgraph", "trace"]

TESTED_LANGGRAPH = ((1, 2), (1, 3))
"""The LangGraph releases ``from_langgraph`` is tested with, >=1.2,<1.3 (lowest
included, highest excluded); others get a warning."""


def from_langgraph(compiled: Any, *, checkpointer: Any = None) -> CompiledGraph:
    """A graphkit ``CompiledGraph`` that behaves as the compiled LangGraph graph does.

    LangGraph's checkpointer is not reused: the result has none unless the LangGraph
    graph had one, then a graphkit ``InMemorySaver``; ``checkpointer=`` (a graphkit saver)
    overrides that.

    >>> from typing import TypedDict
    >>> from langgraph.graph import StateGraph, START
    >>> class State(TypedDict):
    ...     n: int
    >>> builder = StateGraph(State).add_node("inc", lambda s: {"n": s["n"] + 1})
    >>> app = from_langgraph(builder.add_edge(START, "inc").compile())
    >>> [step.plan.nodes for step in app.trace({"n": 1}).steps], app.invoke({"n": 1})
    ([['__input__'], ['__start__'], ['inc']], {'n': 2})
    """
    check_langgraph_version()
    if not _is_langgraph_graph(compiled):
        raise TypeError(_not_accepted(compiled, "from_langgraph"))
    refuse_langgraph_saver("from_langgraph", checkpointer)
    return _Converter(_root_saver(compiled.checkpointer, checkpointer)).graph(compiled)


def as_graphkit(obj: Any) -> CompiledGraph:
    """``obj`` as a graphkit graph: a graphkit ``CompiledGraph`` as it is, a compiled
    LangGraph graph converted by ``from_langgraph``.

    >>> as_graphkit(42)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    TypeError: Expected a graphkit CompiledGraph or a compiled LangGraph ..., got int (42). ...
    """
    return graph_for(obj, "as_graphkit")


def graph_for(obj: Any, where: str) -> CompiledGraph:
    """``as_graphkit(obj)``, refusing anything else in the words of the call the user
    made, ``where`` (``trace``, ``DebugSession``): they never called ``as_graphkit``."""
    if isinstance(obj, CompiledGraph):
        return obj
    if _is_langgraph_graph(obj):
        return from_langgraph(obj)
    if isinstance(obj, Run) and where == "DebugSession":
        raise TypeError(
            f"DebugSession(app, input) takes a graph, got a Run ({obj!r}): to step through "
            "a recorded run, open it with DebugSession.from_run(app, run)."
        )
    if type(obj).__name__ in ("DebugSession", "Debugger"):  # (the widgets: not imported)
        its = (
            "its session is debugger.session, its graph debugger.session.app"
            if type(obj).__name__ == "Debugger"
            else "its graph is session.app"
        )
        raise TypeError(
            f"{where}() takes a graph, got a {type(obj).__name__} ({obj!r}): {its}. To "
            "show a session in the widget, write Debugger(session)."
        )
    raise TypeError(_not_accepted(obj, where))


def trace(app: Any, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Run:
    """``app.trace(...)`` for a graphkit graph or a compiled LangGraph graph: run it to
    the end on graphkit and return the recorded ``Run``.

    >>> from typing import TypedDict
    >>> from langgraph.graph import StateGraph, START
    >>> class State(TypedDict):
    ...     n: int
    >>> builder = StateGraph(State).add_node("inc", lambda s: {"n": s["n"] + 1})
    >>> trace(builder.add_edge(START, "inc").compile(), {"n": 1}).values
    {'n': 2}
    """
    if config is not None and not isinstance(config, Mapping):  # (it met .get below)
        raise TypeError(config_not_dict(config))
    config = loose_keys_configurable(config)  # {'thread_id': ...}, as a run takes it
    thread = ((config or {}).get("configurable") or {}).get("thread_id")
    # (LangGraph's Command or graphkit's: a user of a LangGraph app passes LangGraph's.
    # Any Command, a resume, an update or a goto, goes on from the thread's saved state.)
    goes_on = input is None or type(input).__name__ == "Command"
    if thread is not None and goes_on and _is_langgraph_graph(app):
        raise ValueError(
            f"trace(app, ...) converts a LangGraph app anew on each call, with a new "
            f"graphkit in-memory saver, so thread {thread!r} has no checkpoint in it, "
            "whatever ran on it before (and LangGraph's own saver is not read): there is "
            "nothing to resume or go on from. Convert the app once and trace on that graph: "
            "graph = from_langgraph(app), then graph.trace(input, config) and "
            "graph.trace(Command(resume=...), config). To read the thread LangGraph saved, "
            "use open_langgraph_thread(app, config)."
        )
    return graph_for(app, "trace").trace(input, config, **kwargs)


def _not_accepted(obj: Any, where: str) -> str:
    shown = repr(obj)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    if type(obj).__name__ == "Pregel" and (type(obj).__module__ or "").startswith("langgraph"):
        return (
            f"{where}() converts graphs built with LangGraph's StateGraph; this is a "
            "LangGraph Pregel (a functional-API @entrypoint, or one built with Pregel(...) "
            "itself), which it does not convert. graphkit has the same API: import "
            "entrypoint and task from graphkit.func (Pregel, NodeBuilder from "
            "graphkit.pregel) instead of langgraph's, and the same code runs on graphkit."
        )
    if isinstance(obj, CompiledGraph):  # (only from_langgraph refuses one)
        return (
            f"{where}() converts a graph compiled with LangGraph, and this "
            f"{type(obj).__name__} is graphkit's already: use it as it is (as_graphkit() "
            "takes either kind)."
        )
    expected = "a compiled LangGraph StateGraph"
    expected = expected if where == "from_langgraph" else f"a graphkit CompiledGraph or {expected}"
    return (
        f"Expected {expected}, got {type(obj).__name__} ({shown}). {where}() reads a graph "
        "made by StateGraph(...).compile(); for a builder, call .compile() first."
    )


def _is_langgraph_graph(obj: Any) -> bool:
    """True for LangGraph's ``CompiledStateGraph``, without importing LangGraph when
    ``obj`` cannot be one (a graphkit graph, a number)."""
    module = type(obj).__module__ or ""
    if not module.startswith("langgraph"):
        return False
    from langgraph.graph.state import CompiledStateGraph

    return isinstance(obj, CompiledStateGraph)


def check_langgraph_version() -> None:
    """Warn when the installed LangGraph is outside ``TESTED_LANGGRAPH``."""
    try:
        installed = metadata.version("langgraph")
    except metadata.PackageNotFoundError:
        return
    release = tuple(int(part) for part in installed.split(".")[:2] if part.isdigit())
    low, high = TESTED_LANGGRAPH
    if not low <= release < high:
        tested = f">={'.'.join(map(str, low))},<{'.'.join(map(str, high))}"
        warn(
            f"graphkit's LangGraph bridge is tested with langgraph{tested}; "
            f"langgraph {installed} is installed. The conversion may miss or misread "
            "options; compare a run on both (e.g. with the conformance harness)."
        )


@dataclass
class _Converter:
    """One conversion: the schemas translated so far (each once, so a schema shared by
    the graph and its nodes stays one class) and the LangGraph graphs converted so far."""

    saver: Any
    """The root graph's graphkit saver (or None/True/False): a subgraph that LangGraph
    gave a saver of its own saves through it, as graphkit's subgraphs do."""
    schemas: dict[Any, Any] = field(default_factory=dict)
    graphs: dict[int, CompiledGraph] = field(default_factory=dict)

    def graph(self, compiled: Any, *, subgraph: bool = False) -> Any:
        from graphkit.graph import StateGraph

        if id(compiled) in self.graphs:
            return self.graphs[id(compiled)]
        source = compiled.builder
        where = f"LangGraph graph {compiled.name!r}"
        builder = StateGraph(
            self.schema(source.state_schema, where),
            self.schema(source.context_schema, where),
            input_schema=self.schema(source.input_schema, where),
            output_schema=self.schema(source.output_schema, where),
        )
        defaults = getattr(source, "_node_defaults", None)
        if defaults is not None and defaults.retry_policy is not None:
            builder.set_node_defaults(retry_policy=defaults.retry_policy)
        if defaults is not None and getattr(defaults, "cache_policy", None) is not None:
            builder.set_node_defaults(cache_policy=defaults.cache_policy)  # (duck-typed)
        if defaults is not None and getattr(defaults, "timeout", None) is not None:
            builder.set_node_defaults(timeout=_timeout(defaults.timeout))
        if defaults is not None and getattr(defaults, "error_handler", None) is not None:
            handler = self.callable(defaults.error_handler, f"{where}, default error handler",
                                    node=True)  # fmt: skip
            builder.set_node_defaults(error_handler=handler)
        # the compiled graph's own policies serve nodes with none, as the builder's do
        if (
            getattr(compiled, "retry_policy", None)
            and getattr(defaults, "retry_policy", None) is None
        ):
            builder.set_node_defaults(retry_policy=compiled.retry_policy)
        if (
            getattr(compiled, "cache_policy", None)
            and getattr(defaults, "cache_policy", None) is None
        ):
            builder.set_node_defaults(cache_policy=compiled.cache_policy)
        for name, spec in source.nodes.items():
            if not getattr(spec, "is_error_handler", False):  # added with the node it serves
                self.node(builder, name, spec, where, source.nodes)
        for start, end in sorted(source.edges):
            builder.add_edge(start, end)
        for starts, end in sorted(source.waiting_edges):
            builder.add_edge(list(starts), end)
        for start, branches in source.branches.items():
            for name, branch in branches.items():
                path = self.callable(branch.path, f"router {name!r} of node {start!r}", node=False)
                builder.add_conditional_edges(start, path, branch.ends)
        app = ConvertedGraph.from_compiled(
            builder.compile(
                self.saver if not subgraph else _subgraph_saver(compiled.checkpointer, self.saver),
                store=observed(compiled.store),  # (its operations show in the run)
                cache=getattr(compiled, "cache", None),  # get / set / clear, as graphkit's
                interrupt_before=_breakpoints(compiled.interrupt_before_nodes),
                interrupt_after=_breakpoints(compiled.interrupt_after_nodes),
                debug=compiled.debug,
                name=compiled.name,
                transformers=_transformers(compiled, where),
            )
        )
        app.step_timeout = getattr(compiled, "step_timeout", None)
        if defaults := getattr(compiled, "config", None):  # with_config(...)
            app.config = merge_configs(defaults)
        self.graphs[id(compiled)] = app
        return app

    def node(self, builder: Any, name: str, spec: Any, where: str, nodes: Any) -> None:
        where = f"{where}, node {name!r}"
        ends = spec.ends or None
        named = getattr(spec, "error_handler_node", None)
        # LangGraph's compile() wrote its default handler's name onto every node without
        # one: that is set_node_defaults' handler, carried over as such
        handler_spec = nodes.get(named) if named != DEFAULT_ERROR_HANDLER else None
        handler = None
        if handler_spec is not None:
            handler = self.callable(handler_spec.runnable, f"{where}'s error handler", node=True)
        timeout = getattr(spec, "timeout", None)
        builder.add_node(
            name,
            self.callable(spec.runnable, where, node=True),
            defer=spec.defer,
            metadata=spec.metadata,
            input_schema=self.schema(spec.input_schema, where),
            retry_policy=spec.retry_policy,  # (LangGraph's: add_node takes it)
            destinations=dict(ends) if isinstance(ends, dict) else ends,
            error_handler=handler,
            timeout=None if timeout is None else _timeout(timeout),
            cache_policy=getattr(spec, "cache_policy", None),  # LangGraph's works as it is
        )

    def callable(self, runnable: Any, where: str, *, node: bool) -> Any:
        """What graphkit runs for a LangGraph node or router."""
        if _is_langgraph_graph(runnable):
            return self.graph(runnable, subgraph=True)
        function = _function_of(runnable)
        if function is None or _has_both_sides(runnable):
            if callable(getattr(runnable, "invoke", None)):  # a Runnable: its .invoke
                return InLangGraphContext(runnable, where)
            raise NotImplementedError(
                f"{where} is a {type(runnable).__name__}, which graphkit cannot call: "
                "give LangGraph a plain function, or an object with .invoke."
            )
        wrapped = wrap(self.closure(function), node=node, where=where)
        wrapped.__annotations__ = self.annotations(function, where)
        return wrapped

    def closure(self, function: Any) -> Any:
        """``function``, or a copy that finds the converted graph where it found a
        compiled LangGraph graph: in its closure, or in a module global it names (a graph
        invoked inside a node runs as graphkit's subgraph: its records, interrupts and
        streams take part in the run)."""
        cells = getattr(function, "__closure__", None) or ()
        contents = [_cell_value(cell) for cell in cells]
        code = getattr(function, "__code__", None)
        module = getattr(function, "__globals__", {})
        named = code.co_names if code is not None else ()
        graphs = {name: module[name] for name in named if _is_langgraph_graph(module.get(name))}
        if not graphs and not any(_is_langgraph_graph(value) for value in contents):
            return function
        new_cells = tuple(
            types.CellType(self.graph(value, subgraph=True)) if _is_langgraph_graph(value) else cell
            for cell, value in zip(cells, contents, strict=True)
        )
        shadowed = {name: self.graph(graph, subgraph=True) for name, graph in graphs.items()}
        copy = types.FunctionType(
            function.__code__,
            _Globals(shadowed, module) if shadowed else module,
            function.__name__,
            function.__defaults__,
            new_cells or None,
        )
        copy.__kwdefaults__ = function.__kwdefaults__
        copy.__dict__.update(function.__dict__)
        copy.__annotations__ = dict(function.__annotations__)
        copy.__qualname__ = function.__qualname__
        copy.__module__ = function.__module__
        return copy

    def annotations(self, function: Any, where: str) -> dict[str, Any]:
        """``function``'s annotations with each state schema replaced by its translation
        (graphkit reads a node's or router's input schema from them)."""
        try:
            hints = get_type_hints(function)
        except (NameError, TypeError):
            return dict(getattr(function, "__annotations__", {}) or {})
        return {
            key: self.schema(hint, where) if _is_schema_class(hint) else hint
            for key, hint in hints.items()
        }

    def schema(self, schema: Any, where: str) -> Any:
        """``schema``, or a subclass of it whose fields use graphkit's channels and
        managed values where it used LangGraph's (the same class when it used none)."""
        if schema is None or not _is_schema_class(schema):
            return schema
        if schema not in self.schemas:
            hints = get_type_hints(schema, include_extras=True)
            translated = {
                key: _hint(hint, f"{where}, field {key!r}") for key, hint in hints.items()
            }
            if all(translated[key] is hints[key] for key in hints):
                self.schemas[schema] = schema
            else:
                namespace = {"__annotations__": translated, "__module__": schema.__module__}
                namespace.update(_pydantic_defaults(schema))
                subclass = type(schema)(schema.__name__, (schema,), namespace)
                subclass.__qualname__ = schema.__qualname__
                # (its instances, in a Send or a node's input, are saved as the user's class)
                type.__setattr__(subclass, "__graphkit_saved_as__", schema)
                self.schemas[schema] = subclass
        return self.schemas[schema]


def _root_saver(original: Any, given: Any) -> Any:
    """``checkpointer=`` if given; else nothing for a graph LangGraph saved nothing for,
    and a graphkit ``InMemorySaver`` in place of a LangGraph saver."""
    if given is not None:
        return given
    if original is None or isinstance(original, bool):
        return original
    from graphkit.checkpoint import InMemorySaver

    return InMemorySaver()


def _subgraph_saver(original: Any, root: Any) -> Any:
    """A subgraph's ``checkpointer``: None/True/False as LangGraph's was, the root's
    saver in place of a saver of its own."""
    if original is None or isinstance(original, bool):
        return original
    return root if root is not None and not isinstance(root, bool) else True


def _pydantic_defaults(schema: Any) -> dict[str, Any]:
    """A pydantic model's field defaults, which a subclass redeclaring the fields must
    repeat (a dataclass or TypedDict subclass keeps its parent's)."""
    fields = getattr(schema, "model_fields", None)
    if not isinstance(fields, dict):
        return {}
    from pydantic import Field

    defaults: dict[str, Any] = {}
    for key, info in fields.items():
        if info.default_factory is not None:
            defaults[key] = Field(default_factory=info.default_factory)
        elif not info.is_required():
            defaults[key] = info.default
    return defaults


def _transformers(compiled: Any, where: str) -> tuple[Any, ...]:
    """The ``compile(transformers=...)`` a v3 run of the converted graph can use:
    graphkit's ``StreamTransformer`` classes. LangGraph's would fail in graphkit's event
    router (they lack its hooks), so they are left out, with a warning that names them."""
    from graphkit.stream import StreamTransformer

    given = tuple(getattr(compiled, "stream_transformers", ()) or ())
    kept = tuple(
        item for item in given if inspect.isclass(item) and issubclass(item, StreamTransformer)
    )
    if left := [getattr(item, "__name__", repr(item)) for item in given if item not in kept]:
        warn(
            f"{where} was compiled with transformers={left}, which the converted graph "
            "leaves out: graphkit's v3 stream runs graphkit's StreamTransformer classes, "
            "not LangGraph's. Write them on graphkit.stream.StreamTransformer (the same "
            "methods) and pass them to stream_events(..., transformers=[...])."
        )
    return kept


def _timeout(policy: Any) -> Any:
    """LangGraph's TimeoutPolicy as graphkit's."""
    from graphkit.types import TimeoutPolicy

    return TimeoutPolicy(policy.run_timeout, policy.idle_timeout, policy.refresh_on)


def _breakpoints(nodes: Any) -> Any:
    return nodes if isinstance(nodes, str) else tuple(nodes or ())


def _function_of(runnable: Any) -> Callable[..., Any] | None:
    """The user's function inside LangGraph's ``RunnableCallable``: the sync one, else
    the async one (LangGraph adds an async twin that runs a sync function in a thread).
    A subclass (a ``ToolNode``) is a Runnable of its own, with an async side of its own."""
    from langgraph._internal._runnable import RunnableCallable

    if type(runnable) is RunnableCallable:
        return runnable.func if runnable.func is not None else runnable.afunc
    if inspect.isfunction(runnable) or inspect.ismethod(runnable):
        return runnable
    return None


def _has_both_sides(runnable: Any) -> bool:
    """True for a ``RunnableCallable`` given a sync and an async function (as
    ``create_react_agent``'s model node is): LangGraph runs the async one in async runs,
    so graphkit calls it as the Runnable it is, by ``invoke`` or ``ainvoke``. Not the
    twin LangGraph adds to a sync function (a partial that runs it in a thread)."""
    func, afunc = getattr(runnable, "func", None), getattr(runnable, "afunc", None)
    if func is None or afunc is None:
        return False
    return not (isinstance(afunc, functools.partial) and func in afunc.args)


class _Globals(dict):  # type: ignore[type-arg]
    """A node function's module globals with the LangGraph graphs it names shadowed by
    their conversions; every other name is read from the module, as it is now."""

    def __init__(self, shadowed: dict[str, Any], module: dict[str, Any]) -> None:
        super().__init__(shadowed, __builtins__=module.get("__builtins__", __builtins__))
        self.module = module

    def __missing__(self, name: str) -> Any:
        return self.module[name]


def _cell_value(cell: Any) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None


def _is_schema_class(hint: Any) -> bool:
    return inspect.isclass(hint) and bool(getattr(hint, "__annotations__", None))


def _hint(hint: Any, where: str) -> Any:
    """A field's annotation with LangGraph's channel or managed value replaced (also
    under ``NotRequired[...]`` / ``Required[...]``, as create_react_agent's state has it)."""
    origin = get_origin(hint)
    if origin in (NotRequired, Required):
        inner = get_args(hint)[0]
        replaced = _hint(inner, where)
        return hint if replaced is inner else origin[replaced]
    if origin is not Annotated:
        return hint
    metadata_items = [_marker(item, where) for item in hint.__metadata__]
    if all(new is old for new, old in zip(metadata_items, hint.__metadata__, strict=True)):
        return hint
    return Annotated[(hint.__origin__, *metadata_items)]  # type: ignore[return-value]


_CHANNEL_ARGUMENTS = {
    "LastValue": (),
    "AnyValue": (),
    "LastValueAfterFinish": (),
    "BinaryOperatorAggregate": ("operator",),
    "DeltaChannel": ("reducer",),  # (made with its keyword, below)
    "EphemeralValue": ("guard",),
    "UntrackedValue": ("guard",),
    "Topic": ("accumulate",),
    "NamedBarrierValue": ("names",),
    "NamedBarrierValueAfterFinish": ("names",),
}


def _marker(item: Any, where: str) -> Any:
    """graphkit's counterpart of one ``Annotated`` marker from LangGraph, else ``item``."""
    from langgraph.channels.base import BaseChannel
    from langgraph.managed.base import ManagedValue

    is_class = inspect.isclass(item)
    if is_class and issubclass(item, ManagedValue):
        counterpart = getattr(gk_managed, item.__name__, None)
        if counterpart is None:
            raise NotImplementedError(_no_counterpart(where, "managed value", item))
        return counterpart
    if not (isinstance(item, BaseChannel) or (is_class and issubclass(item, BaseChannel))):
        return item
    kind = item if is_class else type(item)
    if kind.__name__ not in _CHANNEL_ARGUMENTS or kind.__module__.split(".")[0] != "langgraph":
        raise NotImplementedError(_no_counterpart(where, "channel", kind))
    counterpart = getattr(gk_channels, kind.__name__)
    if is_class:
        return counterpart
    if kind.__name__ == "DeltaChannel":  # (the reducer first, as in LangGraph)
        return counterpart(item.reducer, item.typ, snapshot_frequency=item.snapshot_frequency)
    arguments = [getattr(item, name) for name in _CHANNEL_ARGUMENTS[kind.__name__]]
    return counterpart(item.typ, *arguments)


def _no_counterpart(where: str, what: str, kind: type) -> str:
    return (
        f"{where} uses the {what} {kind.__module__}.{kind.__qualname__}, which graphkit has "
        f"no counterpart for; graphkit's channels are {', '.join(sorted(_CHANNEL_ARGUMENTS))} "
        "and its managed values RemainingSteps and IsLastStep."
    )
