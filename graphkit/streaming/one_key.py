"""Chunks read through one key named alone: ``output_keys="x"`` makes values and
updates chunks show that key's value; one stream channel named alone (a ``Pregel``'s,
``StateGraph(int)``'s) makes checkpoint payloads show its value, as in LangGraph."""

from __future__ import annotations

from typing import Any

from graphkit.pregel.threads import INTERRUPT
from graphkit.streaming.emitters import CallUpdate

__all__: list[str] = []  # (private to the streaming layer: run.py's helpers)


def _one_value(chunk: Any, key: str) -> Any:
    """A values chunk for ``output_keys=key``: the key's value; a pause shows its
    interrupts (added to the value when that is a dict, as in LangGraph)."""
    if not isinstance(chunk, dict):
        return chunk
    if INTERRUPT in chunk:
        value = chunk.get(key)
        return (
            {**value, INTERRUPT: chunk[INTERRUPT]}
            if isinstance(value, dict)
            else {INTERRUPT: chunk[INTERRUPT]}
        )
    return chunk.get(key)


def _one_checkpoint(chunk: Any, mode: str, key: str) -> Any:
    """A checkpoint payload (mode "checkpoints", or a "debug" checkpoint event) whose
    values are read through one stream channel named alone: that channel's value."""
    event = mode == "debug" and isinstance(chunk, dict) and chunk.get("type") == "checkpoint"
    payload = chunk["payload"] if event else chunk
    if not isinstance(payload, dict) or not isinstance(payload.get("values"), dict):
        return chunk
    payload = {**payload, "values": payload["values"].get(key)}
    return {**chunk, "payload": payload} if event else payload


def _one_update(chunk: Any, key: str) -> Any:
    """An updates chunk for ``output_keys=key``: what each node wrote to the key (None
    if nothing), as in LangGraph; ``__interrupt__`` and ``__metadata__`` stay as they are,
    and so does a called task's (``CallUpdate``)."""
    if not isinstance(chunk, dict) or isinstance(chunk, CallUpdate):
        return chunk

    def value(update: Any) -> Any:
        if isinstance(update, list):
            return [part.get(key) for part in update if isinstance(part, dict)]
        return update.get(key) if isinstance(update, dict) else update

    return {k: v if k.startswith("__") else value(v) for k, v in chunk.items()}
