"""InMemorySaver: checkpoints kept in this process, sharing unchanged values."""

from __future__ import annotations

import dataclasses
import operator
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Self

from graphkit.checkpoint.base import Checkpoint
from graphkit.checkpoint.copies import (
    AtomList,
    Lent,
    copy_seen,
    copy_values,
    kept_copy,
    private_copy,
)
from graphkit.checkpoint.delta_map import DeltaMap
from graphkit.checkpoint.deltas import map_delta
from graphkit.checkpoint.saver import (
    BaseCheckpointSaver,
    CheckpointTuple,
    PendingWrite,
    checkpoint_config,
    config_key,
    matches,
    pending_order,
    saved_metadata,
    thread_id_of,
    write_index,
    written_checkpoint_id,
)
from graphkit.checkpoint.serde import (
    JSON_SCALARS,
    JsonPlusSerializer,
    SerializerProtocol,
    is_json_plus,
    long_run_of,
)

__all__ = ["InMemorySaver", "MemorySaver"]


class InMemorySaver(BaseCheckpointSaver):
    """Keeps every checkpoint of every thread in memory, for tests, notebooks and
    teaching. Checkpoint records share unchanged values with their parents, so a
    checkpoint costs what its step changed. Use ``SqliteSaver`` for anything that must
    outlive the process.

    It accepts what ``SqliteSaver`` with the same ``serde`` accepts: each value a step
    changes, each pending write and the metadata go through ``serde.dumps_typed`` (as
    LangGraph's in-memory saver serializes them), so a state that could not be saved to
    a file is refused here too, at the step that made it. It keeps its own copy of each
    value a step changed and of each pending write (as LangGraph's saver serializes them
    at put), and hands each reader its own copy (as LangGraph's decodes each read): a
    value edited in place afterwards, by the caller or a node, changes no saved
    checkpoint.

    >>> saver = InMemorySaver()
    >>> saver.get_tuple({"configurable": {"thread_id": "t1"}}) is None
    True
    """

    def __init__(self, *, serde: SerializerProtocol | None = None) -> None:
        self.serde = serde if serde is not None else JsonPlusSerializer()
        self._lock = threading.Lock()
        # (thread, ns) -> {checkpoint id: (checkpoint, metadata)}, in insertion order
        self._checkpoints: dict[tuple[str, str], dict[str, tuple[Checkpoint, dict[str, Any]]]] = {}
        # (thread, ns, checkpoint id) -> {(task id, index): (channel, value, task path)}
        self._writes: dict[tuple[str, str, str], dict[tuple[str, int], tuple[str, Any, str]]] = {}
        # a reader's copy of saved values (or a map a run derived from one, once saved)
        # -> the saved map it stands for
        self._lent = Lent()

    # ``with InMemorySaver() as saver:`` (and ``async with``), as LangGraph's allows, so
    # code written for a saver that must be closed runs with this one too; nothing to close.
    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        return None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        return None

    def get_tuple(self, config: Mapping[str, Any]) -> CheckpointTuple | None:
        thread, namespace = thread_id_of(config), config_key(config, "checkpoint_ns", "")
        wanted = config_key(config, "checkpoint_id")
        with self._lock:
            # a namespace read is listed from then on in the place of its first reading, as
            # LangGraph's does (a run reads its own first), even if a subgraph saves first
            saved = self._checkpoints.setdefault((thread, namespace), {})
            if wanted is None:
                if not saved:
                    return None
                wanted = max(saved)
            if wanted not in saved:
                return None
            found = self._saved(thread, namespace, wanted, *saved[wanted])
        return self._tuple(found)  # (copied outside the lock: nothing saved changes)

    def list(
        self,
        config: Mapping[str, Any] | None,
        *,
        filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        thread = config_key(config, "thread_id")
        thread = None if thread is None else str(thread)  # (as put saved it: a UUID too)
        namespace = config_key(config, "checkpoint_ns")
        wanted = config_key(config, "checkpoint_id")  # only that one, as LangGraph's savers
        before_id = config_key(before, "checkpoint_id")
        with self._lock:
            # as LangGraph's: thread by thread, then namespace by namespace (in the order
            # they were first written), newest first within each
            first: dict[str, int] = {}
            for index, (t, _) in enumerate(self._checkpoints):
                first.setdefault(t, index)
            found = [
                self._saved(t, ns, checkpoint_id, checkpoint, metadata)
                for t, ns in sorted(self._checkpoints, key=lambda key: first[key[0]])
                if (thread is None or t == thread) and (namespace is None or ns == namespace)
                for checkpoint_id, (checkpoint, metadata) in sorted(
                    self._checkpoints[t, ns].items(), reverse=True
                )
                if (wanted is None or checkpoint_id == wanted)
                and (before_id is None or checkpoint_id < before_id)
                and matches(metadata, filter)
            ]
        found = found[: max(limit, 0)] if limit is not None else found  # (negative: none)
        yield from map(self._tuple, found)  # (each copied when it is reached)

    def put(
        self,
        config: Mapping[str, Any],
        checkpoint: Checkpoint,
        metadata: Mapping[str, Any],
        new_versions: Mapping[str, int],
    ) -> dict[str, Any]:
        thread, namespace = thread_id_of(config), config_key(config, "checkpoint_ns", "")
        metadata = saved_metadata(config, metadata)
        with self._lock:
            saved = self._checkpoints.setdefault((thread, namespace), {})
            parent = saved.get(checkpoint.parent_id) if checkpoint.parent_id else None
            run_values = checkpoint.channel_values
            parent_values = parent[0].channel_values if parent else None
            # (a reader's copy put back as it is, a fork's, stands for values kept already)
            read_back = self._lent.origin(run_values) is not None
            checkpoint = self._kept(checkpoint, parent and parent[0])
            values = _new_values(checkpoint.channel_values, parent_values)
            where = lambda channel: (  # noqa: E731
                f"checkpoint {checkpoint.id!r} of thread {thread!r}, "
                + (f"channel {channel!r}" if channel is not None else "metadata")
            )
            # (a long list of str, numbers, bools and None: one pass tells that the JSON
            # serializers store it and that the saver's copy needs no other look; a
            # subclass with a check of its own is asked)
            plain = _plain_lists(values) if is_json_plus(self.serde) else {}
            unchecked = (
                [item for item in values.items() if item[0] not in plain]
                if plain
                else values.items()
            )
            self._refuse_unstorable([(None, metadata), *unchecked], where)
            owned = checkpoint.channel_values
            if not read_back:
                copies = _copies(values, plain, where)
                owned = _owned(checkpoint.channel_values, parent_values, copies)
            if owned is not checkpoint.channel_values:
                checkpoint = dataclasses.replace(checkpoint, channel_values=owned)
                if isinstance(run_values, DeltaMap):  # the run's next checkpoint derives from it
                    self._lent.lend(run_values, owned)
            saved[checkpoint.id] = (checkpoint, metadata)
        return checkpoint_config(thread, namespace, checkpoint.id)

    def put_writes(
        self,
        config: Mapping[str, Any],
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        thread, namespace = thread_id_of(config), config_key(config, "checkpoint_ns", "")
        checkpoint_id = written_checkpoint_id(config, task_id)
        where = lambda channel: (  # noqa: E731
            f"a write of task {task_id!r} to checkpoint {checkpoint_id!r} "
            f"of thread {thread!r}, channel {channel!r}"
        )
        self._refuse_unstorable(writes, where)
        owned = [(channel, _own(value, where, channel)) for channel, value in writes]
        with self._lock:  # (each copied first: one refused leaves none of them saved)
            pending = self._writes.setdefault((thread, namespace, checkpoint_id), {})
            for position, (channel, value) in enumerate(owned):
                key = (task_id, write_index(channel, position))
                if key[1] >= 0 and key in pending:
                    continue  # a saved write stays; only special slots are replaced
                pending[key] = (channel, value, task_path)

    def delete_thread(self, thread_id: str) -> None:
        thread_id = str(thread_id)  # (a UUID too, as put saved it)
        with self._lock:
            for key in [key for key in self._checkpoints if key[0] == thread_id]:
                del self._checkpoints[key]
            for key in [key for key in self._writes if key[0] == thread_id]:
                del self._writes[key]

    def _refuse_unstorable(
        self, items: Sequence[tuple[Any, Any]], where: Callable[[Any], str]
    ) -> None:
        """Raise the TypeError SqliteSaver would for a value its serializer cannot store
        (``items``: (channel, value) pairs; ``where`` says where a channel's value goes)."""
        check = getattr(self.serde, "check_storable", None) or self.serde.dumps_typed
        try:
            for _, value in items:
                if type(value) not in JSON_SCALARS:  # every serializer stores these
                    check(value)
        except TypeError:
            for key, value in items:  # again, to say which one (in SqliteSaver's words)
                try:
                    check(value)
                except TypeError as error:
                    raise TypeError(f"Cannot save {where(key)}. {error}") from error
            raise

    def _kept(self, checkpoint: Checkpoint, parent: Checkpoint | None) -> Checkpoint:
        """``checkpoint`` as kept: its values and versions seen ``_rebased`` onto the saved
        maps a reader's copy stands for."""
        values = self._rebased(checkpoint.channel_values, parent and parent.channel_values)
        seen = self._rebased(checkpoint.versions_seen, parent and parent.versions_seen)
        if values is checkpoint.channel_values and seen is checkpoint.versions_seen:
            return checkpoint  # (each step of a run that started from no copy)
        return dataclasses.replace(checkpoint, channel_values=values, versions_seen=seen)

    def _rebased(self, kept: Mapping[str, Any], parent: Mapping[str, Any] | None) -> Any:
        """A checkpoint's values (or versions seen) as kept: if ``kept`` is a reader's
        copy of saved ones (a fork, a ``__copy__`` update), the saved map itself; if it
        was derived from such a copy (a resumed run's), the saved map with the same
        changes. Else a resumed run would keep a whole copy of the thread's values at
        each run.

        The copy may be several maps back: with ``durability="exit"`` a resumed run puts
        only its last checkpoint. The walk stops at ``parent``, the saved parent's map
        (a run that resumed from no copy derives each checkpoint from the one it put)."""
        saved = self._lent.origin(kept)
        if saved is not None or not isinstance(kept, DeltaMap):
            return kept if saved is None else saved
        derived = [kept]  # kept, then the maps it was derived from, newest first
        ancestor = kept.derived_from()
        while ancestor is not None and ancestor is not parent:
            origin = self._lent.origin(ancestor)
            if origin is not None:
                origin = origin if isinstance(origin, DeltaMap) else DeltaMap(origin)
                # (one step back, the usual case: that step's own delta)
                changes = kept.delta() if len(derived) == 1 else _changes_of(reversed(derived))
                saved = origin.with_changes(*changes)
                self._lent.lend(kept, saved)  # the run's next checkpoint derives from it
                return saved
            derived.append(ancestor)
            ancestor = ancestor.derived_from()
        return kept

    def _saved(
        self,
        thread: str,
        namespace: str,
        checkpoint_id: str,
        checkpoint: Checkpoint,
        metadata: dict[str, Any],
    ) -> tuple[str, str, str, Checkpoint, dict[str, Any], list[PendingWrite]]:
        """What ``_tuple`` reads, taken while the lock is held."""
        saved = self._writes.get((thread, namespace, checkpoint_id), {})
        ordered = sorted(saved.items(), key=lambda item: pending_order(item[1][2], *item[0]))
        pending: list[PendingWrite] = [
            (task_id, channel, value) for (task_id, _), (channel, value, _) in ordered
        ]
        return thread, namespace, checkpoint_id, checkpoint, metadata, pending

    def _tuple(
        self,
        found: tuple[str, str, str, Checkpoint, dict[str, Any], list[PendingWrite]],
    ) -> CheckpointTuple:
        """A saved checkpoint as one reader gets it: its values, its pending writes and
        its metadata are the reader's own copies (LangGraph's saver decodes them anew)."""
        thread, namespace, checkpoint_id, checkpoint, metadata, pending = found
        values, seen = checkpoint.channel_values, checkpoint.versions_seen
        checkpoint = dataclasses.replace(
            checkpoint,
            channel_values=self._lent.lend(copy_values(values), values),
            versions_seen=self._lent.lend(copy_seen(seen), seen),
        )
        parent = (
            checkpoint_config(thread, namespace, checkpoint.parent_id)
            if checkpoint.parent_id
            else None
        )
        # (_make: the record needs none of the constructor's check for a dict)
        return CheckpointTuple._make(
            (
                checkpoint_config(thread, namespace, checkpoint_id),
                checkpoint,
                private_copy(metadata),
                parent,
                [(task_id, channel, private_copy(value)) for task_id, channel, value in pending],
            )
        )


MemorySaver = InMemorySaver
"""LangGraph's older name for ``InMemorySaver``."""


def _new_values(values: Mapping[str, Any], saved: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """The values of a checkpoint that are not in its saved parent's (all, without one)."""
    if saved is None:
        return values
    if isinstance(values, DeltaMap) and values.derived_from() is saved:
        return values.delta()[0]  # the usual step: the runtime says what it changed
    return map_delta(values, saved, operator.is_)[0]


def _copies(
    changed: Mapping[str, Any], plain: Mapping[str, AtomList], where: Callable[[str], str]
) -> dict[str, Any]:
    """The saver's own copies of the ``changed`` values that can change in place (the
    lists in ``plain`` are copied already)."""
    copies = {
        channel: plain[channel] if channel in plain else _own(value, where, channel)
        for channel, value in changed.items()
    }
    return {channel: copy for channel, copy in copies.items() if copy is not changed[channel]}


def _owned(
    values: Mapping[str, Any], parent: Mapping[str, Any] | None, copies: Mapping[str, Any]
) -> Mapping[str, Any]:
    """``values`` with the saver's own ``copies`` of the values a step changed: the run
    keeps its objects, and a node (or the caller) that changes one later changes no
    saved checkpoint, as LangGraph's saver serializes each at put."""
    if not copies:
        return values
    if parent is not None and isinstance(values, DeltaMap) and values.derived_from() is parent:
        changes, removed = values.delta()
        return parent.with_changes({**changes, **copies}, removed)  # type: ignore[attr-defined]
    return DeltaMap({**values, **copies})


def _plain_lists(values: Mapping[str, Any]) -> dict[str, AtomList]:
    """The saver's copies of the ``values`` that are lists of more than 8 str, numbers,
    bools or None (checked in C; the first item settles a list of messages at once)."""
    plain = {}
    for channel, value in values.items():  # (a loop: a comprehension is a call in 3.11)
        if type(value) is list and long_run_of(JSON_SCALARS, value):
            plain[channel] = AtomList(value)
    return plain


def _own(value: Any, where: Callable[[str], str], channel: str) -> Any:
    """A value the saver keeps: its own copy unless nothing in it can change. One nested
    too deep to copy (300 dataclasses, each holding the next) is refused here, as the
    serializer refuses one too deep for it: every reader's copy would fail the same way,
    leaving the thread unreadable."""
    if type(value) in JSON_SCALARS:
        return value
    try:
        return kept_copy(value)
    except RecursionError:
        raise TypeError(
            f"Cannot save {where(channel)}: its value nests too deep to copy (past Python's "
            "recursion limit). Store a flatter one, e.g. a list of (parent, item) pairs."
        ) from None


def _changes_of(maps: Iterator[DeltaMap]) -> tuple[dict[str, Any], set[str]]:
    """The keys set and removed by ``maps``' deltas, applied oldest first, as one delta."""
    changes: dict[str, Any] = {}
    removed: set[str] = set()
    for derived in maps:
        step_changes, step_removed = derived.delta()
        for key in step_removed:
            changes.pop(key, None)
        removed = (removed | step_removed) - step_changes.keys()
        changes.update(step_changes)
    return changes, removed
