"""A process killed in the middle of a superstep loses nothing: a new process resumes
on the same SQLite file, re-runs only the task that had not finished, and no reducer
applies a write twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

CHILD = Path(__file__).with_name("crash_child.py")
ROOT = Path(__file__).parents[2]


def child(db: Path, log: Path, mode: str) -> subprocess.Popen[str]:
    # this checkout's graphkit first: a script's own folder leads sys.path, so from a
    # worktree the child would import the venv's (another checkout's) graphkit
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return subprocess.Popen(
        [sys.executable, str(CHILD), str(db), str(log), mode],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": path},
    )


def test_sigkill_mid_step_then_resume_in_a_new_process(tmp_path):
    db, log = tmp_path / "thread.db", tmp_path / "ran.log"
    running = child(db, log, "run")
    try:
        assert running.stdout.readline().strip() == "mid-step"  # quick done, slow running
        running.send_signal(signal.SIGKILL)
    finally:
        running.wait(timeout=30)
    assert running.returncode == -signal.SIGKILL
    assert log.read_text().split() in (["count", "quick", "slow"], ["count", "slow", "quick"])

    resumed = child(db, log, "resume")
    out, _ = resumed.communicate(timeout=60)
    assert resumed.returncode == 0
    result = json.loads(out)

    # the same final state as an uninterrupted run, nothing duplicated or missing
    assert result["counter"] == 111
    assert sorted(result["messages"]) == sorted(["counted", "quick", "slow", "total=111"])
    assert result["messages"][0] == "counted" and result["messages"][-1] == "total=111"
    runs = log.read_text().split()
    assert runs.count("count") == 1 and runs.count("quick") == 1  # finished: never re-run
    assert runs.count("slow") == 2 and runs.count("total") == 1  # killed: ran again once
