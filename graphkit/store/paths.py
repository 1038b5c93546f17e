"""Field paths: which text of a stored value is embedded for semantic search
(the path syntax of LangGraph's ``IndexConfig.fields``).

A path names the parts of a value to embed: ``"$"`` the whole value (as JSON),
``"title"`` a field, ``"author.name"`` a nested field, ``"tags[*]"`` every list item,
``"tags[0]"`` / ``"tags[-1]"`` one item, ``"*"`` every field, ``"{title,author.name}"``
several fields. Each string found is embedded on its own.

>>> texts_at_path({"title": "Cats", "tags": ["pets", "fur"]}, "tags[*]")
['pets', 'fur']
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["check_fields", "split_path", "texts_at_path"]

_CLOSING = {"[": "]", "{": "}"}


def split_path(path: str) -> list[str]:
    """The steps of a field path: names, ``[index]`` and ``{a,b}`` groups.

    >>> split_path("chapters[*].sections[0].text")
    ['chapters', '[*]', 'sections', '[0]', 'text']
    """
    steps: list[str] = []
    name = ""
    position = 0
    while position < len(path):
        char = path[position]
        if char in _CLOSING:
            if name:
                steps.append(name)
                name = ""
            end = _matching(path, position)
            steps.append(path[position : end + 1])
            position = end + 1
            continue
        if char == ".":
            if name:
                steps.append(name)
            name = ""
        else:
            name += char
        position += 1
    if name:
        steps.append(name)
    return steps


def _matching(path: str, start: int) -> int:
    """The index of the bracket that closes the one at ``start`` (or the path's end)."""
    opening, depth = path[start], 0
    for position in range(start, len(path)):
        if path[position] == opening:
            depth += 1
        elif path[position] == _CLOSING[opening]:
            depth -= 1
            if depth == 0:
                return position
    return len(path) - 1


def texts_at_path(value: Any, path: str) -> list[str]:
    """The strings to embed for ``path`` in ``value`` (none when the path is absent).

    Scalars become their ``str``; lists and dicts become sorted-key JSON; None is skipped.

    >>> texts_at_path({"n": 3, "who": {"name": "ada"}}, "$")
    ['{"n": 3, "who": {"name": "ada"}}']
    >>> texts_at_path({"who": {"name": "ada"}}, "who.name"), texts_at_path({}, "who")
    (['ada'], [])
    """
    if not path or path == "$":
        return [_as_json(value)]
    return _follow(value, split_path(path))


def _follow(value: Any, steps: list[str]) -> list[str]:
    if not steps:
        return _leaf(value)
    step, rest = steps[0], steps[1:]
    if step.startswith("["):
        return _follow_index(value, step[1:-1], rest)
    if step.startswith("{"):
        return _follow_group(value, step[1:-1])
    if step == "*":
        if not isinstance(value, dict | list):
            return []
        children = value.values() if isinstance(value, dict) else value
        return [text for child in children for text in _follow(child, rest)]
    if isinstance(value, dict) and step in value:
        return _follow(value[step], rest)
    return []


def _follow_index(value: Any, index: str, rest: list[str]) -> list[str]:
    if not isinstance(value, list):
        return []
    if index == "*":
        return [text for child in value for text in _follow(child, rest)]
    try:
        position = int(index)
    except ValueError:
        return []
    if -len(value) <= position < len(value):
        return _follow(value[position], rest)
    return []


def _follow_group(value: Any, names: str) -> list[str]:
    """``{a,b.c}``: each named field (plain names and dots only), in the order given."""
    if not isinstance(value, dict):
        return []
    texts = []
    for name in names.split(","):
        found: Any = value
        for step in split_path(name.strip()):
            found = found.get(step) if isinstance(found, dict) else None
        if found is not None:
            texts.extend(_leaf(found))
    return texts


def _leaf(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str | int | float | bool):
        return [str(value)]
    if isinstance(value, list | dict):
        return [_as_json(value)]
    return []  # other objects (datetimes, models...) carry no text to embed


def _as_json(value: Any) -> str:
    # LangGraph's text for a whole document; default=str keeps graphkit's richer values
    # (datetimes, decimals) embeddable instead of failing.
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def check_fields(fields: Any, where: str) -> list[str]:
    """The field paths of an index's ``fields`` (or of ``put(..., index=[...])``),
    checked; None means the whole value, ``["$"]``.

    >>> check_fields(None, "fields"), check_fields(["text", "tags[*]"], "fields")
    (['$'], ['text', 'tags[*]'])
    """
    if fields is None:
        return ["$"]
    if not isinstance(fields, list | tuple) or not all(
        isinstance(path, str) and path for path in fields
    ):
        raise TypeError(
            f"{where} must be a list of field paths like ['text', 'tags[*]'] ('$' for the "
            f"whole value); got {fields!r}."
        )
    return list(fields)
