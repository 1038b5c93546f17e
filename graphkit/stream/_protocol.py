"""The two contracts of the v3 protocol: the event envelope every part of a run is
wrapped in (``ProtocolEvent``), and the ``StreamTransformer`` a user subclasses to add
projections of their own."""

from __future__ import annotations

import asyncio
import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Coroutine
from typing import Any, ClassVar, Literal, NotRequired, TypedDict

__all__ = ["ProtocolEvent", "StreamTransformer", "needs_event_loop", "protocol_event"]

log = logging.getLogger("graphkit.stream")


class _EventParams(TypedDict):
    namespace: list[str]
    timestamp: int
    data: Any
    interrupts: NotRequired[tuple[Any, ...]]


class ProtocolEvent(TypedDict):
    """One event of a v3 run: ``method`` is the stream mode (or a channel's name),
    ``params`` where it comes from and what it carries; ``seq`` counts the events of the
    run's log 1, 2, 3... (the timestamp is wall-clock milliseconds, so not an order)."""

    type: Literal["event"]
    event_id: NotRequired[str]
    seq: NotRequired[int]
    method: str
    params: _EventParams


def protocol_event(method: str, namespace: Any, data: Any) -> ProtocolEvent:
    """A fresh event (without ``seq``: the run's log numbers what it keeps)."""
    now = time.time_ns() // 1_000_000
    params: _EventParams = {"namespace": list(namespace), "timestamp": now, "data": data}
    return {"type": "event", "method": method, "params": params}


class StreamTransformer(ABC):
    """Sees every event of one scope of a run and builds projections from them.

    ``init()`` returns the projections (usually ``StreamChannel``s) by name: they appear in
    ``run.extensions``, and as attributes of the run when the class sets ``_native =
    True``. ``process(event)`` is called for each event before it enters the run's log;
    returning False keeps it out. Channels are closed (or failed) when the run ends, so
    ``finalize`` / ``fail`` are only for extra teardown. A transformer is given to a run
    as a factory, called once per scope (the run's, each subgraph's) as
    ``factory(scope)``; a class is such a factory.

    Async work: override ``aprocess`` / ``afinalize`` / ``afail``, or call
    ``schedule(coroutine)`` from ``process`` with ``requires_async = True``; such a
    transformer only runs under ``astream_events`` (``supports_sync = True`` says it also
    works without a loop). ``required_stream_modes`` names the stream modes the graph must
    send for it; ``before_builtins = True`` puts it ahead of the built-in transformers.
    """

    required_stream_modes: ClassVar[tuple[str, ...]] = ()
    requires_async: ClassVar[bool] = False
    supports_sync: ClassVar[bool] = False
    before_builtins: ClassVar[bool] = False

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        self.scope = tuple(scope)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(scope={list(self.scope)})"

    @abstractmethod
    def init(self) -> dict[str, Any]:
        """The projections, by name."""

    def process(self, event: ProtocolEvent) -> bool:
        """Look at ``event``; True keeps it in the run's log."""
        missing = f"{type(self).__name__} defines neither process() nor aprocess()"
        raise NotImplementedError(f"{missing}: define process(event) -> bool (or aprocess)")

    async def aprocess(self, event: ProtocolEvent) -> bool:
        """``process`` for an async run (awaited before the next transformer sees it)."""
        return self.process(event)

    def finalize(self) -> None:  # noqa: B027 (optional: channels close by themselves)
        """The run ended normally."""

    async def afinalize(self) -> None:
        """The run ended normally (async run), after every scheduled coroutine finished."""
        self.finalize()

    def fail(self, err: BaseException) -> None:  # noqa: B027 (optional, as finalize)
        """The run ended with ``err``."""

    async def afail(self, err: BaseException) -> None:
        """The run ended with ``err`` (async run), its scheduled coroutines cancelled."""
        self.fail(err)

    def schedule(
        self, coro: Coroutine[Any, Any, Any], *, on_error: Literal["log", "raise"] = "log"
    ) -> asyncio.Task[Any]:
        """Run ``coro`` alongside the run; the run waits for it before it finishes (and
        cancels it if the run fails). ``on_error="raise"`` makes its exception the run's."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            coro.close()
            raise RuntimeError(
                f"{type(self).__name__}.schedule() requires a running event loop: read the "
                "run with astream_events(), and set requires_async = True on the class"
            ) from None
        task = loop.create_task(_guarded(coro) if on_error == "log" else coro)
        self.__dict__.setdefault("_scheduled", []).append(task)
        return task

    def _join(self, router: Any) -> None:  # noqa: B027 (a hook: most need nothing)
        """Told which scope's router it belongs to (built-ins that need the run use it)."""


async def _guarded(coro: Coroutine[Any, Any, Any]) -> Any:
    # on_error="log": one failing side job must not end the run
    try:
        return await coro
    except Exception:
        log.exception("a coroutine scheduled by a stream transformer failed")
        return None


def needs_event_loop(transformer: StreamTransformer) -> bool:
    """Whether ``transformer`` can only run in an async run: it overrides an async hook
    (and does not say it supports sync runs too) or asks for a loop outright."""
    kind = type(transformer)
    overridden = any(
        getattr(kind, hook, None) is not getattr(StreamTransformer, hook)
        for hook in ("aprocess", "afinalize", "afail")
    )
    wants_loop = getattr(transformer, "requires_async", False)
    return wants_loop or (overridden and not getattr(transformer, "supports_sync", False))
