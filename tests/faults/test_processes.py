"""Several processes on one SQLite file: each thread ends with the result of a run alone,
or with an error naming the file and the thread; the file is never damaged.

Processes that share a file take turns at its write lock (each put is one ``BEGIN
IMMEDIATE`` transaction, SQLite waits up to 5 s for the lock); readers never wait.
"""

from __future__ import annotations

import pytest

from graphkit.checkpoint import SqliteSaver
from tests.faults.harness import history, integrity_problems, run_child, start_child, wait_child
from tests.faults.tally import TALLY, scaled

pytestmark = pytest.mark.faults

PROCESSES = scaled(ci=4, long=12)
ROUNDS = scaled(ci=1, long=10)


def finished_or_named(outcome, db: str, thread: str, reference) -> str:
    """ "ok" for a run that reached ``reference``, "refused" for one that failed naming the
    file and the thread; anything else fails the test."""
    assert outcome.returncode is not None, f"thread {thread!r} hung"
    if outcome.returncode == 0:
        assert outcome.result["values"] == reference["values"], thread
        return "ok"
    assert db in outcome.stderr and repr(thread) in outcome.stderr, outcome.stderr
    return "refused"


def test_processes_running_their_own_threads_on_one_file(tmp_path, uninterrupted):
    db = str(tmp_path / "shared.db")
    outcomes = []
    for round_ in range(ROUNDS):  # the first round also races to create the tables
        names = [f"t{round_}-{index}" for index in range(PROCESSES)]
        started = [(name, start_child(db, name)) for name in names]
        outcomes += [(name, wait_child(process)) for name, process in started]
    results = [finished_or_named(outcome, db, name, uninterrupted) for name, outcome in outcomes]
    assert integrity_problems(db) == []
    for (name, _), result in zip(outcomes, results, strict=True):
        if result == "ok":
            assert history(db, name)[0].checkpoint.channel_values["total"] == 6333
    TALLY["processes on one file, own threads"] += len(outcomes)
    TALLY["processes on one file, own threads: refused with file and thread named"] += (
        results.count("refused")
    )
    assert results.count("ok") == len(outcomes)  # a few writers never wait 5 s


def test_two_processes_resuming_one_thread_both_reach_its_result(tmp_path, uninterrupted):
    db = str(tmp_path / "shared.db")
    results = []
    for round_ in range(ROUNDS):
        thread = f"both-{round_}"
        assert run_child(db, thread, "update", 400).returncode == -9  # started, then killed
        started = [start_child(db, thread) for _ in range(2)]
        outcomes = [wait_child(process) for process in started]
        results += [finished_or_named(outcome, db, thread, uninterrupted) for outcome in outcomes]
        with SqliteSaver.from_conn_string(db) as saver:  # the thread's latest: a whole run
            latest = saver.get_tuple({"configurable": {"thread_id": thread}})
            assert latest.checkpoint.channel_values["total"] == 6333
        assert len(history(db, thread)) >= 3
    assert integrity_problems(db) == []
    TALLY["processes on one file, one thread"] += len(results)
    TALLY["processes on one file, one thread: refused with file and thread named"] += results.count(
        "refused"
    )
