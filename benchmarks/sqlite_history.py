"""Case 8's SQLite history read alone, graphkit only (not a test).

``runtime.py --only "8 "`` times the read beside LangGraph, with a new file per
repeat. This builds case 8's file once (a 2,000-step loop whose list grows by one int
per step) and then times only full reads, each through a new connection: the numbers
to compare commits by, and a short run to profile::

    .venv/bin/python benchmarks/sqlite_history.py            # get_state_history
    .venv/bin/python benchmarks/sqlite_history.py --list     # saver.list alone
    PYTHONHASHSEED=0 valgrind --tool=callgrind .venv/bin/python \\
        benchmarks/sqlite_history.py --repeats 1 --list      # minus --repeats 0
    .venv/bin/python benchmarks/sqlite_history.py --memory   # InMemorySaver's, to compare

It prints the wall and CPU time per checkpoint, medians of ``--repeats`` reads.
"""

from __future__ import annotations

import argparse
import gc
import operator
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any, TypedDict

import graphkit
from graphkit.checkpoint import InMemorySaver, SqliteSaver

STEPS = 2_000


class Growing(TypedDict):
    n: int
    log: Annotated[list, operator.add]
    other: str


def growing(saver: Any) -> Any:
    """``runtime.growing``: one node looping, each step adding an int to ``log``."""
    builder = graphkit.StateGraph(Growing)
    builder.add_node("f", lambda s: {"n": s["n"] + 1, "log": [s["n"]]})
    builder.add_edge(graphkit.START, "f")
    builder.add_conditional_edges("f", lambda s: "f" if s["n"] < STEPS else graphkit.END)
    return builder.compile(checkpointer=saver)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="reads timed (0: none)")
    parser.add_argument("--list", action="store_true", help="saver.list, not the history")
    parser.add_argument("--file", type=Path, help="the file to build once and read")
    parser.add_argument("--memory", action="store_true", help="an InMemorySaver's history")
    options = parser.parse_args()
    path = options.file or Path(tempfile.gettempdir()) / "graphkit-case8.db"
    config = {"recursion_limit": STEPS + 10, "configurable": {"thread_id": "t"}}
    if not path.exists():
        saver = SqliteSaver(sqlite3.connect(str(path), check_same_thread=False))
        growing(saver).invoke({"n": 0, "log": [], "other": "x" * 1000}, config)

    if options.memory:  # (built in this process: instructions are read's minus --repeats 0)
        memory = growing(InMemorySaver())
        memory.invoke({"n": 0, "log": [], "other": "x" * 1000}, config)

    def read() -> list[Any]:
        if options.memory:
            return list(memory.get_state_history(config))
        saver = SqliteSaver(sqlite3.connect(str(path), check_same_thread=False))
        if options.list:
            return list(saver.list(config))
        return list(growing(saver).get_state_history(config))

    walls, cpus = [], []
    for _ in range(options.repeats):
        gc.collect()
        wall, cpu = time.perf_counter(), time.process_time()
        read()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    if options.repeats:
        checkpoints = STEPS + 2
        print(
            f"{'saver.list' if options.list else 'get_state_history'}, per checkpoint: "
            f"wall {statistics.median(walls) / checkpoints * 1e6:.1f} µs, "
            f"CPU {statistics.median(cpus) / checkpoints * 1e6:.1f} µs "
            f"(median of {options.repeats})"
        )


if __name__ == "__main__":
    main()
