"""The saver protocol: where checkpoints and pending writes go, following LangGraph's.

A saver keeps, per thread and namespace, a chain (a tree, once forked) of
``Checkpoint`` records, their metadata, and the *pending writes* of the tasks that
finished in the step after each checkpoint — saved as each task finishes, so a run
that crashes mid-step resumes without re-running them.

Configs are LangGraph's: ``{"configurable": {"thread_id": ..., "checkpoint_ns": "",
"checkpoint_id": ...}}``.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from types import GenericAlias
from typing import Any, NamedTuple, NoReturn

from graphkit.checkpoint.base import WRITES_IDX_MAP, Checkpoint

__all__ = [
    "NOT_CARRIED",
    "BaseCheckpointSaver",
    "CheckpointTuple",
    "PendingWrite",
    "carried_metadata",
    "checkpoint_config",
    "config_key",
    "pending_order",
    "saved_metadata",
    "takes_task_path",
    "thread_id_of",
    "write_index",
    "written_checkpoint_id",
]

SPECIAL_WRITE_INDEX = WRITES_IDX_MAP
"""Writes to these channels have a fixed slot per task (LangGraph's indices), so a
task's interrupt survives its later, successful writes; they replace each other."""


NOT_CARRIED = frozenset({"thread_id", "checkpoint_id", "checkpoint_ns", "checkpoint_map"})
NOT_CARRIED |= {"langgraph_step", "langgraph_node", "langgraph_triggers", "langgraph_path"}
NOT_CARRIED |= {"langgraph_checkpoint_ns"}
"""Keys LangGraph leaves out of checkpoint metadata (the run's coordinates, the task's)."""


def carried_metadata(config: Mapping[str, Any] | None) -> dict[str, Any]:
    """What of a config LangGraph adds to a checkpoint's metadata: the string, number
    and bool values of its ``metadata`` and then its ``configurable``, except the run's
    coordinates and keys starting with "__".

    >>> carried_metadata({"configurable": {"thread_id": "1", "user": "ada", "__x": 1},
    ...                   "metadata": {"tag": "demo", "tags": ["a"]}})
    {'tag': 'demo', 'user': 'ada'}
    """
    carried: dict[str, Any] = {}
    for part in (config or {}).get("metadata"), (config or {}).get("configurable"):
        for key, value in (part or {}).items():
            if key in carried or key in NOT_CARRIED or key.startswith("__"):
                continue
            if isinstance(value, str):
                carried[key] = value.replace("\u0000", "")
            elif isinstance(value, (int, float, bool)):
                carried[key] = value
    return carried


def saved_metadata(config: Mapping[str, Any] | None, metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The metadata ``put`` saves: ``metadata`` plus what ``config`` carries (its own
    items win), as LangGraph's savers save it, so a checkpoint put directly with
    ``{"metadata": {"run_id": ...}}`` in its config is found by that key as a run's is.

    >>> saved_metadata({"metadata": {"run_id": "r", "step": 9}}, {"step": 1})
    {'step': 1, 'run_id': 'r'}
    """
    saved = {k: v.replace("\u0000", "") if isinstance(v, str) else v for k, v in metadata.items()}
    return {**saved, **{k: v for k, v in carried_metadata(config).items() if k not in saved}}


def serializable_metadata(
    config: Mapping[str, Any] | None, metadata: Mapping[str, Any]
) -> dict[str, Any]:
    """``saved_metadata`` without a ``"writes"`` item (LangGraph's
    ``get_serializable_checkpoint_metadata``, which older runtimes' metadata had).

    >>> serializable_metadata({}, {"step": 1, "writes": {"a": 1}})
    {'step': 1}
    """
    saved = saved_metadata(config, metadata)
    saved.pop("writes", None)
    return saved


def write_index(channel: str, position: int) -> int:
    """Where a task's write is kept: its position, or the fixed slot of a special channel.

    A regular write, once saved, is never replaced (a resumed task re-saving its writes
    leaves the first ones); a special one is.

    >>> write_index("messages", 0), write_index("__interrupt__", 0)
    (0, -3)
    """
    return SPECIAL_WRITE_INDEX.get(channel, position)


def pending_order(task_path: str, task_id: str, index: int) -> tuple[str, str, int]:
    """Where a pending write comes in the list of its checkpoint's (LangGraph's order): by
    the path of the task that made it (``put_writes``'s ``task_path``), then the task's
    id, then the write's index, so a task's special writes come before its others. The
    runtime applies a step's writes in task-path order too, whatever order they finished.

    >>> rows = [("~b", "t1", 0), ("~a", "t2", 1), ("~a", "t2", -3)]
    >>> sorted(rows, key=lambda row: pending_order(*row))
    [('~a', 't2', -3), ('~a', 't2', 1), ('~b', 't1', 0)]
    """
    return (task_path, task_id, index)


def takes_task_path(saver: Any, method: str = "put_writes") -> bool:
    """Whether ``saver.put_writes`` (or its twin ``method``) takes a ``task_path``: a
    saver written before LangGraph added it (``put_writes(config, writes, task_id)``) is
    called without one, as LangGraph's runtime calls it; its writes then all have the
    path ``""``.

    >>> from graphkit.checkpoint import InMemorySaver
    >>> class Old(InMemorySaver):
    ...     def put_writes(self, config, writes, task_id): ...
    >>> takes_task_path(InMemorySaver()), takes_task_path(Old())
    (True, False)
    """
    try:
        return "task_path" in inspect.signature(getattr(saver, method)).parameters
    except (TypeError, ValueError):  # (no signature to read: pass it, as before)
        return True


PendingWrite = tuple[str, str, Any]
"""``(task_id, channel, value)``: one write of a task that finished after a checkpoint."""


class _SavedTuple(NamedTuple):
    config: dict[str, Any]
    checkpoint: Checkpoint
    metadata: dict[str, Any]
    parent_config: dict[str, Any] | None = None
    pending_writes: Sequence[PendingWrite] = ()


class CheckpointTuple(_SavedTuple):
    """A saved checkpoint with its config, metadata, parent and pending writes (a named
    tuple, as LangGraph's). A saver written for LangGraph that gives the checkpoint back
    as LangGraph's dict (``checkpoint.copy()`` taken apart, put together again) gives
    back the record: ``Checkpoint.from_dict``."""

    __slots__ = ()

    def __new__(
        cls,
        config: dict[str, Any],
        checkpoint: Any,
        metadata: dict[str, Any],
        parent_config: dict[str, Any] | None = None,
        pending_writes: Sequence[PendingWrite] = (),
    ) -> CheckpointTuple:
        if type(checkpoint) is not Checkpoint and isinstance(checkpoint, Mapping):
            parent = config_key(parent_config, "checkpoint_id")
            checkpoint = Checkpoint.from_dict(checkpoint, metadata, parent)
        return super().__new__(cls, config, checkpoint, metadata, parent_config, pending_writes)


def config_key(config: Mapping[str, Any] | None, key: str, default: Any = None) -> Any:
    """``config["configurable"][key]``, or ``default``."""
    return ((config or {}).get("configurable") or {}).get(key, default)


def thread_id_of(config: Mapping[str, Any] | None) -> str:
    """The ``thread_id`` a saver's call needs (as a string); ValueError saying how to
    pass it when ``config`` has none."""
    thread = config_key(config, "thread_id")
    if thread is None:
        raise ValueError(
            "A checkpointer needs a thread: pass config={'configurable': {'thread_id': '1'}} "
            "to invoke/stream/get_state."
        )
    return str(thread)


def written_checkpoint_id(config: Mapping[str, Any], task_id: str) -> str:
    """The ``checkpoint_id`` a ``put_writes`` call saves against; ValueError when
    ``config`` names none (LangGraph's savers raise a KeyError): writes kept against no
    checkpoint would never be read back.

    >>> written_checkpoint_id(checkpoint_config("t", "", "c1"), "task")
    'c1'
    """
    checkpoint_id = config_key(config, "checkpoint_id")
    if checkpoint_id is None:
        raise ValueError(
            f"put_writes of task {task_id!r} needs the checkpoint the writes belong to: pass "
            "the config put() returned (or a CheckpointTuple's config), which has a "
            "'checkpoint_id'."
        )
    return str(checkpoint_id)


def with_checkpoint_map(config: dict[str, Any] | None, metadata: Mapping[str, Any] | None) -> Any:
    """A subgraph's checkpoint config as LangGraph shows it: with the checkpoint id of
    each namespace above it and its own (``checkpoint_map``); any other config as it is.

    >>> config = checkpoint_config("t", "sub:1", "c2")
    >>> with_checkpoint_map(config, {"parents": {"": "c1"}})["configurable"]["checkpoint_map"]
    {'': 'c1', 'sub:1': 'c2'}
    """
    if config is None or not (parents := (metadata or {}).get("parents")):
        return config
    own = config["configurable"]
    checkpoint_map = {**parents, own["checkpoint_ns"]: own["checkpoint_id"]}
    return {**config, "configurable": {**own, "checkpoint_map": checkpoint_map}}


def checkpoint_config(thread_id: str, namespace: str, checkpoint_id: str) -> dict[str, Any]:
    """The config that names one checkpoint.

    >>> checkpoint_config("t1", "", "abc")
    {'configurable': {'thread_id': 't1', 'checkpoint_ns': '', 'checkpoint_id': 'abc'}}
    """
    return {
        "configurable": {
            "thread_id": thread_id,
            "checkpoint_ns": namespace,
            "checkpoint_id": checkpoint_id,
        }
    }


def _not_written(saver: Any, method: str, purpose: str) -> NoReturn:
    raise NotImplementedError(
        f"{type(saver).__name__}.{method}() is not implemented, and it is needed to "
        f"{purpose}. A saver built on BaseCheckpointSaver writes get_tuple, list, put "
        "and put_writes (their async twins aget_tuple, alist, aput and aput_writes are "
        "enough for ainvoke / astream), and delete_thread to forget a thread."
    )


class _DefaultSerializer:
    """``self.serde`` of a saver given none, or whose ``__init__`` does not call
    ``BaseCheckpointSaver.__init__`` (LangGraph's is a class attribute, so such savers
    work there): a ``JsonPlusSerializer`` of its own, made when first read."""

    def __get__(self, saver: Any, owner: type) -> Any:
        if saver is None:
            return self
        from graphkit.checkpoint.serde import JsonPlusSerializer

        serde = saver.__dict__["serde"] = JsonPlusSerializer()
        return serde


class BaseCheckpointSaver:
    """What a checkpointer implements (LangGraph's method names and arguments).

    ``put`` receives the ``Checkpoint`` record, whose value maps know what the step
    changed (``DeltaMap.delta()``), so a saver can store only that; or it stores the
    whole record with ``self.serde.dumps_typed(checkpoint)``, as LangGraph's community
    savers do, and ``get_tuple`` gives back ``self.serde.loads_typed(...)`` of it.
    """

    serde: Any = _DefaultSerializer()

    # LangGraph's is generic (``BaseCheckpointSaver[...]`` in annotations); here the types are not
    # checked, so any arguments give a ``types.GenericAlias``, as ``list[int]`` does.
    __class_getitem__ = classmethod(GenericAlias)

    def __init__(self, *, serde: Any = None) -> None:
        """``serde``: how a saver built on this class writes values (``self.serde``, as
        in LangGraph): graphkit's ``JsonPlusSerializer`` unless given."""
        if serde is not None:
            self.serde = serde

    # None of these is abstract: as in LangGraph, a saver that writes only some of them
    # (only the async ones, for an async run; no delete_thread) can be made, and a
    # method it does not write raises when called.

    def get_tuple(self, config: Mapping[str, Any]) -> CheckpointTuple | None:
        """The checkpoint ``config`` names (its ``checkpoint_id``), or the thread's latest."""
        _not_written(self, "get_tuple", "read a thread's checkpoints")

    def list(
        self,
        config: Mapping[str, Any] | None,
        *,
        filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        """A thread's checkpoints, newest first; ``filter`` matches metadata items,
        ``before`` keeps those older than its checkpoint id."""
        _not_written(self, "list", "list a thread's checkpoints")

    def put(
        self,
        config: Mapping[str, Any],
        checkpoint: Checkpoint,
        metadata: Mapping[str, Any],
        new_versions: Mapping[str, int],
    ) -> dict[str, Any]:
        """Save ``checkpoint``; return the config that names it."""
        _not_written(self, "put", "save a checkpoint")

    def put_writes(
        self,
        config: Mapping[str, Any],
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Save the writes of one finished task, against the checkpoint ``config`` names."""
        _not_written(self, "put_writes", "save a task's writes")

    def delete_thread(self, thread_id: str) -> None:
        """Forget every checkpoint and write of ``thread_id``."""
        _not_written(self, "delete_thread", "forget a thread")

    # LangGraph's base saver has these three and its in-memory and SQLite savers leave
    # them unimplemented; so do graphkit's, with the same error and a way around.
    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Not implemented by graphkit's savers (nor by LangGraph's in-memory and SQLite
        ones): raises ``NotImplementedError``."""
        _not_kept("delete_for_runs", self, "delete_thread(thread_id) forgets a whole thread")

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Not implemented by graphkit's savers (nor by LangGraph's in-memory and SQLite
        ones): raises ``NotImplementedError``."""
        _not_kept(
            "copy_thread",
            self,
            "to start a thread from another's state, pass app.get_state(source).values to"
            " app.update_state(target, values)",
        )

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """Not implemented by graphkit's savers (nor by LangGraph's in-memory and SQLite
        ones): raises ``NotImplementedError``."""
        _not_kept("prune", self, "delete_thread(thread_id) forgets a whole thread")

    def get(self, config: Mapping[str, Any]) -> Checkpoint | None:
        """Only the checkpoint of ``get_tuple``."""
        saved = self.get_tuple(config)
        return saved.checkpoint if saved is not None else None

    def with_allowlist(self, extra_allowlist: Iterable[Any]) -> BaseCheckpointSaver:
        """A shallow copy of this saver (same storage) whose serializer also builds the
        classes in ``extra_allowlist`` (classes or ``(module, name)`` pairs) when it reads
        them back; ``self`` when that adds nothing (LangGraph's method). ``compile()``
        uses it for the classes the graph's schemas declare.

        >>> from graphkit.checkpoint import InMemorySaver
        >>> saver = InMemorySaver()
        >>> wider = saver.with_allowlist([("decimal", "Decimal")])
        >>> wider is saver, wider.serde.allowed_classes
        (False, frozenset({('decimal', 'Decimal')}))
        """
        serde = getattr(self, "serde", None)
        widen = getattr(serde, "with_msgpack_allowlist", None)
        if widen is None:  # a serializer without an allow-list builds what it builds
            return self
        wider = widen(extra_allowlist)
        if wider is serde:
            return self
        clone = copy.copy(self)
        clone.serde = wider  # type: ignore[attr-defined]
        return clone

    def get_next_version(self, current: int | None, channel: Any = None) -> int:
        """Versions are integers that grow by one per step (LangGraph's default)."""
        return (current or 0) + 1

    # -- async twins: the same work, off the event loop ------------------------------------

    async def aget_tuple(self, config: Mapping[str, Any]) -> CheckpointTuple | None:
        return await asyncio.to_thread(self.get_tuple, config)

    async def aget(self, config: Mapping[str, Any]) -> Checkpoint | None:
        """Only the checkpoint of ``aget_tuple``."""
        saved = await self.aget_tuple(config)
        return saved.checkpoint if saved is not None else None

    async def alist(
        self,
        config: Mapping[str, Any] | None,
        *,
        filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        items = await asyncio.to_thread(
            lambda: list(self.list(config, filter=filter, before=before, limit=limit))
        )
        for item in items:
            yield item

    async def aput(
        self,
        config: Mapping[str, Any],
        checkpoint: Checkpoint,
        metadata: Mapping[str, Any],
        new_versions: Mapping[str, int],
    ) -> dict[str, Any]:
        return await asyncio.to_thread(self.put, config, checkpoint, metadata, new_versions)

    async def aput_writes(
        self,
        config: Mapping[str, Any],
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        await asyncio.to_thread(self.put_writes, config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        await asyncio.to_thread(self.delete_thread, thread_id)

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        self.delete_for_runs(run_ids)

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        self.copy_thread(source_thread_id, target_thread_id)

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        self.prune(thread_ids, strategy=strategy)


def _not_kept(method: str, saver: BaseCheckpointSaver, instead: str) -> NoReturn:
    raise NotImplementedError(
        f"{type(saver).__name__}.{method}() is not implemented (LangGraph's in-memory and "
        f"SQLite savers do not implement it either); {instead}."
    )


def matches(
    metadata: Mapping[str, Any], filter: Mapping[str, Any] | None, *, paths: bool = False
) -> bool:
    """True when every item of ``filter`` is in ``metadata``. With ``paths``, a dotted
    key names a nested item (``"user.name"``), as the JSON paths of LangGraph's SQLite
    saver do.

    >>> matches({"user": {"name": "ada"}}, {"user.name": "ada"}, paths=True)
    True
    """
    if filter and not isinstance(filter, Mapping):
        raise TypeError(
            f"filter must be a dict of metadata items to match, got {type(filter).__name__} "
            f"{filter!r}: write e.g. filter={{'source': 'loop'}}."
        )
    find = _item_at_path if paths else _item
    return not filter or all(find(metadata, key) == value for key, value in filter.items())


def _item(metadata: Mapping[str, Any], key: str) -> Any:
    return metadata.get(key)


def _item_at_path(metadata: Any, path: str) -> Any:
    for key in path.split("."):
        if not isinstance(metadata, Mapping):
            return None
        metadata = metadata.get(key)
    return metadata
