"""A saver written as LangGraph's community savers write them (MySQL, DynamoDB, Redis,
MongoDB, Aerospike...) runs a graph on graphkit by changing only its imports: it stores the
whole checkpoint as ``self.serde.dumps_typed(checkpoint)``, the metadata and each write's
value the same way, and gives back ``self.serde.loads_typed(...)`` of each in
``get_tuple``. graphkit's serializer refused graphkit's checkpoint record (a TypeError
naming ``DeltaMap``); it now writes it and reads it back as the same record.

Three savers, each kept in a dict here where the real ones keep a database:

* ``RowSaver``, as the SQL ones are written: rows of ``(type, bytes)``, the metadata
  ``get_checkpoint_metadata`` gives, writes keyed by ``WRITES_IDX_MAP`` (a regular write
  kept once, a special one replaced), and async methods that run the sync ones in a thread;
* ``DocumentSaver``, as the document-store ones are: no ``super().__init__()`` (the
  class's ``serde`` serves), the metadata copied and updated with the config's own, a
  "latest" pointer per thread and namespace;
* ``BlobSaver``, as the Postgres-style ones (and LangGraph's in-memory one) are: the
  checkpoint taken apart (``checkpoint.copy()``, its ``channel_values`` popped), a blob
  per channel and version in ``new_versions``, and LangGraph's checkpoint dict put
  together again in ``get_tuple``, which graphkit's ``CheckpointTuple`` turns back into
  the record (its step and source from the metadata saved with it).
"""

from __future__ import annotations

import asyncio
import importlib
import operator
import threading
from typing import Annotated, Any

import pytest
from typing_extensions import TypedDict

LIBRARIES = ["langgraph", "graphkit"]


def _names(config: Any) -> tuple[str, str]:
    configurable = config["configurable"]
    return str(configurable["thread_id"]), str(configurable.get("checkpoint_ns", ""))


def _config(thread: str, namespace: str, checkpoint_id: str) -> dict[str, Any]:
    ids = {"thread_id": thread, "checkpoint_ns": namespace, "checkpoint_id": checkpoint_id}
    return {"configurable": ids}


def _row_saver(library: str) -> type:
    base = importlib.import_module(f"{library}.checkpoint.base")

    class RowSaver(base.BaseCheckpointSaver):
        def __init__(self, serde: Any = None) -> None:
            super().__init__(serde=serde)
            self.checkpoints: dict[tuple, tuple] = {}  # (thread, ns, id) -> row
            self.writes: dict[tuple, dict] = {}  # (thread, ns, id) -> {(task, idx): row}

        def _tuple(self, key: tuple, row: tuple) -> Any:
            parent, kind, data, metadata_kind, metadata = row
            writes = sorted(self.writes.get(key, {}).items())
            return base.CheckpointTuple(
                _config(*key),
                self.serde.loads_typed((kind, data)),
                self.serde.loads_typed((metadata_kind, metadata)),
                _config(*key[:2], parent) if parent else None,
                [
                    (task, channel, self.serde.loads_typed(value))
                    for (task, _), (channel, value) in writes
                ],
            )

        def get_tuple(self, config: Any) -> Any:
            thread, namespace = _names(config)
            found = [key for key in self.checkpoints if key[:2] == (thread, namespace)]
            if checkpoint_id := base.get_checkpoint_id(config):
                found = [key for key in found if key[2] == checkpoint_id]
            key = max(found, default=None, key=lambda key: key[2])
            return None if key is None else self._tuple(key, self.checkpoints[key])

        def list(self, config: Any, *, filter=None, before=None, limit=None) -> Any:
            thread, namespace = _names(config)
            keys = sorted(self.checkpoints, key=lambda key: key[2], reverse=True)
            for key in keys:
                if key[:2] == (thread, namespace):
                    yield self._tuple(key, self.checkpoints[key])

        def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
            thread, namespace = _names(config)
            kind, data = self.serde.dumps_typed(checkpoint)
            kept = base.get_checkpoint_metadata(config, metadata)
            metadata_kind, metadata_data = self.serde.dumps_typed(kept)
            parent = config["configurable"].get("checkpoint_id")
            row = (parent, kind, data, metadata_kind, metadata_data)
            self.checkpoints[(thread, namespace, checkpoint["id"])] = row
            return _config(thread, namespace, checkpoint["id"])

        def put_writes(self, config: Any, writes: Any, task_id: str, task_path: str = "") -> None:
            key = (*_names(config), config["configurable"]["checkpoint_id"])
            rows = self.writes.setdefault(key, {})
            for index, (channel, value) in enumerate(writes):
                at = (task_id, base.WRITES_IDX_MAP.get(channel, index))
                if at not in rows or channel in base.WRITES_IDX_MAP:
                    rows[at] = (channel, self.serde.dumps_typed(value))

        def delete_thread(self, thread_id: str) -> None:
            for rows in (self.checkpoints, self.writes):
                for key in [key for key in rows if key[0] == thread_id]:
                    del rows[key]

        async def aget_tuple(self, config: Any) -> Any:
            return await asyncio.to_thread(self.get_tuple, config)

        async def alist(self, config: Any, **options: Any) -> Any:
            for saved in await asyncio.to_thread(lambda: [*self.list(config, **options)]):
                yield saved

        async def aput(self, config: Any, checkpoint: Any, metadata: Any, versions: Any) -> Any:
            return await asyncio.to_thread(self.put, config, checkpoint, metadata, versions)

        async def aput_writes(self, config: Any, writes: Any, task_id: str, path: str = "") -> None:
            await asyncio.to_thread(self.put_writes, config, writes, task_id, path)

    return RowSaver


def _document_saver(library: str) -> type:
    base = importlib.import_module(f"{library}.checkpoint.base")

    class DocumentSaver(base.BaseCheckpointSaver):
        def __init__(self) -> None:  # (no super().__init__(): the class's serde serves)
            self.documents: dict[str, dict] = {}

        def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
            thread, namespace = _names(config)
            checkpoint_id = checkpoint.get("id")
            metadata = metadata.copy()
            metadata.update(config.get("metadata", {}))
            self.documents[f"{thread}|{namespace}|{checkpoint_id}"] = {
                "parent": config["configurable"].get("checkpoint_id"),
                "checkpoint": self.serde.dumps_typed(checkpoint),
                "metadata": self.serde.dumps_typed(metadata),
                "ts": checkpoint.get("ts"),
            }
            self.documents[f"{thread}|{namespace}|latest"] = {"id": checkpoint_id}
            return _config(thread, namespace, checkpoint_id)

        def put_writes(self, config: Any, writes: Any, task_id: str, task_path: str = "") -> None:
            thread, namespace = _names(config)
            key = f"{thread}|{namespace}|{config['configurable']['checkpoint_id']}|writes"
            items = self.documents.setdefault(key, {"writes": []})["writes"]
            for index, (channel, value) in enumerate(writes):
                slot = base.WRITES_IDX_MAP.get(channel, index)
                item = {"task": task_id, "idx": slot, "channel": channel}
                item["value"] = self.serde.dumps_typed(value)
                same = [
                    i for i, old in enumerate(items) if (old["task"], old["idx"]) == (task_id, slot)
                ]
                if same:
                    items[same[0]] = item
                else:
                    items.append(item)

        def get_tuple(self, config: Any) -> Any:
            thread, namespace = _names(config)
            checkpoint_id = base.get_checkpoint_id(config)
            if checkpoint_id is None:
                latest = self.documents.get(f"{thread}|{namespace}|latest")
                if latest is None:
                    return None
                checkpoint_id = latest["id"]
            found = self.documents.get(f"{thread}|{namespace}|{checkpoint_id}")
            if found is None:
                return None
            items = self.documents.get(f"{thread}|{namespace}|{checkpoint_id}|writes")
            writes = [
                (item["task"], item["channel"], self.serde.loads_typed(item["value"]))
                for item in (items or {"writes": []})["writes"]
            ]
            parent = found["parent"]
            return base.CheckpointTuple(
                config=_config(thread, namespace, checkpoint_id),
                checkpoint=self.serde.loads_typed(found["checkpoint"]),
                metadata=self.serde.loads_typed(found["metadata"]),
                parent_config=_config(thread, namespace, parent) if parent else None,
                pending_writes=writes,
            )

        def list(self, config: Any, *, filter=None, before=None, limit=None) -> Any:
            thread, namespace = _names(config)
            prefix = f"{thread}|{namespace}|"
            ids = [key[len(prefix) :] for key in self.documents if key.startswith(prefix)]
            ids = [i for i in ids if "|" not in i and i != "latest"]
            for checkpoint_id in sorted(ids, reverse=True):
                yield self.get_tuple(_config(thread, namespace, checkpoint_id))

    return DocumentSaver


def _blob_saver(library: str) -> type:
    base = importlib.import_module(f"{library}.checkpoint.base")

    class BlobSaver(base.BaseCheckpointSaver):
        """As the Postgres-style savers are: the checkpoint taken apart, each channel's
        value a blob per version, and the checkpoint dict put together again to read."""

        def __init__(self) -> None:
            super().__init__()
            self.storage: dict[tuple, tuple] = {}  # (thread, ns, id) -> (checkpoint, ...)
            self.blobs: dict[tuple, tuple] = {}  # (thread, ns, channel, version) -> blob
            self.writes: dict[tuple, dict] = {}

        def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
            thread, namespace = _names(config)
            copied = checkpoint.copy()
            values = copied.pop("channel_values")
            for channel, version in new_versions.items():
                blob = self.serde.dumps_typed(values[channel]) if channel in values else None
                self.blobs[(thread, namespace, channel, version)] = blob or ("empty", b"")
            metadata = base.get_checkpoint_metadata(config, metadata)
            parent = config["configurable"].get("checkpoint_id")
            saved = (self.serde.dumps_typed(copied), self.serde.dumps_typed(metadata), parent)
            self.storage[(thread, namespace, checkpoint["id"])] = saved
            return _config(thread, namespace, checkpoint["id"])

        def _values(self, thread: str, namespace: str, versions: Any) -> dict[str, Any]:
            values = {}
            for channel, version in versions.items():
                kind, data = self.blobs[(thread, namespace, channel, version)]
                if kind != "empty":
                    values[channel] = self.serde.loads_typed((kind, data))
            return values

        def get_tuple(self, config: Any) -> Any:
            thread, namespace = _names(config)
            ids = [key[2] for key in self.storage if key[:2] == (thread, namespace)]
            checkpoint_id = base.get_checkpoint_id(config) or max(ids, default=None)
            if (thread, namespace, checkpoint_id) not in self.storage:
                return None
            saved, metadata, parent = self.storage[(thread, namespace, checkpoint_id)]
            checkpoint = self.serde.loads_typed(saved)
            values = self._values(thread, namespace, checkpoint["channel_versions"])
            writes = self.writes.get((thread, namespace, checkpoint_id), {})
            return base.CheckpointTuple(
                config=_config(thread, namespace, checkpoint_id),
                checkpoint={**checkpoint, "channel_values": values},
                metadata=self.serde.loads_typed(metadata),
                parent_config=_config(thread, namespace, parent) if parent else None,
                pending_writes=[
                    (task, channel, self.serde.loads_typed(value))
                    for (task, _), (channel, value) in sorted(writes.items())
                ],
            )

        def list(self, config: Any, *, filter=None, before=None, limit=None) -> Any:
            thread, namespace = _names(config)
            ids = [key[2] for key in self.storage if key[:2] == (thread, namespace)]
            for checkpoint_id in sorted(ids, reverse=True):
                yield self.get_tuple(_config(thread, namespace, checkpoint_id))

        def put_writes(self, config: Any, writes: Any, task_id: str, task_path: str = "") -> None:
            key = (*_names(config), config["configurable"]["checkpoint_id"])
            rows = self.writes.setdefault(key, {})
            for index, (channel, value) in enumerate(writes):
                at = (task_id, base.WRITES_IDX_MAP.get(channel, index))
                if at not in rows or channel in base.WRITES_IDX_MAP:
                    rows[at] = (channel, self.serde.dumps_typed(value))

    return BlobSaver


SAVERS = {"rows": _row_saver, "documents": _document_saver, "blobs": _blob_saver}


class State(TypedDict):
    xs: Annotated[list, operator.add]


def _module(library: str, name: str) -> Any:
    return importlib.import_module(f"{library}.{name}")


def _asking_graph(library: str, saver: Any = None) -> Any:
    graph, types = _module(library, "graph"), _module(library, "types")

    def ask(state: State) -> dict:
        return {"xs": [types.interrupt({"question": "go on?", "seen": tuple(state["xs"])})]}

    builder = graph.StateGraph(State).add_node("first", lambda s: {"xs": [("first", 1)]})
    builder.add_node("ask", ask).add_edge(graph.START, "first").add_edge("first", "ask")
    return builder.compile(checkpointer=saver)


def _thread(library: str, kind: str) -> list[Any]:
    saver = SAVERS[kind](library)()
    app = _asking_graph(library, saver)
    Command = _module(library, "types").Command
    config = {"configurable": {"thread_id": "t"}, "metadata": {"user": "ada"}}
    paused = app.invoke({"xs": []}, config)
    seen: list[Any] = [paused["xs"], [i.value for i in paused["__interrupt__"]]]
    snapshot = app.get_state(config)
    seen += [snapshot.values, snapshot.next, snapshot.metadata.get("user")]
    seen.append([i.value for task in snapshot.tasks for i in task.interrupts])
    seen.append(app.invoke(Command(resume="yes"), config))
    history = app.get_state_history(config)
    seen.append([(s.metadata["step"], s.metadata["source"], s.next) for s in history])
    app.update_state(config, {"xs": ["edited"]})
    seen.append((app.get_state(config).values, app.get_state(config).metadata["source"]))
    return seen


@pytest.mark.parametrize("kind", SAVERS)
def test_a_saver_that_serializes_the_whole_checkpoint_keeps_a_thread(kind: str) -> None:
    assert _thread("graphkit", kind) == _thread("langgraph", kind)


def test_the_record_read_back_is_the_record_written() -> None:
    """Each checkpoint of a run, JSON (never a pickle) and back: equal, field by field."""
    saver = _row_saver("graphkit")()
    config = {"configurable": {"thread_id": "t"}}
    _asking_graph("graphkit", saver).invoke({"xs": []}, config)
    records = [saved.checkpoint for saved in saver.list(config)]
    assert len(records) == 3
    for record in records:
        kind, data = saver.serde.dumps_typed(record)
        again = saver.serde.loads_typed((kind, data))
        assert kind == "json" and type(again) is type(record)
        assert again == record and again.step == record.step
        assert again.updated_channels == record.updated_channels
        assert dict(again.channel_values) == dict(record.channel_values)


def _failing_step(library: str, kind: str) -> list[Any]:
    """Two nodes in one step, one raising: the other's writes are saved as pending, and
    the retry runs only the one that failed."""
    graph = _module(library, "graph")
    runs: list[str] = []
    failures = iter([True])
    steady_saved = threading.Event()

    class Watched(SAVERS[kind](library)):
        def put_writes(self, config: Any, writes: Any, task_id: str, task_path: str = "") -> None:
            super().put_writes(config, writes, task_id, task_path)
            if ("xs", [{"by": "steady"}]) in writes:
                steady_saved.set()

    def steady(state: State) -> dict:
        runs.append("steady")
        return {"xs": [{"by": "steady"}]}

    def flaky(state: State) -> dict:
        runs.append("flaky")
        if next(failures, False):
            # (once steady's writes are saved: LangGraph, its step over, may drop them)
            steady_saved.wait(5)
            raise RuntimeError("flaky failed")
        return {"xs": ["flaky"]}

    builder = graph.StateGraph(State).add_node("steady", steady).add_node("flaky", flaky)
    builder.add_edge(graph.START, "steady").add_edge(graph.START, "flaky")
    saver = Watched()
    app = builder.compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "t"}}
    with pytest.raises(RuntimeError, match="flaky failed"):
        app.invoke({"xs": []}, config)
    assert steady_saved.is_set()
    pending = saver.get_tuple(config).pending_writes
    kept = sorted((channel, repr(value)) for _, channel, value in pending)
    return [kept, app.invoke(None, config), sorted(runs)]


@pytest.mark.parametrize("kind", SAVERS)
def test_a_failed_steps_pending_writes_come_back(kind: str) -> None:
    assert _failing_step("graphkit", kind) == _failing_step("langgraph", kind)


def _subgraph_thread(library: str, kind: str) -> list[Any]:
    graph, types = _module(library, "graph"), _module(library, "types")
    inner = _asking_graph(library)  # (it takes the parent's saver)
    builder = graph.StateGraph(State).add_node("inner", inner)
    builder.add_node("after", lambda s: {"xs": ["after"]})
    builder.add_edge(graph.START, "inner").add_edge("inner", "after")
    saver = SAVERS[kind](library)()
    app = builder.compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "t"}}
    seen: list[Any] = [app.invoke({"xs": []}, config)["xs"]]
    state = app.get_state(config, subgraphs=True)
    seen += [state.next, state.tasks[0].state.values, state.tasks[0].state.next]
    seen.append(app.invoke(types.Command(resume="yes"), config))
    namespaces = {key[1].split(":")[0] for key in getattr(saver, "checkpoints", {})}
    return [*seen, sorted(namespaces)]


@pytest.mark.parametrize("kind", SAVERS)
def test_a_subgraphs_checkpoints_go_through_the_saver(kind: str) -> None:
    assert _subgraph_thread("graphkit", kind) == _subgraph_thread("langgraph", kind)


def _async_thread(library: str) -> list[Any]:
    saver = _row_saver(library)()
    app = _asking_graph(library, saver)
    Command = _module(library, "types").Command
    config = {"configurable": {"thread_id": "t"}}

    async def run() -> list[Any]:
        first = await app.ainvoke({"xs": []}, config)
        second = await app.ainvoke(Command(resume="yes"), config)
        history = [s.metadata["step"] async for s in app.aget_state_history(config)]
        return [first["xs"], second, (await app.aget_state(config)).values, history]

    return asyncio.run(run())


def test_its_async_methods_serve_an_async_run() -> None:
    assert _async_thread("graphkit") == _async_thread("langgraph")


@pytest.mark.parametrize("library", LIBRARIES)
def test_the_helpers_such_savers_import_are_there(library: str) -> None:
    base = importlib.import_module(f"{library}.checkpoint.base")
    assert base.WRITES_IDX_MAP == {
        "__error__": -1, "__scheduled__": -2, "__interrupt__": -3, "__resume__": -4
    }  # fmt: skip
    assert "thread_id" in base.EXCLUDED_METADATA_KEYS
    assert "checkpoint_map" in base.EXCLUDED_METADATA_KEYS
    config = {"configurable": {"thread_id": "t", "user": "ada"}}
    kept = base.get_serializable_checkpoint_metadata(config, {"step": 1, "writes": {"a": 1}})
    assert kept == {"step": 1, "user": "ada"}
    empty = base.empty_checkpoint()
    assert (empty["channel_values"], empty["channel_versions"], empty["id"] != "") == ({}, {}, True)
    copied = base.copy_checkpoint(empty)
    assert copied["id"] == empty["id"] and copied["channel_values"] == {}


def test_a_checkpoint_dict_put_together_again_is_the_record() -> None:
    """What ``BlobSaver`` gives back: the dict ``copy()`` gave, its parts read again."""
    from graphkit.checkpoint import Checkpoint, CheckpointTuple, DeltaMap

    saver = _blob_saver("graphkit")()
    config = {"configurable": {"thread_id": "t"}}
    _asking_graph("graphkit", saver).invoke({"xs": []}, config)
    for saved in saver.list(config):
        record = saved.checkpoint
        assert type(record) is Checkpoint and type(record.channel_values) is DeltaMap
        assert (record.step, record.source) == (saved.metadata["step"], saved.metadata["source"])
        parent = (
            saved.parent_config["configurable"]["checkpoint_id"] if saved.parent_config else None
        )
        assert record.parent_id == parent
        again = CheckpointTuple(saved.config, record.copy(), saved.metadata, saved.parent_config)
        assert again.checkpoint == record
        assert abs(again.checkpoint.created_at - record.created_at) < 1e-5


@pytest.mark.parametrize(
    ("changed", "named"),
    [
        ({"versions_seen": ...}, "without 'versions_seen'"),
        ({"channel_values": ..., "id": ...}, "without 'id', 'channel_values'"),
        ({"channel_values": None}, "whose 'channel_values' is None"),
        ({"channel_versions": [["n", 1]]}, "whose 'channel_versions' is [['n', 1]]"),
        ({"versions_seen": {"node": 1}}, "whose 'versions_seen' is {'node': 1}"),
        ({"ts": "yesterday"}, "whose 'ts' is 'yesterday'"),
    ],
)
def test_a_checkpoint_dict_missing_a_part_is_told_which(changed, named) -> None:
    """A saver that puts LangGraph's dict together again with a part missing or of the
    wrong type is told which, where it gives the dict back (not a bare KeyError('id'),
    nor a record with no values)."""
    from graphkit.checkpoint import Checkpoint, CheckpointTuple

    saved = {**Checkpoint.unsaved(1, "loop", None, ["n"]).copy(), **changed}
    saved = {key: value for key, value in saved.items() if value is not ...}
    with pytest.raises(ValueError, match="CheckpointTuple was given a checkpoint dict") as caught:
        CheckpointTuple({"configurable": {"thread_id": "t"}}, saved, {"step": 1})
    assert named in str(caught.value)
