"""Checkpoint records for saver tests, built the way the runtime builds them: each one
derived from its parent's maps with ``DeltaMap.with_changes``."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from typing import Any

from graphkit.checkpoint import Checkpoint, new_checkpoint_id


def thread(name: str = "t", namespace: str | None = None, checkpoint_id: str | None = None):
    configurable: dict[str, Any] = {"thread_id": name}
    if namespace is not None:
        configurable["checkpoint_ns"] = namespace
    if checkpoint_id is not None:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


def derive(
    previous: Checkpoint,
    changes: Mapping[str, Any],
    removed: Iterable[str] = (),
    *,
    node: str = "node",
    source: str = "loop",
) -> Checkpoint:
    """The checkpoint after a step that set ``changes`` and emptied ``removed``, run by
    ``node`` (which saw the versions it read)."""
    removed = list(removed)
    touched = [*changes, *removed]
    versions = {channel: previous.channel_versions.get(channel, 0) + 1 for channel in touched}
    seen = dict(previous.versions_seen.get(node, {}))
    seen.update({channel: previous.channel_versions.get(channel, 0) for channel in touched})
    return Checkpoint(
        id=new_checkpoint_id(),
        step=previous.step + 1,
        source=source,
        parent_id=None if previous.source == "empty" else previous.id,
        channel_values=previous.channel_values.with_changes(changes, removed),  # type: ignore[attr-defined]
        channel_versions=previous.channel_versions.with_changes(versions),  # type: ignore[attr-defined]
        versions_seen=previous.versions_seen.with_changes({node: seen}),  # type: ignore[attr-defined]
        updated_channels=frozenset(touched),
    )


def chain(
    channels: int, steps: int, *, changed: int = 2, seed: int = 0, tag: str = ""
) -> list[Checkpoint]:
    """``steps`` checkpoints of a ``channels``-channel state: the first sets every
    channel, each later one changes ``changed`` random channels (and now and then
    empties one)."""
    pick = random.Random(seed)
    names = [f"c{index}" for index in range(channels)]
    first = derive(Checkpoint.empty(), {name: f"{tag}{name}@0" for name in names}, source="input")
    checkpoints = [first]
    for step in range(1, steps):
        touched = pick.sample(names, changed)
        removed = touched[:1] if step % 10 == 0 else []
        changes = {name: [tag, name, step] for name in touched if name not in removed}
        checkpoints.append(derive(checkpoints[-1], changes, removed, node=f"n{step % 3}"))
    return checkpoints


def put_chain(saver, checkpoints: list[Checkpoint], name: str = "t", namespace: str = ""):
    """Put every checkpoint (with LangGraph-like metadata) and two writes after each."""
    configs = []
    for checkpoint in checkpoints:
        metadata = {"source": checkpoint.source, "step": checkpoint.step, "parents": {}}
        config = saver.put(thread(name, namespace), checkpoint, metadata, {})
        saver.put_writes(config, [("c0", checkpoint.step), ("log", (name, checkpoint.id))], "task")
        configs.append(config)
    return configs
