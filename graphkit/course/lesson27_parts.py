"""The stream lesson 27's checks hand a learner's consumer, as an app gets one from
``stream(..., version="v2")``: handed over once (``_Stream``), each part a dict that
notes whether it was read and says when a key was not a part's (``_Part``); what a
consumer's error says it took a part or the stream for; and what the parts say, read
right (``_texts``: the text each talking node sent). The checks are in ``lesson27``.

>>> stream = _Stream([{"type": "custom", "ns": (), "data": "planning"}])
>>> [part["data"] for part in stream], list(stream), stream.read_again
(['planning'], [], True)
"""

from __future__ import annotations

from typing import Any


class _NotInAPart(KeyError):
    """A key read from a part that has none such: the learner's code read a part as
    something else than a dict of ``type``, ``ns`` and ``data``."""


class _Part(dict):
    """A part as the learner gets it: a dict whose missing keys say they were a part's
    (a KeyError from the learner's own dicts, or from a state, is not), and which notes
    whether its keys were read at all (a stub reads none)."""

    read = False

    def __missing__(self, key: Any) -> Any:
        raise _NotInAPart(key)

    def __getitem__(self, key: Any) -> Any:
        self.read = True
        return super().__getitem__(key)

    def get(self, *args: Any) -> Any:
        self.read = True
        return super().get(*args)

    def keys(self) -> Any:
        self.read = True
        return super().keys()

    def values(self) -> Any:
        self.read = True
        return super().values()

    def items(self) -> Any:
        self.read = True
        return super().items()

    def __iter__(self) -> Any:
        self.read = True
        return super().__iter__()

    def __contains__(self, key: Any) -> bool:
        self.read = True
        return super().__contains__(key)

    def __repr__(self) -> str:  # (printed, or searched as text)
        self.read = True
        return super().__repr__()


class _Stream:
    """The parts, handed over once, as a stream is; ``read_again`` says whether the
    learner's code asked for more after the last (a second loop over it, finding none)."""

    def __init__(self, parts: list[dict]):
        self._handed = [_Part(part) for part in parts]
        self._parts = iter(self._handed)
        self.done = False
        self.read_again = False

    @property
    def read_a_part(self) -> bool:
        """Whether the learner's code read a key of any part (a stub's loop reads none)."""
        return any(part.read for part in self._handed)

    def __iter__(self) -> _Stream:
        return self

    def __next__(self) -> dict:
        if self.done:
            self.read_again = True
            raise StopIteration
        try:
            return next(self._parts)
        except StopIteration:
            self.done = True
            raise


READ_TWICE = (
    "Your code read the parts twice: a stream hands each part once, so its second loop found none."
)
ONE_PASS = "Read everything you need in one loop, or keep the parts in a list first."
NOT_A_LIST = (
    "the check hands the parts over as a stream does, an iterator, as stream() returns: "
    "it has no len() and no index"
)
LIST_FIRST = "Read the parts in one loop, or keep them in a list first: parts = list(parts)."


def _read_by_attribute(error: Exception) -> str | None:
    """What a part was read as, by attribute (``part.type``), if ``error`` says so."""
    if isinstance(error, AttributeError) and isinstance(getattr(error, "obj", None), _Part):
        return (
            f"Your code read part.{error.name}: a part of a v2 stream is a dict, "
            f"{{'type': ..., 'ns': ..., 'data': ...}}, with no attribute {error.name!r}."
        )
    return None


def _indexed_a_stream(error: Exception) -> bool:
    """Whether ``error`` came of taking the check's stream for a list (len, index, reversed)."""
    return isinstance(error, TypeError) and "'_Stream'" in str(error)


def _where(ns: tuple[str, ...]) -> str:
    """A namespace in words: ``()`` or ``('research:…',)``."""
    return "()" if not ns else "(" + ", ".join(f"'{p.split(':')[0]}:…'" for p in ns) + ",)"


def _unpacked_a_part(error: Exception) -> bool:
    return isinstance(error, ValueError) and "unpack" in str(error)


def _key(part: dict) -> tuple[str | None, str]:
    """A messages part's (subgraph node or None, node)."""
    where = part["ns"][0].split(":")[0] if part["ns"] else None
    return where, part["data"][1]["langgraph_node"]


def _tokens(parts: list[dict], node: str, subgraph: str | None) -> list[str]:
    """The text of each token ``node`` of ``subgraph`` (None: the top graph) sent, in order."""
    return [
        p["data"][0].content
        for p in parts
        if p["type"] == "messages" and _key(p) == (subgraph, node)
    ]


def _texts(parts: list[dict]) -> dict[tuple[str | None, str], str]:
    """The text each talking node wrote, keyed by (subgraph node or None, node)."""
    texts: dict[tuple[str | None, str], str] = {}
    for part in parts:
        if part["type"] == "messages":
            key = _key(part)
            texts[key] = texts.get(key, "") + part["data"][0].content
    return texts
