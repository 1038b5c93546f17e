"""What SqliteSaver's read checks cost: a small timing script, not a test.

    .venv/bin/python -m tests.faults.measure_checks

Puts a 200-checkpoint thread of 100 channels (each step changes 2, and two tasks save
two writes each), then times, best of 7 rounds: a put with its writes, reading the
latest checkpoint (warm saver, and on a new connection), and listing the whole thread.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from graphkit.checkpoint import SqliteSaver
from tests.checkpoint.chains import chain, thread

STEPS, CHANNELS, ROUNDS = 300, 100, 9


def put_step(saver, checkpoint):
    metadata = {"source": checkpoint.source, "step": checkpoint.step, "parents": {}}
    config = saver.put(thread("t"), checkpoint, metadata, {})
    for task in ("a", "b"):
        saver.put_writes(config, [("c0", checkpoint.step), ("log", [task, checkpoint.id])], task)


def best(measure) -> float:
    return min(measure() for _ in range(ROUNDS))


def main() -> None:
    checkpoints = chain(CHANNELS, STEPS)
    with tempfile.TemporaryDirectory() as folder:
        paths = iter(str(Path(folder) / f"{index}.db") for index in range(ROUNDS + 1))

        def puts() -> float:
            with SqliteSaver.from_conn_string(next(paths)) as saver:
                start = time.process_time()
                for checkpoint in checkpoints:
                    put_step(saver, checkpoint)
                return (time.process_time() - start) / STEPS

        per_put = best(puts)
        path = str(Path(folder) / f"{ROUNDS}.db")
        with SqliteSaver.from_conn_string(path) as saver:
            for checkpoint in checkpoints:
                put_step(saver, checkpoint)

            def warm() -> float:
                start = time.process_time()
                for _ in range(100):
                    saver.get_tuple(thread("t"))
                return (time.process_time() - start) / 100

            def cold() -> float:
                with SqliteSaver.from_conn_string(path) as fresh:
                    start = time.process_time()
                    fresh.get_tuple(thread("t"))
                    return time.process_time() - start

            def history() -> float:
                with SqliteSaver.from_conn_string(path) as fresh:
                    start = time.process_time()
                    assert len(list(fresh.list(thread("t")))) == STEPS
                    return (time.process_time() - start) / STEPS

            rows = [
                ("put + 2 tasks' writes", per_put),
                ("latest checkpoint, warm saver", best(warm)),
                ("latest checkpoint, new connection", best(cold)),
                ("one checkpoint of list(thread)", best(history)),
            ]
    for name, seconds in rows:
        print(f"{name:36} {seconds * 1e6:9.1f} µs")


if __name__ == "__main__":
    main()
