"""Solutions to lesson 11's exercises (``notebooks/11-streaming.ipynb``).

>>> from graphkit.course import lesson11
>>> bool(lesson11.check_progress(fetch)), bool(lesson11.check_modes(MODES))
(True, True)
>>> bool(lesson11.check_tokens_of(tokens_of))
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from graphkit import get_stream_writer

# -- 11.1 · Report progress --------------------------------------------------------------


def fetch(state: dict) -> dict:
    writer = get_stream_writer()
    pages = state["pages"]
    for i, _page in enumerate(pages, start=1):
        writer(f"fetched {i} of {len(pages)}")  # sent now, while the node still runs
    return {"fetched": len(pages)}


# -- 11.2 · Which mode answers it? -------------------------------------------------------
# tokens as they are written: messages; a node's own news while it runs: custom; each
# node's return as it finishes: updates; the whole state after each step: values.

MODES = {"a": "messages", "b": "custom", "c": "updates", "d": "values"}


# -- 11.3 · One node's tokens -------------------------------------------------------------


def tokens_of(stream: Iterable[Any], node: str) -> str:
    return "".join(
        message.content for message, metadata in stream if metadata["langgraph_node"] == node
    )
