"""What the fuzz suite saw, counted across a session (printed by conftest)."""

import collections

TALLY: collections.Counter[str] = collections.Counter()
