"""``@entrypoint``: a function as a one-node ``Pregel`` graph, as LangGraph builds it.

The node (named after the function) wakes on ``__start__``, receives the input, and
writes what it returns to ``__end__`` (the output) and to ``__previous__`` (what the
next run on the thread gets as ``previous``); ``entrypoint.final(value, save)`` writes
different values to the two. The tasks the function calls run in the same superstep,
so a run is the input step and step 0; every call is a task of step 0's records.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Sequence
from datetime import timedelta
from types import GenericAlias
from typing import Any, Generic, TypeVar, get_args, get_origin

from graphkit.cache.base import node_namespace
from graphkit.channels import EphemeralValue, LastValue
from graphkit.checkpoint.allowlist import allow_schema_classes
from graphkit.constants import END, PREVIOUS, START
from graphkit.diagnostics import calls as diagnose
from graphkit.diagnostics.building import refuse_langgraph_saver, retry_policies
from graphkit.diagnostics.parameters import warn_config_type
from graphkit.func.task import is_generator
from graphkit.pregel.calls import count_calls
from graphkit.pregel.lowlevel import Pregel
from graphkit.pregel.node_builder import ChannelWriteEntry, NodeBuilder
from graphkit.pregel.spec import NodeSpec
from graphkit.types import CachePolicy, RetryPolicy, TimeoutPolicy

__all__ = ["PREVIOUS", "entrypoint"]  # (PREVIOUS: graphkit.constants', re-exported)

INJECTED = ("config", "writer", "runtime", "store", "previous")
"""What an entrypoint function may declare a parameter for, by name (LangGraph's)."""

R = TypeVar("R")
S = TypeVar("S")


class entrypoint:  # (LangGraph's name: a decorator class)
    """Make a function a workflow, as LangGraph's ``@entrypoint(...)``: the result is a
    ``Pregel`` graph (``invoke``, ``stream``, ``get_state``... as any graph). The
    function takes the input as its first parameter and may declare ``previous`` (what
    the last run on the thread saved; needs a checkpointer), ``config``, ``writer``,
    ``store`` and ``runtime``.

    >>> from graphkit.checkpoint.memory import InMemorySaver
    >>> @entrypoint(checkpointer=InMemorySaver())
    ... def counter(step: int, previous: int | None = None) -> int:
    ...     return (previous or 0) + step
    >>> thread = {"configurable": {"thread_id": "1"}}
    >>> counter.invoke(1, thread), counter.invoke(10, thread)
    (1, 11)
    >>> counter.trace(5, thread).steps[-1].plan.nodes
    ['counter']
    """

    __class_getitem__ = classmethod(GenericAlias)  # generic in LangGraph (see StateGraph)

    def __init__(
        self,
        checkpointer: Any = None,
        store: Any = None,
        cache: Any = None,
        context_schema: type[Any] | None = None,
        cache_policy: CachePolicy | None = None,
        retry_policy: RetryPolicy | Sequence[RetryPolicy] | None = None,
        timeout: float | timedelta | TimeoutPolicy | None = None,
        **deprecated: Any,
    ) -> None:
        old = diagnose.renamed_arguments("entrypoint", deprecated)  # as LangGraph: new wins
        refuse_langgraph_saver("entrypoint", checkpointer)
        self.checkpointer, self.store, self.cache = checkpointer, store, cache
        self.context_schema = context_schema or old.get("context_schema")
        self.cache_policy = cache_policy
        self.retry_policy = retry_policy if retry_policy is not None else old.get("retry_policy")
        self.timeout = TimeoutPolicy.coerce(timeout)

    @dataclasses.dataclass(frozen=True)
    class final(Generic[R, S]):
        """What an entrypoint returns to give the caller ``value`` while saving ``save``
        for the thread's next run (its ``previous``).

        >>> entrypoint.final(value="shown", save="kept").save
        'kept'
        """

        value: R
        save: S

    def __call__(self, func: Callable[..., Any]) -> Pregel:
        """The graph running ``func``."""
        if not callable(func):
            raise TypeError(diagnose.not_callable("entrypoint", func))
        name = getattr(func, "__name__", type(func).__name__)
        if is_generator(func):
            raise NotImplementedError(diagnose.generator(name))
        parameters = list(inspect.signature(func).parameters.values())
        if not parameters:
            raise ValueError(diagnose.no_parameter(name))
        warn_config_type(f"The entrypoint {name!r}", func)
        input_type, output_type, save_type = _types(func, parameters[0])
        if self.timeout is not None and not _is_async(func):
            raise ValueError(diagnose.sync_timeout(name).replace("Task", "Entrypoint", 1))
        policies = retry_policies(f"Entrypoint {name!r}", self.retry_policy)
        builder = NodeBuilder().subscribe_only(START).do(func)
        node = builder.write_to(
            ChannelWriteEntry(END, mapper=_returned), ChannelWriteEntry(PREVIOUS, mapper=_saved)
        )
        graph = Pregel(
            nodes={name: node},
            channels={
                START: EphemeralValue(input_type),
                END: LastValue(output_type),
                PREVIOUS: LastValue(save_type),
            },
            input_channels=START,
            output_channels=END,
            stream_channels=END,
            stream_mode="updates",
            stream_eager=True,  # (as LangGraph's; read back only)
            # the classes its input, output and saved value declare may be read back
            checkpointer=allow_schema_classes(
                self.checkpointer, [input_type, output_type, save_type, self.context_schema]
            ),
            store=self.store,
            cache=self.cache,
            retry_policy=policies,
            auto_validate=False,  # its channels are the runtime's own names, on purpose
        )
        wanted = tuple(p.name for p in parameters[1:] if p.name in INJECTED)
        spec_node = graph.spec.nodes[name]
        graph.spec = dataclasses.replace(
            graph.spec,
            nodes={name: _entry_node(spec_node, func, wanted, self.cache_policy, self.timeout)},
        )
        graph.context_schema = self.context_schema  # type: ignore[attr-defined]
        graph.calls_tasks = True  # type: ignore[attr-defined]  # (streamed as they run)
        return graph


def _returned(value: Any) -> Any:
    return value.value if _is_final(value) else value


def _saved(value: Any) -> Any:
    return value.save if _is_final(value) else value


def _is_final(value: Any) -> bool:
    """Whether ``value`` is an ``entrypoint.final``, graphkit's or LangGraph's (an import
    left as it was: the same two fields, read the same way)."""
    kind = type(value)
    return isinstance(value, entrypoint.final) or (
        kind.__qualname__ == "entrypoint.final" and kind.__module__ == "langgraph.func"
    )


def _types(func: Callable[..., Any], first: inspect.Parameter) -> tuple[Any, Any, Any]:
    """The channel types: the input's annotation, and the output's and the saved
    value's (both from ``-> entrypoint.final[output, saved]``)."""
    empty = inspect.Signature.empty
    try:  # (annotations written as strings, e.g. under `from __future__ import annotations`)
        evaluated = inspect.signature(func, eval_str=True)
        returns, first = evaluated.return_annotation, evaluated.parameters[first.name]
    except (NameError, AttributeError):  # a name or attribute not found from here (a
        # forward reference, a class defined in a function): as written, as LangGraph
        # takes it (it never evaluates them); a TypeError, e.g. final[int], is raised
        returns = empty
    input_type = first.annotation if first.annotation is not empty else Any
    if returns is empty or returns is entrypoint.final or isinstance(returns, str):
        return input_type, Any, Any
    if get_origin(returns) is entrypoint.final:
        types = get_args(returns)
        if len(types) != 2:
            raise TypeError(diagnose.bad_final_annotation())
        return input_type, types[0], types[1]
    return input_type, returns, returns


def _is_async(func: Callable[..., Any]) -> bool:
    return inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(
        getattr(func, "__call__", None)  # noqa: B004
    )


def _entry_node(
    node: NodeSpec,
    func: Callable[..., Any],
    wanted: tuple[str, ...],
    cache_policy: CachePolicy | None,
    timeout: TimeoutPolicy | None,
) -> NodeSpec:
    """The entrypoint's node: ``func`` called with the input and the values it asked
    for (``previous`` from its runtime)."""
    injected = tuple(name for name in wanted if name != "previous")
    if "previous" in wanted and "runtime" not in injected:
        injected = (*injected, "runtime")  # the runtime carries ``previous``

    def arguments(given: dict[str, Any]) -> dict[str, Any]:
        values = {name: given[name] for name in wanted if name in given}
        if "previous" in wanted:  # (the run's runtime carries it)
            values["previous"] = given["runtime"].previous
        return values

    if _is_async(func):

        async def call_async(value: Any, **given: Any) -> Any:
            count_calls()
            return await func(value, **arguments(given))

        call: Callable[..., Any] = call_async
    else:

        def call(value: Any, **given: Any) -> Any:
            count_calls()
            return func(value, **arguments(given))

    return dataclasses.replace(
        node, call=call, injected=injected, is_async=_is_async(func),
        cache_policy=cache_policy, cache_namespace=node_namespace(node.name, func),
        timeout=timeout,
    )  # fmt: skip
