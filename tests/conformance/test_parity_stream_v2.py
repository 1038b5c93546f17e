"""``version="v2"`` (issue 14, item 14): stream parts and ``GraphOutput`` as in LangGraph 1.2.

Every part is a plain dict ``{"type": mode, "ns": namespace, "data": payload}``; a values
part also carries ``"interrupts"`` (taken out of its data). ``invoke`` returns a
``GraphOutput`` for "values" and the list of parts for any other mode. The same graphs run
on both libraries, synchronously and under asyncio, and their parts are compared with
what differs from run to run (ids, timestamps, checkpoint ids) normalised.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import operator
import warnings
from collections.abc import Mapping
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.messages import AIMessage, AnyMessage
from pydantic import BaseModel

from .harness import canonical, normalise_stream, tidy

SIDES = ("langgraph", "graphkit")
HOW = ("sync", "async")


# -- the two libraries ----------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Side:
    name: str
    StateGraph: Any
    START: str
    Command: Any
    interrupt: Any
    get_stream_writer: Any
    InMemorySaver: Any
    GraphOutput: Any
    Interrupt: Any


def side(name: str) -> Side:
    package = "langgraph" if name == "langgraph" else "graphkit"
    types = importlib.import_module(f"{package}.types")
    if name == "langgraph":
        from langgraph.checkpoint.memory import InMemorySaver
        from langgraph.config import get_stream_writer
        from langgraph.graph import START, StateGraph
    else:
        from graphkit import START, InMemorySaver, StateGraph, get_stream_writer
    return Side(
        name,
        StateGraph,
        START,
        types.Command,
        types.interrupt if name == "langgraph" else importlib.import_module("graphkit").interrupt,
        get_stream_writer,
        InMemorySaver,
        types.GraphOutput,
        types.Interrupt,
    )


# -- the graphs -----------------------------------------------------------------------------


class Typed(TypedDict):
    items: Annotated[list, operator.add]
    x: int


class Model(BaseModel):
    items: Annotated[list, operator.add] = []
    x: int = 0


@dataclasses.dataclass
class Data:
    items: Annotated[list, operator.add] = dataclasses.field(default_factory=list)
    x: int = 0


SCHEMAS = {"typeddict": Typed, "pydantic": Model, "dataclass": Data}


def _read(state: Any, key: str) -> Any:
    return state[key] if isinstance(state, Mapping) else getattr(state, key)


def plain(lib: Side, schema: type = Typed, *, ask: bool = False, saver: bool = True) -> Any:
    """a (writes a custom chunk) -> b, and with ``ask`` -> c, which asks a human."""

    def a(state: Any) -> dict:
        lib.get_stream_writer()({"progress": "a"})
        return {"items": ["a"], "x": 1}

    def b(state: Any) -> dict:
        return {"items": ["b"]}

    def c(state: Any) -> dict:
        return {"items": [lib.interrupt("q?")]}

    builder = lib.StateGraph(schema)
    builder.add_node("a", a)
    builder.add_node("b", b)
    builder.add_edge(lib.START, "a")
    builder.add_edge("a", "b")
    if ask:
        builder.add_node("c", c)
        builder.add_edge("b", "c")
    return builder.compile(checkpointer=lib.InMemorySaver() if saver else None)


def nested(lib: Side, *, ask: bool = False) -> Any:
    """A compiled subgraph as node "sub", then node "call", which invokes another one."""

    def inner(state: Typed) -> dict:
        lib.get_stream_writer()("from-inner")
        if ask:
            return {"items": [lib.interrupt("inner?")]}
        return {"items": ["inner"]}

    sub_builder = lib.StateGraph(Typed)
    sub_builder.add_node("inner", inner)
    sub_builder.add_edge(lib.START, "inner")
    sub = sub_builder.compile()

    def call(state: Typed) -> dict:
        out = sub.invoke({"items": [], "x": 5})
        return {"x": len(out["items"])}

    builder = lib.StateGraph(Typed)
    builder.add_node("sub", sub)
    builder.add_node("call", call)
    builder.add_edge(lib.START, "sub")
    builder.add_edge("sub", "call")
    return builder.compile(checkpointer=lib.InMemorySaver())


def chatty(lib: Side) -> Any:
    """A node returning a chat message (what stream_mode="messages" sends)."""
    if lib.name == "langgraph":
        from langgraph.graph.message import add_messages
    else:
        from graphkit import add_messages

    # the functional form: a class body's annotations could not see the local add_messages
    Chat = TypedDict("Chat", {"messages": Annotated[list[AnyMessage], add_messages]})  # noqa: UP013
    builder = lib.StateGraph(Chat)
    builder.add_node("say", lambda state: {"messages": [AIMessage("hello", id="m1")]})
    builder.add_edge(lib.START, "say")
    return builder.compile()


# -- running and comparing ------------------------------------------------------------------

THREAD = {"configurable": {"thread_id": "t"}}
INPUT = {"items": [], "x": 0}


def stream(app: Any, input: Any, how: str, **kwargs: Any) -> list[Any]:
    kwargs.setdefault("version", "v2")
    if how == "sync":
        return list(app.stream(input, THREAD, **kwargs))

    async def collect() -> list[Any]:
        return [part async for part in app.astream(input, THREAD, **kwargs)]

    return asyncio.run(collect())


def invoke(app: Any, input: Any, how: str, **kwargs: Any) -> Any:
    kwargs.setdefault("version", "v2")
    if how == "sync":
        return app.invoke(input, THREAD, **kwargs)
    return asyncio.run(app.ainvoke(input, THREAD, **kwargs))


def plain_value(value: Any) -> Any:
    """``value`` with interrupts known by their value, and LangChain messages by kind and
    content: what is left may be compared across the libraries."""
    if type(value).__name__ == "Interrupt":
        return ("Interrupt", plain_value(value.value))
    if hasattr(value, "content") and hasattr(value, "type"):  # a chat message
        return (type(value).__name__, value.content)
    if isinstance(value, Mapping):
        if {"value", "id"} <= set(value) <= {"value", "id", "response_schema"}:
            # an interrupt as a task result lists it (LangGraph 1.2 adds response_schema,
            # which graphkit's interrupts do not have yet)
            return ("Interrupt", plain_value(value["value"]))
        return {k: plain_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(plain_value(v) for v in value)
    return value


def checkpoint_summary(payload: Mapping[str, Any]) -> dict[str, Any]:
    """What a checkpoint payload says, without its ids: values (and their class), next,
    the step and source."""
    values = payload["values"]
    return {
        "values": type(values).__name__ + " " + canonical(values),
        "next": list(payload["next"]),
        "step": payload["metadata"]["step"],
        "source": payload["metadata"]["source"],
    }


def comparable(parts: list[Any]) -> list[str]:
    """Each part checked for its shape, then as a line (tasks finishing together as one)."""
    rows = []
    for part in parts:
        assert type(part) is dict, part
        keys = {"type", "ns", "data"} | ({"interrupts"} if part["type"] == "values" else set())
        assert set(part) == keys, part
        assert isinstance(part["ns"], tuple), part
        data = part["data"]
        if part["type"] == "values":
            assert isinstance(part["interrupts"], tuple)
            data = {"data": type(data).__name__ + " " + canonical(plain_value(data))}
            data["interrupts"] = canonical(plain_value(part["interrupts"]))
        elif part["type"] == "messages":
            message, metadata = data
            data = (plain_value(message), metadata["langgraph_node"])
        rows.append((part["ns"], part["type"], data))
    lines = []
    for ns, mode, data in tidy(rows):
        if mode == "checkpoints":
            data = checkpoint_summary(data)
        elif mode == "debug" and data["type"] == "checkpoint":
            data = {**data, "payload": checkpoint_summary(data["payload"])}
        lines.append((ns, mode, plain_value(data)))
    return normalise_stream(lines)


def both(run: Any) -> tuple[Any, Any]:
    """``run(side)`` on LangGraph and on graphkit."""
    return run(side("langgraph")), run(side("graphkit"))


def assert_same_parts(run: Any) -> list[str]:
    expected, actual = both(lambda lib: comparable(run(lib)))
    assert actual == expected
    return expected


# -- each mode, alone and listed ------------------------------------------------------------

MODES = ["values", "updates", "custom", "tasks", "checkpoints", "debug"]


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("mode", MODES)
def test_each_mode_alone(mode, how):
    lines = assert_same_parts(lambda lib: stream(plain(lib), INPUT, how, stream_mode=mode))
    assert lines


@pytest.mark.parametrize("how", HOW)
def test_messages_mode(how):
    lines = assert_same_parts(
        lambda lib: stream(chatty(lib), {"messages": []}, how, stream_mode="messages")
    )
    assert lines == ["messages () " + canonical((("AIMessage", "hello"), "say"))]


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize(
    "modes",
    [["updates", "custom"], ["values", "updates", "tasks"], ["checkpoints", "debug"], MODES],
    ids=lambda modes: "+".join(modes),
)
def test_listed_modes_are_parts_too(modes, how):
    assert_same_parts(lambda lib: stream(plain(lib), INPUT, how, stream_mode=modes))


@pytest.mark.parametrize("how", HOW)
def test_the_default_mode_is_the_graphs(how):
    lines = assert_same_parts(lambda lib: stream(plain(lib), INPUT, how))
    assert all(line.startswith("updates") for line in lines)


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("subgraphs", [True, False])
@pytest.mark.parametrize("mode", ["custom", ["values", "custom", "updates"]], ids=str)
def test_subgraph_parts_carry_their_namespace(mode, subgraphs, how):
    lines = assert_same_parts(
        lambda lib: stream(nested(lib), INPUT, how, stream_mode=mode, subgraphs=subgraphs)
    )
    assert any(line.split(" ", 2)[1] == "('sub',)" for line in lines) == subgraphs


# -- pydantic and dataclass state -----------------------------------------------------------


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("schema", ["pydantic", "dataclass"])
@pytest.mark.parametrize("mode", ["values", "updates", "checkpoints", "debug"])
def test_class_schemas_turn_values_into_instances(schema, mode, how):
    lines = assert_same_parts(
        lambda lib: stream(plain(lib, SCHEMAS[schema]), INPUT, how, stream_mode=mode)
    )
    if mode != "updates":
        assert any(f"{SCHEMAS[schema].__name__}(" in line for line in lines)


@pytest.mark.parametrize("schema", ["pydantic", "dataclass"])
def test_class_schemas_with_output_keys(schema):
    run = lambda lib: stream(  # noqa: E731
        plain(lib, SCHEMAS[schema]), INPUT, "sync", stream_mode="values", output_keys=["x"]
    )
    assert_same_parts(run)


def test_a_subgraphs_values_take_the_parents_schema():
    """LangGraph builds every values part's data with the root graph's output schema, the
    subgraph's parts too (pydantic drops the keys it does not know)."""

    def run(lib: Side) -> list[Any]:
        inner = lib.StateGraph(Typed).add_node("i", lambda s: {"x": 7})
        sub = inner.add_edge(lib.START, "i").compile()
        builder = lib.StateGraph(Model).add_node("sub", sub).add_edge(lib.START, "sub")
        app = builder.compile(checkpointer=lib.InMemorySaver())
        return stream(app, INPUT, "sync", stream_mode="values", subgraphs=True)

    lines = assert_same_parts(run)
    assert any(line.startswith("values ('sub',)") and "Model(" in line for line in lines)


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_a_single_output_key_streams_its_value(version):
    def run(lib: Side) -> Any:
        app = plain(lib)
        values = stream(app, INPUT, "sync", stream_mode="values", output_keys="x", version=version)
        return values, invoke(app, INPUT, "sync", output_keys="x", version=version)

    expected, actual = both(run)
    assert canonical(actual) == canonical(expected)
    assert (expected[1] if version == "v1" else expected[1].value) == 1


def test_v1_keeps_dicts_for_class_schemas():
    parts = stream(
        plain(side("graphkit"), Model), INPUT, "sync", stream_mode="values", version="v1"
    )
    assert parts[-1] == {"items": ["a", "b"], "x": 1}


# -- interrupts -----------------------------------------------------------------------------


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("mode", ["values", "updates", "tasks", ["values", "updates"]], ids=str)
def test_an_interrupt_in_parts(mode, how):
    def run(lib: Side) -> list[Any]:
        app = plain(lib, ask=True)
        first = stream(app, INPUT, how, stream_mode=mode)
        return first + stream(app, lib.Command(resume="yes"), how, stream_mode=mode)

    lines = assert_same_parts(run)
    if mode == "values":
        paused = {"data": "dict " + canonical({"items": ["a", "b"], "x": 1})}
        paused["interrupts"] = canonical((("Interrupt", "q?"),))
        assert f"values () {canonical(paused)}" in lines


@pytest.mark.parametrize("how", HOW)
def test_an_interrupt_in_a_subgraph(how):
    def run(lib: Side) -> list[Any]:
        app = nested(lib, ask=True)
        return stream(app, INPUT, how, stream_mode=["values", "updates"], subgraphs=True)

    assert_same_parts(run)


def test_the_interrupt_leaves_data_for_a_single_output_key():
    def run(lib: Side) -> list[Any]:
        return stream(plain(lib, ask=True), INPUT, "sync", stream_mode="values", output_keys="x")

    lines = assert_same_parts(run)
    paused = {"data": "dict {}", "interrupts": canonical((("Interrupt", "q?"),))}
    assert f"values () {canonical(paused)}" in lines


# -- invoke and ainvoke ---------------------------------------------------------------------


def outcome(result: Any) -> Any:
    """A GraphOutput as (class name, value, interrupts); anything else as comparable parts."""
    if type(result).__name__ == "GraphOutput":
        return (
            "GraphOutput",
            type(result.value).__name__ + " " + canonical(plain_value(result.value)),
            canonical(plain_value(result.interrupts)),
        )
    return comparable(result)


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"stream_mode": "values"},
        {"output_keys": ["x"]},
        {"output_keys": "x"},
        {"stream_mode": "updates"},
        {"stream_mode": "custom"},
        {"stream_mode": ["updates", "values"]},
    ],
    ids=repr,
)
def test_invoke_v2(kwargs, how):
    expected, actual = both(lambda lib: outcome(invoke(plain(lib), INPUT, how, **kwargs)))
    assert actual == expected


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("schema", ["pydantic", "dataclass"])
def test_invoke_v2_gives_the_schemas_instance(schema, how):
    expected, actual = both(lambda lib: outcome(invoke(plain(lib, SCHEMAS[schema]), INPUT, how)))
    assert actual == expected
    assert expected[1].startswith(SCHEMAS[schema].__name__)


@pytest.mark.parametrize("how", HOW)
def test_invoke_v2_with_an_interrupt(how):
    def run(lib: Side) -> Any:
        app = plain(lib, ask=True)
        first = invoke(app, INPUT, how)
        return outcome(first), outcome(invoke(app, lib.Command(resume="yes"), how))

    expected, actual = both(run)
    assert actual == expected
    assert expected[0][2] == canonical((("Interrupt", "q?"),))
    assert expected[1][2] == "()"


@pytest.mark.parametrize("how", HOW)
def test_invoke_v2_with_an_interrupt_in_a_subgraph(how):
    expected, actual = both(lambda lib: outcome(invoke(nested(lib, ask=True), INPUT, how)))
    assert actual == expected
    assert expected[2] == canonical((("Interrupt", "inner?"),))


def test_ainvoke_custom_without_writes_is_an_empty_list():
    def run(lib: Side) -> Any:
        builder = lib.StateGraph(Typed).add_node("a", lambda s: {"x": 1})
        app = builder.add_edge(lib.START, "a").compile()
        return asyncio.run(app.ainvoke(INPUT, stream_mode="custom", version="v2"))

    assert both(run) == ([], [])


def test_invoke_v1_is_unchanged():
    expected, actual = both(lambda lib: invoke(plain(lib), INPUT, "sync", version="v1"))
    assert actual == expected == {"items": ["a", "b"], "x": 1}


# -- GraphOutput ----------------------------------------------------------------------------


def test_graph_output_is_a_frozen_dataclass_like_langgraphs():
    def look(lib: Side) -> Any:
        output = lib.GraphOutput(value={"x": 1})
        try:
            output.value = 2
            frozen = False
        except dataclasses.FrozenInstanceError:
            frozen = True
        fields = [(f.name, f.default) for f in dataclasses.fields(lib.GraphOutput)]
        return (
            frozen,
            [name for name, _ in fields],
            fields[1][1],
            repr(output),
            output == lib.GraphOutput({"x": 1}),
            output == {"x": 1},
            hash(lib.GraphOutput(1)) == hash(lib.GraphOutput(1)),
        )

    expected, actual = both(look)
    assert actual == expected


def dict_access(lib: Side) -> Any:
    """What each deprecated dict-style read gives, and the warnings' classes."""
    asked = lib.GraphOutput(value={"x": 1}, interrupts=(lib.Interrupt("q?", "i1"),))
    model = lib.GraphOutput(value=Model(x=3))
    reads = [
        lambda: asked["x"],
        lambda: asked["__interrupt__"],
        lambda: asked["missing"],
        lambda: "x" in asked,
        lambda: "__interrupt__" in asked,
        lambda: "__interrupt__" in model,
        lambda: model["x"],
        lambda: model["missing"],
        lambda: "x" in model,
        lambda: "nope" in model,
    ]
    seen = []
    for read in reads:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = canonical(plain_value(read()))
            except Exception as error:
                result = f"raised {type(error).__name__}"
        seen.append((result, [w.category.__name__ for w in caught]))
    return seen


def test_graph_output_dict_access_is_deprecated_as_in_langgraph():
    expected, actual = both(dict_access)
    assert actual == expected
    assert expected[0] == ("1", ["LangGraphDeprecatedSinceV11"])


def test_graph_output_dict_access_warns_at_the_callers_line():
    from graphkit.types import GraphOutput

    with pytest.warns(DeprecationWarning, match=r"result\.value") as caught:
        GraphOutput({"x": 1})["x"]
    assert caught[0].filename == __file__


def test_graph_output_is_importable_where_langgraph_keeps_it():
    import graphkit.types

    for name in (
        "GraphOutput",
        "StreamPart",
        "ValuesStreamPart",
        "UpdatesStreamPart",
        "MessagesStreamPart",
        "CustomStreamPart",
        "CheckpointStreamPart",
        "TasksStreamPart",
        "DebugStreamPart",
        "TaskPayload",
        "TaskResultPayload",
        "CheckpointTask",
        "CheckpointPayload",
        "DebugPayload",
    ):
        assert name in graphkit.types.__all__
        assert getattr(graphkit.types, name) is not None
        assert getattr(importlib.import_module("langgraph.types"), name) is not None


def test_the_part_types_have_langgraphs_keys():
    import langgraph.types

    import graphkit.types

    for name in ("ValuesStreamPart", "UpdatesStreamPart", "CustomStreamPart", "TaskPayload"):
        ours, theirs = getattr(graphkit.types, name), getattr(langgraph.types, name)
        assert set(ours.__annotations__) == set(theirs.__annotations__), name


# -- versions other than v1 and v2 ----------------------------------------------------------


@pytest.mark.parametrize("version", ["v3", "V2", 2])
def test_an_unknown_version_runs_as_v1_with_a_warning(version):
    from graphkit.errors import GraphkitWarning

    lg = list(plain(side("langgraph")).stream(INPUT, THREAD, version=version))
    with pytest.warns(GraphkitWarning, match=r"version=.*'v1' or 'v2'") as caught:
        gk = list(plain(side("graphkit")).stream(INPUT, THREAD, version=version))
    assert repr(version) in str(caught[0].message)
    assert canonical(gk) == canonical(lg)


def test_version_none_is_the_default_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        parts = list(plain(side("graphkit")).stream(INPUT, THREAD, version=None))
    assert parts == list(plain(side("langgraph")).stream(INPUT, THREAD, version=None))


def test_an_unknown_version_in_invoke_warns_once_and_returns_v1():
    from graphkit.errors import GraphkitWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = plain(side("graphkit")).invoke(INPUT, THREAD, version="v3")
    assert result == {"items": ["a", "b"], "x": 1}
    assert [w.category for w in caught] == [GraphkitWarning]
    assert caught[0].filename == __file__
