"""The records a run leaves behind: one per phase, bundled per superstep. Frozen plain
data holding references to the run's values (never deep copies), with LangGraph's debug
stream field names; their views (``run.to_frame()``, ``run.why()``, cards) are functions
of ``graphkit.inspect``, attached as methods when ``graphkit`` is imported."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any

from graphkit.checkpoint import Checkpoint
from graphkit.diagnostics.names import not_a_state_key
from graphkit.diagnostics.reading import step_number
from graphkit.frozen import frozen_record

if TYPE_CHECKING:
    from graphkit.unsaved import NotSaved

__all__ = [
    "ChannelChange",
    "Execution",
    "Plan",
    "Run",
    "StoreOp",
    "Superstep",
    "Task",
    "TaskResult",
    "Update",
    "path_text",
    "task_id",
]


@frozen_record(repr=False)
class Task:
    """One node run in a superstep, and why: ``kind`` is ``"pull"`` (woken by a channel
    update), ``"push"`` (sent with ``Send``), ``"input"`` (the input step), or, for tasks
    started while the step ran, ``"error_handler"`` or ``"call"`` (functional API);
    ``triggers`` are the channels whose new version (``trigger_versions``) woke it."""

    id: str
    step: int
    node: str
    kind: str
    path: tuple[Any, ...]
    triggers: tuple[str, ...]
    input: Any
    trigger_versions: Mapping[str, int] = field(default_factory=dict)
    parent: str | None = None
    """For a task started while its step ran: the id of the task it serves (the failed
    task of an error handler, ``kind="error_handler"``; the caller of a called task)."""
    caller_namespace: tuple[str, ...] | None = None
    """For a called task: its caller's namespace, which LangGraph nests the call's under."""
    timeout: Any = None
    """For a push task: its ``Send``'s ``TimeoutPolicy``, which replaces its node's."""

    def namespace(self, run_namespace: tuple[str, ...]) -> tuple[str, ...]:
        """LangGraph's checkpoint_ns of this task in a run at ``run_namespace``: the
        run's (a called task's caller's), then ``node:task_id``."""
        above = run_namespace if self.caller_namespace is None else self.caller_namespace
        return (*above, f"{self.node}:{self.id}")

    @property
    def name(self) -> str:
        """The node's name (LangGraph's field name for it)."""
        return self.node

    @property
    def shown_path(self) -> tuple[Any, ...]:
        """The path LangGraph shows (snapshots, metadata): a Send's ends with ``False``
        (no call made), ``(PUSH, index, False)``."""
        return (*self.path, False) if self.kind == "push" else self.path

    def __repr__(self) -> str:
        return f"Task(step={self.step}, node={self.node!r}, triggers={list(self.triggers)})"


def task_id(checkpoint_id: str, step: int, path: tuple[Any, ...], text: str = "") -> str:
    """A UUID-shaped id for the task at ``path``, the same in every process (so a resumed
    run finds the writes its tasks saved); ``text`` is ``str(path)`` when the caller has
    it already (a node's pull path: ``GraphSpec.pull_paths``).

    >>> task_id("cp", 3, ("__pregel_pull", "a")) == task_id("cp", 3, ("__pregel_pull", "a"))
    True
    """
    made = f"{checkpoint_id}|{step}|{text or str(path)}"
    hex_ = hashlib.blake2b(made.encode(), digest_size=16).hexdigest()
    return f"{hex_[:8]}-{hex_[8:12]}-{hex_[12:16]}-{hex_[16:20]}-{hex_[20:]}"


def path_text(path: tuple[Any, ...]) -> str:
    """A task path as one string, the key LangGraph sorts a step's tasks by (to apply
    their writes) and saves with each pending write (to read them back in that order):
    a ``~``, then the parts joined by ``", "``, numbers (a bool too) as ten digits, so
    that Send 10 comes after Send 9; a nested path written the same way.

    >>> path_text(("__pregel_push", 10, False))
    '~__pregel_push, 0000000010, 0000000000'
    >>> path_text(("__pregel_pull", "a b")) < path_text(("__pregel_pull", "a", "handler"))
    True
    """
    parts = []
    for part in path:
        if isinstance(part, str):
            parts.append(part)
        elif isinstance(part, int):
            parts.append(f"{part:010d}")
        elif isinstance(part, tuple | list):
            parts.append(path_text(part))
        else:
            parts.append(str(part))
    return "~" + ", ".join(parts)


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


@frozen_record()
class StoreOp:
    """One operation a task made on the graph's store: ``kind`` is ``"get"``,
    ``"search"``, ``"put"``, ``"delete"`` or ``"list_namespaces"``; ``namespace`` the
    namespace (a search's prefix), ``key`` the item's key (None for a search or a
    listing), ``given`` what the task gave (the value put, a search's filter and query),
    ``returned`` what came back (the value read, the keys or namespaces found);
    ``attempt`` the task's attempt that made it (1: its first)."""

    kind: str
    namespace: tuple[str, ...]
    key: str | None
    given: Any = None
    returned: Any = None
    attempt: int = 1


@frozen_record(repr=False)
class TaskResult:
    """What one task did: its writes or error, attempts, timing, worker, subgraph runs,
    the ``Interrupt`` it paused with (then no writes) and the answers its ``interrupt()``
    calls got; ``reused``: finished before a crash or interrupt, not run again on resume;
    ``cached``: not run, its writes came from the node cache (``CachePolicy``);
    ``handled``: it failed and its node's error handler took over, so the step goes on;
    ``store_ops``: what its attempts did with the graph's store (``StoreOp``: a failed
    attempt's too, as its writes to the store stay);
    ``paused``: it stopped the run, with its ``interrupts`` or, when a subgraph it ran
    stopped at one of its breakpoints or drained, with none; ``drained``: why that
    subgraph drained (the run drains too)."""

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
    cached: bool = False
    handled: bool = False
    store_ops: tuple[StoreOp, ...] = ()
    paused: bool = False
    drained: str | None = None
    routed_up: bool = False
    """Its output is a ``Command(graph=Command.PARENT)`` a subgraph it ran sent up (as in
    LangGraph, its messages are not streamed as a node's)."""

    @property
    def ok(self) -> bool:
        """True when the task finished: no error, no interrupt."""
        return self.error is None and not self.interrupts and not self.paused

    def __repr__(self) -> str:
        if self.error is not None:
            outcome = f"error={type(self.error).__name__}({self.error})"
        else:
            outcome = f"writes={[channel for channel, _ in self.writes]}"
        cached = ", cached=True" if self.cached else ""
        return f"TaskResult(node={self.task.node!r}, {outcome}{cached})"


@frozen_record(repr=False)
class Execution:
    """The results of a superstep's tasks, in plan order (``finish_order``: the task ids
    in the order they finished, which never affects the outcome)."""

    step: int
    results: tuple[TaskResult, ...]
    finish_order: tuple[str, ...] = ()

    @property
    def error(self) -> BaseException | None:
        """The first task error in plan order, if a task failed (and no error handler
        took over; a called task's error is its caller's to handle)."""
        return next(
            (
                r.error
                for r in self.results
                if r.error is not None and not r.handled and r.task.kind != "call"
            ),
            None,
        )

    @property
    def writes(self) -> list[tuple[str, str, Any]]:
        """Every write of the step as ``(node, channel, value)``, in plan order."""
        return [(r.task.node, c, v) for r in self.results for c, v in r.writes]

    def __repr__(self) -> str:
        parts = [f"{r.task.node}!" if r.error is not None else r.task.node for r in self.results]
        return f"Execution(step={self.step}, results={parts})"


@frozen_record(repr=False)
class ChannelChange:
    """How one channel changed in an Update: value and version before and after, the
    writes (``values``, in apply order) and their ``writers``; no writers means the runtime
    changed it itself (an ephemeral value cleared, a consumed barrier reset), unless
    ``unsaved`` says who wrote it was not saved."""

    channel: str
    before: Any
    after: Any
    version_before: int | None
    version_after: int
    writers: tuple[str, ...]
    values: tuple[Any, ...]
    reducer: str
    unsaved: NotSaved | None = None
    """Set (the ``__input__`` task's ``NotSaved``, with ``start``) on a change of the
    state a thread read from LangGraph starts from when its beginning was not saved
    (``durability="exit"``): it has no writers because who wrote it is not known, not
    because the runtime made it."""

    def __repr__(self) -> str:
        before, after = _sorted_repr(self.before), _sorted_repr(self.after)
        return f"ChannelChange({self.channel!r}: {before} -> {after})"


def _sorted_repr(value: Any) -> str:
    """``repr``, with a set's items sorted: a barrier's set of names would print in hash
    order, which for strings changes from one process to the next."""
    if not isinstance(value, (set, frozenset)) or not value:
        return repr(value)
    try:
        items = sorted(value)
    except TypeError:  # items of different kinds: order by their text
        items = sorted(value, key=repr)
    inner = "{" + ", ".join(map(repr, items)) + "}"
    return inner if type(value) is set else f"{type(value).__name__}({inner})"


@frozen_record(repr=False)
class Update:
    """The only phase that changes state: every channel change of the step, the
    channels the next Plan will look at, and the checkpoint that results."""

    step: int
    changes: tuple[ChannelChange, ...]
    updated_channels: frozenset[str]
    checkpoint: Checkpoint
    state_keys: tuple[str, ...] = ()
    """The graph's state keys (managed values too), to tell a misspelt name in ``change``;
    empty: unknown."""

    @property
    def changed(self) -> list[str]:
        """Names of the channels that changed, in apply order."""
        return [change.channel for change in self.changes]

    def change(self, channel: str) -> ChannelChange | None:
        """The change of ``channel`` in this step, or None if it did not change: a state
        key no write reached this step, or a runtime channel (``branch:to:x``) nothing
        wrote. So test for None before reading ``.before`` or ``.after``. A name that is
        no state key of the graph (a slip) is a ``KeyError`` naming the keys."""
        found = next((c for c in self.changes if c.channel == channel), None)
        known = channel in self.state_keys or ":" in channel or channel.startswith("__")
        if found is None and self.state_keys and not known:  # (":", "__": the runtime's)
            raise KeyError(not_a_state_key(channel, self.state_keys))
        return found

    def __repr__(self) -> str:
        return f"Update(step={self.step}, changed={self.changed})"


@frozen_record(repr=False)
class Superstep:
    """One superstep: its Plan, Execution and Update (None until they ran, or when the
    step stopped before them), and the checkpoints around it."""

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
    """The supersteps of one invocation, from the input step: ``values`` after the last
    Update, ``status`` ``"done"``, ``"running"``, ``"interrupted"``, ``"drained"`` (its
    ``RunControl`` asked it to stop at a step boundary), ``"error"`` or ``"out_of_steps"``, the
    ``namespace`` of the task that ran a subgraph (() at the root), the graph's
    ``state_keys`` in schema order, written or not, and ``saved_in``: the checkpoint
    namespace the run saved its checkpoints under (``""`` at the root; a subgraph's own
    thread, its node name, with ``checkpointer=True``; its task's namespace by default),
    or None when it saved nothing; ``recorded``: False for a run stepped with
    ``record=False``, whose ``steps`` are empty however many ran."""

    steps: tuple[Superstep, ...]
    values: Mapping[str, Any]
    status: str
    error: BaseException | None = None
    namespace: tuple[str, ...] = ()
    state_keys: tuple[str, ...] = ()
    saved_in: str | None = None
    recorded: bool = True

    def step(self, number: int) -> Superstep:
        """The superstep numbered ``number`` (the input step is -1)."""
        number = step_number(number, "run.step(...)")
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
        def timeline(self, *, durations: bool = False, width: int | None = 100) -> str: ...
        def timeline_svg(self, width: int = 720) -> str: ...
