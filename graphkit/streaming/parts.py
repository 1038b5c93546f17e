"""``version="v2"``: each chunk of a run as one part, ``{"type": mode, "ns": namespace,
"data": chunk}``, the same dict whatever the modes and ``subgraphs`` asked (LangGraph
1.2's ``StreamPart``). A values part also carries ``"interrupts"``, taken out of its data;
with a pydantic or dataclass schema, the state in values and checkpoint data becomes an
instance of it. ``version="v1"`` (the default) yields the chunks as they are.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from graphkit.constants import INTERRUPT, ROOT, START
from graphkit.errors import warn
from graphkit.types import GraphOutput

if TYPE_CHECKING:
    from graphkit.pregel.app import CompiledGraph

__all__ = ["VERSIONS", "Parts", "checked_version"]

VERSIONS = ("v1", "v2")

Mapper = Callable[[dict[str, Any]], Any]


def checked_version(version: Any) -> str:
    """``version`` as run: "v1" or "v2". None is the default, "v1". LangGraph runs any
    other value as "v1" without a word; graphkit does too, but warns, since it is most
    likely a typo.

    >>> checked_version("v2"), checked_version(None)
    ('v2', 'v1')
    """
    if version is None or version in VERSIONS:
        return version or "v1"
    warn(
        f"version={version!r} is not a stream format: use version='v1' or 'v2'. "
        "Running as 'v1', as LangGraph does."
    )
    return "v1"


class Parts:
    """Turns a run's chunks into v2 parts; ``output`` and ``state`` build the schema
    instances that values data (from the output schema) and checkpoint values (from the
    state schema) become, or are None for dict and single-value schemas.

    >>> parts = Parts()
    >>> parts.part((), "values", {"n": 1, "__interrupt__": ("ask",)})
    {'type': 'values', 'ns': (), 'data': {'n': 1}, 'interrupts': ('ask',)}
    >>> parts.part(("sub:1",), "custom", "hi")
    {'type': 'custom', 'ns': ('sub:1',), 'data': 'hi'}
    """

    def __init__(self, output: Mapper | None = None, state: Mapper | None = None) -> None:
        self.output, self.state = output, state

    def __repr__(self) -> str:
        return f"Parts(output={self.output is not None}, state={self.state is not None})"

    @classmethod
    def of(cls, app: CompiledGraph) -> Parts:
        """The parts of ``app``'s runs (its schemas come from the builder, if any)."""
        builder, spec = app.builder, app.spec
        return cls(
            _instance_maker(getattr(builder, "output_schema", None), spec.output_keys),
            _instance_maker(getattr(builder, "state_schema", None), spec.stream_keys),
        )

    def part(self, namespace: tuple[str, ...], mode: str, chunk: Any) -> dict[str, Any]:
        """The part for ``chunk`` of ``mode``, sent from ``namespace``."""
        if mode == "values":
            interrupts: tuple[Any, ...] = ()
            if isinstance(chunk, dict):
                interrupts = tuple(chunk.get(INTERRUPT, ()))
                chunk = {key: value for key, value in chunk.items() if key != INTERRUPT}
                if self.output is not None:
                    chunk = self.output(chunk)
            return {"type": mode, "ns": namespace, "data": chunk, "interrupts": interrupts}
        if self.state is not None and isinstance(chunk, dict):
            if mode == "checkpoints":
                chunk = self._checkpoint(chunk)
            elif mode == "debug" and chunk.get("type") == "checkpoint":
                chunk = {**chunk, "payload": self._checkpoint(chunk["payload"])}
        return {"type": mode, "ns": namespace, "data": chunk}

    def _checkpoint(self, payload: dict[str, Any]) -> dict[str, Any]:
        """A checkpoint payload with its values as the state schema's instance; not the
        first checkpoint's (next: START), whose state may lack required fields."""
        values = payload.get("values")
        if self.state is None or not isinstance(values, dict) or START in payload["next"]:
            return payload
        return {**payload, "values": self.state(values)}


def _instance_maker(schema: Any, keys: tuple[str, ...]) -> Mapper | None:
    """``schema(**values)`` for a pydantic model or dataclass schema; None otherwise."""
    if keys == (ROOT,) or not inspect.isclass(schema):
        return None
    if dataclasses.is_dataclass(schema) or hasattr(schema, "model_fields"):
        return lambda values: schema(**values)
    return None


class Collector:
    """What ``invoke`` and ``ainvoke`` return, from the chunks of stream_mode ``mode``.

    v1, "values": the final values (with ``"__interrupt__"``: a list of what the run
    waits for); v2, "values": a ``GraphOutput``; any other mode: every chunk (v2: part).
    """

    def __init__(self, mode: Any, version: Any = "v1", subgraphs: bool = False) -> None:
        self.values = mode == "values"
        self.v2 = version == "v2"
        # (v1 chunks come as (namespace, chunk): as in LangGraph, the last values of any
        # namespace are returned, with each level's interrupts)
        self.unwrap = subgraphs and self.values and not self.v2
        self.latest: Any = None
        self.interrupts: list[Any] = []
        self.chunks: list[Any] = []

    def __repr__(self) -> str:
        mode = "values" if self.values else "chunks"
        return f"Collector({mode}, {'v2' if self.v2 else 'v1'}, seen={len(self.chunks)})"

    def add(self, chunk: Any) -> None:
        if self.unwrap:
            chunk = chunk[1]
        if not self.values:
            self.chunks.append(chunk)
        elif self.v2:
            self.latest = chunk["data"]
            self.interrupts.extend(chunk["interrupts"])
        elif isinstance(chunk, dict) and INTERRUPT in chunk:  # a task paused the run
            self.interrupts.extend(chunk[INTERRUPT])
            self.latest = {k: v for k, v in chunk.items() if k != INTERRUPT}
        else:
            self.latest = chunk

    def result(self) -> Any:
        if not self.values:
            return self.chunks
        if self.v2:
            return GraphOutput(self.latest, tuple(self.interrupts))
        if not self.interrupts:
            return self.latest
        # values that are no dict (a list state, say) cannot carry the interrupts: as in
        # LangGraph, a paused run then returns the interrupts alone
        latest = self.latest if isinstance(self.latest, dict) else {}
        return {**latest, INTERRUPT: self.interrupts}
