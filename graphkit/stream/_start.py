"""Starting a v3 run (``app.stream_events`` / ``astream_events(version="v3")``): check
what was asked, make the run's transformers, and open graphkit's own v2 stream with the
modes they need and ``subgraphs=True`` — the v3 run is built on it, part by part."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from graphkit.constants import PROTOCOL_MESSAGES_KEY
from graphkit.stream._protocol import StreamTransformer
from graphkit.stream._router import EventRouter, Pump
from graphkit.stream.run_stream import AsyncGraphRunStream, GraphRunStream
from graphkit.stream.transformers import (
    LifecycleTransformer,
    MessagesTransformer,
    SubgraphTransformer,
    ValuesTransformer,
)

__all__ = ["open_async_run", "open_run", "refuse_owned_options"]

EVERY_RUN = (ValuesTransformer, MessagesTransformer, LifecycleTransformer, SubgraphTransformer)
"""The transformers every v3 run has, before the graph's and the call's own."""

OWNED_OPTIONS = ("stream_mode", "subgraphs")

GRAPHKIT_MODES = ("values", "updates", "debug", "tasks", "checkpoints", "custom", "messages")
"""The stream modes graphkit's v2 stream sends (``graphkit.streaming.STREAM_MODES``, named
again here because graphkit.streaming imports the runtime, which starts v3 runs)."""


def refuse_owned_options(kwargs: Mapping[str, Any]) -> None:
    """The v3 run chooses the stream modes and streams subgraphs itself: asking for
    either is a ``TypeError`` (with LangGraph's wording)."""
    if given := [name for name in OWNED_OPTIONS if name in kwargs]:
        raise TypeError(
            "stream_events(version='v3') / astream_events(version='v3') do not accept "
            f"{', '.join(given)}; v3 owns these (stream_mode is built from the transformer "
            "mux, subgraphs is forced True so nested namespaces flow through scoped muxes)."
        )


def open_run(
    app: Any, input: Any, config: Any, transformers: Sequence[Any] | None, kwargs: Any
) -> GraphRunStream:
    """The sync v3 run of ``app`` (nothing runs until it is read)."""
    _warn_once("stream_events")  # (here, not in _start: the warning names our caller)
    router, pump = _start(app, input, config, transformers, kwargs, is_async=False)
    _warn_once("GraphRunStream")
    return GraphRunStream(router, pump)


async def open_async_run(
    app: Any, input: Any, config: Any, transformers: Sequence[Any] | None, kwargs: Any
) -> AsyncGraphRunStream:
    """The async v3 run of ``app`` (what ``await app.astream_events(...)`` gives)."""
    _warn_once("astream_events")
    router, pump = _start(app, input, config, transformers, kwargs, is_async=True)
    _warn_once("AsyncGraphRunStream")
    return AsyncGraphRunStream(router, pump)


def _start(
    app: Any,
    input: Any,
    config: Any,
    transformers: Sequence[Any] | None,
    kwargs: Any,
    is_async: bool,
) -> tuple[EventRouter, Pump]:
    """The run's root router and its pump, on the graph's v2 stream (not yet pulled)."""
    factories = [*EVERY_RUN, *app.stream_transformers, *_given(transformers)]
    for factory in factories:
        _check_factory(factory)
    scope = _caller_scope()
    pump = Pump(scope, is_async)
    router = EventRouter(scope, factories, pump)
    # a chat model called in a node sends content-block events (not tokens) in a v3 run
    config = dict(config or {})
    config["configurable"] = {**config.get("configurable", {}), PROTOCOL_MESSAGES_KEY: True}
    v2 = {"stream_mode": _stream_modes(router), **kwargs, "subgraphs": True, "version": "v2"}
    if is_async:
        pump.parts = aiter(app.astream(input, config, **v2))
    else:
        pump.parts = iter(app.stream(input, config, **v2))
    return router, pump


def _stream_modes(router: EventRouter) -> list[str]:
    """The v2 stream modes the run's transformers need, each once, in the order asked."""
    modes: list[str] = []
    for transformer in router.transformers:
        for mode in transformer.required_stream_modes:
            if mode not in GRAPHKIT_MODES:
                name = type(transformer).__name__
                lacking = f"{name} needs stream mode {mode!r}, which graphkit does not stream yet"
                hint = (
                    "leave the transformer out, or read the run with app.stream(..., version='v2')"
                )
                raise NotImplementedError(f"{lacking}: {hint}")
            modes += [mode] if mode not in modes else []
    return modes


def _given(transformers: Any) -> list[Any]:
    """The call's ``transformers=``: a list (or other iterable) of factories, or None."""
    if transformers is None:
        return []
    if isinstance(transformers, (str, bytes, Mapping)) or not hasattr(transformers, "__iter__"):
        raise TypeError(
            "stream_events(version='v3') transformers= takes a list of transformer "
            f"classes or factories, got {type(transformers).__name__}: write "
            "transformers=[MyTransformer]"
        )
    return list(transformers)


def _check_factory(factory: Callable[..., Any]) -> None:
    # a transformer is made once per scope (the run's, each subgraph's), so a run is
    # given what makes one, not one
    if isinstance(factory, StreamTransformer):
        raise TypeError(
            "stream_events(version='v3') transformers must be scope-aware callables, got "
            f"pre-built instance {type(factory).__name__}. Pass the transformer class or a "
            "factory like `lambda scope: MyTransformer(scope, ...)`."
        )
    if not callable(factory):
        raise TypeError(
            "stream_events(version='v3') transformers must be scope-aware callables, got "
            f"{type(factory).__name__}. Pass a StreamTransformer subclass or a factory like "
            "`lambda scope: MyTransformer(scope, ...)`."
        )


def _caller_scope() -> tuple[str, ...]:
    """The namespace of the task this run is started from (a v3 run inside a node sees
    its graph's events under it), or () at top level."""
    from graphkit.config import get_config

    try:
        namespace = get_config().get("configurable", {}).get("checkpoint_ns", "")
    except RuntimeError:  # (not inside a run)
        return ()
    return tuple(namespace.split("|")) if namespace else ()


_warned: set[str] = set()


def _warn_once(where: str) -> None:
    """LangGraph's beta warning, once per process for each place that gives it (the
    entry point, and the run object it makes)."""
    if where in _warned:
        return
    _warned.add(where)
    try:
        from langchain_core._api.beta_decorator import LangChainBetaWarning
    except ImportError:  # (langchain-core is optional: a plain warning then)
        LangChainBetaWarning = DeprecationWarning
    message = "The v3 streaming protocol on Pregel is experimental."
    warnings.warn(message, LangChainBetaWarning, stacklevel=3)
