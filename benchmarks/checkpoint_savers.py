"""Checkpoint write and read throughput, graphkit's savers beside LangGraph's (not a test).

Run it with ``.venv/bin/python benchmarks/checkpoint_savers.py`` (``--quick`` for a
smaller run). For a graph state of 100, 1,000 and 5,000 channels, a thread of
checkpoints is written where each step changes 2 channels, the way each library's
runtime hands them to its saver: graphkit a ``Checkpoint`` whose maps share what did
not change, LangGraph a checkpoint dict with every channel's value and version (what
``create_checkpoint`` builds each step). Only the saver calls are timed.

* put: one ``put`` per step (after an untimed first checkpoint that sets every channel);
* history: ``list(thread)`` of every checkpoint, per checkpoint — on a new connection
  for SQLite, as another process would read it;
* latest: ``get_tuple`` of the newest checkpoint (SQLite: on a new connection).

Both libraries run in one process, interleaved, several times; the table shows medians
and the ratio LangGraph / graphkit (above 1: graphkit is faster).
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from langgraph.checkpoint.base.id import uuid6
from langgraph.checkpoint.memory import InMemorySaver as LangGraphMemory
from langgraph.checkpoint.sqlite import SqliteSaver as LangGraphSqlite

from graphkit.checkpoint import Checkpoint, InMemorySaver, SqliteSaver, new_checkpoint_id

CHANGED_PER_STEP = 2


def plan_steps(channels: int, steps: int, seed: int = 0) -> list[list[str]]:
    """Which channels each step changes (the same for both libraries)."""
    pick = random.Random(seed)
    names = [f"channel_{index}" for index in range(channels)]
    return [names] + [pick.sample(names, CHANGED_PER_STEP) for _ in range(steps)]


def value(channel: str, step: int) -> dict:
    return {"text": f"{channel} after step {step}", "step": step}


def graphkit_checkpoints(steps: list[list[str]]) -> list[Checkpoint]:
    checkpoints, previous = [], Checkpoint.empty()
    for step, changed in enumerate(steps):
        versions = {name: previous.channel_versions.get(name, 0) + 1 for name in changed}
        seen = {name: previous.channel_versions.get(name, 0) for name in changed}
        previous = Checkpoint(
            id=new_checkpoint_id(),
            step=step - 1,
            source="loop" if step else "input",
            parent_id=checkpoints[-1].id if checkpoints else None,
            channel_values=previous.channel_values.with_changes(
                {name: value(name, step) for name in changed}
            ),
            channel_versions=previous.channel_versions.with_changes(versions),
            versions_seen=previous.versions_seen.with_changes({f"node_{step % 3}": seen}),
            updated_channels=frozenset(changed),
        )
        checkpoints.append(previous)
    return checkpoints


def langgraph_checkpoints(steps: list[list[str]], next_version: Callable) -> list[tuple]:
    """(checkpoint dict, new_versions) per step: every channel's value and version."""
    made, values, versions, seen = [], {}, {}, {}
    for step, changed in enumerate(steps):
        new_versions = {name: next_version(versions.get(name), None) for name in changed}
        seen = {**seen, f"node_{step % 3}": {name: versions.get(name) for name in changed}}
        values = {**values, **{name: value(name, step) for name in changed}}
        versions = {**versions, **new_versions}
        checkpoint = {
            "v": 4,
            "id": str(uuid6(clock_seq=step)),
            "ts": datetime.now(UTC).isoformat(),
            "channel_values": values,
            "channel_versions": versions,
            "versions_seen": seen,
            "updated_channels": sorted(changed),
        }
        made.append((checkpoint, new_versions))
    return made


def timed(function: Callable[[], object]) -> float:
    started = time.perf_counter()
    function()
    return time.perf_counter() - started


def saver_opener(library: str, kind: str, path: Path) -> Callable[[], object]:
    """A function that opens the saver: the same one in memory, a new connection for SQLite."""
    if kind == "memory":
        saver = InMemorySaver() if library == "graphkit" else LangGraphMemory()
        return lambda: saver
    saver_class = SqliteSaver if library == "graphkit" else LangGraphSqlite
    return lambda: saver_class(sqlite3.connect(path, check_same_thread=False))


def close(saver) -> None:
    if hasattr(saver, "conn"):
        saver.conn.close()


def run(library: str, kind: str, steps: list[list[str]], ours: list[Checkpoint], folder: Path):
    """Put a thread's checkpoints, then read them back: µs per put, per checkpoint of the
    history, and for the latest checkpoint."""
    open_saver = saver_opener(library, kind, folder / f"{library}-{time.perf_counter_ns()}.db")
    saver = open_saver()
    config = {"configurable": {"thread_id": "bench", "checkpoint_ns": ""}}
    thread = dict(config)
    if library == "graphkit":
        puts = [(checkpoint, {}) for checkpoint in ours]
    else:  # building LangGraph's dicts is its runtime's work: not timed
        puts = langgraph_checkpoints(steps, saver.get_next_version)

    def put(checkpoint, new_versions):
        nonlocal config
        metadata = {"source": "loop", "step": 0, "parents": {}}
        saved = saver.put(
            config if library == "langgraph" else thread, checkpoint, metadata, new_versions
        )
        config = saved

    put(*puts[0])
    writing = timed(lambda: [put(*each) for each in puts[1:]])
    close(saver)
    reader = open_saver()
    history = timed(lambda: list(reader.list(thread)))
    close(reader)
    reader = open_saver()
    latest = timed(lambda: reader.get_tuple(thread))
    close(reader)
    return per_step(writing, history, latest, len(puts))


def per_step(put: float, history: float, latest: float, count: int) -> dict[str, float]:
    micro = 1e6
    return {
        "put": put / (count - 1) * micro,
        "history": history / count * micro,
        "latest": latest * micro,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer steps and repeats")
    options = parser.parse_args()
    steps_per_run, repeats = (32, 3) if options.quick else (128, 5)
    print(f"{steps_per_run} puts per run (each changes {CHANGED_PER_STEP} channels), ", end="")
    print(f"median of {repeats} interleaved runs; times in µs; ratio = LangGraph / graphkit\n")
    header = f"{'channels':>8}  {'saver':<7}"
    for measure in ("put", "history", "latest"):
        header += f" | {measure + ' graphkit':>17} {'LangGraph':>10} {'ratio':>6}"
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory() as folder:
        for channels in (100, 1_000, 5_000):
            steps = plan_steps(channels, steps_per_run)
            ours = graphkit_checkpoints(steps)
            for kind in ("memory", "sqlite"):
                results: dict[str, list[dict[str, float]]] = {"graphkit": [], "langgraph": []}
                for repeat in range(repeats):
                    order = (
                        ("graphkit", "langgraph") if repeat % 2 == 0 else ("langgraph", "graphkit")
                    )
                    for library in order:
                        results[library].append(run(library, kind, steps, ours, Path(folder)))
                row = f"{channels:>8,}  {kind:<7}"
                for measure in ("put", "history", "latest"):
                    g = statistics.median(run[measure] for run in results["graphkit"])
                    lg = statistics.median(run[measure] for run in results["langgraph"])
                    row += f" | {g:>17,.0f} {lg:>10,.0f} {lg / g:>6.1f}"
                print(row, flush=True)


if __name__ == "__main__":
    main()
