"""What every conformance case shares."""

from __future__ import annotations

import functools
import weakref
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _close_abandoned_langgraph_streams(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Close each LangGraph ``stream`` a case left suspended mid-run. A v3 run read in
    part (or failed by a transformer) keeps its graph's stream generator in a reference
    cycle, so the garbage collector closes it whenever it next runs: inside a later
    case's graph run, where the close waited forever for its tasks and the suite hung at
    exit. Closed here, between cases, it ends as it does when a caller closes it."""
    from langgraph.pregel import main

    opened: list[weakref.ReferenceType] = []
    stream = main.Pregel.stream

    @functools.wraps(stream)
    def tracked(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        generator = stream(self, *args, **kwargs)
        opened.append(weakref.ref(generator))
        return generator

    monkeypatch.setattr(main.Pregel, "stream", tracked)
    yield
    for ref in opened:  # (outer runs first: closing one waits for its tasks to end)
        generator = ref()
        # (one still running is a subgraph's, in a task of the run closed before it)
        if generator is not None and generator.gi_frame is not None and not generator.gi_running:
            generator.close()
