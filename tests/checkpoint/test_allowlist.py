"""The serializer's class allow-list: which stored classes a reader builds, and that it
imports a module only for a class allowed by name (issue 14, item 13)."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import logging
import sys
import warnings
from typing import Annotated, Any, NamedTuple, Optional, TypedDict

import pydantic
import pytest
from langchain_core.messages import HumanMessage

from graphkit.checkpoint import (
    InMemorySaver,
    JsonPlusSerializer,
    SqliteSaver,
    allow_schema_classes,
    schema_classes,
)
from graphkit.checkpoint.allowlist import ClassPolicy, class_keys


class Shade(enum.Enum):
    DARK = "dark"


@dataclasses.dataclass
class Spot:
    x: int


class Label(pydantic.BaseModel):
    text: str
    shade: Shade = Shade.DARK


class Pair(NamedTuple):
    left: int
    right: int


class Plain:
    pass


class State(TypedDict):
    label: Label
    spots: Annotated[list[Spot], "a reducer would go here"]
    pair: Optional[Pair]  # noqa: UP045 - the typing.Optional spelling must be walked too
    loose: Any


HERE = __name__


def round_trip(value, serde):
    return serde.loads_typed(serde.dumps_typed(value))


def test_schema_classes_finds_nested_classes_and_nothing_else():
    assert schema_classes(State) == {
        (HERE, "Label"),
        (HERE, "Shade"),  # a field of Label
        (HERE, "Spot"),
        (HERE, "Pair"),
    }
    assert schema_classes(int, None, dict[str, int]) == frozenset()


def test_by_default_an_imported_class_is_built_with_a_warning(caplog):
    with caplog.at_level(logging.WARNING, "graphkit.checkpoint"):
        assert round_trip(Spot(1), JsonPlusSerializer()) == Spot(1)
    assert f"allowed_msgpack_modules=[('{HERE}', 'Spot')]" in caplog.text


def test_strict_reading_gives_plain_data_for_classes_not_allowed(caplog):
    strict = JsonPlusSerializer(allowed_msgpack_modules=None)
    value = {
        "label": Label(text="t"),
        "spot": Spot(2),
        "pair": Pair(1, 2),
        "when": datetime.date(2024, 1, 1),
    }
    assert round_trip(value, strict) == {
        "label": {"text": "t", "shade": "dark"},
        "spot": {"x": 2},
        "pair": {"left": 1, "right": 2},  # as LangGraph gives a named tuple
        "when": datetime.date(2024, 1, 1),
    }
    assert "read back as its plain data" in caplog.text


def test_strict_still_builds_langchain_messages():
    strict = JsonPlusSerializer(allowed_msgpack_modules=None)
    assert round_trip([HumanMessage("hi", id="1")], strict) == [HumanMessage("hi", id="1")]


@pytest.mark.parametrize("entry", [Spot, (HERE, "Spot")], ids=["class", "pair"])
def test_an_allow_list_entry_builds_its_class(entry):
    serde = JsonPlusSerializer(allowed_msgpack_modules=None).with_msgpack_allowlist([entry])
    assert round_trip([Spot(3), Shade.DARK], serde) == [Spot(3), "dark"]


def test_with_msgpack_allowlist_returns_self_when_nothing_is_new():
    serde = JsonPlusSerializer(allowed_msgpack_modules=[Spot])
    assert serde.with_msgpack_allowlist([(HERE, "Spot")]) is serde
    wider = serde.with_msgpack_allowlist([Shade])
    assert wider is not serde and wider.allowed_classes == {(HERE, "Spot"), (HERE, "Shade")}
    assert serde.allowed_classes == {(HERE, "Spot")}  # the original is unchanged


def test_environment_switch_makes_the_default_strict(monkeypatch):
    monkeypatch.setenv("LANGGRAPH_STRICT_MSGPACK", "true")
    assert round_trip(Spot(1), JsonPlusSerializer()) == {"x": 1}


def test_bad_allow_list_entries_are_refused_with_the_expected_shape():
    with pytest.raises(TypeError, match=r"a class or a \(module, name\) pair"):
        class_keys(["my_app.Order"])


MODULE = """
import dataclasses

@dataclasses.dataclass
class Order:
    id: int
"""


@pytest.fixture
def unimported(tmp_path, monkeypatch):
    """A module on the path that nothing has imported, and a row naming its class."""
    (tmp_path / "allowlist_orders.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "allowlist_orders", raising=False)
    row = ("json", b'{"__gk__":"dataclass","v":{"id":5},"cls":"allowlist_orders:Order"}')
    yield row
    sys.modules.pop("allowlist_orders", None)


@pytest.mark.parametrize("allowed", [None, [("other", "Order")]], ids=["default", "strict"])
def test_a_row_never_makes_the_reader_import_a_module_not_allowed(unimported, allowed):
    serde = (
        JsonPlusSerializer()
        if allowed is None
        else JsonPlusSerializer(allowed_msgpack_modules=allowed)
    )
    assert serde.loads_typed(unimported) == {"id": 5}
    assert "allowlist_orders" not in sys.modules


@pytest.mark.parametrize("allowed", [[("allowlist_orders", "Order")], True], ids=["by name", "all"])
def test_a_class_allowed_by_name_or_all_is_imported_and_built(unimported, allowed):
    built = JsonPlusSerializer(allowed_msgpack_modules=allowed).loads_typed(unimported)
    assert type(built).__qualname__ == "Order" and built.id == 5
    assert "allowlist_orders" in sys.modules


def test_policy_repr_lists_what_it_allows():
    assert repr(ClassPolicy("strict", class_keys([Spot]))) == (
        f"ClassPolicy('strict', allowed=[('{HERE}', 'Spot')])"
    )


# -- savers ---------------------------------------------------------------------------


@pytest.fixture(params=["memory", "sqlite"])
def saver(request):
    if request.param == "memory":
        yield InMemorySaver()
    else:
        with SqliteSaver.from_conn_string(":memory:") as saver:
            yield saver


def test_with_allowlist_clones_the_saver_over_the_same_storage(saver):
    from graphkit.checkpoint import Checkpoint

    wider = saver.with_allowlist([Spot])
    assert wider is not saver and wider.with_allowlist([Spot]) is wider
    assert (HERE, "Spot") in wider.serde.allowed_classes
    assert (HERE, "Spot") not in saver.serde.allowed_classes
    config = wider.put({"configurable": {"thread_id": "t"}}, Checkpoint.empty(), {}, {})
    assert saver.get_tuple(config) is not None


def test_allow_schema_classes_leaves_other_checkpointers_alone():
    for value in (None, True, False):
        assert allow_schema_classes(value, [State]) is value
    saver = InMemorySaver()
    assert allow_schema_classes(saver, [dict]) is saver
    assert (HERE, "Label") in allow_schema_classes(saver, [State]).serde.allowed_classes


def test_both_savers_refuse_the_same_values_in_the_same_words(saver):
    from graphkit.checkpoint import Checkpoint

    empty = Checkpoint.empty()
    checkpoint = Checkpoint(
        "id-1", -1, "input", None, {"x": Plain()}, {"x": 1}, {}, frozenset({"x"})
    )
    config = {"configurable": {"thread_id": "t"}}
    with pytest.raises(
        TypeError, match=r"Cannot save checkpoint 'id-1' of thread 't', channel 'x'"
    ):
        saver.put(config, checkpoint, {}, {})
    with pytest.raises(TypeError, match=r"Cannot save checkpoint .* metadata"):
        saver.put(config, empty, {"who": Plain()}, {})
    saved = saver.put(config, empty, {}, {})
    with pytest.raises(TypeError, match=r"Cannot save a write of task 'task-1'.*channel 'y'"):
        saver.put_writes(saved, [("y", Plain())], "task-1")


def test_a_wider_copy_of_a_sqlite_saver_builds_what_the_narrow_one_read_as_plain_data():
    """``with_allowlist`` shares the saver's memory of decoded rows: a row the strict saver
    read (a class it may not build, so a dict) was handed to the wider copy as it was."""
    from graphkit.checkpoint import Checkpoint

    with SqliteSaver.from_conn_string(":memory:") as writer:
        config = {"configurable": {"thread_id": "t", "checkpoint_ns": ""}}
        checkpoint = Checkpoint("id-1", -1, "input", None, {"x": [Spot(1)]}, {"x": 1}, {}, {"x"})
        writer.put(config, checkpoint, {}, {})
        strict = SqliteSaver(writer.conn, serde=JsonPlusSerializer(allowed_msgpack_modules=None))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert strict.get_tuple(config).checkpoint.channel_values["x"] == [{"x": 1}]
        wider = strict.with_allowlist([Spot]).get_tuple(config).checkpoint.channel_values["x"]
        assert wider == [Spot(1)]


class SpotState(TypedDict):
    spot: Spot


def test_compile_keeps_a_copy_of_the_saver_over_its_storage_where_langgraph_keeps_it():
    """A schema declaring a class widens the saver's allow-list in a shallow copy, so
    ``app.checkpointer is saver`` is False (LangGraph 1.2, whose serializer builds any
    class by default, keeps the saver itself); the two share their storage
    (docs/compatibility.md, "Differs on purpose")."""
    from langgraph.checkpoint.memory import InMemorySaver as LangGraphSaver
    from langgraph.graph import START as LG_START
    from langgraph.graph import StateGraph as LGStateGraph

    from graphkit import START, StateGraph

    def compiled(graph_class: type, start: str, saver: Any) -> Any:
        graph = graph_class(SpotState)
        graph.add_node("move", lambda state: {"spot": Spot(state["spot"].x + 1)})
        graph.add_edge(start, "move")
        return graph.compile(checkpointer=saver)

    langgraph_saver = LangGraphSaver()
    assert compiled(LGStateGraph, LG_START, langgraph_saver).checkpointer is langgraph_saver
    saver = InMemorySaver()
    app = compiled(StateGraph, START, saver)
    assert app.checkpointer is not saver
    thread = {"configurable": {"thread_id": "t"}}
    app.invoke({"spot": Spot(1)}, thread)
    assert saver.get_tuple(thread).checkpoint.step == 1
