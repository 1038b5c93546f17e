"""The parts of LangChain's Runnable interface made by LangChain itself from the graph's
own methods: ``astream_events`` and ``astream_log`` (LangChain's event streams of a run,
made from ``astream`` and the callbacks the run reports, ``graphkit.pregel.tracing``),
``graph | runnable``, ``with_retry`` and the other compositions of
``graphkit.pregel.composing``.

A compiled graph is not a langchain-core ``Runnable`` (graphkit does not need
langchain-core), so LangChain is handed a thin one whose ``invoke``, ``ainvoke``,
``stream`` and ``astream`` are the graph's."""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["as_runnable"]


def as_runnable(app: Any) -> Any:
    """``app`` as a langchain-core ``Runnable`` that runs it (its runs report as its own)."""
    return _runnable_class()(app)


@functools.cache
def _runnable_class() -> type:
    from graphkit.extras import require

    require("langchain_core", extra="agents", feature="astream_events()")
    from langchain_core.runnables import Runnable

    class GraphAsRunnable(Runnable[Any, Any]):
        """A compiled graph seen by LangChain: its runs are the graph's own (the graph
        reports its chain run itself, so this adds none)."""

        def __init__(self, app: Any) -> None:
            self.app, self.name = app, app.get_name()

        def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
            return self.app.invoke(input, config, **kwargs)

        async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
            return await self.app.ainvoke(input, config, **kwargs)

        def stream(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
            return self.app.stream(input, config, **kwargs)

        def astream(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
            return self.app.astream(input, config, **kwargs)

        # the graph's own types, so that a sequence it starts, ``as_tool`` and
        # ``with_types`` read what LangGraph's graph gives them
        @property
        def InputType(self) -> Any:  # (LangChain's name)
            return self.app.InputType

        @property
        def OutputType(self) -> Any:  # (LangChain's name)
            return self.app.OutputType

        def get_input_schema(self, config: Any = None) -> Any:
            return self.app.get_input_schema(config)

        def get_output_schema(self, config: Any = None) -> Any:
            return self.app.get_output_schema(config)

        @property
        def config_specs(self) -> list[Any]:
            return self.app.config_specs

        def get_graph(self, config: Any = None) -> Any:
            return self.app.get_graph(config).as_langchain_graph()

    return GraphAsRunnable
