"""What graphkit says when a run's records are asked about with the wrong kind of
argument: a step number that is text, a node named by a list, a width of 0.

``run.step("2")`` said "This run has no step 2; its steps are [-1, 0, 1, 2]", and
``run.why("a", "2")`` raised a ``TypeError`` comparing a str with an int from inside
graphkit: each call below is refused where it was made, naming the argument and the
call that works.
"""

from __future__ import annotations

import numbers
import operator
from collections.abc import Collection
from typing import Any

from graphkit.diagnostics import some_names

__all__ = ["check_node_name", "check_width", "index_number", "step_number", "whole_number_in"]


def step_number(value: Any, call: str) -> int:
    """``value`` as a step number (an int, NumPy's too), or a ``TypeError`` saying what
    ``call`` takes instead. A bool is refused: ``True`` reads as step 1.

    >>> step_number(2, "run.step(...)")
    2
    >>> step_number("2", "run.step(...)")
    Traceback (most recent call last):
    TypeError: run.step(...) takes a step number, an int, got the str '2': write 2.
    """
    if not isinstance(value, bool):
        try:
            return operator.index(value)
        except TypeError:
            pass
    return_to = ""
    if whole_number_in(value) is not None:
        return_to = f": write {whole_number_in(value)}"
    elif value is None or isinstance(value, bool):
        return_to = " (steps are numbered from -1, the input step)"
    raise TypeError(
        f"{call} takes a step number, an int, got the {type(value).__name__} {value!r}{return_to}."
    )


def index_number(value: Any, method: str) -> int:
    """``value`` as an index ``method`` takes (an int), or a ``TypeError`` saying so.

    >>> index_number("0", "goto")
    Traceback (most recent call last):
    TypeError: goto() takes an index, an int, got the str '0': write goto(0).
    """
    if not isinstance(value, bool):
        try:
            return operator.index(value)
        except TypeError:
            pass
    meant = whole_number_in(value)
    fix = f": write {method}({meant})" if meant is not None else ""
    raise TypeError(
        f"{method}() takes an index, an int, got the {type(value).__name__} {value!r}{fix}."
    )


def whole_number_in(value: Any) -> int | None:
    """The int a step number written as text or a float means ("2", 2.0), or None."""
    if isinstance(value, str) and value.strip().removeprefix("-").isdecimal():
        return int(value)
    return int(value) if isinstance(value, float) and value.is_integer() else None


def check_node_name(value: Any, call: str, nodes: Collection[str]) -> None:
    """A ``TypeError`` unless ``value`` is a node's name (a str).

    >>> check_node_name(["a"], "run.why(node)", ["a", "b"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    TypeError: run.why(node) takes one node's name, a str, got the list ['a']: ask about ...
    """
    if isinstance(value, str):
        return
    shown = getattr(value, "__name__", None) if callable(value) else None
    if isinstance(shown, str) and shown.isidentifier() and shown in nodes:
        fix = f": write {shown!r}, the node's name, not the function itself"
    elif isinstance(value, (list, tuple, set, frozenset)) and value:
        first = next(iter(value))
        fix = f": ask about each node in turn, e.g. {call.partition('(')[0]}({first!r})"
    else:
        fix = ""
    got = shown if isinstance(shown, str) else repr(value)
    raise TypeError(
        f"{call} takes one node's name, a str, got the {type(value).__name__} {got}"
        f"{fix}. The nodes are {some_names(nodes)}."
    )


def check_width(value: Any, call: str, *, whole: bool = True) -> None:
    """A ``TypeError`` or ``ValueError`` unless ``value`` is a width above 0 (a whole
    number of characters, or with ``whole=False`` any number of pixels); the caller
    leaves ``width=None`` alone where it means "do not wrap".

    >>> check_width(0, "run.timeline(width=...)")
    Traceback (most recent call last):
    ValueError: run.timeline(width=...) needs a width above 0, got 0 (width=None does not wrap).
    """
    # (NumPy's ints and floats are numbers too: a width worked out with them drew before)
    kind_ok = _is_index(value) if whole else isinstance(value, numbers.Real)
    if isinstance(value, bool) or not kind_ok:
        kind = "a whole number of characters" if whole else "a number of pixels"
        raise TypeError(f"{call} takes {kind}, got the {type(value).__name__} {value!r}.")
    if not value > 0:
        unwrapped = " (width=None does not wrap)" if whole else ""
        raise ValueError(f"{call} needs a width above 0, got {value!r}{unwrapped}.")


def _is_index(value: Any) -> bool:
    """True for a whole number, an int or NumPy's (what ``operator.index`` takes)."""
    try:
        operator.index(value)
    except TypeError:
        return False
    return True
