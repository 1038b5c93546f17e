"""What ``stream_events(version="v3")`` returns: a run you read, and reading it runs it.

``GraphRunStream`` (``AsyncGraphRunStream`` from ``astream_events``) gives the run's
protocol events when iterated, and its projections as attributes (``run.values``...)
and in ``run.extensions``; ``SubgraphRunStream`` is the same view of one subgraph, as
``run.subgraphs`` hands them out."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from types import MappingProxyType
from typing import Any

from graphkit.stream._protocol import ProtocolEvent
from graphkit.stream._router import EventRouter, Pump

__all__ = ["AsyncGraphRunStream", "AsyncSubgraphRunStream", "GraphRunStream", "SubgraphRunStream"]


class _RunView:
    """What every run view shares: the projections of its scope's router."""

    def __init__(self, router: EventRouter, pump: Pump) -> None:
        self._router, self._pump = router, pump
        # (read-only: a projection is the transformer's, put there as the run starts)
        self.extensions: Mapping[str, Any] = MappingProxyType(router.projections)
        for name in router.native:  # (a native transformer's projections are attributes)
            setattr(self, name, router.projections[name])

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or "_router" not in self.__dict__:
            raise AttributeError(name)
        known = ", ".join(sorted(self.extensions))
        raise AttributeError(
            f"{type(self).__name__!r} object has no attribute {name!r} "
            f"(registered projections: {known})"
        )

    def __repr__(self) -> str:
        state = "finished" if self._pump.done else "running"
        return f"{type(self).__name__}({state}, projections={sorted(self.extensions)})"


class GraphRunStream(_RunView):
    """A v3 run, read synchronously: ``for event in run``, ``run.values``,
    ``run.messages``, ``run.subgraphs``, ``run.lifecycle``, ``run.output``...
    Each projection (and the events) has one reader; use ``.tee(n)`` for more."""

    def __iter__(self) -> Iterator[ProtocolEvent]:
        return iter(self._router.log)

    def __enter__(self) -> GraphRunStream:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.abort()  # (leaving the block early stops the graph)

    def abort(self) -> None:
        """Stop the run here (again: nothing)."""
        self._pump.abort()

    @property
    def output(self) -> Any:
        """The run's last own state (it runs to its end first; raises its error)."""
        self._pump.run_to_end()
        return self._pump.result()

    @property
    def interrupted(self) -> bool:
        """Whether the run stopped at an interrupt (it runs to its end first)."""
        return bool(self.interrupts)

    @property
    def interrupts(self) -> list[Any]:
        """The interrupts the run stopped at (it runs to its end first)."""
        self.output  # noqa: B018
        return list(self._router.interrupts)

    def interleave(self, *names: str) -> Iterator[tuple[str, Any]]:
        """``(name, item)`` from the named projections, in the order items arrived.
        It reads them while it runs: when it ends (or is closed, or raises) each can be
        read again."""
        channels: dict[str, Any] = {}
        try:
            for name in names:
                channel = self.extensions[name]  # (KeyError: unknown)
                if name in channels or channel._has_reader:
                    raise RuntimeError(
                        f"StreamChannel {name!r} already has a subscriber; use .tee(n) for fan-out."
                    )
                channel._take_reader(asynchronous=False)
                channels[name] = channel
            yield from _in_arrival_order(dict(channels), self._pump)
        finally:
            for channel in channels.values():
                channel._has_reader = False


def _in_arrival_order(channels: dict[str, Any], pump: Pump) -> Iterator[tuple[str, Any]]:
    """The items of ``channels`` by arrival, pulling the run's events while none is
    queued; a channel the run failed raises its error once it is read to its end."""
    while channels:
        queued = [(c._next_arrival(), n) for n, c in channels.items()]
        ready = [(arrival, name) for arrival, name in queued if arrival is not None]
        if ready:
            name = min(ready)[1]
            yield name, channels[name]._pop()
            continue
        ended = [name for name, channel in channels.items() if channel._ended()]
        for name in ended:
            del channels[name]
        if ended or pump.pull():
            continue
        if not any(channel._queue or channel._ended() for channel in channels.values()):
            return  # (the run stopped without closing them: aborted)


class SubgraphRunStream(GraphRunStream):
    """One subgraph of a run (from ``run.subgraphs``): its own projections, its ``path``
    (namespace), ``graph_name``, ``trigger_call_id`` (the task that runs it), ``status``
    (started, then completed / failed / interrupted) and ``error``."""

    def __init__(self, router: EventRouter, pump: Pump, started: Mapping[str, Any]) -> None:
        super().__init__(router, pump)
        _describe(self, started)

    def __repr__(self) -> str:
        return f"SubgraphRunStream(path={list(self.path)}, status={self.status!r})"

    def abort(self) -> None:
        """Stop reading this subgraph: its projections end here; the run goes on."""
        self._router.finish(None)

    @property
    def output(self) -> Any:
        """The subgraph's last own state (it runs until the subgraph ends; raises its
        error)."""
        while not self._router.finished and self._pump.pull():
            pass
        return _own_result(self._router)


class AsyncGraphRunStream(_RunView):
    """A v3 run read under asyncio: ``async for event in run``, ``async for v in
    run.values``, ``await run.output()``, ``await run.abort()``..."""

    def __aiter__(self) -> AsyncIterator[ProtocolEvent]:
        return aiter(self._router.log)

    async def __aenter__(self) -> AsyncGraphRunStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.abort()

    async def abort(self) -> None:
        """Stop the run here (again: nothing)."""
        await self._pump.aabort()

    async def output(self) -> Any:
        """The run's last own state (it runs to its end first; raises its error)."""
        await self._pump.arun_to_end()
        return self._pump.result()

    async def interrupted(self) -> bool:
        """Whether the run stopped at an interrupt."""
        return bool(await self.interrupts())

    async def interrupts(self) -> list[Any]:
        """The interrupts the run stopped at."""
        await self.output()
        return list(self._router.interrupts)


class AsyncSubgraphRunStream(AsyncGraphRunStream):
    """``SubgraphRunStream`` in an async run."""

    def __init__(self, router: EventRouter, pump: Pump, started: Mapping[str, Any]) -> None:
        super().__init__(router, pump)
        _describe(self, started)

    def __repr__(self) -> str:
        return f"AsyncSubgraphRunStream(path={list(self.path)}, status={self.status!r})"

    async def abort(self) -> None:
        """Stop reading this subgraph: its projections end here; the run goes on."""
        await self._router.afinish(None)

    async def output(self) -> Any:
        """The subgraph's last own state (it runs until the subgraph ends; raises its
        error)."""
        while not self._router.finished and await self._pump.apull():
            pass
        return _own_result(self._router)


def _own_result(router: EventRouter) -> Any:
    """A subgraph's output: its last own state, or the error it ended with."""
    if router.error is not None:
        raise router.error
    return router.output


def _describe(handle: Any, started: Mapping[str, Any]) -> None:
    """A subgraph handle's facts, from the lifecycle payload that announced it (its status
    and error change when it ends: ``SubgraphTransformer``)."""
    handle.path = tuple(started["namespace"])
    # (an agent named "" has no graph_name in the payload, and "" as its handle's)
    handle.graph_name = started.get("graph_name", "")
    handle.trigger_call_id = started["trigger_call_id"]
    handle.status, handle.error = "started", None
