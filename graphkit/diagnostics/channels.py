"""What graphkit says when a step's writes do not fit a channel."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from graphkit.errors import ErrorCode, InvalidUpdateError, create_error_message


def _concurrent_update(message: str) -> InvalidUpdateError:
    """A step's writes a channel cannot take together, with LangGraph's guide page."""
    code = ErrorCode.INVALID_CONCURRENT_GRAPH_UPDATE
    return InvalidUpdateError(create_error_message(message=message, error_code=code))


def plain_field_written_twice(key: str, count: int) -> InvalidUpdateError:
    return _concurrent_update(
        f"Channel {key!r} received {count} values in one step; a plain field "
        "keeps one value per step. Give it a reducer, e.g. Annotated[list, operator.add] "
        "(in a low-level Pregel, make it a BinaryOperatorAggregate or a Topic channel)."
    )


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
