"""Graph lifecycle callbacks, as LangGraph's ``langgraph.callbacks``: a handler given in
the config hears when a run pauses for interrupts and when one resumes.

Needs ``langchain-core`` (a ``GraphCallbackHandler`` is one of its callback handlers);
``import graphkit`` does not import this module, and a run imports it only when its
config has callbacks.

A root run that pauses (``interrupt()``, a breakpoint) calls ``on_interrupt`` once, as
it stops; a run that resumes a saved checkpoint (input None or a ``Command``), and each
subgraph that resumes its own, calls ``on_resume`` before any task runs. A handler that
raises is logged and the run goes on, unless the handler sets ``raise_error = True``.

>>> from graphkit import InMemorySaver, START, StateGraph, interrupt
>>> from typing import TypedDict
>>> class State(TypedDict):
...     answer: str
>>> class Heard(GraphCallbackHandler):
...     def __init__(self):
...         self.heard = []
...     def on_interrupt(self, event):
...         self.heard.append(("paused", event.status, [i.value for i in event.interrupts]))
...     def on_resume(self, event):
...         self.heard.append(("resumed", event.status, event.checkpoint_ns))
>>> ask = lambda state: {"answer": interrupt("name?")}
>>> app = StateGraph(State).add_node("ask", ask).add_edge(START, "ask")
>>> app = app.compile(checkpointer=InMemorySaver())
>>> handler = Heard()
>>> config = {"configurable": {"thread_id": "1"}, "callbacks": [handler]}
>>> _ = app.invoke({"answer": ""}, config)
>>> from graphkit import Command
>>> app.invoke(Command(resume="Ada"), config)
{'answer': 'Ada'}
>>> handler.heard
[('paused', 'pending', ['name?']), ('resumed', 'pending', ())]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias
from uuid import UUID

from graphkit.extras import require

require("langchain_core", extra="agents", feature="graphkit.callbacks")

# ruff: noqa: E402 - require() first, so that a missing package names the extra that brings it
from langchain_core.callbacks import BaseCallbackHandler, BaseCallbackManager
from langchain_core.callbacks.manager import ahandle_event, handle_event

from graphkit.types import Interrupt

__all__ = (
    "GraphCallbackHandler",
    "GraphInterruptEvent",
    "GraphLifecycleEvent",
    "GraphLifecycleStatus",
    "GraphResumeEvent",
    "get_async_graph_callback_manager_for_config",
    "get_sync_graph_callback_manager_for_config",
)

GraphLifecycleStatus: TypeAlias = Literal[
    "input", "pending", "done", "interrupt_before", "interrupt_after", "out_of_steps"
]
"""The run's status an event reports: ``"pending"`` for an ``interrupt()`` and for a
resume, ``"interrupt_before"`` / ``"interrupt_after"`` for a breakpoint."""


@dataclass(frozen=True)
class GraphInterruptEvent:
    """A root run paused: at a breakpoint (no ``interrupts``) or for ``interrupt()`` calls."""

    run_id: UUID | None
    """The graph run's id (its chain run's, as callbacks know it)."""
    status: GraphLifecycleStatus
    checkpoint_id: str
    """The checkpoint the run paused at."""
    checkpoint_ns: tuple[str, ...]
    """The run's namespace: ``()`` for a root run."""
    interrupts: tuple[Interrupt, ...]


@dataclass(frozen=True)
class GraphResumeEvent:
    """A run (or a subgraph's) resumed a saved checkpoint."""

    run_id: UUID | None
    status: GraphLifecycleStatus
    checkpoint_id: str
    """The checkpoint the run resumed from."""
    checkpoint_ns: tuple[str, ...]
    """The run's namespace: ``()`` for a root run, ``("node:<task id>",)`` for a subgraph."""


GraphLifecycleEvent: TypeAlias = GraphInterruptEvent | GraphResumeEvent


class GraphCallbackHandler(BaseCallbackHandler):
    """Subclass it and give it in ``config["callbacks"]`` to hear a graph's lifecycle;
    LangChain's other callbacks (``on_chain_start``...) reach it as any handler's."""

    def on_interrupt(self, event: GraphInterruptEvent) -> Any:
        """The run paused."""

    def on_resume(self, event: GraphResumeEvent) -> Any:
        """The run resumed a saved checkpoint."""


class _GraphCallbackManager(BaseCallbackManager):
    """Hands graph lifecycle events to the ``GraphCallbackHandler``s it holds (other
    handlers may be added, as a tracer's instrumentation does, and hear nothing)."""

    def __init__(
        self,
        handlers: Sequence[BaseCallbackHandler] | None = None,
        inheritable_handlers: Sequence[BaseCallbackHandler] | None = None,
        parent_run_id: UUID | None = None,
        *,
        run_id: UUID | None = None,
        **tags_and_metadata: Any,
    ) -> None:
        super().__init__(
            list(handlers or ()),
            list(inheritable_handlers or ()),
            parent_run_id,
            **tags_and_metadata,
        )
        self.run_id = run_id

    @classmethod
    def configure(cls, callbacks: Any = None, *, run_id: UUID | None = None) -> Any:
        """The manager for ``callbacks`` as a config holds them: a handler, a list of
        handlers, or a callback manager (only its graph handlers are kept)."""
        if callbacks is None:
            return cls(run_id=run_id)
        if isinstance(callbacks, BaseCallbackManager):
            return cls(
                _graph_handlers(callbacks.handlers),
                _graph_handlers(callbacks.inheritable_handlers),
                callbacks.parent_run_id,
                run_id=run_id,
                tags=list(callbacks.tags),
                inheritable_tags=list(callbacks.inheritable_tags),
                metadata=dict(callbacks.metadata),
                inheritable_metadata=dict(callbacks.inheritable_metadata),
            )
        if isinstance(callbacks, GraphCallbackHandler):
            return cls([callbacks], run_id=run_id)
        if isinstance(callbacks, (str, bytes)) or not isinstance(callbacks, Sequence):
            raise TypeError(
                f"config['callbacks'] is a {type(callbacks).__name__}; give a callback "
                "handler, a list of them, or a langchain-core CallbackManager."
            )
        return cls(_graph_handlers(callbacks), run_id=run_id)

    def on_interrupt(self, event: GraphInterruptEvent) -> None:
        handle_event(self.handlers, "on_interrupt", None, event)

    def on_resume(self, event: GraphResumeEvent) -> None:
        handle_event(self.handlers, "on_resume", None, event)


class _AsyncGraphCallbackManager(_GraphCallbackManager):
    """The same, for an async caller: the handlers' methods are awaited."""

    @property
    def is_async(self) -> bool:
        return True

    async def on_interrupt(self, event: GraphInterruptEvent) -> None:  # type: ignore[override]
        await ahandle_event(self.handlers, "on_interrupt", None, event)

    async def on_resume(self, event: GraphResumeEvent) -> None:  # type: ignore[override]
        await ahandle_event(self.handlers, "on_resume", None, event)


def _graph_handlers(handlers: Sequence[Any]) -> list[GraphCallbackHandler]:
    return [handler for handler in handlers if isinstance(handler, GraphCallbackHandler)]


def get_sync_graph_callback_manager_for_config(
    config: Any, *, run_id: UUID | None = None
) -> _GraphCallbackManager:
    """The manager that calls the graph handlers of ``config["callbacks"]``, its events
    carrying ``run_id``."""
    return _GraphCallbackManager.configure(config.get("callbacks"), run_id=run_id)  # type: ignore[no-any-return]


def get_async_graph_callback_manager_for_config(
    config: Any, *, run_id: UUID | None = None
) -> _AsyncGraphCallbackManager:
    """The async twin of ``get_sync_graph_callback_manager_for_config``."""
    return _AsyncGraphCallbackManager.configure(config.get("callbacks"), run_id=run_id)  # type: ignore[no-any-return]


# -- what a run calls ---------------------------------------------------------------------


class RunLifecycle:
    """One run's graph handlers, told of the run as its stream's emitters are
    (``graphkit.streaming.emitters``); it streams nothing. ``started``: a run that
    resumes a checkpoint holding values (a subgraph's own too) calls ``on_resume``
    before its first task runs; ``flushed``: a root run that paused calls
    ``on_interrupt`` (a subgraph's pause is its parent's), as in LangGraph.

    In an async run (``async_run``) the handlers are called as LangGraph's async runs
    call them, awaited on the run's event loop: an ``async def`` handler's error then
    reaches the run when it sets ``raise_error`` (a sync run only logs it)."""

    __slots__ = ("async_run", "manager", "stepper")

    def __init__(self, manager: _GraphCallbackManager, stepper: Any, async_run: Any) -> None:
        self.manager, self.stepper, self.async_run = manager, stepper, async_run

    def __repr__(self) -> str:
        return f"RunLifecycle({len(self.manager.handlers)} handlers)"

    def started(self) -> tuple[()]:
        stepper = self.stepper
        if stepper.resumed and stepper.checkpoint.channel_versions:
            namespace = tuple(stepper.namespace)
            event = GraphResumeEvent(
                self.manager.run_id, "pending", stepper.checkpoint.id, namespace
            )
            self._call("on_resume", event)
        return ()

    def flushed(self, paused: Any) -> tuple[()]:
        stepper = self.stepper
        if stepper.status != "interrupted" or stepper.namespace:
            return ()
        status: GraphLifecycleStatus = "pending"  # interrupt(), or a subgraph's breakpoint
        if not stepper.interrupts and stepper.execution is None:  # a breakpoint of this run
            status = "interrupt_before" if stepper.paused_before else "interrupt_after"
        interrupts = tuple(stepper.interrupts)
        event = GraphInterruptEvent(
            self.manager.run_id, status, stepper.checkpoint.id, (), interrupts
        )
        self._call("on_interrupt", event)
        return ()

    def _call(self, method: str, event: GraphLifecycleEvent) -> None:
        run = self.async_run
        # (a sync run inside an async node holds the loop up: it calls them as a sync run)
        if run is None or run.held_up or run.on_its_loop():
            handle_event(self.manager.handlers, method, None, event)
        else:
            run.run(ahandle_event(self.manager.handlers, method, None, event))


def run_lifecycle(
    config: Any, run_id: UUID, stepper: Any, async_run: Any = None
) -> RunLifecycle | None:
    """The lifecycle handlers of ``stepper``'s run, configured with ``config`` (None
    when it has none); ``async_run``: the async run it belongs to, if any."""
    manager = get_sync_graph_callback_manager_for_config(config, run_id=run_id)
    return RunLifecycle(manager, stepper, async_run) if manager.handlers else None
