"""A reason ``why`` found for its answer, with its short phrase, and which of several
found makes the one-line summary.

``why`` gathers findings (a trigger written, a waiting edge still open, a router that
chose other nodes ...) and lists all their reasons; the summary says the phrase of the
most telling one. ``why`` (a node ran) and ``why_not`` (it did not) both build them.
"""

from __future__ import annotations

from typing import NamedTuple

from graphkit.inspect.explanation import Reason

__all__ = ["UNDECLARED", "Finding", "most_telling"]


class Finding(NamedTuple):
    """A reason, with the short phrase a one-line summary uses for it."""

    phrase: str  # short, for the one-line summary
    reason: Reason
    rank: int | None = None  # how telling, if not as its kind says (see _TELLING)


# Which finding makes the summary when there are several (lowest first); a router
# without a path_map "could" choose any node, so its choice ranks after an open
# waiting edge (UNDECLARED).
_TELLING = {
    "deferred": 0,
    "next_step": 0,
    "unapplied": 1,
    "chose_otherwise": 2,
    "still_waiting": 3,
}
UNDECLARED = 4


def most_telling(found: list[Finding], default: str) -> str:
    """The phrase of the most telling finding (``default`` if there is none)."""
    if not found:
        return default
    telling = min(found, key=lambda f: _TELLING.get(f.reason.kind, 9) if f.rank is None else f.rank)
    return telling.phrase
