"""The stepper: the Pregel loop as a state machine you advance one phase at a time.

``invoke`` and ``stream`` are "run the stepper to the end"; the notebook debugger
drives the very same object phase by phase. There is one loop, and this is it; its
Execute phase is ``graphkit.pregel.stepper_execute`` (``ExecutePhase``, mixed in).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, NoReturn

from graphkit.cache.base import FullKey
from graphkit.checkpoint import Checkpoint
from graphkit.constants import INPUT, INTERRUPT, PREVIOUS, START
from graphkit.diagnostics import run as diagnose
from graphkit.pregel import phases
from graphkit.pregel.config import RunConfig, RunOptions
from graphkit.pregel.records import Execution, Plan, Run, Superstep, Task, TaskResult, Update
from graphkit.pregel.runtime import RunContext, Runtime
from graphkit.pregel.saved_writes import NULL_TASK
from graphkit.pregel.spec import GraphSpec, shown
from graphkit.pregel.stepper_execute import ExecutePhase
from graphkit.pregel.task_scope import current_scope
from graphkit.pregel.thread_saves import ThreadLink
from graphkit.pregel.threads import open_thread, run_links

__all__ = ["INPUT_TASK", "Stepper"]

INPUT_TASK = INPUT  # the input step's pseudo-task: its writes are the run's input


class Stepper(ExecutePhase):
    """Runs a compiled graph one phase at a time: ``plan()``, ``execute()``,
    ``update()``, or a whole ``step()``, or ``run()`` to the end.

    The first step is the input step (step -1): its only task writes the input to the
    graph's input channel. Each phase returns its record; ``run_so_far`` bundles them.

    >>> from typing import TypedDict
    >>> from graphkit import StateGraph, START
    >>> class State(TypedDict):
    ...     n: int
    >>> builder = StateGraph(State)
    >>> builder = builder.add_node("double", lambda state: {"n": state["n"] * 2})
    >>> stepper = builder.add_edge(START, "double").compile().stepper({"n": 3})
    >>> stepper.step()  # the input step
    Superstep(step=-1, tasks=['__input__'], changed=['__start__'])
    >>> stepper.plan()
    Plan(step=0, tasks=['__start__'])
    >>> stepper.execute()
    Execution(step=0, results=['__start__'])
    >>> stepper.update()
    Update(step=0, changed=['n', 'branch:to:double', '__start__'])
    >>> stepper.run().values
    {'n': 6}
    """

    __slots__ = (
        "_cache_keys", "_checkpoint_before", "_command_writes", "_control", "_discarded",
        "_execution", "_finish_order", "_input", "_needs_input_step", "_null_writes",
        "_parent", "_pending", "_plan", "_read", "_results", "_resume_expires", "_state",
        "_steps", "config", "context", "done", "drain_reason", "error", "graph",
        "interrupts", "namespace", "options", "resumed", "status", "thread",
    )  # fmt: skip

    def __init__(
        self, graph: GraphSpec, input: Any, config: RunConfig, options: RunOptions | None = None
    ) -> None:
        self.graph, self.config = graph, config
        self.options = options = options or RunOptions()
        # Started from inside a node: this is a subgraph run of that task.
        self._parent = parent = current_scope()
        # a checkpointer=True subgraph runs (and saves) under its node's name, as in LangGraph
        own_thread = options.checkpointer is True
        self.namespace = parent.start_subgraph(own_thread) if parent is not None else ()
        self.thread, lends = run_links(
            options, config.raw, parent, self.namespace, graph.untracked_channels
        )
        # an Update is read by the records kept, the thread saved to (or lent), whoever
        # drives the stepper by hand; not by a stream (a listener) keeping no records
        self._read = options.record or lends is not None or options.listener is None
        opening = open_thread(graph, self.thread, parent, input)
        self._state, self._input, self._discarded = opening.state, opening.input, opening.discarded
        self._pending: list[Any] = opening.pending
        self.resumed = opening.resuming
        self._needs_input_step = not opening.resuming
        self._command_writes = self.graph.with_message_ids(opening.command_writes)
        self._null_writes = tuple(opening.null_writes)
        self.context = RunContext(  # what running tasks (and the subgraphs they start) see
            config.for_tasks(),
            _with_previous(options.runtime or Runtime(), self._state),
            _usable(options.loop or _lent_loop(parent, graph)),
            self.namespace,
            opening.resume,
            opening.answers,
            lends,
            opening.resumes_subgraphs,
            options=options,
        )
        # a root run's single answer answers only the step it resumes, as in LangGraph
        self._resume_expires = opening.resume is not None and parent is None
        self.status, self.done = "running", False  # done: finished, failed or out of steps
        self.error: BaseException | None = None
        self.interrupts: tuple[Any, ...] = ()
        self.drain_reason: str | None = None  # why the run drained (status "drained")
        self._control = self.context.runtime.control  # (None: nothing can drain the run)
        self._steps: list[Superstep] = []
        self._plan: Plan | None = None
        self._results: list[TaskResult] | None = None  # the current step's, until its Update
        self._finish_order: list[str] = []  # their task ids as they came in
        self._execution: Execution | None = None  # (made from them when read)
        self._cache_keys: dict[str, tuple[FullKey, float | None]] = {}  # this step's, by task id
        self._state.limit_steps(config.recursion_limit)  # as LangGraph, the fork counts in it
        if opening.forks:
            self._state.fork()  # replaying an older checkpoint: a new branch, saved below
        applies = self._null_writes or (self._command_writes and self.resumed)
        versions = self._apply_command() if applies else {}
        if applies and not self.resumed:  # a new input replaces what they woke as well
            self._discarded = phases.plan(graph, self._state).tasks
        if opening.forks and self.thread is not None:  # holding the Command's writes
            self.thread.save_checkpoint(self._state.checkpoint, versions)
        elif self.thread is not None and self.thread.has_checkpoint:
            self._save_null_writes(self.thread, opening.answer_writes)
        self._checkpoint_before = self._state.checkpoint

    # -- where we are -----------------------------------------------------------------

    @property
    def drain_requested(self) -> bool:
        """True once the run's ``RunControl`` was asked to drain: the run stops at the
        next step boundary, with status ``"drained"``."""
        return self._control is not None and self._control.drain_requested

    @property
    def next_phase(self) -> str | None:
        """``"plan"``, ``"execute"`` or ``"update"``; None when the run is over."""
        if self.done:
            return None
        if self._plan is None:
            return "plan"
        return "execute" if self._results is None else "update"

    @property
    def at_input_step(self) -> bool:
        """True while the step to run is the input step, whose one task, ``__input__``,
        writes the run's input."""
        return self._needs_input_step and not self.done

    @property
    def paused_before(self) -> bool:
        """True when the run stopped at an ``interrupt_before`` breakpoint: its step is
        planned and not run."""
        return self.status == "interrupted" and self._plan is not None and self._results is None

    @property
    def pending_writes(self) -> list[Any]:
        """The writes saved for the step this run resumes, as ``(task id, channel,
        value)``, until that step's Update; empty for a step run from its start."""
        return list(self._pending)

    @property
    def step_number(self) -> int:
        """The number of the step being (or about to be) run; the input step is -1."""
        return self._state.step

    @property
    def values(self) -> dict[str, Any]:
        """The state the next Plan will read: every state key that holds a value."""
        return self._state.read(self.graph.state_keys)

    def output(self, keys: tuple[str, ...]) -> Any:
        """The current values of ``keys`` that hold one (a single-value state: the value)."""
        return shown(keys, self._state.read(keys))

    def state_after(self, results: Sequence[TaskResult]) -> phases.StepState:
        """A copy of the state with ``results``' writes applied, this step's Update not
        made (a paused step's finished tasks, whose values LangGraph shows); raises as
        that Update would."""
        state = self._state.copy()
        phases.update(self.graph, state, results, recorded=False)
        return state

    @property
    def save_error(self) -> Exception | None:
        """The first failed save the run went on past: as LangGraph saves a task's writes
        (and, unless durability="sync", checkpoints) in the background, such a failure
        does not stop the run; ``invoke``, ``stream`` and ``trace`` raise it once the run is
        over (unless it failed: then its own error)."""
        return self.thread.save_error if self.thread is not None else None

    @property
    def checkpoint(self) -> Checkpoint:
        """The checkpoint the state was last saved as (or restored from)."""
        return self._state.checkpoint

    @property
    def run_so_far(self) -> Run:
        """The supersteps recorded so far, including the one in progress."""
        steps = tuple(self._steps)
        if self._plan is not None and self._plan.tasks and not self.done:
            steps += (self._superstep(None),)
        saved_in = self.thread.namespace if self.thread is not None else None
        keys = self.graph.state_keys
        recorded = self.options.record
        return Run(
            steps, self.values, self.status, self.error, self.namespace, keys, saved_in, recorded
        )

    # -- the phases ---------------------------------------------------------------------

    def plan(self) -> Plan:
        """Plan the next step. Raises GraphRecursionError past the recursion limit."""
        if self._plan is not None or self.done:
            raise self._out_of_turn("plan")
        state = self._state
        if self._needs_input_step:
            task = Task(INPUT_TASK, state.step, INPUT_TASK, "input", (INPUT_TASK,), (), self._input)
            self._plan = Plan(state.step, (task,))
            return self._plan
        plan = phases.plan(self.graph, state)
        if state.step > state.last_step:
            limit = self.config.recursion_limit
            self._fail("out_of_steps", diagnose.recursion_limit(limit, state.step, plan))
        self._plan = plan
        if not plan.tasks:
            self._finish("done")
        elif (nodes := self.options.interrupt_before) and self._breakpoint(nodes, plan.tasks):
            self._finish("interrupted")
        # a drain is looked at after the breakpoint, which a resume passes
        elif (control := self._control) is not None and control.drain_requested:
            self.drain_reason = control.drain_reason
            self._finish("drained")
        return plan

    def upcoming_plan(self) -> Plan:
        """The step that would run next, planned without starting it (what a run that
        paused after its last Update shows as ``next``)."""
        return self._plan or phases.plan(self.graph, self._state)

    def update(self) -> Update | None:
        """Apply the step's writes; this is where the state changes. Returns the step's
        ``Update``; None in a run nobody reads one of (a stream keeping no records and
        saving nothing, as ``invoke`` runs)."""
        if self._results is None or self.done:
            raise self._out_of_turn("update")
        plan, results = self._plan, self._results
        assert plan is not None
        discarded = self._discarded if self._needs_input_step else ()
        lends = self.context.lends
        try:
            record = phases.update(
                self.graph, self._state, results, discarded=discarded, recorded=self._read
            )
        except Exception as error:
            self._fail("error", error)
        if record is not None and self.thread is not None:
            try:
                self.thread.save_step(record)
            except Exception as error:  # (durability="sync": the run ends at its failed save)
                if self.options.record:
                    self._steps.append(self._superstep(record))
                self._plan = self._results = self._execution = None  # (applied: not again)
                self._fail("error", error)
        elif record is not None and lends is not None:  # (their metadata name it)
            lends.checkpoint_id = record.checkpoint.id
        if self._parent is not None:  # a subgraph's step is progress of the task running it
            self._parent.progress()
        if self.options.record:
            self._steps.append(self._superstep(record))
        self._pending, self._needs_input_step = [], False
        self._plan = self._results = self._execution = None
        self._checkpoint_before = self._state.checkpoint
        if self._resume_expires:  # (once: the step the run resumed is over)
            self._resume_expires = False
            self.context.resume.expire()
        if self.context.resuming:  # a subgraph a later step starts runs its input anew
            self.context = replace(self.context, resuming=False)
        if (nodes := self.options.interrupt_after) and self._breakpoint(nodes, plan.tasks):
            self._finish("interrupted")  # after the tasks that ran
        return record

    def step(self) -> Superstep:
        """Run whatever phases of the current step remain and return the step."""
        if self.next_phase == "plan":
            self.plan()
        if self.next_phase == "execute":
            self.execute()
        if self.next_phase == "update":
            executed = self._superstep(None)  # taken before update() moves on to the next step
            return replace(executed, update=self.update())
        if self._plan is not None and self.status in ("done", "interrupted", "drained"):
            return self._superstep(None)
        raise diagnose.run_is_over(self.status, "no step is left")

    def run(self) -> Run:
        """Run to the end and return the whole run."""
        while not self.done:
            self.step()
        return self.run_so_far

    # -- helpers ------------------------------------------------------------------------

    def _save_null_writes(self, thread: ThreadLink, answer_writes: list[Any]) -> None:
        """LangGraph's null writes (a new thread has no checkpoint to hold them): the
        ``Command`` input's, and the answer it brings, kept until a task records it."""
        null = [*thread.tracked(self._command_writes), *answer_writes]
        if null:
            thread.save_writes(NULL_TASK, null)
        thread.answers_kept = bool(answer_writes)

    def _apply_command(self) -> dict[str, int]:
        """A ``Command`` input on a saved thread: its writes apply to the loaded checkpoint
        (or the fork of it) before the first Plan, with no checkpoint of their own (the
        caller saves them as LangGraph's null writes, so a resume after a pause keeps them;
        those saved by an earlier run apply first), recorded as an input step numbered as
        that checkpoint. Returns the versions the writes gave the channels."""
        state = self._state
        loaded = state.checkpoint
        task = Task(INPUT_TASK, loaded.step, INPUT_TASK, "input", (INPUT_TASK,), (), self._input)
        result = TaskResult(task, (*self._null_writes, *self._command_writes))
        record = phases.update(self.graph, state, [result])
        self._checkpoint_before = state.hold_at(loaded)
        if self.resumed:
            state.pass_breakpoints()  # (as in LangGraph, the writes do not stop it again)
        if self.options.record:
            plan = Plan(loaded.step, (task,))
            execution = Execution(loaded.step, (result,), (task.id,))
            update = replace(record, step=loaded.step, checkpoint=state.checkpoint)
            self._steps.append(Superstep(loaded.step, plan, execution, update, loaded))
        versions = {change.channel: change.version_after for change in record.changes}
        if self.thread is not None:  # (the next checkpoint saved holds them)
            self.thread.changed(versions)
        return versions

    def _superstep(self, update: Update | None) -> Superstep:
        plan = self._plan
        assert plan is not None
        return Superstep(plan.step, plan, self.execution, update, self._checkpoint_before)

    def _breakpoint(self, nodes: Sequence[str] | str, tasks: Sequence[Task]) -> bool:
        """LangGraph's rule: a task's node is a breakpoint, and a channel changed since the
        run last stopped (so a resumed run passes it)."""
        hit = any(
            (task.kind != "input" and task.node != START) if nodes == "*" else task.node in nodes
            for task in tasks
        )
        seen = self._state.versions_seen.get(INTERRUPT, {})
        return hit and self._state.max_version > max(seen.values(), default=0)

    def abandon(self) -> None:
        """The run ends before its end: the caller stopped reading (it closed the
        stream), or something escaped a step (a ``KeyboardInterrupt`` from a task run
        alone). Save what ``durability="exit"`` held back, as LangGraph does on its way
        out, so that ``invoke(None, config)`` goes on from there."""
        if not self.done and self.thread is not None:
            self.thread.close("abandoned")

    def _finish(self, status: str, keep_step: bool = False) -> None:
        """End the run; ``keep_step`` records the step it stopped in, before its Update."""
        self.status, self.done = status, True
        if keep_step and self.options.record and self._plan is not None:
            self._steps.append(self._superstep(None))
        if self.thread is not None:
            self.thread.close(status)
        if self._parent is not None and self.options.record:  # kept in its task's records
            self._parent.subruns.append(self.run_so_far)

    def _fail(self, status: str, error: BaseException) -> NoReturn:
        self.error = error
        self._finish(status, keep_step=True)
        raise error

    def _out_of_turn(self, phase: str) -> RuntimeError:
        if self.done:
            return diagnose.run_is_over(self.status, f"nothing left to {phase}")
        return diagnose.phase_out_of_order(self.step_number, self.next_phase, phase)


def _with_previous(runtime: Runtime, state: phases.StepState) -> Runtime:
    """``runtime`` with what an entrypoint's thread saved last run as its ``previous``
    (as in LangGraph: every task's runtime and ``get_runtime()`` see it)."""
    saved = state.channels.get(PREVIOUS)
    if saved is None or not saved.is_available():
        return runtime
    return runtime.override(previous=saved.get())


def _lent_loop(parent: Any, graph: GraphSpec) -> asyncio.AbstractEventLoop | None:
    """The parent run's event loop, for a graph its task runs as the node itself (a
    compiled graph added as a node, which LangGraph awaits in an async run). A graph the
    node's own code runs with ``.invoke``/``.stream`` gets none: that is a sync run, which
    refuses async nodes in every run (``ainvoke`` and ``atrace`` included), as LangGraph's."""
    if parent is None:
        return None
    call = getattr(parent.node, "call", None)
    # (a StateGraph's subgraph node keeps it as .subgraph; a low-level Pregel's is its invoke)
    node_graph = getattr(call, "subgraph", None) or getattr(call, "__self__", None)
    return parent.run.loop if getattr(node_graph, "spec", None) is graph else None


def _usable(loop: asyncio.AbstractEventLoop | None) -> asyncio.AbstractEventLoop | None:
    """The event loop a run's async nodes run on: ``loop``, unless this very thread runs
    it. A run started there (a sync ``invoke`` inside an ``async def`` node) could not
    wait for its async nodes without stopping the loop they need; it runs as any sync
    run does instead, refusing them with LangGraph's ``TypeError``, not hanging."""
    if loop is None:
        return None
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:  # (no loop runs in this thread)
        return loop
    return None if running is loop else loop
