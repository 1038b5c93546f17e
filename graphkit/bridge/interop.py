"""Run node code written for LangGraph on graphkit's runtime.

Such code returns LangGraph's ``Command``, ``Send``, ``Overwrite`` and ``Interrupt`` and
calls ``langgraph.types.interrupt``, ``langgraph.config.get_config`` /
``get_stream_writer`` / ``get_store`` and ``langgraph.runtime.get_runtime``. Those
functions read LangGraph's run context from langchain-core's config context variable, so
``wrap`` puts there, for the length of one call, the task's config plus the three entries
they read: the runtime (graphkit's, whose fields have LangGraph's names), a scratchpad
whose only job is to hand ``interrupt()`` its answers from graphkit's task scope, and a
``send`` that accepts nothing but LangGraph's bookkeeping of those answers. What the node
returns is translated to graphkit's objects, and so is what a converted graph is given
(``ConvertedGraph``). Anything else LangGraph's runtime would ask for fails with an error
naming it. LangGraph is imported when a wrapper first runs.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from graphkit import types as gk
from graphkit.errors import GraphInterrupt
from graphkit.pregel import runtime as gk_runtime
from graphkit.pregel.app import CompiledGraph

__all__ = ["ConvertedGraph", "InLangGraphContext", "to_graphkit", "wrap"]

_ASKED = object()
"""The value graphkit's ``interrupt()`` is called with while LangGraph's asks (never shown)."""


class ConvertedGraph(CompiledGraph):
    """A graph made by ``from_langgraph``: a graphkit ``CompiledGraph`` that also takes
    LangGraph's ``Command`` (e.g. ``Command(resume=...)``) and ``Overwrite`` as input,
    as the LangGraph graph it came from does.

    >>> from typing import TypedDict
    >>> from langgraph.graph import StateGraph, START
    >>> from langgraph.types import Command
    >>> from graphkit.bridge.convert import from_langgraph
    >>> class State(TypedDict):
    ...     n: int
    >>> builder = StateGraph(State).add_node("inc", lambda s: {"n": s["n"] + 1})
    >>> app = from_langgraph(builder.add_edge(START, "inc").compile())
    >>> type(app).__name__, app.invoke(Command(update={"n": 1}, goto="inc"))
    ('ConvertedGraph', {'n': 2})
    """

    @classmethod
    def from_compiled(cls, app: CompiledGraph) -> ConvertedGraph:
        converted = cls.__new__(cls)
        converted.__dict__.update(app.__dict__)
        return converted

    def stepper(self, input: Any, *args: Any, **kwargs: Any) -> Any:
        return super().stepper(to_graphkit(input), *args, **kwargs)

    def trace(self, input: Any, *args: Any, **kwargs: Any) -> Any:
        with langgraph_errors():
            return super().trace(input, *args, **kwargs)

    def invoke(self, input: Any, *args: Any, **kwargs: Any) -> Any:
        with langgraph_errors():
            return super().invoke(to_graphkit(input), *args, **kwargs)

    def stream(self, input: Any, *args: Any, **kwargs: Any) -> Any:
        with langgraph_errors():  # (ainvoke and astream read this stream)
            yield from super().stream(to_graphkit(input), *args, **kwargs)

    async def ainvoke(self, input: Any, *args: Any, **kwargs: Any) -> Any:
        return await super().ainvoke(to_graphkit(input), *args, **kwargs)

    def astream(self, input: Any, *args: Any, **kwargs: Any) -> Any:
        return super().astream(to_graphkit(input), *args, **kwargs)

    def update_state(self, config: Any, values: Any, *args: Any, **kwargs: Any) -> Any:
        with langgraph_errors():
            return super().update_state(config, to_graphkit(values), *args, **kwargs)

    async def aupdate_state(self, config: Any, values: Any, *args: Any, **kwargs: Any) -> Any:
        with langgraph_errors():
            return await super().aupdate_state(config, to_graphkit(values), *args, **kwargs)


_BOTH: dict[type, type] = {}
"""graphkit's error class -> its subclass that is LangGraph's class of that name too."""


@contextlib.contextmanager
def langgraph_errors() -> Iterator[None]:
    """Raise graphkit's errors as LangGraph's too: code written for LangGraph catches
    ``langgraph.errors.GraphRecursionError`` (``InvalidUpdateError``, ``EmptyInputError``...)
    around ``invoke``, and a converted graph must not slip past it. The error keeps its
    graphkit class (graphkit's ``except`` clauses and ``error.run`` still hold); its
    class becomes a subclass of both.

    >>> from langgraph import errors
    >>> from graphkit.errors import GraphRecursionError
    >>> with contextlib.suppress(errors.GraphRecursionError), langgraph_errors():
    ...     raise GraphRecursionError("too many steps")
    """
    try:
        yield
    except Exception as error:
        kind = type(error)
        both = _BOTH.get(kind) or _both(kind)
        if both is not None:
            error.__class__ = both
        raise


def _both(kind: type) -> type | None:
    from langgraph import errors

    theirs = getattr(errors, kind.__name__, None)
    if kind.__module__ != "graphkit.errors" or not isinstance(theirs, type):
        return None
    if issubclass(kind, theirs) or not issubclass(theirs, Exception):
        return None

    def reduce(error: BaseException) -> Any:  # pickled as graphkit's class, which imports
        return kind, error.args, error.__dict__ or None

    namespace = {"__module__": kind.__module__, "__doc__": kind.__doc__, "__reduce__": reduce}
    return _BOTH.setdefault(kind, type(kind.__name__, (kind, theirs), namespace))


def to_graphkit(value: Any) -> Any:
    """``value`` with LangGraph's control-flow objects replaced by graphkit's: at the top,
    in a list or tuple, in a dict's values and inside a ``Command``'s update and goto.

    >>> from langgraph.types import Command, Send
    >>> to_graphkit([Command(goto=Send("b", 1)), {"n": 2}])
    [Command(goto=Send(node='b', arg=1)), {'n': 2}]
    """
    from langgraph import types as lg

    if isinstance(value, lg.Command):
        return gk.Command(
            update=to_graphkit(value.update),
            goto=to_graphkit(value.goto),
            graph=value.graph,
            resume=value.resume,
        )
    if isinstance(value, lg.Send):
        policy = getattr(value, "timeout", None)  # (LangGraph 1.2 and later)
        timeout = policy and gk.TimeoutPolicy(
            policy.run_timeout, policy.idle_timeout, policy.refresh_on
        )
        return gk.Send(value.node, value.arg, timeout=timeout)
    if isinstance(value, lg.Overwrite):
        return gk.Overwrite(value.value)
    if isinstance(value, lg.Interrupt):
        schema = getattr(value, "response_schema", None)  # (LangGraph 1.2 has it)
        return gk.Interrupt(value=value.value, id=value.id, response_schema=schema)
    if isinstance(value, list | tuple) and type(value) in (list, tuple):
        return type(value)(to_graphkit(item) for item in value)
    if type(value) is dict and any(isinstance(v, lg.Overwrite) for v in value.values()):
        return {key: to_graphkit(item) for key, item in value.items()}
    return value


def wrap(function: Callable[..., Any], *, node: bool, where: str) -> Callable[..., Any]:
    """A callable graphkit runs in place of ``function`` (a node's action when ``node``, a
    router otherwise): same signature and annotations, so graphkit injects the same
    parameters; LangGraph's context around each call; graphkit's objects out.

    ``where`` names the node or router in errors. A node's wrapper also asks graphkit for
    the task's ``config`` (what ``get_config()`` returns) and hands it on only if
    ``function`` declared it.
    """
    wants_config = "config" in _parameters(function)
    is_async = inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(
        getattr(function, "__call__", None)  # noqa: B004
    )

    def arguments(kwargs: dict[str, Any]) -> Any:
        config = kwargs.get("config")
        if node and not wants_config:
            kwargs.pop("config", None)
        return config

    def given(kwargs: dict[str, Any], config: Any) -> dict[str, Any]:
        # a function that takes config gets LangGraph's, which it may hand on to the
        # runnables (tools, chains) it calls: what LangGraph's functions read is in it
        return {**kwargs, "config": config} if "config" in kwargs else kwargs

    if is_async:

        async def call_async(*args: Any, **kwargs: Any) -> Any:
            with _langgraph_context(arguments(kwargs), where) as (scratchpad, config):
                try:
                    return to_graphkit(await function(*args, **given(kwargs, config)))
                except Exception as error:
                    raise _translated(error, scratchpad) from None

        wrapper: Callable[..., Any] = call_async
    else:

        def call(*args: Any, **kwargs: Any) -> Any:
            with _langgraph_context(arguments(kwargs), where) as (scratchpad, config):
                try:
                    return to_graphkit(function(*args, **given(kwargs, config)))
                except Exception as error:
                    raise _translated(error, scratchpad) from None

        wrapper = call
    functools.update_wrapper(wrapper, function)
    signature = _with_config(function) if node and not wants_config else None
    if signature is not None:  # graphkit injects by parameter name: ask for config
        wrapper.__signature__ = signature  # type: ignore[attr-defined]
    return wrapper


def _parameters(function: Callable[..., Any]) -> Mapping[str, inspect.Parameter]:
    try:
        return inspect.signature(function).parameters
    except (TypeError, ValueError):
        return {}


def _with_config(function: Callable[..., Any]) -> inspect.Signature | None:
    """``function``'s signature plus a keyword-only ``config`` parameter (None when it
    has no signature to read: then get_config() sees the run's config, not the task's)."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    parameters = list(signature.parameters.values())
    extra = inspect.Parameter("config", inspect.Parameter.KEYWORD_ONLY, default=None)
    at = next(
        (i for i, p in enumerate(parameters) if p.kind is inspect.Parameter.VAR_KEYWORD),
        len(parameters),
    )
    return signature.replace(parameters=[*parameters[:at], extra, *parameters[at:]])


def _translated(error: Exception, scratchpad: _Scratchpad) -> Exception:
    """LangGraph's ``GraphInterrupt`` as graphkit's (with graphkit's interrupt id, so a
    resume finds it); any other error unchanged."""
    from langgraph.errors import GraphInterrupt as LangGraphInterrupt

    if not isinstance(error, LangGraphInterrupt):
        return error
    interrupts = tuple(
        gk.Interrupt(
            value=item.value,
            id=scratchpad.pending_id or item.id,
            response_schema=getattr(item, "response_schema", None),
        )
        for item in (error.args[0] if error.args else ())
    )
    return GraphInterrupt(interrupts)


@contextlib.contextmanager
def _langgraph_context(config: Any, where: str) -> Iterator[tuple[_Scratchpad, dict[str, Any]]]:
    """LangGraph's run context, as its functions read it, for one call: the scratchpad,
    and the config that holds it (also made the current one)."""
    from langchain_core.runnables.config import var_child_runnable_config
    from langgraph._internal._constants import (
        CONFIG_KEY_CALL,
        CONFIG_KEY_RUNTIME,
        CONFIG_KEY_SCRATCHPAD,
        CONFIG_KEY_SEND,
    )

    scope = gk_runtime.current_scope()
    run_config = scope.run.config if scope is not None else None
    base = dict(config or var_child_runnable_config.get() or run_config or {})
    scratchpad = _Scratchpad(where)
    configurable = {
        **(base.get("configurable") or {}),
        CONFIG_KEY_SCRATCHPAD: scratchpad,
        CONFIG_KEY_SEND: scratchpad.send,
        CONFIG_KEY_CALL: _call_task,
    }
    if scope is not None:
        configurable[CONFIG_KEY_RUNTIME] = gk_runtime.get_runtime()
    # (LangGraph's functions read the callbacks as a list or a manager, never None)
    langgraph_config = {
        **base,
        "configurable": configurable,
        "callbacks": base.get("callbacks") or [],
    }
    token = var_child_runnable_config.set(langgraph_config)
    try:
        yield scratchpad, langgraph_config
    finally:
        var_child_runnable_config.reset(token)


def _call_task(
    function: Callable[..., Any],
    arguments: tuple[tuple[Any, ...], dict[str, Any]],
    *,
    retry_policy: Any = None,
    cache_policy: Any = None,
    timeout: Any = None,
    **_: Any,
) -> Any:
    """A LangGraph ``@task`` called inside a converted node: a call of graphkit's (a
    task of the running step, as graphkit's own ``@task``), its code run in LangGraph's
    context; its future."""
    from graphkit.diagnostics.building import retry_policies
    from graphkit.pregel.calls import CallSpec, call

    name = getattr(function, "__name__", type(function).__name__)
    retries = retry_policies(f"Task {name!r}", retry_policy)
    wrapped = wrap(function, node=False, where=f"Task {name!r}")
    spec = CallSpec(name, wrapped, retries, cache_policy, timeout)
    return call(spec, *arguments)


class InLangGraphContext:
    """A LangGraph Runnable that is a node or a router (a ``ToolNode``, a
    ``RunnableLambda``...), run by graphkit inside LangGraph's run context, with the
    config that carries it: the tools and chains it calls find what LangGraph's
    ``interrupt()``, ``get_stream_writer()`` and ``get_store()`` read."""

    def __init__(self, runnable: Any, where: str) -> None:
        self.runnable, self.where = runnable, where
        # what graphkit looks through to see that the Runnable has only async code (a
        # ToolNode with an async-only tool), so that trace runs it as ainvoke does
        self.__wrapped__ = runnable

    def __repr__(self) -> str:
        return f"InLangGraphContext({self.runnable!r})"

    def invoke(self, input: Any, config: Any = None) -> Any:
        with _langgraph_context(config, self.where) as (scratchpad, langgraph_config):
            try:
                return to_graphkit(self.runnable.invoke(input, langgraph_config))
            except Exception as error:
                raise _translated(error, scratchpad) from None

    async def ainvoke(self, input: Any, config: Any = None) -> Any:
        with _langgraph_context(config, self.where) as (scratchpad, langgraph_config):
            try:
                return to_graphkit(await self.runnable.ainvoke(input, langgraph_config))
            except Exception as error:
                raise _translated(error, scratchpad) from None


class _NoAnswers(list):  # type: ignore[type-arg]
    """LangGraph's list of a task's answers, kept empty: graphkit's task scope keeps them."""

    def append(self, value: Any) -> None:
        return None


class _Scratchpad:
    """What ``langgraph.types.interrupt`` reads from LangGraph's task scratchpad, answered
    from graphkit's task scope: LangGraph asks for "the next unused answer", graphkit's
    ``interrupt()`` gives it (or says there is none and names the pause's id)."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.resume = _NoAnswers()
        self.pending_id: str | None = None

    def interrupt_counter(self) -> int:
        return 0  # LangGraph's index into the (always empty) answers above

    def get_null_resume(self, consume: bool = False) -> Any:
        try:
            return gk_runtime.interrupt(_ASKED)
        except GraphInterrupt as pause:
            self.pending_id = pause.args[0][0].id
            return None

    def send(self, writes: Any) -> None:
        """LangGraph's writes made while the node runs (``push_message``'s): the task's
        writes, through graphkit's ``push_writes``; its answer bookkeeping is dropped."""
        from langgraph._internal._constants import RESUME

        if channel_writes := [(channel, value) for channel, value in writes if channel != RESUME]:
            gk_runtime.push_writes(channel_writes)

    def __getattr__(self, name: str) -> Any:
        raise _unsupported(self.where, f"LangGraph's task scratchpad ({name!r})")


def _unsupported(where: str, what: str) -> RuntimeError:
    return RuntimeError(
        f"{where} asked for {what}, which a graph converted by graphkit.from_langgraph does "
        "not provide. Inside node code, graphkit supports LangGraph's interrupt(), "
        "get_config(), get_store(), get_stream_writer() and get_runtime(); a LangGraph "
        "graph or @task run inside a node must be added as a node, or be named by the node "
        "function (a closure variable or a module global) so that from_langgraph converts "
        "it too."
    )
