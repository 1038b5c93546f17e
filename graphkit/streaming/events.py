"""``astream_events`` and ``astream_log``: LangChain's event streams of a graph run.

LangChain makes both from a runnable's ``astream`` and the callbacks its run reports
(``graphkit.pregel.tracing``: the graph, each task, each router, and what they call). A
compiled graph is not a langchain-core ``Runnable`` (graphkit does not need
langchain-core), so it is handed to LangChain's implementation inside a thin one whose
``astream`` is the graph's."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from typing import Any

__all__ = ["astream_events", "astream_log"]


def astream_events(app: Any, input: Any, config: Any, **kwargs: Any) -> AsyncIterator[Any]:
    """``app.astream_events(input, config, version="v2", ...)`` as LangChain defines it."""
    return _as_runnable(app).astream_events(input, config, **kwargs)


def astream_log(app: Any, input: Any, config: Any, **kwargs: Any) -> AsyncIterator[Any]:
    """``app.astream_log(input, config, ...)`` as LangChain defines it."""
    return _as_runnable(app).astream_log(input, config, **kwargs)


def _as_runnable(app: Any) -> Any:
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

        def astream(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
            return self.app.astream(input, config, **kwargs)

    return GraphAsRunnable
