"""Standard-library values a state may hold, saved and read back as LangGraph's default
serializer does: paths, IP addresses and networks, compiled patterns and deques come
back as themselves; ``OrderedDict``, ``defaultdict`` and ``Counter`` as plain dicts, and
other subclasses of ``str``, ``int`` and ``list`` (langchain-core's ``message.text``) as
the plain value; numpy arrays as arrays, exceptions as their repr, a ``memoryview`` as
bytes. A value that holds itself is refused with a ``TypeError``, never a
``RecursionError``."""

from __future__ import annotations

import collections
import ipaddress
import operator
import pathlib
import re
import sqlite3
from typing import Annotated, Any, NamedTuple, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph

VALUES = {
    "path": pathlib.Path("/tmp/report.txt"),
    "relative path": pathlib.Path("notes") / "today.md",
    "IPv4 address": ipaddress.IPv4Address("192.168.0.7"),
    "IPv6 address": ipaddress.IPv6Address("::1"),
    "IPv4 network": ipaddress.ip_network("10.0.0.0/8"),
    "IPv6 network": ipaddress.ip_network("2001:db8::/32"),
    "IPv4 interface": ipaddress.ip_interface("10.1.2.3/24"),
    "pattern": re.compile(r"a+b", re.IGNORECASE | re.MULTILINE),
    "bytes pattern": re.compile(rb"\d+"),
    "deque": collections.deque([1, "two", 3.0]),
    "bounded deque": collections.deque([1, 2, 3], maxlen=5),
    "OrderedDict": collections.OrderedDict(b=1, a=2),
    "defaultdict": collections.defaultdict(list, a=[1]),
    "Counter": collections.Counter("abracadabra"),
    "nested": {"where": [pathlib.Path("/x"), collections.deque([ipaddress.ip_address("::2")])]},
}


def _serializer(lib: Lib) -> Any:
    if lib.name == "langgraph":
        from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
    else:
        from graphkit.checkpoint.serde import JsonPlusSerializer
    return JsonPlusSerializer()


def _described(value: Any) -> Any:
    """What a reader sees: the type and the value. (Not a deque's ``maxlen``: LangGraph
    drops it, graphkit keeps it; see ``test_a_bounded_deque_keeps_its_bound``.)"""
    if isinstance(value, dict):
        return type(value).__name__, {key: _described(item) for key, item in value.items()}
    if isinstance(value, (list, collections.deque)):
        return type(value).__name__, [_described(item) for item in value]
    return type(value).__name__, value


def test_a_bounded_deque_keeps_its_bound():
    serde = _serializer(load_graphkit())
    back = serde.loads_typed(serde.dumps_typed(collections.deque([1, 2], maxlen=2)))
    back.append(3)
    assert back == collections.deque([2, 3]) and back.maxlen == 2


@pytest.mark.parametrize("name", list(VALUES))
def test_a_standard_library_value_reads_back_as_in_langgraph(name):
    def round_trip(lib: Lib) -> Any:
        serde = _serializer(lib)
        return _described(serde.loads_typed(serde.dumps_typed(VALUES[name])))

    expected = round_trip(load_langgraph())
    assert round_trip(load_graphkit()) == expected


class State(TypedDict):
    log: Annotated[list, operator.add]
    kept: Any


def test_a_state_of_standard_library_values_resumes_from_sqlite(tmp_path):
    def observe(lib: Lib) -> Any:
        if lib.name == "langgraph":
            from langgraph.checkpoint.sqlite import SqliteSaver
        else:
            from graphkit.checkpoint.sqlite import SqliteSaver
        builder = lib.StateGraph(State)
        builder.add_node("keep", lambda state: {"log": ["keep"], "kept": dict(VALUES)})
        builder.add_edge(lib.START, "keep")
        config = {"configurable": {"thread_id": "t"}}
        path = tmp_path / f"{lib.name}.db"
        with sqlite3.connect(path, check_same_thread=False) as conn:
            builder.compile(checkpointer=SqliteSaver(conn)).invoke({"log": []}, config)
        with sqlite3.connect(path, check_same_thread=False) as conn:  # a fresh reader
            values = builder.compile(checkpointer=SqliteSaver(conn)).get_state(config).values
        return _described(values)

    expected = observe(load_langgraph())
    assert observe(load_graphkit()) == expected


def test_a_value_that_holds_itself_is_refused_with_a_type_error():
    looped: list[Any] = [1]
    looped.append(looped)
    for lib in (load_langgraph(), load_graphkit()):
        with pytest.raises(TypeError) as raised:
            _serializer(lib).dumps_typed({"x": looped})
        if lib.name == "graphkit":
            assert "holds itself" in str(raised.value)


@pytest.mark.parametrize(
    "number", [2**64, -(2**63) - 1, 3**100], ids=["2**64", "-2**63-1", "3**100"]
)
def test_an_int_past_64_bits_is_kept_where_langgraph_refuses_it(number):
    """A known difference (docs/compatibility.md): LangGraph's msgpack takes ints of 64
    bits only, so its savers refuse a bigger one with a ``TypeError``; graphkit's JSON
    keeps any int. Within 64 bits both give back the same."""
    with pytest.raises(TypeError, match="64-bit"):
        _serializer(load_langgraph()).dumps_typed({"n": number})
    serde = _serializer(load_graphkit())
    assert serde.loads_typed(serde.dumps_typed({"n": number})) == {"n": number}
    for edge in (2**64 - 1, -(2**63)):
        for lib in (load_langgraph(), load_graphkit()):
            serde = _serializer(lib)
            assert serde.loads_typed(serde.dumps_typed({"n": edge})) == {"n": edge}


class Point(NamedTuple):
    x: int
    y: tuple


def _strict_serializer(lib: Lib) -> Any:
    if lib.name == "langgraph":
        from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
    else:
        from graphkit.checkpoint.serde import JsonPlusSerializer
    return JsonPlusSerializer(allowed_msgpack_modules=None)


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
def test_a_named_tuple_not_allowed_reads_back_as_its_fields(strict):
    """A named tuple whose class a strict serializer does not allow is given back as
    LangGraph gives it: a dict of its fields (it was a bare list of values); allowed, it is
    the named tuple again."""

    def round_trip(lib: Lib) -> Any:
        serde = (_strict_serializer if strict else _serializer)(lib)
        return _described(serde.loads_typed(serde.dumps_typed([Point(1, (2, 3))])))

    expected = round_trip(load_langgraph())
    assert expected == (
        ("list", [("dict", {"x": ("int", 1), "y": ("list", [("int", 2), ("int", 3)])})])
        if strict
        else ("list", [("Point", Point(1, [2, 3]))])
    )
    assert round_trip(load_graphkit()) == expected


class Label(str):
    pass


class Count(int):
    pass


class Row(list):
    pass


class Ratio(float):
    pass


def _builtin_subclasses() -> dict[str, Any]:
    from langchain_core.messages import AIMessage

    return {
        "message text": AIMessage("hello").text,  # a langchain-core TextAccessor, a str
        "str subclass": Label("x"),
        "int subclass": Count(5),
        "list subclass": Row([1, Label("y")]),
        "nested": {"rows": Row([Count(2)]), Label("key"): Label("value")},
    }


@pytest.mark.parametrize("name", list(_builtin_subclasses()))
def test_a_builtin_subclass_reads_back_as_the_plain_value_as_in_langgraph(name):
    def round_trip(lib: Lib) -> Any:
        serde = _serializer(lib)
        return _described(serde.loads_typed(serde.dumps_typed(_builtin_subclasses()[name])))

    expected = round_trip(load_langgraph())
    assert round_trip(load_graphkit()) == expected


def test_a_float_subclass_is_refused_as_in_langgraph():
    for lib in (load_langgraph(), load_graphkit()):
        with pytest.raises(TypeError):
            _serializer(lib).dumps_typed(Ratio(1.5))


def test_a_nodes_message_text_is_saved_and_resumed(tmp_path):
    """`return {"kept": reply.text}` (LangChain 1.x's text property) with a saver, as
    LangGraph's own subgraph tests do: saved, and read back as a str."""

    def observe(lib: Lib) -> Any:
        from langchain_core.messages import AIMessage

        if lib.name == "langgraph":
            from langgraph.checkpoint.sqlite import SqliteSaver
        else:
            from graphkit.checkpoint.sqlite import SqliteSaver
        builder = lib.StateGraph(State)
        builder.add_node("keep", lambda state: {"log": ["keep"], "kept": AIMessage("hi").text})
        builder.add_edge(lib.START, "keep")
        config = {"configurable": {"thread_id": "t"}}
        with sqlite3.connect(tmp_path / f"{lib.name}-text.db", check_same_thread=False) as conn:
            app = builder.compile(checkpointer=SqliteSaver(conn))
            result = app.invoke({"log": []}, config)
            return _described(result["kept"]), _described(app.get_state(config).values)

    expected = observe(load_langgraph())
    assert observe(load_graphkit()) == expected


def _arrays() -> dict[str, Any]:
    numpy = pytest.importorskip("numpy")
    return {
        "int16": numpy.array([1, 2], dtype=numpy.int16),
        "Fortran order": numpy.arange(6).reshape(2, 3).T,
        "strided": numpy.arange(10)[::2],
        "zero-dimensional": numpy.array(5.0),
        "bool": numpy.array([True, False]),
        "str": numpy.array(["ab", "c"]),
        "complex": numpy.array([1 + 2j]),
        "empty": numpy.zeros((0, 3)),
        "float32 in a dict": {"embedding": numpy.array([0.1, 0.2], dtype=numpy.float32)},
    }


def _array_described(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _array_described(item) for key, item in value.items()}
    flags = value.flags
    return str(value.dtype), value.shape, value.tolist(), flags.writeable, flags.f_contiguous


@pytest.mark.parametrize(
    "name",
    [
        "int16",
        "Fortran order",
        "strided",
        "zero-dimensional",
        "bool",
        "str",
        "complex",
        "empty",
        "float32 in a dict",
    ],
)
def test_a_numpy_array_reads_back_as_in_langgraph(name):
    def round_trip(lib: Lib) -> Any:
        serde = _serializer(lib)
        return _array_described(serde.loads_typed(serde.dumps_typed(_arrays()[name])))

    expected = round_trip(load_langgraph())
    assert round_trip(load_graphkit()) == expected


def test_an_array_of_python_objects_is_refused_where_langgraph_reads_back_none():
    numpy = pytest.importorskip("numpy")
    objects = numpy.array([1, "a"], dtype=object)
    langgraph = _serializer(load_langgraph())
    assert langgraph.loads_typed(langgraph.dumps_typed(objects)) is None
    with pytest.raises(TypeError, match="tolist"):
        _serializer(load_graphkit()).dumps_typed(objects)


@pytest.mark.parametrize(
    "value",
    [ValueError("bad"), KeyError("k"), memoryview(b"ab")],
    ids=["ValueError", "KeyError", "memoryview"],  # stable ids: a memoryview's repr is its address
)
def test_an_exception_or_a_memoryview_reads_back_as_in_langgraph(value):
    def round_trip(lib: Lib) -> Any:
        serde = _serializer(lib)
        return _described(serde.loads_typed(serde.dumps_typed(value)))

    expected = round_trip(load_langgraph())
    assert round_trip(load_graphkit()) == expected


def test_a_node_keeping_the_error_it_caught_is_saved(tmp_path):
    def observe(lib: Lib) -> Any:
        if lib.name == "langgraph":
            from langgraph.checkpoint.sqlite import SqliteSaver
        else:
            from graphkit.checkpoint.sqlite import SqliteSaver

        def careful(state: State) -> State:
            try:
                int("x")
            except ValueError as error:
                return {"log": ["caught"], "kept": error}
            return {"log": []}

        builder = lib.StateGraph(State).add_node("careful", careful)
        builder.add_edge(lib.START, "careful")
        config = {"configurable": {"thread_id": "t"}}
        with sqlite3.connect(tmp_path / f"{lib.name}-error.db", check_same_thread=False) as conn:
            app = builder.compile(checkpointer=SqliteSaver(conn))
            app.invoke({"log": []}, config)
            return _described(app.get_state(config).values)

    expected = observe(load_langgraph())
    assert observe(load_graphkit()) == expected
