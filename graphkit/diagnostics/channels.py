"""What graphkit says when a step's writes do not fit a channel."""

from __future__ import annotations

from collections.abc import Iterable
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from graphkit.constants import ROOT
from graphkit.errors import ErrorCode, InvalidUpdateError, create_error_message


def _concurrent_update(message: str) -> InvalidUpdateError:
    """A step's writes a channel cannot take together, with LangGraph's guide page."""
    code = ErrorCode.INVALID_CONCURRENT_GRAPH_UPDATE
    return InvalidUpdateError(create_error_message(message=message, error_code=code))


def plain_field_written_twice(
    key: str, count: int, typ: Any = Any, low_level: bool = False
) -> InvalidUpdateError:
    """The fix fits the graph: a StateGraph's key takes a reducer suited to its declared
    type ``typ``; a low-level Pregel's channel is made of another class."""
    value = _value_type(typ)
    if low_level and value in (Any, object):  # (BinaryOperatorAggregate(object) adds to object())
        fix = (
            "Make it a Topic(object) (it keeps them all) or a BinaryOperatorAggregate of "
            "the values' type (e.g. BinaryOperatorAggregate(int, operator.add) folds them)"
        )
    elif low_level:
        fix = (
            f"Make it a BinaryOperatorAggregate({_type_text(value)}, operator.add) (it folds "
            f"the values) or a Topic({_type_text(value)}) (it keeps them all)"
        )
    elif key == ROOT:  # StateGraph(int): the state is one value, its schema the reducer's
        reducer, aside = _reducer_for(value)
        fix = f"Give the state a reducer, e.g. StateGraph({reducer}){aside}"
    else:
        reducer, aside = _reducer_for(value)
        fix = f"Give it a reducer in the state schema, e.g. {key}: {reducer}{aside}"
    # (a low-level program has channels, not fields: its LastValue keeps one value)
    kept = "a LastValue channel" if low_level else "a plain field"
    error = _concurrent_update(
        f"Channel {key!r} received {count} values in one step; {kept} "
        f"keeps one value per step. {fix}, or write it from one node per step."
    )
    error.plain_field = (key, count, typ)  # (a low-level Pregel words the fix anew)
    return error


def _value_type(typ: Any) -> Any:
    """The type of the values ``typ`` declares: ``Annotated[str, "a note"]`` and
    ``Optional[str]`` (``str | None``) declare str."""
    if get_origin(typ) is Annotated:
        return _value_type(typ.__origin__)
    if get_origin(typ) in (Union, UnionType):
        others = [arg for arg in get_args(typ) if arg is not type(None)]
        return _value_type(others[0]) if len(others) == 1 else typ
    return typ


def _type_text(typ: Any) -> str:
    if typ is Any:
        return "object"
    return typ.__name__ if isinstance(typ, type) else repr(typ).replace("typing.", "")


def _reducer_for(typ: Any) -> tuple[str, str]:
    """A reducer for a key declared ``typ``, and an aside said after the code: ``operator.add``
    joins str, list and tuple and sums numbers; ``operator.or_`` merges dicts and sets;
    other types (and ``Any``) keep every value in a list."""
    origin = getattr(typ, "__origin__", None) or typ
    if origin in (str, list, tuple, int, float):
        return f"Annotated[{_type_text(typ)}, operator.add]", ""
    if origin in (dict, set, frozenset):
        return f"Annotated[{_type_text(typ)}, operator.or_]", ""
    return "Annotated[list, operator.add]", " (each node then writes a one-item list)"


def one_value_per_step(key: str, count: int, kind: str, name: str) -> InvalidUpdateError:
    return InvalidUpdateError(
        f"Channel {key!r} received {count} values in one step; {kind} keeps one value per "
        f"step. Write it from one node per step, or create it with {name}(..., guard=False) "
        "to keep the last."
    )


def not_a_barrier_name(key: str, value: Any, names: Iterable[Any]) -> InvalidUpdateError:
    return InvalidUpdateError(
        f"Channel {key!r} received {value!r}, but it waits only for "
        f"{sorted(names, key=repr)}. Write one of those names, or add {value!r} "
        "to the names the barrier waits for."
    )


def overwritten_twice(key: str) -> InvalidUpdateError:
    return _concurrent_update(
        f"Channel {key!r} received two Overwrite values in one step; only one write per "
        "step may replace a reducer field's value. Return Overwrite(...) from one node of "
        "the step, or plain values for the reducer to fold."
    )
