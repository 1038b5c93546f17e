"""LangGraph's classes are generic (state, context, input and output types), so LangGraph
code annotates with them subscripted: ``def build() -> CompiledStateGraph[State, None,
State, State]``. Without ``from __future__ import annotations`` such an annotation is
evaluated when the module is imported, so it must work on graphkit too."""

from typing import Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph


class State(TypedDict):
    n: int


# (module under the library's root, class name, the argument counts LangGraph code uses)
SUBSCRIPTED = [
    ("graph", "StateGraph", (1, 2, 4)),
    ("graph.state", "CompiledStateGraph", (1, 2, 4)),
    ("pregel", "Pregel", (1, 4)),
    ("checkpoint.base", "BaseCheckpointSaver", (1,)),
    ("types", "Interrupt", (1,)),
    ("types", "CachePolicy", (1,)),
    ("func", "entrypoint", (1,)),
    ("cache.base", "BaseCache", (1,)),
    ("channels.base", "BaseChannel", (3,)),  # value, update and checkpoint types
    ("channels", "LastValue", (1,)),
    ("channels", "Topic", (1,)),
]


def _class(lib: Lib, module: str, name: str) -> Any:
    import importlib

    return getattr(importlib.import_module(f"{lib.name}.{module}"), name)


@pytest.mark.parametrize(("module", "name", "counts"), SUBSCRIPTED)
def test_a_class_langgraph_code_subscripts_can_be_subscripted(module, name, counts):
    for lib in (load_langgraph(), load_graphkit()):
        cls = _class(lib, module, name)
        for count in counts:
            alias = cls[(State, None, State, State)[:count] if count == 4 else (Any,) * count]
            assert getattr(alias, "__origin__", None) is cls, (lib.name, count)


def test_annotations_with_subscripted_classes_run_as_on_langgraph():
    def build(lib: Lib) -> Any:
        graph_type = _class(lib, "graph.state", "CompiledStateGraph")

        def make(saver: Any) -> graph_type[State, None, State, State]:  # type: ignore[valid-type]
            builder = lib.StateGraph[State](State)  # a subscripted class still builds one
            builder.add_node("inc", lambda state: {"n": state["n"] + 1})
            builder.add_edge(lib.START, "inc")
            return builder.compile(checkpointer=saver)

        app = make(_class(lib, "checkpoint.memory", "InMemorySaver")())
        return app.invoke({"n": 1}, {"configurable": {"thread_id": "t"}})

    assert build(load_graphkit()) == build(load_langgraph()) == {"n": 2}


def _best_of(lib: Lib) -> Any:
    """A channel written on ``BaseChannel[int, int, int]`` that keeps the largest value
    written, used in a state schema."""
    import importlib

    base = importlib.import_module(f"{lib.name}.channels.base")

    class Largest(base.BaseChannel[int, int, int]):
        __slots__ = ("value",)

        def __init__(self, typ: Any, key: str = "") -> None:
            super().__init__(typ, key)
            self.value = base.MISSING

        @property
        def ValueType(self) -> Any:
            return self.typ

        @property
        def UpdateType(self) -> Any:
            return self.typ

        def from_checkpoint(self, checkpoint: Any) -> "Largest":
            restored = Largest(self.typ, self.key)
            restored.value = checkpoint
            return restored

        def checkpoint(self) -> Any:
            return self.value

        def get(self) -> int:
            if self.value is base.MISSING:
                raise lib.errors.EmptyChannelError()
            return self.value

        def update(self, values: Any) -> bool:
            if not values or (self.value is not base.MISSING and max(values) <= self.value):
                return False
            self.value = max(values)
            return True

    from typing import Annotated

    class Scores(TypedDict):
        best: Annotated[int, Largest]

    builder = lib.StateGraph(Scores).add_node("low", lambda s: {"best": 1})
    builder.add_node("high", lambda s: {"best": 7}).add_edge(lib.START, "low")
    builder.add_edge(lib.START, "high")
    return builder.compile().invoke({"best": 3})


def test_a_channel_written_on_the_subscripted_base_channel_runs_as_on_langgraph():
    assert _best_of(load_graphkit()) == _best_of(load_langgraph()) == {"best": 7}
