"""Running ``graph_child`` in a new process, and what the fault tests check afterwards."""

from __future__ import annotations

import json
import os
import select
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple

from graphkit.checkpoint import SqliteSaver

ROOT = Path(__file__).parents[2]
TIMEOUT = 120
"""Seconds a child may take before it counts as hung (a run takes about half a second)."""


class Outcome(NamedTuple):
    returncode: int | None  # None: hung, and killed by the test
    result: dict[str, Any] | None  # what a run that finished printed
    stderr: str


def start_child(db: str, thread: str, *kill: Any) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.faults.graph_child", db, thread, *map(str, kill)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def wait_child(process: subprocess.Popen[str]) -> Outcome:
    try:
        out, err = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
        return Outcome(None, None, err)
    result = json.loads(out) if process.returncode == 0 else None
    return Outcome(process.returncode, result, err)


def run_child(db: str, thread: str, *kill: Any) -> Outcome:
    """Run (or resume) ``thread`` on ``db`` in a new process; with ``kill`` (phase, k),
    the process kills itself at that point."""
    return wait_child(start_child(db, thread, *kill))


class ForkServer:
    """``graph_child --serve``: runs requests one after the other, each in a new process
    forked from one that has imported everything (see ``graph_child``)."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.faults.graph_child", "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )

    def run(self, db: str, thread: str, *kill: Any) -> Outcome:
        """As ``run_child``, in a forked process."""
        for stale in (".result", ".stderr"):
            Path(db + stale).unlink(missing_ok=True)
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(json.dumps([db, thread, *map(str, kill)]) + "\n")
        self.process.stdin.flush()
        pid = int(self._line())
        ready, _, _ = select.select([self.process.stdout], [], [], TIMEOUT)
        if not ready:  # hung: kill the child (the server then reports its status)
            os.kill(pid, signal.SIGKILL)
            self._line()
            return Outcome(None, None, "")
        returncode = int(self._line())
        result, error = Path(db + ".result"), Path(db + ".stderr")
        return Outcome(
            returncode,
            json.loads(result.read_text()) if returncode == 0 else None,
            error.read_text() if error.exists() else "",
        )

    def _line(self) -> str:
        assert self.process.stdout
        line = self.process.stdout.readline()
        assert line, "the fork server stopped"
        return line

    def close(self) -> None:
        assert self.process.stdin
        self.process.stdin.close()
        self.process.wait(timeout=TIMEOUT)


def integrity_problems(db: str) -> list[str]:
    """What SQLite's own check finds wrong with the file (nothing: ``[]``)."""
    conn = sqlite3.connect(db)
    try:
        found = [row[0] for row in conn.execute("PRAGMA integrity_check")]
    finally:
        conn.close()
    return [] if found == ["ok"] else found


def history(db: str, thread: str) -> list[Any]:
    """Every checkpoint of ``thread``, read back (raising if one cannot be)."""
    with SqliteSaver.from_conn_string(db) as saver:
        return list(saver.list({"configurable": {"thread_id": thread}}))
