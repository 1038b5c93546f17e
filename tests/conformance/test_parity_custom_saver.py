"""A saver written on ``BaseCheckpointSaver``, as LangGraph's guide to writing one does,
runs a graph on graphkit by changing only its imports: the names it imports from
``checkpoint.base`` are there (``ChannelVersions``, ``Checkpoint``,
``CheckpointMetadata``, ``CheckpointTuple``, ``PendingWrite``, ``get_checkpoint_id``,
``get_checkpoint_metadata``), and a method it does not write is no reason to refuse the
class: it raises ``NotImplementedError`` when called, as in LangGraph (a saver without
``delete_thread`` was an abstract class graphkit would not make; one with only the
async methods, for an async run, too), and the base class gives it ``self.serde``."""

from __future__ import annotations

import asyncio
import importlib
import operator
from typing import Annotated, Any

import pytest
from typing_extensions import TypedDict

LIBRARIES = ["langgraph", "graphkit"]


class State(TypedDict):
    xs: Annotated[list, operator.add]


def _dict_saver(library: str) -> type:
    """A saver as LangGraph's guide writes one: a dict of checkpoints per thread and
    namespace, and of writes per checkpoint; no ``delete_thread``."""
    base = importlib.import_module(f"{library}.checkpoint.base")

    class DictSaver(base.BaseCheckpointSaver):
        def __init__(self) -> None:
            super().__init__(serde=None)  # (the base class gives self.serde)
            self.saved: dict[tuple, dict] = {}
            self.writes: dict[tuple, list[base.PendingWrite]] = {}

        def _key(self, config: Any) -> tuple[str, str]:
            configurable = config["configurable"]
            return configurable["thread_id"], configurable.get("checkpoint_ns", "")

        def get_tuple(self, config: Any) -> Any:
            key = self._key(config)
            saved = self.saved.get(key, {})
            checkpoint_id = base.get_checkpoint_id(config) or max(saved, default=None)
            if checkpoint_id not in saved:
                return None
            checkpoint, metadata, parent = saved[checkpoint_id]
            names = {"thread_id": key[0], "checkpoint_ns": key[1]}
            return base.CheckpointTuple(
                {"configurable": {**names, "checkpoint_id": checkpoint_id}},
                checkpoint,
                metadata,
                {"configurable": {**names, "checkpoint_id": parent}} if parent else None,
                list(self.writes.get((*key, checkpoint_id), [])),
            )

        def list(self, config: Any, *, filter=None, before=None, limit=None) -> Any:
            for checkpoint_id in sorted(self.saved.get(self._key(config), {}), reverse=True):
                configurable = {**config["configurable"], "checkpoint_id": checkpoint_id}
                yield self.get_tuple({"configurable": configurable})

        def put(
            self,
            config: Any,
            checkpoint: base.Checkpoint,
            metadata: base.CheckpointMetadata,
            new_versions: base.ChannelVersions,
        ) -> Any:
            key = self._key(config)
            kept = base.get_checkpoint_metadata(config, metadata)
            self.serde.dumps_typed(dict(kept))  # (as such a saver stores it)
            parent = base.get_checkpoint_id(config)
            self.saved.setdefault(key, {})[checkpoint["id"]] = (checkpoint, kept, parent)
            names = {"thread_id": key[0], "checkpoint_ns": key[1]}
            return {"configurable": {**names, "checkpoint_id": checkpoint["id"]}}

        def put_writes(self, config: Any, writes: Any, task_id: str, task_path: str = "") -> None:
            at = (*self._key(config), base.get_checkpoint_id(config))
            self.writes.setdefault(at, []).extend((task_id, c, v) for c, v in writes)

    return DictSaver


def _graph(library: str, saver: Any) -> Any:
    graph = importlib.import_module(f"{library}.graph")
    interrupt = importlib.import_module(f"{library}.types").interrupt

    def ask(state: State) -> dict:
        return {"xs": [interrupt("go on?")]}

    builder = graph.StateGraph(State).add_node("first", lambda s: {"xs": ["first"]})
    builder.add_node("ask", ask).add_edge(graph.START, "first").add_edge("first", "ask")
    return builder.compile(checkpointer=saver)


def _thread_on(library: str) -> list[Any]:
    saver = _dict_saver(library)()
    app = _graph(library, saver)
    Command = importlib.import_module(f"{library}.types").Command
    config = {"configurable": {"thread_id": "t"}, "metadata": {"user": "ada"}}
    seen: list[Any] = [app.invoke({"xs": []}, config)["xs"]]
    snapshot = app.get_state(config)
    seen += [snapshot.values, snapshot.next, snapshot.metadata.get("user")]
    seen.append(app.invoke(Command(resume="yes"), config))
    seen.append([(s.metadata["step"], s.next) for s in app.get_state_history(config)])
    app.update_state(config, {"xs": ["edited"]})
    seen.append(app.get_state(config).values)
    with pytest.raises(NotImplementedError):
        saver.delete_thread("t")
    return seen


def test_a_saver_written_as_langgraphs_guide_writes_one_keeps_a_thread() -> None:
    assert _thread_on("graphkit") == _thread_on("langgraph")


def _async_only_run(library: str) -> Any:
    """A saver that writes only the async methods, kept in a dict, for ``ainvoke``."""
    base = importlib.import_module(f"{library}.checkpoint.base")
    dict_saver = _dict_saver(library)()

    class AsyncOnly(base.BaseCheckpointSaver):
        async def aget_tuple(self, config: Any) -> Any:
            return dict_saver.get_tuple(config)

        async def alist(self, config: Any, **options: Any) -> Any:
            for saved in dict_saver.list(config, **options):
                yield saved

        async def aput(self, config: Any, checkpoint: Any, metadata: Any, versions: Any) -> Any:
            return dict_saver.put(config, checkpoint, metadata, versions)

        async def aput_writes(self, config: Any, writes: Any, task_id: str, path: str = "") -> None:
            dict_saver.put_writes(config, writes, task_id, path)

    saver = AsyncOnly()
    app = _graph(library, saver)
    config = {"configurable": {"thread_id": "t"}}
    Command = importlib.import_module(f"{library}.types").Command

    async def run() -> list[Any]:
        first = await app.ainvoke({"xs": []}, config)
        second = await app.ainvoke(Command(resume="yes"), config)
        return [first["xs"], second, (await app.aget_state(config)).values]

    seen = asyncio.run(run())
    with pytest.raises(NotImplementedError):
        saver.get_tuple(config)
    return seen


def test_a_saver_with_only_async_methods_serves_an_async_run() -> None:
    assert _async_only_run("graphkit") == _async_only_run("langgraph")


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_saver_that_writes_nothing_is_made_and_fails_when_used(library: str) -> None:
    base = importlib.import_module(f"{library}.checkpoint.base")

    class Nothing(base.BaseCheckpointSaver):
        pass

    app = _graph(library, Nothing())
    with pytest.raises(NotImplementedError):
        app.invoke({"xs": []}, {"configurable": {"thread_id": "t"}})


class _JsonOnly:
    """A serializer written for a saver: LangGraph's two method names, nothing else."""

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        return "json", repr(obj).encode()

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        return data[1].decode()


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_serializer_is_known_by_its_methods_at_run_time(library: str) -> None:
    """``isinstance(serde, SerializerProtocol)``: a runtime-checkable protocol in both."""
    protocol = importlib.import_module(f"{library}.checkpoint.serde.base").SerializerProtocol
    plus = importlib.import_module(f"{library}.checkpoint.serde.jsonplus").JsonPlusSerializer
    assert isinstance(_JsonOnly(), protocol)
    assert isinstance(plus(), protocol)
    assert not isinstance(object(), protocol)
