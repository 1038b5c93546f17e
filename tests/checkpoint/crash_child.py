"""The process the crash test kills (and the one that resumes after it).

    python crash_child.py DB LOG run      # runs until 'slow' is mid-step, then blocks
    python crash_child.py DB LOG resume   # resumes the thread to the end, prints the result

Every node appends its name to LOG when it runs, so the test can count executions.
The graph: START -> count -> (quick || slow) -> total, with a counter and a message list.
"""

from __future__ import annotations

import json
import operator
import sqlite3
import sys
import threading
from typing import Annotated, TypedDict

from graphkit import START, StateGraph
from graphkit.checkpoint.sqlite import SqliteSaver

DB, LOG, MODE = [*sys.argv[1:4], "", "", ""][:3] if __name__ == "__main__" else ("", "", "")
CONFIG = {"configurable": {"thread_id": "crash"}}


class State(TypedDict):
    messages: Annotated[list, operator.add]
    counter: Annotated[int, operator.add]


def ran(name: str) -> None:
    with open(LOG, "a") as log:
        log.write(name + "\n")


def count(state):
    ran("count")
    return {"counter": 1, "messages": ["counted"]}


def quick(state):
    ran("quick")
    return {"counter": 10, "messages": ["quick"]}


def slow(state):
    ran("slow")
    if MODE == "run":
        # Wait until quick's writes are in the database, say so, and hang: the test
        # kills this process here, in the middle of the superstep.
        probe = sqlite3.connect(DB)
        while not probe.execute(
            "SELECT 1 FROM graphkit_writes WHERE channel = 'messages' AND checkpoint_id IN "
            "(SELECT checkpoint_id FROM graphkit_checkpoints WHERE step = 1)"
        ).fetchone():
            threading.Event().wait(0.01)
        print("mid-step", flush=True)
        threading.Event().wait()
    return {"counter": 100, "messages": ["slow"]}


def total(state):
    ran("total")
    return {"messages": [f"total={state['counter']}"]}


def build(saver):
    builder = StateGraph(State)
    for name, node in (("count", count), ("quick", quick), ("slow", slow), ("total", total)):
        builder.add_node(name, node)
    builder.add_edge(START, "count").add_edge("count", "quick").add_edge("count", "slow")
    builder.add_edge(["quick", "slow"], "total")
    return builder.compile(checkpointer=saver)


def main() -> None:
    with SqliteSaver.from_conn_string(DB) as saver:
        app = build(saver)
        if MODE == "run":
            app.invoke({"messages": [], "counter": 0}, CONFIG, durability="sync")
        else:
            print(json.dumps(app.invoke(None, CONFIG, durability="sync")), flush=True)


if __name__ == "__main__":
    main()
