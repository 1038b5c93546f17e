"""The rules every store shares: which namespaces are valid, and what a search filter
and a namespace pattern match (LangGraph's semantics, graphkit's error wording).

>>> matches_filter({"n": 3}, {"n": {"$gte": 3}})
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphkit.store.base import MatchCondition

__all__ = [
    "FILTER_OPERATORS",
    "InvalidNamespaceError",
    "matches_filter",
    "matches_namespace",
    "validate_labels",
    "validate_namespace",
]

FILTER_OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")
"""The comparison operators a search filter may use (LangGraph's set)."""


class InvalidNamespaceError(ValueError):
    """A namespace (or a namespace pattern) that a store cannot address."""


def validate_labels(namespace: tuple[str, ...]) -> None:
    """Raise ``InvalidNamespaceError`` unless every label is a non-empty string
    without ``.`` or NUL.

    >>> try:  # doctest: +NORMALIZE_WHITESPACE
    ...     validate_labels(("users", "a.b"))
    ... except InvalidNamespaceError as error:
    ...     print(error)
    Namespace label 'a.b' in ('users', 'a.b') contains a period ('.'); labels are
    joined with periods when stored. Use another separator, e.g. 'a-b'.
    """
    for label in namespace:
        where = f"Namespace label {label!r} in {namespace}"
        if not isinstance(label, str):
            raise InvalidNamespaceError(
                f"{where} is a {type(label).__name__}; labels must be strings, e.g. {str(label)!r}."
            )
        if "." in label:
            raise InvalidNamespaceError(
                f"{where} contains a period ('.'); labels are joined with periods when "
                f"stored. Use another separator, e.g. {label.replace('.', '-')!r}."
            )
        if "\x00" in label:
            raise InvalidNamespaceError(f"{where} contains a NUL byte; remove it.")
        if not label:
            raise InvalidNamespaceError(
                f"Namespace labels cannot be empty strings; got {namespace}. "
                "Drop the empty label or name it."
            )


def validate_namespace(namespace: tuple[str, ...]) -> None:
    """Raise ``InvalidNamespaceError`` unless ``namespace`` can hold items.

    >>> try:
    ...     validate_namespace(())
    ... except InvalidNamespaceError as error:
    ...     print(error)
    Namespace cannot be empty: give at least one label, e.g. ('memories',).
    """
    if not namespace:
        raise InvalidNamespaceError(
            "Namespace cannot be empty: give at least one label, e.g. ('memories',)."
        )
    validate_labels(namespace)
    if namespace[0] == "langgraph":
        raise InvalidNamespaceError(
            f'Root label for namespace cannot be "langgraph" (reserved); got {namespace}. '
            "Start it with your own label."
        )


def matches_namespace(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """Whether ``namespace`` starts (or ends) with ``condition.path``; ``"*"`` matches any.

    >>> from graphkit.store.base import MatchCondition
    >>> matches_namespace(MatchCondition("prefix", ("a", "*")), ("a", "b", "c"))
    True
    """
    path = condition.path
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(namespace, path, strict=False)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    else:
        raise ValueError(
            f"Unknown namespace match type {condition.match_type!r}; use 'prefix' or 'suffix'."
        )
    return all(want in ("*", label) for label, want in pairs)


def matches_filter(value: dict[str, Any], filter: dict[str, Any] | None) -> bool:
    """Whether a stored ``value`` matches a search ``filter`` (every field must match).

    >>> value = {"n": 3, "who": {"name": "ada"}}
    >>> matches_filter(value, {"n": {"$gt": 2}, "who": {"name": "ada"}})
    True
    >>> matches_filter({"m": 1}, {"n": {"$gt": 2}})  # a missing field never compares
    False
    """
    return all(_matches(value.get(field), wanted) for field, wanted in (filter or {}).items())


def _matches(actual: Any, wanted: Any) -> bool:
    if isinstance(wanted, dict):
        if any(name.startswith("$") for name in wanted):
            return all(_compare(actual, name, operand) for name, operand in wanted.items())
        # A plain dict matches the nested fields it names.
        return isinstance(actual, dict) and matches_filter(actual, wanted)
    if isinstance(wanted, list | tuple):
        return (
            isinstance(actual, list | tuple)
            and len(actual) == len(wanted)
            and all(_matches(a, w) for a, w in zip(actual, wanted, strict=True))
        )
    return actual == wanted


def _compare(actual: Any, operator: str, operand: Any) -> bool:
    if operator == "$eq":
        return actual == operand
    if operator == "$ne":
        return actual != operand
    if operator not in FILTER_OPERATORS:
        raise ValueError(
            f"Unsupported filter operator {operator!r}; use one of {', '.join(FILTER_OPERATORS)}."
        )
    try:
        left, right = float(actual), float(operand)
    except (TypeError, ValueError):
        return False  # a missing or non-numeric field is never greater or smaller
    return {
        "$gt": left > right,
        "$gte": left >= right,
        "$lt": left < right,
        "$lte": left <= right,
    }[operator]
