"""How a v3 run moves: the ``Pump`` pulls the graph's v2 stream one part at a time, turns
it into a protocol event and hands it to the run's ``EventRouter``; a router passes each
event through its scope's transformers into its log, and a subgraph handle has a router
of its own, fed by its parent's ``SubgraphTransformer``. Nothing runs in the background:
whoever reads the run (its events, a projection, ``output``) works the pump."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Sequence
from typing import Any

from graphkit.stream._protocol import (
    ProtocolEvent,
    StreamTransformer,
    needs_event_loop,
    protocol_event,
)
from graphkit.stream.stream_channel import StreamChannel

__all__ = ["EventRouter", "Pump"]


class Pump:
    """The graph's v2 stream (``subgraphs=True``), pulled on demand; its root router
    remembers the run's last own state and interrupts for ``run.output`` /
    ``run.interrupts``."""

    def __init__(self, scope: tuple[str, ...], is_async: bool) -> None:
        self.scope, self.is_async = scope, is_async
        self.parts: Any = None  # the v2 parts (an iterator, or an async one)
        self.router: EventRouter | None = None  # the run's own (root) router
        self.done, self.error = False, None
        self._arrivals = itertools.count(1)  # (orders items across channels: interleave)
        self._busy = asyncio.Lock() if is_async else None
        self._holder: asyncio.Task[Any] | None = None  # (the task in apull, if any)
        self._running = False  # (whether it is running the graph: aabort cancels that)
        self._aborting = False

    def __repr__(self) -> str:
        return f"Pump({'async' if self.is_async else 'sync'}, done={self.done})"

    def arrival(self) -> int:
        return next(self._arrivals)

    def _event(self, part: dict[str, Any]) -> ProtocolEvent:
        event = protocol_event(part["type"], part["ns"], part["data"])
        if part["type"] == "values":
            event["params"]["interrupts"] = part.get("interrupts", ())
        return event

    def pull(self) -> bool:
        """Run the graph to its next part and route it; False once the run has ended."""
        if self.done:
            return False
        try:
            part = next(self.parts, None)  # (a part is a dict: None is the end)
        except Exception as error:
            return self._stop(error)
        if part is None:
            return self._stop(None)
        try:
            self.router.feed(self._event(part))
        except Exception as error:  # a transformer's: it ends the run, as a node's would
            self._close_parts()
            return self._stop(error)
        return True

    async def apull(self) -> bool:
        """``pull`` for an async run (one pull at a time, whoever asks)."""
        async with self._busy:
            self._holder = asyncio.current_task()
            try:
                return await self._apull_held()
            finally:
                self._holder = None

    async def _apull_held(self) -> bool:
        if self.done or self._aborting:
            return False
        self._running = True
        try:
            part = await anext(self.parts, None)
        except asyncio.CancelledError:
            if not self._aborting:
                raise
            self._holder.uncancel()  # (aabort's cancel: the run stops, the reader not)
            return False
        except Exception as error:
            return await self._astop(error)
        finally:
            self._running = False
        if part is None:
            return await self._astop(None)
        try:
            await self.router.afeed(self._event(part))
        except Exception as error:
            await self._aclose_parts()
            return await self._astop(error)
        return True

    def _stop(self, error: BaseException | None) -> bool:
        """End the run with ``error`` (None: normally). A transformer's ``finalize`` that
        raises makes its error the run's: ``output`` raises it, as the reader did."""
        self.done, self.error = True, error
        try:
            self.router.finish(error)
        except Exception as failed:
            self.error = failed
            raise
        return False

    async def _astop(self, error: BaseException | None) -> bool:
        self.done, self.error = True, error
        try:
            await self.router.afinish(error)
        except Exception as failed:
            self.error = failed
            raise
        return False

    def _close_parts(self) -> None:
        getattr(self.parts, "close", lambda: None)()  # (running nodes are cancelled)

    async def _aclose_parts(self) -> None:
        await getattr(self.parts, "aclose", _nothing)()

    def run_to_end(self) -> None:
        while self.pull():
            pass

    async def arun_to_end(self) -> None:
        while await self.apull():
            pass

    def result(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.router.output

    def abort(self) -> None:
        """Stop the graph (its generator is closed, so running nodes are cancelled)."""
        if not self.done:
            self._close_parts()
            self._stop(None)

    async def aabort(self) -> None:
        """``abort`` for an async run: a pull under way in another task (a node
        running for ``await run.output()``) is cancelled first, as the run's nodes are."""
        if self.done:
            return
        self._aborting = True
        if self._holder is asyncio.current_task():  # (from a transformer, mid-pull)
            await self._aclose_parts()
            await self._astop(None)
            return
        if self._running and self._holder is not None:
            self._holder.cancel()
        async with self._busy:
            if not self.done:
                await self._aclose_parts()
                await self._astop(None)


async def _nothing() -> None:
    return None


class EventRouter:
    """One scope of a run (the run's own, or a subgraph's): its transformers, their
    projections (``run.extensions``) and its event log. Every transformer sees every event;
    the event enters the log only if none of them returned False."""

    def __init__(
        self, scope: tuple[str, ...], factories: Sequence[Callable[..., Any]], pump: Pump
    ) -> None:
        self.scope, self.factories, self.pump = tuple(scope), tuple(factories), pump
        self.is_root = pump.router is None
        if self.is_root:
            pump.router = self
        self._numbers = itertools.count(1)  # (the root's log numbers events: seq)
        self.finished = False
        made = [_made(factory, self.scope) for factory in self.factories]
        # content-changing transformers ask to see events before the built-ins copy them
        self.transformers = [t for t in made if t.before_builtins] + [
            t for t in made if not t.before_builtins
        ]
        if not pump.is_async:
            for transformer in self.transformers:
                if needs_event_loop(transformer):
                    raise RuntimeError(
                        f"{type(transformer).__name__} requires an async run — it overrides "
                        "aprocess/afinalize/afail or sets requires_async=True. "
                        "Use astream_events(), not stream_events()."
                    )
        self.log: StreamChannel[ProtocolEvent] = StreamChannel()
        self.log._attach(pump)
        self.projections: dict[str, Any] = {}
        self.native: list[str] = []
        self.output: Any = None  # the scope's last own state, and its interrupts
        self.interrupts: list[Any] = []
        self.error: BaseException | None = None  # what the scope's run ended with
        owners: dict[str, str] = {}
        for transformer in self.transformers:
            transformer._join(self)
            native = bool(getattr(transformer, "_native", False))
            for key, projection in _projections(transformer, owners).items():
                if isinstance(projection, StreamChannel):
                    projection._attach(pump, self._logger(projection.name, native))
                self.projections[key] = projection
                if native:
                    self.native.append(key)

    def __repr__(self) -> str:
        names = [type(t).__name__ for t in self.transformers]
        return f"EventRouter(scope={list(self.scope)}, transformers={names})"

    def _logger(self, name: str | None, native: bool) -> Callable[[Any], None] | None:
        """For a named channel: what puts each pushed item in the log, as an event of its
        own (transformers do not see these; they come from one)."""
        if name is None:
            return None
        method = name if native else f"custom:{name}"
        return lambda item: self._keep(protocol_event(method, [], item))

    def _keep(self, event: ProtocolEvent) -> None:
        if self.is_root:  # (a subgraph's log shares the root's event objects, and so its seq)
            event["seq"] = next(self._numbers)
        self.log.push(event)

    def _note(self, event: ProtocolEvent) -> None:
        """Remember the scope's own last state (``output``) and its interrupts."""
        params = event["params"]
        if event["method"] == "values" and tuple(params["namespace"]) == self.scope:
            self.output, self.interrupts = params["data"], list(params.get("interrupts", ()))

    def feed(self, event: ProtocolEvent) -> None:
        self._note(event)
        keep = True
        for transformer in self.transformers:
            keep = transformer.process(event) and keep  # (each sees it, whatever others say)
            if self.finished:  # (one aborted the run: its channels are closed)
                return
        if keep:
            self._keep(event)

    async def afeed(self, event: ProtocolEvent) -> None:
        self._note(event)
        keep = True
        for transformer in self.transformers:
            keep = await transformer.aprocess(event) and keep
            if self.finished:
                return
        if keep:
            self._keep(event)

    def _channels(self) -> list[StreamChannel[Any]]:
        projections = self.projections.values()
        return [self.log, *(p for p in projections if isinstance(p, StreamChannel))]

    def finish(self, error: BaseException | None) -> None:
        """The scope's run ended (with ``error``): tell the transformers, end the channels."""
        if self.finished:
            return
        self.finished, self.error = True, error
        raised = None
        for transformer in self.transformers:
            try:  # (one that raises leaves the others to end, and the channels to close)
                transformer.fail(error) if error is not None else transformer.finalize()
            except Exception as failed:
                raised = raised or failed
        self._end_channels(error)
        _raise_first(error, raised)

    async def afinish(self, error: BaseException | None) -> None:
        if self.finished:
            return
        self.finished, self.error = True, error
        jobs = [job for t in self.transformers for job in t.__dict__.get("_scheduled", ())]
        if error is None:
            try:  # the last word of a side job lands before the channels close
                await asyncio.gather(*jobs)
            except Exception as failed:  # (one scheduled with on_error="raise")
                error = failed
        if error is not None:
            for job in jobs:
                job.cancel()
            await asyncio.gather(*jobs, return_exceptions=True)
        raised = None
        for transformer in self.transformers:
            try:
                await (transformer.afail(error) if error is not None else transformer.afinalize())
            except Exception as failed:
                raised = raised or failed
        self.error = error
        self._end_channels(error)
        _raise_first(error, raised)

    def _end_channels(self, error: BaseException | None) -> None:
        for channel in self._channels():
            channel.fail(error) if error is not None else channel.close()


def _made(factory: Callable[..., Any], scope: tuple[str, ...]) -> Any:
    """The transformer ``factory`` makes for ``scope``, checked to be one."""
    made = factory(scope)
    if not isinstance(made, StreamTransformer) and not hasattr(made, "process"):
        name = getattr(factory, "__qualname__", type(factory).__name__)
        raise AttributeError(
            f"the v3 transformer factory {name} returned {type(made).__name__} "
            f"({made!r}), not a StreamTransformer: a factory is called as factory(scope) "
            "and must return the transformer, e.g. `lambda scope: MyTransformer(scope)`"
        )
    return made


def _projections(transformer: Any, owners: dict[str, str]) -> dict[str, Any]:
    """What ``transformer.init()`` returns, checked: a dict whose keys no transformer of
    the scope took before (``owners``: key -> the transformer that took it)."""
    name = type(transformer).__name__
    projections = transformer.init()
    if not isinstance(projections, dict):
        raise TypeError(
            f"StreamTransformer.init() must return a dict, got {type(projections).__name__} "
            f"from {name}.init(): return {{'name': StreamChannel(...)}}, or {{}} for none"
        )
    if taken := [key for key in projections if key in owners]:
        owned = ", ".join(f"{key!r} (owned by {owners[key]})" for key in taken)
        raise ValueError(
            f"Transformer {name} returned projection keys that conflict with "
            f"already-registered keys: {owned}; give its projections other names"
        )
    owners.update(dict.fromkeys(projections, name))
    return projections


def _raise_first(error: BaseException | None, raised: BaseException | None) -> None:
    """After a scope ended: a transformer's error in ``finalize`` is the run's; in
    ``fail``, the run's own ``error`` stays the one raised, and says what else failed."""
    if raised is None:
        return
    if error is None:
        raise raised
    if error is not raised:
        error.add_note(f"(ending the run, a stream transformer's fail() also raised {raised!r})")
