"""Running a graph that might deadlock without letting it hang the test suite."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


def within_limit(run: Callable[[], Any], limit: float) -> Any:
    """What ``run()`` returns, run in a daemon thread given ``limit`` seconds to finish:
    a deadlock fails the test instead of hanging it.

    >>> within_limit(lambda: 6 * 7, 5.0)
    42
    """
    got: list[Any] = []
    thread = threading.Thread(target=lambda: got.append(run()), daemon=True)
    thread.start()
    thread.join(limit)
    assert not thread.is_alive(), f"the run did not finish in {limit} s: deadlocked?"
    assert got, "the run raised (see the thread's traceback above)"
    return got[0]
