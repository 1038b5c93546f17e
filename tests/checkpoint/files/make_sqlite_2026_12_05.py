"""Writes ``sqlite_2026_12_05.db``: a checkpoint file in the layout graphkit wrote up to
2026-12-05 (``graphkit_heads`` with a rowid, ``graphkit_writes`` with an AUTOINCREMENT
``seq``, the ``graphkit_checkpoints_by_thread`` index), for ``test_sqlite_old_files.py``.

It was made with graphkit at ``759abf9``; run it again only with a graphkit of that layout:
``PYTHONPATH=<that checkout> python tests/checkpoint/files/make_sqlite_2026_12_05.py``.
"""

from __future__ import annotations

import operator
import sqlite3
import sys
from pathlib import Path
from typing import Annotated, TypedDict

sys.path.append(str(Path(__file__).parents[3]))  # (tests.checkpoint.chains, after graphkit)

from graphkit import START, StateGraph
from graphkit.checkpoint import SqliteSaver
from tests.checkpoint.chains import chain, put_chain, thread

STEPS = 70  # a snapshot, 63 delta rows, then a second snapshot and deltas after it


class Growing(TypedDict):
    n: int
    log: Annotated[list, operator.add]


def growing_graph(saver: SqliteSaver, steps: int = 12):
    builder = StateGraph(Growing).add_node("f", lambda s: {"n": s["n"] + 1, "log": [s["n"]]})
    builder.add_edge(START, "f")
    builder.add_conditional_edges("f", lambda s: "f" if s["n"] < steps else "__end__")
    return builder.compile(checkpointer=saver)


def main(name: str = "sqlite_2026_12_05.db") -> None:
    """Write the file ``name`` beside this script with the graphkit on the path."""
    path = Path(__file__).with_name(name)
    path.unlink(missing_ok=True)
    conn = sqlite3.connect(str(path), check_same_thread=False)
    saver = SqliteSaver(conn)
    checkpoints = chain(4, STEPS)
    put_chain(saver, checkpoints, "chain")
    # the newest put again: its first row stays, marked replaced
    metadata = {"source": "loop", "step": checkpoints[-1].step, "parents": {}, "again": True}
    saver.put(thread("chain"), checkpoints[-1], metadata, {})
    growing_graph(saver).invoke({"n": 0, "log": []}, {"configurable": {"thread_id": "graph"}})
    conn.execute("PRAGMA journal_mode=DELETE")  # (one self-contained file)
    conn.execute("VACUUM")
    conn.close()


if __name__ == "__main__":
    main()
