"""The records a run leaves behind: one per phase, bundled per superstep.

Records are frozen and hold references to the values the run produced (never deep
copies), so recording every step stays cheap. Field names follow LangGraph's debug
stream where it has one (``id``, ``name``, ``input``, ``triggers``, ``error``).

Records are plain data: their views (``run.to_frame()``, ``run.why()``, ``print(run)``,
the notebook cards) are functions of ``graphkit.inspect``, which makes them methods
when ``graphkit`` is imported; the runtime never imports it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any

from graphkit.checkpoint import Checkpoint
from graphkit.frozen import frozen_record

__all__ = [
    "ChannelChange",
    "Execution",
    "Plan",
    "Run",
    "Superstep",
    "Task",
    "TaskResult",
    "Update",
    "task_id",
]


@frozen_record(repr=False)
class Task:
    """One node run planned for a superstep, and why it was planned.

    ``kind`` is ``"pull"`` for a node woken by a channel update, ``"push"`` for a
    node sent a packet with ``Send``, and ``"input"`` for the input step's
    pseudo-task that writes the run's input. ``triggers`` are the channels whose new
    version woke the node, and ``trigger_versions`` the version of each it saw.
    """

    id: str
    step: int
    node: str
    kind: str
    path: tuple[Any, ...]
    triggers: tuple[str, ...]
    input: Any
    trigger_versions: Mapping[str, int] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The node's name (LangGraph's field name for it)."""
        return self.node

    def __repr__(self) -> str:
        return f"Task(step={self.step}, node={self.node!r}, triggers={list(self.triggers)})"


def task_id(checkpoint_id: str, step: int, path: tuple[Any, ...]) -> str:
    """A deterministic, UUID-shaped id for the task at ``path`` in a step planned from
    checkpoint ``checkpoint_id`` (the same in every process, so a resumed run finds
    the writes its tasks saved).

    >>> task_id("cp", 3, ("__pregel_pull", "a")) == task_id("cp", 3, ("__pregel_pull", "a"))
    True
    """
    digest = hashlib.blake2b(f"{checkpoint_id}|{step}|{path}".encode(), digest_size=16)
    hex_ = digest.hexdigest()
    return f"{hex_[:8]}-{hex_[8:12]}-{hex_[12:16]}-{hex_[16:20]}-{hex_[20:]}"


@frozen_record(repr=False)
class Plan:
    """What a superstep will run: its tasks, in deterministic order."""

    step: int
    tasks: tuple[Task, ...]

    @property
    def nodes(self) -> list[str]:
        """The node name of each task, in plan order."""
        return [task.node for task in self.tasks]

    def __repr__(self) -> str:
        return f"Plan(step={self.step}, tasks={self.nodes})"


@frozen_record(repr=False)
class TaskResult:
    """What one task did: the writes it produced (state updates and routing alike)
    or the error it raised, how many attempts it took (and the errors of the failed
    ones), how long, on which worker, and the runs of any subgraphs it ran.

    ``interrupts`` holds the ``Interrupt`` a paused task raised (it then has no writes),
    ``answers`` the resume values its ``interrupt()`` calls received, and ``reused``
    is True for a task that finished before a crash or an interrupt and was not run
    again on resume: its writes come from the checkpointer.
    """

    task: Task
    writes: tuple[tuple[str, Any], ...]
    output: Any = None
    error: BaseException | None = None
    attempts: int = 1
    started: float = 0.0
    duration: float = 0.0
    worker: str = ""
    failed_attempts: tuple[BaseException, ...] = ()
    subruns: tuple[Run, ...] = ()
    interrupts: tuple[Any, ...] = ()
    answers: tuple[Any, ...] = ()
    reused: bool = False

    @property
    def ok(self) -> bool:
        """True when the task finished: no error, no interrupt."""
        return self.error is None and not self.interrupts

    def __repr__(self) -> str:
        if self.error is not None:
            outcome = f"error={type(self.error).__name__}({self.error})"
        else:
            outcome = f"writes={[channel for channel, _ in self.writes]}"
        return f"TaskResult(node={self.task.node!r}, {outcome})"


@frozen_record(repr=False)
class Execution:
    """The results of a superstep's tasks, in plan order (``finish_order`` keeps the
    order in which they actually finished, which never affects the outcome)."""

    step: int
    results: tuple[TaskResult, ...]
    finish_order: tuple[str, ...] = ()
    """The task ids in the order the tasks finished."""

    @property
    def error(self) -> BaseException | None:
        """The first task error in plan order, if any task failed."""
        return next((r.error for r in self.results if r.error is not None), None)

    @property
    def writes(self) -> list[tuple[str, str, Any]]:
        """Every write of the step as ``(node, channel, value)``, in plan order."""
        return [(r.task.node, c, v) for r in self.results for c, v in r.writes]

    def __repr__(self) -> str:
        parts = [f"{r.task.node}!" if r.error is not None else r.task.node for r in self.results]
        return f"Execution(step={self.step}, results={parts})"


@frozen_record(repr=False)
class ChannelChange:
    """How one channel changed in an Update: its value and version before and after,
    the writes it received (``values``, in apply order) and which nodes wrote them.

    A change with no writers is a channel the runtime itself changed: an ephemeral
    value cleared a step after it was written, or a barrier reset once consumed.
    """

    channel: str
    before: Any
    after: Any
    version_before: int | None
    version_after: int
    writers: tuple[str, ...]
    values: tuple[Any, ...]
    reducer: str

    def __repr__(self) -> str:
        return f"ChannelChange({self.channel!r}: {self.before!r} -> {self.after!r})"


@frozen_record(repr=False)
class Update:
    """The only phase that changes state: every channel change of the step, the
    channels the next Plan will look at, and the checkpoint that results."""

    step: int
    changes: tuple[ChannelChange, ...]
    updated_channels: frozenset[str]
    checkpoint: Checkpoint

    @property
    def changed(self) -> list[str]:
        """Names of the channels that changed, in apply order."""
        return [change.channel for change in self.changes]

    def change(self, channel: str) -> ChannelChange | None:
        """The change of ``channel`` in this step, or None if it did not change."""
        return next((c for c in self.changes if c.channel == channel), None)

    def __repr__(self) -> str:
        return f"Update(step={self.step}, changed={self.changed})"


@frozen_record(repr=False)
class Superstep:
    """One superstep: its Plan, Execution and Update, and the checkpoints around it.

    ``execution`` and ``update`` are None while the step is still being stepped
    through, or when the step stopped before them (an error stops before Update).
    """

    step: int
    plan: Plan
    execution: Execution | None
    update: Update | None
    checkpoint_before: Checkpoint

    @property
    def checkpoint(self) -> Checkpoint | None:
        """The checkpoint after this step's Update (None if Update did not run)."""
        return self.update.checkpoint if self.update is not None else None

    @property
    def phase(self) -> str:
        """The last phase this step completed: ``"plan"``, ``"execute"`` or ``"update"``."""
        if self.update is not None:
            return "update"
        return "execute" if self.execution is not None else "plan"

    def __repr__(self) -> str:
        changed = self.update.changed if self.update is not None else None
        return f"Superstep(step={self.step}, tasks={self.plan.nodes}, changed={changed})"

    if TYPE_CHECKING:  # graphkit.inspect attaches it (graphkit/inspect/methods.py)

        def to_frame(self, *, readable: bool = False) -> Any: ...


@frozen_record(repr=False)
class Run:
    """The supersteps of one invocation, in order, starting with the input step.

    ``values`` is the state after the last Update, ``status`` one of ``"done"``,
    ``"running"``, ``"error"`` or ``"out_of_steps"``. A subgraph's run has the
    ``namespace`` of the task that ran it (``("node:task_id",)``); a root run has ().
    ``state_keys`` are the graph's state keys in schema order, written or not (the
    ``state`` table shows each of them).
    """

    steps: tuple[Superstep, ...]
    values: Mapping[str, Any]
    status: str
    error: BaseException | None = None
    namespace: tuple[str, ...] = ()
    state_keys: tuple[str, ...] = ()

    def step(self, number: int) -> Superstep:
        """The superstep numbered ``number`` (the input step is -1)."""
        for superstep in self.steps:
            if superstep.step == number:
                return superstep
        known = [s.step for s in self.steps]
        raise KeyError(f"This run has no step {number}; its steps are {known}.")

    def __len__(self) -> int:
        return len(self.steps)

    def __repr__(self) -> str:
        return f"Run(steps={len(self.steps)}, status={self.status!r})"

    if TYPE_CHECKING:  # graphkit.inspect attaches these (graphkit/inspect/methods.py)

        def to_frame(
            self, kind: str = "tasks", *, readable: bool = False, internal: bool = False
        ) -> Any: ...
        def why(self, node: str, step: int | None = None, *, graph: Any = None) -> Any: ...
        def diff(self, step_a: int, step_b: int) -> Any: ...
        def timeline(self, *, durations: bool = False) -> str: ...
        def timeline_svg(self, width: int = 720) -> str: ...
