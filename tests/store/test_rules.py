"""graphkit.store.rules: the namespace rules and the filter and pattern rules."""

from __future__ import annotations

import pytest

from graphkit.store.base import MatchCondition
from graphkit.store.rules import (
    InvalidNamespaceError,
    matches_filter,
    matches_namespace,
    validate_namespace,
)


@pytest.mark.parametrize(
    ("namespace", "words"),
    [
        ((), "cannot be empty"),
        (("a.b",), "Use another separator, e.g. 'a-b'"),
        (("ok", ""), "cannot be empty strings"),
        (("ok", 3), "labels must be strings, e.g. '3'"),
        (("x\x00",), "NUL byte"),
        (("langgraph", "x"), 'cannot be "langgraph" (reserved)'),
    ],
)
def test_invalid_namespaces_say_how_to_fix_them(namespace, words) -> None:
    with pytest.raises(InvalidNamespaceError) as raised:
        validate_namespace(namespace)
    assert words in str(raised.value)


def test_comparisons_skip_missing_and_non_numeric_fields() -> None:
    """LangGraph's InMemoryStore raises TypeError here; graphkit (like SQL) says no match."""
    assert not matches_filter({}, {"n": {"$gt": 1}})
    assert not matches_filter({"n": "many"}, {"n": {"$lt": 1}})
    assert matches_filter({"n": "2"}, {"n": {"$gt": 1}})  # numeric strings compare as numbers
    assert matches_filter({}, {"n": {"$ne": 1}})


def test_unknown_operator_names_the_supported_ones() -> None:
    with pytest.raises(ValueError, match=r"'\$in'; use one of \$eq, \$ne, \$gt"):
        matches_filter({"n": 1}, {"n": {"$in": [1]}})


def test_namespace_patterns() -> None:
    assert matches_namespace(MatchCondition("suffix", ("*", "c")), ("a", "b", "c"))
    assert not matches_namespace(MatchCondition("prefix", ("a", "b", "c", "d")), ("a", "b"))
    with pytest.raises(ValueError, match="use 'prefix' or 'suffix'"):
        matches_namespace(MatchCondition("middle", ("a",)), ("a",))  # type: ignore[arg-type]
