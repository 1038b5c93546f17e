"""The task running in this thread: its ``TaskScope`` (``current_scope()``), what
the code it runs reaches through it (a subgraph its namespace, ``interrupt()`` its
answers), and running code as no task's (``outside_tasks``)."""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphkit.pregel.records import Task
    from graphkit.pregel.runtime import RunContext

__all__ = ["TaskScope", "calling_node", "current_scope", "outside_tasks", "without_task_ids"]


_scope: contextvars.ContextVar[TaskScope | None] = contextvars.ContextVar(
    "graphkit_task_scope", default=None
)


@dataclass(slots=True)
class TaskScope:
    """What a running task offers the code it runs: subgraphs get their namespace and
    leave their runs here; ``interrupt()`` finds its answers here. ``attempt`` is 0 for
    the first attempt; ``subgraph_calls`` counts the subgraph runs the task started, over
    all its attempts (each call gets its own namespace, as in LangGraph)."""

    run: RunContext
    task: Task
    attempt: int = 0
    subruns: list[Any] = field(default_factory=list)
    answers: list[Any] = field(default_factory=list)
    interrupts_seen: int = 0
    subgraph_calls: list[int] = field(default_factory=lambda: [0])
    work: Any = None
    """The step's ``graphkit.pregel.step_work.StepWork``: where the task can start others."""
    last_progress: float = 0.0
    """When the attempt last showed progress (for ``TimeoutPolicy.idle_timeout``, which
    sets both when the attempt starts)."""
    last_heartbeat: float = 0.0
    """When it last called ``runtime.heartbeat()``."""
    timed_out: bool = False
    """The attempt passed its ``TimeoutPolicy``'s limit: what it streams or calls while
    it is being cancelled is dropped (a call raises ``CancelledError``), as in LangGraph."""
    store_ops: list[Any] | None = None
    """What the attempt did with the graph's store (``StoreOp``), once it did anything."""
    node: Any = None
    """The ``NodeSpec`` the task runs (``get_config()`` builds the task's config from it)."""
    drained: str | None = None
    """Why a graph the attempt ran drained (``GraphDrained``), if one did."""
    writes: list[Any] | None = None
    """The attempt's writes so far: those it pushed as it ran (``push_writes``), then
    its return value's."""
    trace: Any = None
    """The attempt's chain run (a langchain-core run manager) when the run is traced."""
    routed_up: BaseException | None = None
    """The ``ParentCommand`` a subgraph the attempt ran raised to route its parent
    (``Command.PARENT``): its command is the attempt's output."""
    pool_jobs: Any = None
    """The jobs the attempt queued on the shared pool once it was full, which its thread
    runs itself while it waits (``graphkit.pregel.pool``)."""
    pool_inbox: Any = None
    """Where the pool tells the attempt's thread, while it waits, of a job it queued."""

    def progress(self, heartbeat: bool = False) -> None:
        """Note that the attempt made progress: it streamed a chunk, a subgraph it runs
        finished a step, what it runs sent a LangChain callback event (under an idle
        timeout), or (``heartbeat``) it called ``runtime.heartbeat()``."""
        self.last_progress = now = time.monotonic()
        if heartbeat:
            self.last_heartbeat = now

    @property
    def namespace(self) -> tuple[str, ...]:
        """The run's namespace (a called task's: its caller's), then ``"node:task_id"``
        (every attempt's: a retry answers the same ``interrupt()`` ids)."""
        return self.task.namespace(self.run.namespace)

    def subgraph_namespace(self, own_thread: bool = False) -> tuple[str, ...]:
        """The namespace of the next subgraph run this task starts: the task's, then the
        call's number from the second call on (counted over all attempts); without task
        ids for a subgraph that keeps its own thread (``checkpointer=True``)."""
        calls = self.subgraph_calls[0]
        namespace = (*self.namespace, str(calls)) if calls else self.namespace
        return without_task_ids(namespace) if own_thread else namespace

    def start_subgraph(self, own_thread: bool = False) -> tuple[str, ...]:
        """Count a subgraph run this task starts; its namespace."""
        namespace = self.subgraph_namespace(own_thread)
        self.subgraph_calls[0] += 1
        return namespace


def without_task_ids(namespace: tuple[str, ...]) -> tuple[str, ...]:
    """A namespace's node names (and call numbers), as a ``checkpointer=True`` subgraph
    keeps one thread per node name (and call number) per parent thread.

    >>> without_task_ids(("outer:1f2e", "inner:9a8b", "1"))
    ('outer', 'inner', '1')
    """
    return tuple(part.split(":")[0] for part in namespace)


def calling_node(namespace: tuple[str, ...]) -> str | None:
    """The node of the parent graph whose task runs the graph at ``namespace`` (a call
    number, a node's second graph, is passed over); None for a root graph.

    >>> calling_node(("outer:1f2e", "1")), calling_node(("outer:1f2e", "inner:9a8b"))
    ('outer', 'inner')
    """
    named = [part for part in namespace if ":" in part or not part.isdigit()]
    return named[-1].split(":")[0] if named else None


def current_scope() -> TaskScope | None:
    """The scope of the task running in this thread, if a graph runs inside a node."""
    return _scope.get()


@contextlib.contextmanager
def outside_tasks() -> Iterator[None]:
    """Run code as no task's: a graph run inside a node that names its own thread is a
    run of its own, not the task's subgraph."""
    token = _scope.set(None)
    try:
        yield
    finally:
        _scope.reset(token)
