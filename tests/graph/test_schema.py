"""From state schemas to channels: which channel each field gets, which fields count,
and the errors for schemas that cannot work. LangGraph's StateGraph is the oracle for
the channel kinds."""

# No ``from __future__ import annotations`` here: schemas defined inside tests must
# keep resolvable annotations.

import operator
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, NotRequired, Required, TypedDict

import pydantic
import pytest
from langgraph.graph import StateGraph as LangGraphStateGraph

from graphkit import StateGraph
from graphkit.channels import (
    BinaryOperatorAggregate,
    EphemeralValue,
    LastValue,
    Topic,
    UntrackedValue,
)
from graphkit.graph.schema import (
    channels_from_schema,
    coerce_to_schema,
    is_class_schema,
    schema_keys,
)


def merge(current: dict, update: dict) -> dict:
    return {**current, **update}


class Plain(TypedDict):
    question: str
    count: int


class Reduced(TypedDict):
    log: Annotated[list, operator.add]
    settings: Annotated[dict, merge]
    note: Annotated[str, "just documentation"]


class Partial(TypedDict, total=False):
    needed: Required[int]
    optional: NotRequired[str]
    log: NotRequired[Annotated[list[str], operator.add]]
    wrapped: Annotated[Required[list], operator.add]


class Base(TypedDict):
    first: int


class Derived(Base):
    second: str


@dataclass
class DataState:
    name: str
    total: Annotated[int, operator.add] = 0
    items: list = field(default_factory=list)


class ModelState(pydantic.BaseModel):
    name: str
    total: Annotated[int, operator.add] = 0
    limit: ClassVar[int] = 10
    _secret: int = pydantic.PrivateAttr(default=0)

    def shout(self) -> str:
        return self.name.upper()

    @property
    def loud(self) -> str:
        return self.shout()


SHARED_TOPIC = Topic(str, accumulate=True)


class WithChannels(TypedDict):
    scratch: Annotated[int, EphemeralValue]
    events: Annotated[list, SHARED_TOPIC]
    private: Annotated[str, "first wins", UntrackedValue]


class Unresolvable(TypedDict):
    x: "Missing"  # noqa: F821 - the point of the test


class EmptyTypedDict(TypedDict):
    pass


@dataclass
class EmptyDataclass:
    pass


class EmptyModel(pydantic.BaseModel):
    pass


class NoAnnotations:
    pass


def kinds(channels):
    return {name: type(channel).__name__ for name, channel in channels.items()}


def keys(channels):
    return {name: channel.key for name, channel in channels.items()}


# -- channels_from_schema ---------------------------------------------------------------


def test_plain_fields_become_last_values_keyed_by_field():
    channels = channels_from_schema(Plain)
    assert channels == {"question": LastValue(str), "count": LastValue(int)}
    assert kinds(channels) == {"question": "LastValue", "count": "LastValue"}
    assert keys(channels) == {"question": "question", "count": "count"}
    assert (
        repr(channels)
        == "{'question': LastValue 'question'(<empty>), 'count': LastValue 'count'(<empty>)}"
    )


def test_a_reducer_becomes_a_binary_operator_aggregate_with_that_operator():
    channels = channels_from_schema(Reduced)
    assert kinds(channels) == {
        "log": "BinaryOperatorAggregate",
        "settings": "BinaryOperatorAggregate",
        "note": "LastValue",
    }
    assert channels["log"].operator is operator.add
    assert channels["settings"].operator is merge
    assert channels["log"].typ is list
    assert channels["log"].get() == []
    assert channels["settings"].get() == {}
    assert channels["settings"].update([{"a": 1}, {"b": 2}])
    assert channels["settings"].get() == {"a": 1, "b": 2}
    assert keys(channels) == {"log": "log", "settings": "settings", "note": "note"}


def test_annotated_metadata_that_is_not_callable_leaves_a_last_value():
    channel = channels_from_schema(Reduced)["note"]
    assert channel == LastValue(Annotated[str, "just documentation"])


def test_required_and_not_required_are_unwrapped():
    channels = channels_from_schema(Partial)
    assert kinds(channels) == {
        "needed": "LastValue",
        "optional": "LastValue",
        "log": "BinaryOperatorAggregate",
        "wrapped": "BinaryOperatorAggregate",
    }
    assert channels["needed"].typ is int
    assert channels["optional"].typ is str
    assert channels["log"] == BinaryOperatorAggregate(list[str], operator.add)
    assert channels["wrapped"].operator is operator.add
    assert channels["wrapped"].get() == []


def test_a_dataclass_schema():
    channels = channels_from_schema(DataState)
    assert kinds(channels) == {
        "name": "LastValue",
        "total": "BinaryOperatorAggregate",
        "items": "LastValue",
    }
    assert channels["total"].operator is operator.add
    assert channels["total"].get() == 0


def test_a_pydantic_model_gives_its_fields_only():
    channels = channels_from_schema(ModelState)
    assert kinds(channels) == {"name": "LastValue", "total": "BinaryOperatorAggregate"}
    assert channels["name"].typ is str
    assert channels["total"].operator is operator.add
    assert keys(channels) == {"name": "name", "total": "total"}


def test_a_channel_class_in_annotated_is_built_for_the_field():
    channels = channels_from_schema(WithChannels)
    assert channels["scratch"] == EphemeralValue(int)
    assert channels["scratch"].key == "scratch"
    # The first channel in the metadata wins, wherever it stands.
    assert channels["private"] == UntrackedValue(str)
    assert channels["private"].key == "private"


def test_a_channel_instance_in_annotated_is_copied_not_shared():
    first = channels_from_schema(WithChannels)["events"]
    second = channels_from_schema(WithChannels)["events"]
    assert first == Topic(str, accumulate=True)
    assert first.key == "events"
    assert first is not SHARED_TOPIC
    assert first is not second
    assert SHARED_TOPIC.key == ""  # the instance in the schema is left alone
    assert first.update(["only in the first"])
    assert not second.is_available()
    assert not SHARED_TOPIC.is_available()


def test_two_graphs_from_one_schema_share_no_channel():
    first, second = StateGraph(WithChannels), StateGraph(WithChannels)
    assert first.channels.keys() == second.channels.keys()
    for name in first.channels:
        assert first.channels[name] is not second.channels[name]
    assert first.channels["events"] is not SHARED_TOPIC


def test_a_channel_instance_with_a_value_gives_an_empty_copy():
    filled = Topic(str, accumulate=True)
    filled.update(["left over"])

    class State(TypedDict):
        events: Annotated[list, filled]

    channel = channels_from_schema(State)["events"]
    assert channel == Topic(str, accumulate=True)
    assert not channel.is_available()


def test_each_call_builds_fresh_channels():
    first, second = channels_from_schema(Reduced), channels_from_schema(Reduced)
    assert first == second
    assert all(first[name] is not second[name] for name in first)
    first["log"].update([["x"]])
    assert second["log"].get() == []


def one_argument(current):
    return current


def three_arguments(current, update, extra):
    return current


def keyword_only_update(current, *, update):
    return current


def any_arguments(*values):
    return values[0]


@pytest.mark.parametrize(
    ("reducer", "shown", "signature"),
    [
        (one_argument, "one_argument", "(current)"),
        (three_arguments, "three_arguments", "(current, update, extra)"),
        (keyword_only_update, "keyword_only_update", "(current, *, update)"),
        (any_arguments, "any_arguments", "(*values)"),  # LangGraph refuses it too
        (lambda: [], "<lambda>", "()"),
    ],
)
def test_a_reducer_of_the_wrong_arity_is_a_value_error_naming_the_key(reducer, shown, signature):
    class State(TypedDict):
        ok: int
        history: Annotated[list, reducer]

    with pytest.raises(ValueError) as excinfo:
        channels_from_schema(State)
    assert str(excinfo.value) == (
        "The reducer of state key 'history' must take two arguments (current, update) "
        f"and return the new value; {shown!r} takes {signature}."
    )


def test_a_builtin_reducer_without_a_signature_is_refused_as_langgraph_refuses_it():
    class State(TypedDict):
        best: Annotated[int, max]

    with pytest.raises(ValueError, match="no signature found"):
        LangGraphStateGraph(State)
    with pytest.raises(ValueError) as excinfo:
        StateGraph(State)
    assert str(excinfo.value) == (
        "The reducer of state key 'best' is 'max', whose arguments Python cannot read (it has "
        "no signature), and LangGraph refuses such a reducer when it builds the graph. Wrap it "
        "in a function of two arguments (current, update), e.g. "
        "Annotated[..., lambda current, update: max(current, update)]."
    )


def test_a_builtin_reducer_with_a_signature_is_accepted_on_both():
    class State(TypedDict):
        total: Annotated[int, operator.add]

    LangGraphStateGraph(State)
    channel = channels_from_schema(State)["total"]
    channel.update([3, 7])
    assert channel.get() == 10


@pytest.mark.parametrize("schema", [EmptyTypedDict, EmptyDataclass, EmptyModel, NoAnnotations])
def test_a_schema_class_without_fields_is_a_type_error(schema):
    with pytest.raises(TypeError) as excinfo:
        channels_from_schema(schema)
    assert str(excinfo.value) == (
        f"State schema {schema!r} has no annotated fields, so its graph would have no state. "
        "Annotate the fields that are the state keys (e.g. `count: int`), or use a type for "
        "a single-value state, e.g. StateGraph(int)."
    )


@pytest.mark.parametrize(
    ("schema", "kind"),
    [
        (int, LastValue),
        (list[str], LastValue),
        (Annotated[list, operator.add], BinaryOperatorAggregate),
    ],
)
def test_a_type_without_fields_is_a_single_value_state(schema, kind):
    channels = channels_from_schema(schema)
    assert list(channels) == ["__root__"] and schema_keys(schema) == ("__root__",)
    assert type(channels["__root__"]) is kind


@pytest.mark.parametrize("schema", [42, "State", None])
def test_something_that_is_not_a_schema_is_a_type_error(schema):
    with pytest.raises(TypeError) as excinfo:
        channels_from_schema(schema)
    assert str(excinfo.value) == (
        f"State schema {schema!r} has no fields. Use a TypedDict, a dataclass or a "
        "pydantic model whose annotated fields are the state keys, or a type for a "
        "single-value state, e.g. StateGraph(int) or StateGraph(Annotated[list, operator.add])."
    )


def test_an_unresolvable_annotation_is_a_name_error_naming_the_schema():
    with pytest.raises(NameError):  # LangGraph's class
        LangGraphStateGraph(Unresolvable)
    with pytest.raises(NameError) as excinfo:
        channels_from_schema(Unresolvable)
    assert str(excinfo.value) == (
        "Cannot resolve the annotations of state schema Unresolvable: name 'Missing' is "
        "not defined. Define every type the schema names before building the graph, at "
        "module level: annotations written as strings (`from __future__ import "
        "annotations`) are looked up in the schema's module, where a type defined inside a "
        "function is not found."
    )
    assert isinstance(excinfo.value.__cause__, NameError)


@pytest.mark.parametrize("schema", [Plain, Reduced, Partial, Derived, DataState])
def test_channel_kinds_match_langgraph(schema):
    expected = kinds(LangGraphStateGraph(schema).channels)
    assert kinds(channels_from_schema(schema)) == expected


# -- schema_keys --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (Plain, ("question", "count")),
        (Reduced, ("log", "settings", "note")),
        (Partial, ("needed", "optional", "log", "wrapped")),
        (Derived, ("first", "second")),
        (DataState, ("name", "total", "items")),
        (ModelState, ("name", "total")),
    ],
)
def test_schema_keys_in_declaration_order(schema, expected):
    assert schema_keys(schema) == expected
    assert tuple(channels_from_schema(schema)) == expected


def test_schema_keys_keeps_declaration_order_not_alphabetical():
    class State(TypedDict):
        zebra: int
        apple: int
        mango: int

    assert schema_keys(State) == ("zebra", "apple", "mango")


# -- is_class_schema and coerce_to_schema -------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (DataState, True),
        (ModelState, True),
        (Plain, False),
        (dict, False),
        (NoAnnotations, False),
        (DataState(name="x"), False),
        (ModelState(name="x"), False),
    ],
)
def test_is_class_schema(schema, expected):
    assert is_class_schema(schema) is expected


def test_dict_schemas_need_no_coercion():
    assert coerce_to_schema(Plain) is None
    assert coerce_to_schema(dict) is None


def test_a_dataclass_schema_coerces_a_dict_to_an_instance():
    coerce = coerce_to_schema(DataState)
    assert coerce({"name": "ada", "total": 3}) == DataState(name="ada", total=3, items=[])


def test_a_pydantic_schema_coerces_and_validates():
    coerce = coerce_to_schema(ModelState)
    state = coerce({"name": "ada", "total": "4"})
    assert isinstance(state, ModelState)
    assert (state.name, state.total) == ("ada", 4)
    with pytest.raises(pydantic.ValidationError):
        coerce({"total": 1})


def test_coercion_rejects_keys_the_class_does_not_have():
    coerce = coerce_to_schema(DataState)
    with pytest.raises(TypeError, match="unexpected keyword argument 'other'"):
        coerce({"name": "ada", "other": 1})


def test_is_class_schema_accepts_any_pydantic_like_class():
    class Duck:
        model_fields: ClassVar[dict[str, Any]] = {}

    assert is_class_schema(Duck) is True


class Counted(TypedDict):
    question: str
    tries: int = 0  # a TypedDict keeps no default: the state starts without it


def test_a_typed_dict_default_warns_that_it_is_not_applied_as_langgraph_does_not():
    """langgraph#1662 and #740: a TypedDict field given a value (``tries: int = 0``)
    starts empty on both libraries, and the node reading it raises KeyError."""
    from graphkit import GraphkitWarning

    with pytest.warns(GraphkitWarning) as caught:
        StateGraph(Counted)
    assert [str(warning.message) for warning in caught] == [
        "State schema 'Counted' gives 'tries' a value (= 0), but a TypedDict keeps no "
        "defaults: the state starts without 'tries', as in LangGraph, and a node that "
        "reads state['tries'] before anything wrote it raises KeyError. Give it in the "
        "input, or declare the schema as a dataclass or a pydantic model, whose defaults "
        "are used."
    ]
    langgraph = LangGraphStateGraph(Counted)
    langgraph.add_node("attempt", lambda state: {"tries": state["tries"] + 1})
    langgraph.add_edge("__start__", "attempt")
    with pytest.raises(KeyError, match="tries"):
        langgraph.compile().invoke({"question": "why?"})


def test_a_typing_extensions_typed_dict_default_warns_too():
    """LangGraph's examples import TypedDict from typing_extensions, whose class
    typing.is_typeddict misses before Python 3.12."""
    import typing_extensions

    class Retried(typing_extensions.TypedDict):
        tries: int = 0

    from graphkit import GraphkitWarning

    with pytest.warns(GraphkitWarning, match="gives 'tries' a value"):
        StateGraph(Retried)


def test_a_typed_dict_without_values_and_a_dataclass_with_defaults_do_not_warn():
    @dataclass
    class Defaulted:
        tries: int = 0

    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        StateGraph(Plain)
        StateGraph(Defaulted)
