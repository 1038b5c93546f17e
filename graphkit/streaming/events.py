"""The parts of LangChain's Runnable interface made by LangChain itself from the graph's
own methods: ``astream_events`` and ``astream_log`` (LangChain's event streams of a run,
made from ``astream`` and the callbacks the run reports, ``graphkit.pregel.tracing``),
``graph | runnable``, ``with_retry`` and the other compositions of
``graphkit.pregel.composing``.

A compiled graph is no subclass of langchain-core's ``Runnable`` (graphkit does not need
langchain-core), so LangChain is handed a thin one whose ``invoke``, ``ainvoke``,
``stream`` and ``astream`` are the graph's. LangChain's own compositions
(``runnable | graph``, ``RunnableParallel``...) take the graph itself:
``count_as_runnable`` registers it as a virtual subclass."""

from __future__ import annotations

import functools
import importlib.abc
import importlib.util
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

__all__ = ["as_runnable", "count_as_runnable"]

_RUNNABLES = "langchain_core.runnables.base"


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


def count_as_runnable(graph_class: type) -> None:
    """Make LangChain count every ``graph_class`` as a ``Runnable`` (a virtual subclass),
    as it counts LangGraph's graphs, so that it takes a graph wherever it takes a step:
    ``runnable | graph``, a ``RunnableParallel`` or ``RunnableBranch`` of graphs,
    ``RunnableWithMessageHistory(graph, ...)``. Done now if langchain-core's runnables
    are imported, else when they are: importing them here would slow every
    ``import graphkit`` down."""
    runnables = sys.modules.get(_RUNNABLES)
    if runnables is not None:
        runnables.Runnable.register(graph_class)
    else:
        sys.meta_path.insert(
            0, _AfterImport(_RUNNABLES, lambda module: module.Runnable.register(graph_class))
        )


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs ``then(module)`` once the module ``name`` is imported, then steps aside. It
    finds no module: it asks the other finders for ``name``'s and wraps its loading."""

    def __init__(self, name: str, then: Callable[[ModuleType], Any]) -> None:
        self.name, self.then = name, then

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _LoadThen(spec.loader, self.then)
        return spec


class _LoadThen:
    """``loader`` loading one module, then ``then(module)``. A loader of its own, not the
    loader patched: a zip's or a frozen app's loader loads every module of its archive,
    and each would have run ``then``."""

    def __init__(self, loader: Any, then: Callable[[ModuleType], Any]) -> None:
        self.loader, self.then = loader, then

    def __getattr__(self, name: str) -> Any:  # (get_source, is_package...: the loader's)
        return getattr(self.loader, name)

    def create_module(self, spec: Any) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        module.__loader__ = module.__spec__.loader = self.loader  # (as without the hook)
        self.loader.exec_module(module)
        self.then(module)
