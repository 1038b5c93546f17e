"""A run SIGKILLed at a random point of any phase — Plan, Execute (inside a node or the
machinery around it), Update, or any SQL statement of a checkpoint or task-write
transaction — and resumed by a new process, perhaps killed again, ends with exactly the
values of a run never killed: nothing lost, no write applied twice (the graph's reducers
add, so a repeated write would show in ``total`` and ``log``), nothing hung.

The kill points are drawn from a seeded generator, so a failure names the phase and the
points that reproduce it: ``python -m tests.faults.graph_child DB t PHASE K`` for each K.
Half of the Execute kills land inside a node's own code, half anywhere in the phase
(running tasks, saving their writes). The processes are forked from a server that has
imported graphkit (``graph_child --serve``), each a new process with its own connection.
"""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.faults.graph_child import EXPECTED_TOTAL, ROUNDS
from tests.faults.harness import ForkServer, history, integrity_problems
from tests.faults.tally import TALLY, scaled

pytestmark = pytest.mark.faults

PHASES = ["plan", "execute", "update", "write"]
KILLS = scaled(ci=12, long=300)
"""Kills per phase."""
CHAIN = 3
"""A trial kills the run, then the process that resumes it, and so on, up to this many
times before it lets one finish."""
SEED = 17


def test_the_uninterrupted_run_is_the_reference(uninterrupted):
    values = uninterrupted["values"]
    assert values["total"] == EXPECTED_TOTAL and values["round"] == ROUNDS
    assert values["log"][-1] == f"join{ROUNDS}:{EXPECTED_TOTAL}"


def trial(server: ForkServer, db: str, phase: str, seed: int, points: dict) -> dict:
    """Run the thread, killing it (and each process that resumes it) at random points
    of ``phase``, at most ``CHAIN`` times; then let a process finish it."""
    pick, kills, processes = random.Random(seed), [], 0
    if phase == "execute" and seed % 2:
        phase = "node"
    while True:
        kill = (phase, pick.randrange(points[phase])) if len(kills) < CHAIN else ()
        outcome = server.run(db, "t", *kill)
        processes += 1
        if outcome.returncode is None:
            return {"hung": kill, "kills": kills, "processes": processes}
        if outcome.returncode == -9:
            kills.append(kill[1])
            continue
        assert outcome.returncode == 0, f"{phase} kills {kills}, seed {seed}: {outcome.stderr}"
        return {"result": outcome.result, "kills": kills, "processes": processes}


def kill_places(db: str) -> list[str]:
    path = Path(db + ".kills")
    return path.read_text().splitlines() if path.exists() else []


@pytest.mark.parametrize("phase", PHASES)
def test_a_run_killed_anywhere_in_a_phase_resumes_to_the_uninterrupted_result(
    tmp_path, uninterrupted, phase
):
    points = uninterrupted["kill_points"]
    done, seeds = [], iter(range(SEED * 1000, SEED * 1000 + 100 * KILLS))
    servers = [ForkServer(), ForkServer()]
    try:
        with ThreadPoolExecutor(len(servers)) as pool:
            while sum(len(trial_["kills"]) for _, trial_ in done) < KILLS:
                batch = {str(tmp_path / f"{seed}.db"): seed for seed in [next(seeds), next(seeds)]}
                futures = [
                    pool.submit(trial, server, db, phase, seed, points)
                    for server, (db, seed) in zip(servers, batch.items(), strict=True)
                ]
                done.extend(zip(batch, (future.result() for future in futures), strict=True))
    finally:
        for server in servers:
            server.close()
    for db, outcome in done:
        where = f"{phase} kills at {outcome['kills']} ({db})"
        assert "hung" not in outcome, f"a process hung: {where}"
        assert outcome["result"]["values"] == uninterrupted["values"], f"lost or doubled: {where}"
        assert integrity_problems(db) == [], where
        assert len(history(db, "t")) >= 3 * ROUNDS, where  # every checkpoint reads back
    places = [place for db, _ in done for place in kill_places(db)]
    TALLY[f"kills, {phase}"] += len(places)
    TALLY["processes killed and resumed (kill tests)"] += sum(o["processes"] for _, o in done)
    TALLY["lost, doubled or hung runs"] += 0  # every trial above reached the reference
    if phase == "execute":
        TALLY["kills, execute: inside a node"] += sum(p.startswith("node") for p in places)
    if phase == "write":
        TALLY["kills, write: inside a transaction"] += sum("in-transaction" in p for p in places)
        TALLY["kills, write: before its COMMIT"] += sum(p.endswith(" COMMIT") for p in places)
    assert len(places) >= KILLS
