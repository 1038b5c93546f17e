"""Writes ``sqlite_2026_12_06.db``: a checkpoint file in the layout graphkit wrote on
2026-12-06 before a row kept its small values (``graphkit_heads`` without a rowid, the
``graphkit_checkpoints_replaced`` index, no ``small_values`` column: every value in
``graphkit_blobs``; the writes in a rowid table with a unique index on their key), with
the threads ``make_sqlite_2026_12_05.py`` writes, for ``test_sqlite_old_files.py``.

It was made with graphkit at ``8704ca7``; run it again only with a graphkit of that layout:
``PYTHONPATH=<that checkout> python tests/checkpoint/files/make_sqlite_2026_12_06.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.append(str(Path(__file__).parents[3]))  # (tests.checkpoint.chains, after graphkit)

from tests.checkpoint.files.make_sqlite_2026_12_05 import main

if __name__ == "__main__":
    main("sqlite_2026_12_06.db")
