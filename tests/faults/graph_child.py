"""The process the fault tests kill: it runs (or resumes) one thread of a small graph on an
SQLite file, and SIGKILLs itself at a chosen point of a chosen phase.

    python -m tests.faults.graph_child DB THREAD [PHASE K]
    python -m tests.faults.graph_child --serve

PHASE is ``plan``, ``execute`` or ``update`` (K counts the Python calls and returns made in
that phase, summed over the run, as ``sys.setprofile`` reports them, in every thread),
``node`` (the same, counting only those made by the nodes' own code), or
``write`` (K counts the SQL statements the saver's connection runs, in any phase: the
kill comes just before statement K). Without PHASE it runs to the end and prints, as JSON,
the final values and how many kill points each phase offered (the test draws K from
those). A node appends its name to DB + ".ran" each time it runs. When a kill point is
reached the process writes where it was to DB + ".kills", then kills itself: no cleanup,
no flush, no rollback, as with ``kill -9``.

``--serve`` is a fork server, so that the tests do not pay Python's and graphkit's start-up
for each of hundreds of processes: it imports everything once, then for each request line
(JSON ``[DB, THREAD, PHASE, K]``) forks a child that runs as above, and answers with the
child's pid, then its exit status (the final values go to DB + ".result"). Each child is a
new process: it opens the file itself and shares no saver, connection or cache with any
other (the server never opens a database).

The graph, three rounds of: ``begin`` -> (``left`` || ``right`` || two ``Send``s to
``worker``) -> ``join`` (waits for left and right) -> ``begin`` or END. Every node adds to
``total`` and ``log`` (reducers that add), so a write applied twice shows in the result.
"""

from __future__ import annotations

import itertools
import json
import operator
import os
import signal
import sys
import threading
import traceback
from pathlib import Path
from typing import Annotated, Any, TypedDict

from graphkit import END, START, Send, StateGraph
from graphkit.checkpoint import SqliteSaver

ROUNDS = 3
INPUT = {"total": 0, "log": [], "round": 0, "payload": ""}


class State(TypedDict):
    total: Annotated[int, operator.add]
    log: Annotated[list, operator.add]
    round: int
    payload: str


def work(name: str) -> None:
    """Record that ``name`` ran, then do some work: calls a kill can land between."""
    with open(RAN, "a") as ran:
        ran.write(name + "\n")
    for index in range(20):
        _step(index)


def _step(index: int) -> int:
    return index * 2


def begin(state):
    number = state["round"] + 1
    work(f"begin{number}")
    return {"round": number, "total": 1, "log": [f"begin{number}"], "payload": "x" * 3000}


def left(state):
    work(f"left{state['round']}")
    return {"total": 10, "log": [f"left{state['round']}"]}


def right(state):
    work(f"right{state['round']}")
    return {"total": 100, "log": [f"right{state['round']}"]}


def worker(item):
    work(f"worker{item['round']}.{item['index']}")
    return {"total": 1000, "log": [f"worker{item['round']}.{item['index']}"]}


def join(state):
    work(f"join{state['round']}")
    return {"log": [f"join{state['round']}:{state['total']}"]}


def fan_out(state):
    return ["left", "right"] + [
        Send("worker", {"round": state["round"], "index": index}) for index in range(2)
    ]


def build(saver):
    builder = StateGraph(State)
    for node in (begin, left, right, worker, join):
        builder.add_node(node.__name__, node)
    builder.add_edge(START, "begin")
    builder.add_conditional_edges("begin", fan_out, ["left", "right", "worker"])
    builder.add_edge(["left", "right"], "join")
    builder.add_conditional_edges(
        "join", lambda state: "begin" if state["round"] < ROUNDS else END, ["begin", END]
    )
    return builder.compile(checkpointer=saver)


EXPECTED_TOTAL = ROUNDS * 2111
"""1 (begin) + 10 (left) + 100 (right) + 2 x 1000 (workers) per round."""


# -- kill points ---------------------------------------------------------------------------


class Killer:
    """Counts the kill points of each phase and kills the process at the chosen one."""

    def __init__(self, db: str, phase: str | None, target: int | None) -> None:
        self.db, self.phase, self.target = db, phase, target
        self.current: str | None = None  # the phase running now
        self.counters = {name: itertools.count() for name in ("plan", "execute", "update", "node")}
        self.statements = itertools.count()
        self.conn: Any = None

    def profile(self, frame, event, arg) -> None:
        phase = self.current
        if phase is None:
            return
        seen = next(self.counters[phase])
        if phase == self.phase and seen == self.target:
            self.die(f"{phase} {seen} {frame.f_code.co_name} {frame.f_code.co_filename}")
        if phase == "execute" and frame.f_code.co_filename == __file__:
            seen = next(self.counters["node"])
            if self.phase == "node" and seen == self.target:
                self.die(f"node {seen} {frame.f_code.co_name} {frame.f_code.co_filename}")

    def statement(self, sql: str) -> None:
        seen = next(self.statements)
        if self.phase == "write" and seen == self.target:
            inside = "in-transaction" if self.conn and self.conn.in_transaction else "between"
            self.die(f"write {seen} {self.current} {inside} {' '.join(sql.split())[:60]}")

    def die(self, where: str) -> None:
        with open(self.db + ".kills", "a") as kills:
            kills.write(where + "\n")
        os.kill(os.getpid(), signal.SIGKILL)

    def totals(self) -> dict[str, int]:
        counts = {name: next(counter) for name, counter in self.counters.items()}
        return {**counts, "write": next(self.statements)}


def run(db: str, thread_id: str, killer: Killer) -> dict[str, Any]:
    config = {"configurable": {"thread_id": thread_id}}
    with SqliteSaver.from_conn_string(db) as saver:
        killer.conn = saver.conn
        saver.conn.set_trace_callback(killer.statement)
        app = build(saver)
        # What a user does after a crash: resume the thread if it has a checkpoint.
        resume = saver.get_tuple(config) is not None
        stepper = app.stepper(None if resume else INPUT, config, durability="sync")
        threading.setprofile(killer.profile)
        sys.setprofile(killer.profile)
        while not stepper.done:
            phase = stepper.next_phase
            killer.current = phase
            getattr(stepper, phase)()
            killer.current = None
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
        return {"values": stepper.values, "status": stepper.status, "resumed": resume}


def run_once(db: str, thread_id: str, *kill: str) -> str:
    """Run or resume the thread (killing the process at ``kill``); the result as JSON."""
    global RAN
    RAN = db + ".ran"
    killer = Killer(db, kill[0], int(kill[1])) if kill else Killer(db, None, None)
    result = run(db, thread_id, killer)
    return json.dumps({**result, "kill_points": killer.totals()})


def serve() -> None:
    for line in sys.stdin:
        db, *request = json.loads(line)
        pid = os.fork()
        if pid == 0:  # the child: run, leave the result beside the file, exit at once
            code = 0
            try:
                Path(db + ".result").write_text(run_once(db, *request))
            except BaseException:
                Path(db + ".stderr").write_text(traceback.format_exc())
                code = 1
            os._exit(code)
        print(pid, flush=True)
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status), flush=True)


RAN = os.devnull

if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        serve()
    else:
        print(run_once(*sys.argv[1:]), flush=True)
