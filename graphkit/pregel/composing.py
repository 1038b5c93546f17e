"""LangChain's ways of composing a Runnable, on a compiled graph: ``graph | runnable``,
``pipe``, ``with_retry``, ``with_fallbacks``, ``with_listeners``, ``with_types``,
``bind``, ``pick``, ``assign``, ``map``, ``as_tool``, ``transform``. Each is made by
LangChain (langchain-core must be installed) over the graph seen as a ``Runnable``
(``graphkit.streaming.events.as_runnable``), so it behaves as on LangGraph's graph; a
graphkit graph given as the other side (``graph | other_graph``, a fallback) is seen
the same way."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

__all__ = ["ComposingMethods"]


class ComposingMethods:
    """Mixed into ``CompiledGraph``: what these need is the graph's own ``invoke``,
    ``ainvoke``, ``stream``, ``astream`` and schemas."""

    def __or__(self, other: Any) -> Any:
        """``graph | runnable``: LangChain's ``RunnableSequence`` with the graph as its
        first step.

        >>> from typing import TypedDict
        >>> from langchain_core.runnables import RunnableLambda
        >>> from graphkit import StateGraph, START
        >>> app = StateGraph(TypedDict("S", {"n": int})).add_node("a", lambda s: {"n": 2})
        >>> app = app.add_edge(START, "a").compile()
        >>> (app | RunnableLambda(lambda out: out["n"] * 10)).invoke({"n": 1})
        20
        """
        return _runnable(self) | _seen(other)

    def __ror__(self, other: Any) -> Any:
        """``{"key": runnable} | graph`` or ``function | graph``: LangChain's
        ``RunnableSequence`` with the graph as its last step, as on LangGraph's graph (a
        runnable first needs nothing here: LangChain counts the graph as a ``Runnable``,
        see ``graphkit.streaming.events.count_as_runnable``).

        >>> from typing import TypedDict
        >>> from graphkit import StateGraph, START
        >>> app = StateGraph(TypedDict("S", {"n": int})).add_node("a", lambda s: {"n": 2})
        >>> app = app.add_edge(START, "a").compile()
        >>> ({"n": lambda given: given} | app).invoke(1)
        {'n': 2}
        """
        from langchain_core.runnables.base import coerce_to_runnable

        return coerce_to_runnable(_seen(other)) | self

    def pipe(self, *others: Any, name: str | None = None) -> Any:
        """``graph | first | second ...`` as one ``RunnableSequence`` named ``name``."""
        return _runnable(self).pipe(*map(_seen, others), name=name)

    def with_retry(self, **kwargs: Any) -> Any:
        """LangChain's ``RunnableRetry`` around the whole graph: a run that raises is run
        again, as ``with_retry`` of LangGraph's graph does. To retry one node, give it a
        ``RetryPolicy`` instead."""
        return _runnable(self).with_retry(**kwargs)

    def with_fallbacks(self, fallbacks: Sequence[Any], **kwargs: Any) -> Any:
        """LangChain's ``RunnableWithFallbacks``: when the graph raises, each of
        ``fallbacks`` (runnables or graphs) is tried in turn on the same input."""
        return _runnable(self).with_fallbacks([_seen(each) for each in fallbacks], **kwargs)

    def with_listeners(self, **kwargs: Any) -> Any:
        """The graph with ``on_start`` / ``on_end`` / ``on_error`` called with its chain
        run (a LangChain ``Run``: ``run.name``, ``run.inputs``, ``run.outputs``)."""
        return _runnable(self).with_listeners(**kwargs)

    def with_alisteners(self, **kwargs: Any) -> Any:
        """``with_listeners`` with async listeners (LangChain's)."""
        return _runnable(self).with_alisteners(**kwargs)

    def with_types(self, **kwargs: Any) -> Any:
        """The graph with the ``input_type`` / ``output_type`` LangChain reports for it
        (what LangServe's ``add_routes`` validates against)."""
        return _runnable(self).with_types(**kwargs)

    def bind(self, **kwargs: Any) -> Any:
        """The graph with keyword arguments every run is given (``stream_mode=``...)."""
        return _runnable(self).bind(**kwargs)

    def pick(self, keys: str | list[str]) -> Any:
        """``graph | RunnablePick(keys)``: the output's value at ``keys`` (a dict for a
        list)."""
        return _runnable(self).pick(keys)

    def assign(self, **kwargs: Any) -> Any:
        """``graph | RunnableAssign(...)``: the output with keys added, each computed from
        it by a runnable or a function."""
        return _runnable(self).assign(**{key: _seen(value) for key, value in kwargs.items()})

    def map(self) -> Any:
        """LangChain's ``RunnableEach``: invoked with a list of inputs, it runs the graph
        once for each and returns the list of results."""
        return _runnable(self).map()

    def as_tool(self, args_schema: Any = None, **kwargs: Any) -> Any:
        """The graph as a LangChain tool (``name=``, ``description=``, ``arg_types=``) whose
        arguments are the graph's input schema (``get_input_schema()``)."""
        return _runnable(self).as_tool(args_schema, **kwargs)

    def transform(self, input: Iterator[Any], config: Any = None, **kwargs: Any) -> Iterator[Any]:
        """``stream`` of the input chunks added together (LangChain's ``transform``)."""
        return _runnable(self).transform(input, config, **kwargs)

    def atransform(
        self, input: AsyncIterator[Any], config: Any = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """``transform`` for async code."""
        return _runnable(self).atransform(input, config, **kwargs)


def _runnable(app: Any) -> Any:
    from graphkit.streaming.events import as_runnable

    return as_runnable(app)


def _seen(other: Any) -> Any:
    """A graphkit graph as LangChain sees it, also as a value of a dict (LangChain's
    ``RunnableParallel``); anything else as given (LangChain coerces functions itself)."""
    if isinstance(other, dict):
        return {key: _seen(value) for key, value in other.items()}
    return _runnable(other) if isinstance(other, ComposingMethods) else other
