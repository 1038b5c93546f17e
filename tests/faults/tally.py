"""What the fault suite did, counted across a session (printed by conftest): kills per
phase, processes, crafted rows, and the outcomes that must stay at zero."""

import collections
import os

TALLY: collections.Counter[str] = collections.Counter()

LONG = os.environ.get("GRAPHKIT_FAULTS") == "long"
"""``GRAPHKIT_FAULTS=long``: many more kills, processes and crafted rows, on demand."""


def scaled(ci: int, long: int) -> int:
    """How many of something to do: ``ci`` in CI, ``long`` in the long mode."""
    return long if LONG else ci
