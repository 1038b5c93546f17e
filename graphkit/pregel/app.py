"""CompiledGraph: the runnable graph, with LangGraph's invoke/stream interface built
on the stepper (one loop, run to the end)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Executor
from typing import Any

from graphkit.errors import GraphRecursionError
from graphkit.pregel.config import RunConfig
from graphkit.pregel.records import Run, TaskResult
from graphkit.pregel.spec import GraphSpec
from graphkit.pregel.stepper import Stepper

__all__ = ["CompiledGraph"]

SUPPORTED_STREAM_MODES = ("values", "updates")
LATER_STREAM_MODES = ("debug", "tasks", "checkpoints", "custom", "messages")


class CompiledGraph:
    """A graph ready to run. Build one with ``StateGraph(...).compile()``.

    >>> from typing import TypedDict
    >>> from graphkit import StateGraph, START
    >>> class State(TypedDict):
    ...     text: str
    >>> builder = StateGraph(State)
    >>> _ = builder.add_node("shout", lambda state: {"text": state["text"].upper()})
    >>> _ = builder.add_edge(START, "shout")
    >>> app = builder.compile()
    >>> app.invoke({"text": "hi"})
    {'text': 'HI'}
    >>> list(app.stream({"text": "hi"}))
    [{'shout': {'text': 'HI'}}]
    >>> [superstep.plan.nodes for superstep in app.trace({"text": "hi"}).steps]
    [['__input__'], ['__start__'], ['shout']]
    """

    def __init__(
        self,
        spec: GraphSpec,
        *,
        builder: Any = None,
        name: str = "LangGraph",
        executor: Executor | None = None,
    ) -> None:
        self.spec = spec
        self.builder = builder
        self.name = name
        self.executor = executor
        self.stream_mode = "updates"

    # -- stepping ---------------------------------------------------------------------

    def stepper(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        record: bool = True,
        executor: Executor | None = None,
    ) -> Stepper:
        """Start a run you advance phase by phase (see ``Stepper``)."""
        return Stepper(
            self.spec,
            input,
            RunConfig.from_dict(config),
            record=record,
            executor=executor or self.executor,
        )

    def trace(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Run:
        """Run to completion and return the recorded ``Run``.

        If a node fails or the recursion limit is hit, the error is raised; the
        partial run is attached to it as ``error.run``.
        """
        stepper = self.stepper(input, config, **kwargs)
        try:
            return stepper.run()
        except Exception as error:
            error.run = stepper.run_so_far  # type: ignore[attr-defined]
            raise

    # -- LangGraph's interface ------------------------------------------------------------

    def invoke(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        stream_mode: str = "values",
        output_keys: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> Any:
        """Run to the end; return the final output (``stream_mode="values"``) or the
        list of chunks of another stream mode, as LangGraph does."""
        keys = tuple(output_keys) if output_keys is not None else self.spec.output_keys
        latest: Any = None
        chunks = []
        for chunk in self.stream(
            input, config, stream_mode=stream_mode, output_keys=keys, **kwargs
        ):
            if stream_mode == "values":
                latest = chunk
            else:
                chunks.append(chunk)
        return latest if stream_mode == "values" else chunks

    def stream(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        stream_mode: str | Sequence[str] | None = None,
        output_keys: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> Iterator[Any]:
        """Run to the end, yielding chunks as the run goes.

        ``stream_mode`` is ``"updates"`` (default: ``{node: update}`` per task, as it
        finishes), ``"values"`` (the whole state after each step that wrote it), or a
        list of modes, which yields ``(mode, chunk)`` pairs.
        """
        _refuse_later_options(kwargs)
        modes, single = _stream_modes(stream_mode or self.stream_mode)
        keys = tuple(output_keys) if output_keys is not None else self.spec.stream_keys
        stepper = self.stepper(input, config, **kwargs)
        # As in LangGraph, a step's values chunk is delivered once the next step has
        # been planned: if planning fails (e.g. a node's input does not validate), the
        # error is raised and that chunk is not delivered.
        pending_values = None
        while not stepper.done:
            try:
                plan = stepper.plan()
            except GraphRecursionError:
                if pending_values is not None:  # LangGraph delivers it before raising
                    yield pending_values
                raise
            if pending_values is not None:
                yield pending_values
                pending_values = None
            if stepper.done:
                break
            results = []
            for result in stepper.iter_execute():
                results.append(result)
                if "updates" in modes and (chunk := self._update_chunk(result)) is not None:
                    yield chunk if single else ("updates", chunk)
            stepper.update()
            # LangGraph emits values when the step *wrote* an output key, changed or not
            if "values" in modes and plan.step >= 0 and _wrote_any(results, keys):
                chunk = stepper.output(keys)
                pending_values = chunk if single else ("values", chunk)

    def _update_chunk(self, result: TaskResult) -> dict[str, Any] | None:
        node = self.spec.nodes.get(result.task.node)
        if node is None or node.hidden or (result.error is not None and not result.writes):
            return None
        keys = self.spec.stream_keys
        writes = [(channel, value) for channel, value in result.writes if channel in keys]
        if not writes:
            return {node.name: None}
        channels = [channel for channel, _ in writes]
        if len(set(channels)) < len(channels):  # the same key twice: one dict per write
            return {node.name: [{channel: value} for channel, value in writes]}
        return {node.name: dict(writes)}


def _wrote_any(results: list[TaskResult], keys: tuple[str, ...]) -> bool:
    key_set = set(keys)
    return any(channel in key_set for result in results for channel, _ in result.writes)


LATER_OPTIONS = (
    "context",
    "interrupt_before",
    "interrupt_after",
    "durability",
    "subgraphs",
    "print_mode",
    "debug",
    "checkpoint_during",
)


def _refuse_later_options(kwargs: dict[str, Any]) -> None:
    for option in LATER_OPTIONS:
        value = kwargs.pop(option, None)
        if value:
            raise NotImplementedError(f"{option}=... is not supported by graphkit yet.")


def _stream_modes(stream_mode: str | Sequence[str]) -> tuple[tuple[str, ...], bool]:
    single = isinstance(stream_mode, str)
    modes = (stream_mode,) if isinstance(stream_mode, str) else tuple(stream_mode)
    for mode in modes:
        if mode in LATER_STREAM_MODES:
            raise NotImplementedError(
                f"stream_mode={mode!r} is not supported yet; graphkit streams "
                f"{list(SUPPORTED_STREAM_MODES)} so far."
            )
        if mode not in SUPPORTED_STREAM_MODES:
            raise ValueError(
                f"Unknown stream_mode {mode!r}; use one of {list(SUPPORTED_STREAM_MODES)} "
                "or a list of them."
            )
    return modes, single
