"""Time travel into subgraphs, as LangGraph 1.2 does it.

While a root run replays an older checkpoint (``invoke(None, config)`` with its
``checkpoint_id``, or a branch ``update_state`` made there), a subgraph with a thread of
its own (``checkpointer=True``) must see its state of that moment, not its latest. One
``ReplayPoint`` is shared by every run the root run starts: the first time a subgraph
thread is reached, it starts from its latest checkpoint saved before the point, with the
task's input (so its interrupts ask again); later calls of it (a loop) read its latest,
as without time travel.
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["ReplayPoint", "replay_point"]

EDITS = ("update", "fork")
"""Sources of the checkpoints ``update_state`` saves: the subgraphs' checkpoints of that
moment are older than the edit, so a run from one replays from the checkpoint it edited."""


class ReplayPoint:
    """The root checkpoint a run replays from, and the subgraph threads reached so far."""

    __slots__ = ("_lock", "_reached", "checkpoint_id")

    def __init__(self, checkpoint_id: str) -> None:
        self.checkpoint_id = checkpoint_id
        self._reached: set[str] = set()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"ReplayPoint({self.checkpoint_id!r})"

    def first_reach(self, namespace: str) -> bool:
        """True the first time the subgraph thread ``namespace`` is reached. The task id
        of its last part does not count, so that the calls of one node are one thread.

        >>> point = ReplayPoint("c1")
        >>> point.first_reach("sub"), point.first_reach("sub")
        (True, False)
        >>> point.first_reach("loop:9f2a"), point.first_reach("loop:03bc")
        (True, False)
        """
        reached = namespace.rsplit(":", 1)[0]
        with self._lock:
            first = reached not in self._reached
            self._reached.add(reached)
        return first


def replay_point(checkpoint_id: str, metadata: Any, parent_config: Any) -> ReplayPoint:
    """Where a run addressed at a saved checkpoint replays from: that checkpoint or, for
    one ``update_state`` saved, the checkpoint it was made from.

    >>> replay_point("c2", {"source": "loop"}, None)
    ReplayPoint('c2')
    >>> replay_point("c3", {"source": "update"}, {"configurable": {"checkpoint_id": "c2"}})
    ReplayPoint('c2')
    """
    if (metadata or {}).get("source") in EDITS and parent_config:
        return ReplayPoint(parent_config["configurable"]["checkpoint_id"])
    return ReplayPoint(checkpoint_id)
