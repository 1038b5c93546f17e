"""A debugging session: a run you drive phase by phase, step back through, and look at.

``DebugSession`` is the debugger without the widgets: it owns a ``Stepper`` (the very
loop ``invoke`` runs), keeps the supersteps recorded so far, and answers with a ``View``
(plain data) of where the run is. The ``Debugger`` widget only wires buttons to its
methods and shows its views, so almost all of the debugger is tested without a browser.

**Back is real time travel.** Every session runs with a checkpointer: the graph's own,
or, when it was compiled without one, an ``InMemorySaver`` of the session's (the
session drives a shallow copy of the compiled graph that carries it; the graph you
passed is not changed). Back after a step's Update restores the checkpoint the step
started from through that checkpointer and runs on from there (the thread forks, as a
LangGraph replay does). Back in the middle of a step (after Plan or Execute, or after
the step failed or paused) changed no channel: it discards the plan and the results.

A widget shows the session's true state whoever drives it: every method that changes
what a view shows tells the session's listeners (``subscribe``). Step numbers are told
as one story after a fork (``widgets.story``); the records keep LangGraph's.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from graphkit.checkpoint import Checkpoint
from graphkit.diagnostics import some_names
from graphkit.pregel.records import Plan, Run, Superstep
from graphkit.types import Command
from graphkit.widgets.listeners import Notifier, notifies

if TYPE_CHECKING:
    from graphkit.pregel.app import CompiledGraph
    from graphkit.pregel.stepper import Stepper
    from graphkit.widgets.export import Exported
    from graphkit.widgets.predict import Prediction, Score
    from graphkit.widgets.view import View

_NO_VALUE: Any = object()

__all__ = ["DebugSession"]


class DebugSession(Notifier):
    """Drive a run of ``app`` phase by phase: ``plan``, ``execute``, ``update``,
    ``step``, ``run``, ``back``, ``reset``; look at it with ``view()``. ``app`` is a
    graphkit graph or a compiled LangGraph graph (converted with ``as_graphkit``).

    >>> from graphkit.inspect.examples import forecast_graph
    >>> session = DebugSession(forecast_graph(), {"topic": "today", "tokens": 0})
    >>> session.step()  # the input step
    Superstep(step=-1, tasks=['__input__'], changed=['__start__'])
    >>> session.step().update.changed[:2]
    ['topic', 'tokens']
    >>> session.plan()
    Plan(step=1, tasks=['planner'])
    >>> session.view().phase_label
    'after Plan · next: Execute'
    >>> session.run().values["summary"]
    'sunny; market up'
    >>> session.back()  # restores the checkpoint the last step started from
    >>> session.values["tokens"], "summary" in session.values
    (200, False)
    """

    def __init__(
        self,
        app: CompiledGraph,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        breakpoints: Iterable[str] = (),
        context: Any = None,
    ) -> None:
        super().__init__()  # listeners: a widget showing this session refreshes itself
        from graphkit.bridge.convert import as_graphkit

        if input is None:
            _refuse_a_langgraph_thread(app, config)
        app = as_graphkit(app)  # a compiled LangGraph graph is converted here
        if app.checkpointer is None:
            from graphkit.checkpoint import InMemorySaver

            app = copy.copy(app)  # the caller's graph keeps running without a checkpointer
            app.checkpointer = InMemorySaver()
        self.app = app
        self.input = input
        self.context = context
        config = dict(config or {})
        configurable = dict(config.get("configurable") or {})
        configurable.setdefault("thread_id", f"debugger-{uuid.uuid4().hex[:8]}")
        self.thread_id = str(configurable["thread_id"])
        self.config: dict[str, Any] = {**config, "configurable": configurable}
        origin = app.checkpointer.get_tuple(self.config)
        # Where Reset goes back to: the checkpoint the session started from, if any.
        self.origin_id: str | None = origin.checkpoint.id if origin is not None else None
        self.graph_svg: str = app.get_graph().draw_svg()  # laid out once, restyled after
        self.breakpoints: frozenset[str] = frozenset()
        self.set_breakpoints(breakpoints)
        self.selected: str | None = None
        self.message = ""
        self.shown: int | None = None  # the superstep the slider shows; None: the live one
        self.predictions: tuple[Prediction, ...] = ()
        # what the last prediction revealed, and where the run stood after it: predicting
        # again from there (a notebook cell run again) judges the same phase again
        self._revealed: tuple[str, Any, Any] | None = None
        self.undone: frozenset[int] = frozenset()  # story numbers a Back undid
        self._kept: list[Superstep] = []  # supersteps of earlier steppers, all applied
        self._paused_at: tuple[int, int] | None = None
        self._passed: tuple[int, int] | None = None  # (a compiled interrupt_before resumed)
        self._ended: Run | None = None  # a run that ended before the session opened it
        self._started = 0  # steppers started so far (an id() can be reused once one is freed)
        self._renamed: dict[str, str] = {}  # an imported run's interrupt ids → graphkit's
        self._stepper = self._start(input, self.config)

    @classmethod
    def from_run(
        cls,
        app: Any,
        run: Run,
        config: Mapping[str, Any] | None = None,
        *,
        breakpoints: Iterable[str] = (),
        context: Any = None,
    ) -> DebugSession:
        """Open a recorded run in the debugger: a thread read from LangGraph
        (``graphkit.open_langgraph_thread``), with ``app`` the graph that made it (a
        LangGraph graph is converted). Its supersteps show as already applied, and the
        session reads as the run ended: done, failed (Back discards the failed step) or
        paused (``resume`` answers the question). Step goes on from its last checkpoint on
        a copy of the thread (``app``'s saver is not used), with ``context`` as the nodes'
        ``runtime.context`` (for a graph with a ``context_schema``: neither a run record
        nor a LangGraph checkpoint keeps the context a run was given, so pass it again).

        >>> from langgraph.checkpoint.memory import InMemorySaver
        >>> from langgraph.graph import START, StateGraph
        >>> from typing import TypedDict
        >>> from graphkit import open_langgraph_thread
        >>> class State(TypedDict):
        ...     n: int
        >>> builder = StateGraph(State).add_node("double", lambda state: {"n": state["n"] * 2})
        >>> app = builder.add_edge(START, "double").compile(checkpointer=InMemorySaver())
        >>> config = {"configurable": {"thread_id": "1"}}
        >>> _ = app.invoke({"n": 3}, config)
        >>> session = DebugSession.from_run(app, open_langgraph_thread(app, config), config)
        >>> [superstep.step for superstep in session.supersteps], session.values
        ([-1, 0, 1], {'n': 6})
        >>> session.status, session.view().status_text
        ('done', 'done: no node was triggered by the last Update')
        """
        from graphkit.bridge.convert import as_graphkit
        from graphkit.bridge.threads import interrupt_ids, save_thread
        from graphkit.checkpoint import InMemorySaver
        from graphkit.checkpoint.saver import config_key

        _check_recorded(run, config)
        app = copy.copy(as_graphkit(app))
        _check_made_by(app, run)
        app.checkpointer = InMemorySaver()  # the run's thread, copied: stepping on saves here
        thread_id = str(config_key(config, "thread_id") or f"imported-{uuid.uuid4().hex[:8]}")
        thread = save_thread(run, app.checkpointer, thread_id)
        renamed = interrupt_ids(run, thread["configurable"]["checkpoint_id"])
        # resumed, not named: a named checkpoint is replayed, on a fork of its own
        del thread["configurable"]["checkpoint_id"]
        session = cls(app, None, thread, breakpoints=breakpoints, context=context)
        session._kept = list(run.steps)
        session._renamed = renamed  # (the run's question ids, as the copy asks them)
        if run.status != "running":
            # The stepper would plan the next step: what LangGraph reached is the run's own
            # status instead, until Back, Reset or Resume starts a stepper from the thread.
            session._ended = run
        return session

    # -- where the run is -----------------------------------------------------------------

    @property
    def stepper(self) -> Stepper:
        """The stepper running now (a new one after each Back, Reset or resume)."""
        return self._stepper

    @property
    def supersteps(self) -> tuple[Superstep, ...]:
        """Every superstep recorded so far, the one in progress included."""
        steps = self._stepper.run_so_far.steps
        if self._kept and steps and [t.kind for t in steps[0].plan.tasks] == ["input"]:
            # a stepper started after Back or a resume has no input of its own: this is a
            # Command's update, saved on the checkpoint as writes of no task and applied
            # again; the kept steps show it once, where it was first applied
            steps = steps[1:]
        return (*self._kept, *steps)

    @property
    def values(self) -> dict[str, Any]:
        """The state the next Plan reads."""
        return self._stepper.values

    @property
    def status(self) -> str:
        """The run's status: running, done, interrupted, error or out_of_steps (for a run
        opened with ``from_run``, the status it ended with, until the session goes on)."""
        return self._ended.status if self._ended is not None else self._stepper.status

    @property
    def error(self) -> BaseException | None:
        """Why the run failed (status error or out_of_steps), or None."""
        return self._ended.error if self._ended is not None else self._stepper.error

    @property
    def interrupts(self) -> tuple[Any, ...]:
        """What the paused step's ``interrupt()`` calls ask (status interrupted)."""
        if self._ended is None:
            return self._stepper.interrupts
        last = self._ended.steps[-1] if self._ended.steps else None
        results = last.execution.results if last is not None and last.execution else ()
        return tuple(asked for result in results for asked in result.interrupts)

    @property
    def questions(self) -> tuple[tuple[str, Any], ...]:
        """What the paused step waits on (status interrupted): each question once, with
        the node that asked it. Unlike ``interrupts`` (LangGraph's ``__interrupt__``),
        it holds a functional API's second called task's question, which a resume must
        answer too (LangGraph counts it as well)."""
        from graphkit.widgets.answers import asked_once

        if self.status != "interrupted":
            return ()
        steps = self._ended.steps if self._ended is not None else self.supersteps
        last = steps[-1] if steps else None
        return asked_once(last.execution.results if last and last.execution else ())

    @property
    def next_phase(self) -> str | None:
        """The phase the next ``plan``/``execute``/``update`` must be, or None."""
        return None if self._ended is not None else self._stepper.next_phase

    @property
    def position(self) -> tuple[Any, ...]:
        """Where the live run stands, as a value to compare: every phase, Back, Reset and
        resume changes it, so two equal positions mean the run did not move in between
        (a widget uses it to tell whether what it showed is still about this moment).

        >>> from graphkit.inspect.examples import forecast_graph
        >>> session = DebugSession(forecast_graph(), {"topic": "today", "tokens": 0})
        >>> before = session.position
        >>> _ = session.plan()
        >>> session.position == before
        False
        """
        return (self._started, len(self.supersteps), self.next_phase, self.status)

    @property
    def at_breakpoint(self) -> bool:
        """True while Step or Run paused after the Plan of a step with a breakpoint."""
        here = (id(self._stepper), self._stepper.step_number)
        return self._paused_at == here and self.next_phase == "execute"

    @property
    def thread_config(self) -> dict[str, Any]:
        """The config of the session's thread (no checkpoint id: the latest)."""
        configurable = dict(self.config["configurable"])
        configurable.pop("checkpoint_id", None)
        return {**self.config, "configurable": configurable}

    # -- the phases -------------------------------------------------------------------------

    @notifies
    def plan(self) -> Any:
        """Plan the next step; returns the ``Plan`` (None if it is not time to plan)."""
        return self._phase("plan")

    @notifies
    def execute(self) -> Any:
        """Run the planned tasks; returns the ``Execution``."""
        return self._phase("execute")

    @notifies
    def update(self) -> Any:
        """Apply the step's writes; returns the ``Update``."""
        return self._phase("update")

    @notifies
    def step(self) -> Superstep | None:
        """Run what is left of the current step and return it. A step that would run
        a node with a breakpoint pauses after its Plan; the next ``step`` goes on."""
        self._go_live()
        self._advance()
        steps = self.supersteps
        return steps[-1] if steps else None

    def step_view(self) -> View:
        """``step()`` and then the ``view()`` to show: what one press of the debugger's
        Step button costs (the unit to benchmark)."""
        self.step()
        return self.view()

    @notifies
    def run(self) -> Run:
        """Step until the run ends, pauses (an interrupt) or reaches a breakpoint;
        returns the run so far."""
        self._go_live()
        while self.status == "running" and not self._advance():
            pass
        return self._stepper.run_so_far

    # -- predict, then reveal ----------------------------------------------------------

    @notifies
    def predict(
        self,
        nodes: Iterable[str] | None = None,
        *,
        channel: str | None = None,
        value: Any = _NO_VALUE,
    ) -> Prediction:
        """Commit to a guess, run the phase, and reveal whether it was right.

        Before Plan, ``predict(nodes=[...])`` guesses which nodes the step runs; it runs
        the Plan. Before Update (after Plan or Execute), ``predict(channel="name",
        value=...)`` guesses the value the channel holds after the Update; it runs the
        rest of the step. For an Update that will fail, predict the error's class (e.g.
        ``value=InvalidUpdateError``). The returned ``Prediction`` has ``correct``,
        ``expected`` and an ``explanation`` in the words of ``why``; ``score`` counts.
        Predicting again right after a reveal (the same kind of guess, nothing stepped
        since: a notebook cell run again with a new guess) judges the same phase again;
        only the first try counts in ``score``.

        >>> from graphkit.inspect.examples import forecast_graph
        >>> session = DebugSession(forecast_graph(), {"topic": "today", "tokens": 0})
        >>> _ = session.step(), session.step(), session.step()  # input, __start__, planner
        >>> session.predict(nodes=["weather"])
        Prediction(step=2, nodes, correct=False)
        >>> session.predict(channel="tokens", value=200).correct
        True
        >>> str(session.score)
        '1 of 2 predictions right'
        """
        from graphkit.widgets import predict as reveal

        self._go_live()
        if (nodes is None) == (channel is None):
            raise TypeError(
                "predict() takes either nodes=[...] (before Plan) or channel='name', "
                "value=... (before Update)."
            )
        if nodes is None and value is _NO_VALUE:
            raise TypeError(f"predict(channel={channel!r}) needs the value you expect: value=...")
        kind = "nodes" if nodes is not None else "channel"
        last = self._revealed
        again = last[2] if last is not None and last[:2] == (kind, self.position) else None
        if nodes is not None:
            prediction, revealed = reveal.reveal_nodes(self, nodes, again)
        else:
            prediction, revealed = reveal.reveal_channel(self, str(channel), value, again)
        self._revealed = (kind, self.position, revealed)
        if again is None:  # (a retry, made knowing the answer, does not count)
            self.predictions = (*self.predictions, prediction)
        return prediction

    @property
    def score(self) -> Score:
        """How many of this session's predictions were right (kept across Back/Reset)."""
        from graphkit.widgets.predict import Score

        score = Score()
        for prediction in self.predictions:
            score = score.add(prediction.correct)
        return score

    # -- travelling ---------------------------------------------------------------------

    @notifies
    def back(self) -> None:
        """Undo the last step: in the middle of a step, discard its plan and results;
        after an Update, restore the checkpoint the step started from."""
        self._go_live()
        steps = self.supersteps
        applied = [s for s in steps if s.update is not None]
        if applied and len(applied) < len(steps):  # no channel changed: plan it again
            self._travel(applied, steps[-1].checkpoint_before, "discarded the unapplied step")
        elif len(applied) > 1:
            what = f"restored the checkpoint before step {self._story(applied[-1].step)}"
            self._travel(applied[:-1], applied[-1].checkpoint_before, what)
        elif steps:
            self.reset()  # before the input step there is only the start
        else:
            self.message = "Nothing to go back to: the run has not started."

    @notifies
    def rewind(self, index: int) -> None:
        """Time-travel to just after the ``index``-th applied step (restoring the
        checkpoint its Update made); later steps are dropped and can be run again."""
        self._go_live()
        applied = [s for s in self.supersteps if s.update is not None]
        if not 0 <= index < len(applied):
            raise IndexError(f"No applied step at index {index}; there are {len(applied)}.")
        what = f"restored the checkpoint after step {self._story(applied[index].step)}"
        self._travel(applied[: index + 1], applied[index].checkpoint, what)

    @notifies
    def reset(self) -> None:
        """Start the run again from its input (and from the checkpoint the session
        started from; a thread that was empty then is emptied again)."""
        self.shown = None
        config = self.thread_config
        if self.origin_id is None:
            assert self.app.checkpointer is not None
            self.app.checkpointer.delete_thread(self.thread_id)
        else:
            config["configurable"]["checkpoint_id"] = self.origin_id
        self._kept = []
        self.undone = frozenset()
        self._stepper = self._start(self.input, config)
        self.message = "Reset: the run starts again from its input."

    @notifies
    def resume(self, answer: Any = None) -> None:
        """Go on after the run paused: an ``interrupt()`` in a node receives ``answer``
        (``Command(resume=answer)``); a compiled ``interrupt_before``/``after`` is passed.
        With several questions waiting (parallel tasks that each asked), ``answer`` is a
        dict keyed by their ids, whole or their first characters (``view().status_text``
        shows them): ``{'65233a7f': 'yes', '5ea9e835': 'no'}``. A resume that cannot
        start leaves the run paused, and ``message`` says why."""
        self._go_live()
        if self.status != "interrupted":
            self.message = f"Nothing to resume: the run is {self.status}."
            return
        asked, given = tuple(question for _, question in self.questions), answer
        if len(asked) > 1:  # parallel questions: LangGraph takes answers by interrupt id
            from graphkit.widgets.answers import answers_by_id

            answer = answers_by_id(asked, answer)
            if isinstance(answer, str):
                self.message = answer
                return
            answer = {self._renamed.get(key, key): value for key, value in answer.items()}
        command = Command(resume=answer) if asked else None
        kept = [s for s in self.supersteps if s.update is not None]
        paused_at, passed = self._paused_at, self._passed
        # started before anything is changed: a resume the runtime refuses leaves the
        # run paused as it was (it showed the step before, "paused by a compiled
        # breakpoint", its questions gone)
        try:
            stepper = self._start(command, self.thread_config)
        except Exception as error:
            self.message = f"Not resumed: {type(error).__name__}: {error}"
            return
        self._kept, self._stepper = kept, stepper
        here = (id(self._stepper), self._stepper.step_number)
        # a pause this step passed already (its interrupt_before, resumed now or before
        # its node asked; a tick) is not met again: the step runs again, as in LangGraph,
        # without a second stop at the same tick
        if command is None or (passed is not None and passed[1] == here[1]):
            self._passed = here
        if paused_at is not None and paused_at[1] == here[1]:
            self._paused_at = here
        # (the paused step was not applied: the run goes on from the last applied one,
        # and its next Step runs the paused step again, as LangGraph resumes)
        returns = "each interrupt() returns its own" if len(asked) > 1 else "interrupt() returns it"
        said = f" with {given!r}: {returns}" if command is not None else ""
        self.message = f"Resumed{said}. Step runs the paused step again."

    # -- looking ------------------------------------------------------------------------

    @notifies
    def goto(self, index: int) -> None:
        """Show ``supersteps[index]`` (the slider): looking only, nothing runs or is
        restored; the next control goes back to the live step."""
        count = len(self.supersteps)
        if not 0 <= index < count:
            raise IndexError(f"No superstep at index {index}; there are {count}.")
        self.shown = None if index == count - 1 else index

    @notifies
    def select(self, node: str | None) -> None:
        """Choose the node whose "why did / didn't it run" the view explains, or a
        functional-API task that was called (see ``called``)."""
        if node is not None and node not in self.app.spec.nodes and node not in self.called():
            raise ValueError(
                f"No node {node!r}, nor a task called so far: the nodes are "
                f"{some_names(self.app.spec.nodes)}, the tasks called so far "
                f"{some_names(self.called())}."
            )
        self.selected = node

    def called(self) -> tuple[str, ...]:
        """The functional-API tasks called so far (by name, in the order first called):
        not nodes of the graph, but ``select`` takes them too.

        >>> from graphkit.func import entrypoint, task
        >>> shout = task(str.upper, name="shout")
        >>> greet = entrypoint()(lambda words: [shout(word).result() for word in words])
        >>> session = DebugSession(greet, ["hi", "yo"])
        >>> session.called()
        ()
        >>> session.run().values
        {'__end__': ['HI', 'YO']}
        >>> session.called()
        ('shout',)
        """
        names = (
            result.task.node
            for superstep in self.supersteps
            if superstep.execution is not None
            for result in superstep.execution.results
            if result.task.kind == "call"
        )
        return tuple(dict.fromkeys(names))

    @notifies
    def set_breakpoints(self, nodes: Iterable[str]) -> None:
        """Pause Step and Run before any step that would run one of ``nodes``."""
        if isinstance(nodes, str):  # (its letters would be taken for node names)
            raise TypeError(f"breakpoints take a list of node names: write [{nodes!r}]")
        nodes = frozenset(nodes)
        unknown = sorted(nodes - set(self.app.spec.nodes))
        if unknown:
            raise ValueError(
                f"No node named {unknown}; breakpoints go on nodes: "
                f"{some_names(self.app.spec.nodes)}."
            )
        self.breakpoints = nodes

    def view(self) -> View:
        """What to show now, as plain data (see ``graphkit.widgets.view``)."""
        from graphkit.widgets.view import build_view

        return build_view(self)

    def to_html(self) -> str:
        """The recorded run as one standalone HTML page (see ``export``)."""
        from graphkit.widgets.export import session_html

        return session_html(self)

    def export_html(self, path: Any) -> Exported:
        """Write ``to_html()`` to ``path``; the answer (shown by a cell) says how many
        frames were written and whether the run is unfinished, and why."""
        from graphkit.widgets.export import write_html

        return write_html(self, path)

    def __repr__(self) -> str:
        return (
            f"DebugSession(thread={self.thread_id!r}, steps={len(self.supersteps)}, "
            f"status={self.status!r}, next={self.next_phase!r})"
        )

    # -- helpers ------------------------------------------------------------------------

    def _start(self, input: Any, config: Mapping[str, Any]) -> Stepper:
        stepper = self.app.stepper(input, config, context=self.context)  # (may raise)
        self._started += 1
        self._paused_at = self._passed = None
        self._ended = None
        return stepper

    def _travel(self, kept: list[Superstep], checkpoint: Checkpoint | None, what: str) -> None:
        """Keep the supersteps ``kept`` and run on from ``checkpoint``, loaded through
        the checkpointer (never from a cache); an older one forks the thread. The
        thread's latest is resumed, not named: named, it would be replayed on a branch
        of its own (as LangGraph replays it), running its finished tasks again."""
        assert checkpoint is not None and self.app.checkpointer is not None
        config = self.thread_config
        # started before anything is changed: a checkpoint the saver cannot give back
        # (never saved, as a save failed; the saver down) leaves the session as it was
        try:
            latest = self.app.checkpointer.get_tuple(config)
            if latest is None or latest.checkpoint.id != checkpoint.id:
                config["configurable"]["checkpoint_id"] = checkpoint.id
            stepper = self._start(None, config)
        except Exception as error:
            self.message = _not_restored(checkpoint, error, self._stepper.save_error)
            return
        from graphkit.widgets.story import dropped_numbers, next_step_text

        self.undone = self.undone | dropped_numbers(self, kept)
        self._kept = kept
        self._stepper = stepper
        # one clause a line, the id on its own: printed on one line, it ran to ~150
        # characters, which a notebook breaks mid-word (the widget joins the lines)
        self.message = (
            f"Back: {what};\n{next_step_text(self)} is next.\nCheckpoint id: {checkpoint.id}"
        )

    def _phase(self, phase: str) -> Any:
        self._go_live()
        if self._over():
            return None
        if self.next_phase != phase:
            number = self._story(self._stepper.step_number)
            self.message = f"Step {number} waits for {self.next_phase}."
            return None
        return self._call(getattr(self._stepper, phase))

    def _call(self, action: Any) -> Any:
        """Run one stepper phase; a node's error is recorded by the stepper (status
        ``error``) and shown by the view, never raised into the widget."""
        self.message = ""
        try:
            return action()
        except Exception as error:  # shown in the view instead
            self.message = f"{type(error).__name__}: {error}"
            return None
        finally:  # (the run goes on past a failed save, as invoke's does: say it each time)
            if (failed := self._stepper.save_error) is not None and not self.message:
                self.message = (
                    f"Saving to the checkpointer failed ({type(failed).__name__}: {failed}): "
                    "what failed was not saved, nor anything after a failed checkpoint. The "
                    "run goes on to its end, as invoke's does (invoke then raises this error)."
                )

    def _over(self) -> bool:
        if self.status != "running":
            self.message = f"The run is over ({self.status}): use Back or Reset."
            return True
        return False

    def _advance(self) -> bool:
        """Run what is left of the current step; True when a breakpoint paused it."""
        if self._over():
            return False
        if self.next_phase == "plan":
            plan = self._call(self._stepper.plan)
            if plan is not None and self._at_breakpoint(plan):
                return True
        while self.next_phase in ("execute", "update"):
            if self._call(getattr(self._stepper, self.next_phase)) is None:
                break
        return False

    def _at_breakpoint(self, plan: Plan) -> bool:
        here = (id(self._stepper), plan.step)
        before = self.app.interrupt_before if here == self._passed else ()
        before = [task.node for task in plan.tasks] if before == "*" else before
        before = [before] if isinstance(before, str) else before
        hit = [t.node for t in plan.tasks if t.node in self.breakpoints and t.node not in before]
        if not hit or self.next_phase != "execute" or self._paused_at == here:
            return False
        self._paused_at = here
        self.message = f"Breakpoint: step {self._story(plan.step)} would run {', '.join(hit)}."
        return True

    def _story(self, recorded: int) -> int:
        from graphkit.widgets.story import story_number

        return story_number(self, recorded)

    def _go_live(self) -> None:
        self.shown = None


def _not_restored(checkpoint: Checkpoint, error: Exception, save_error: Exception | None) -> str:
    """What Back (or a rewind) says when the checkpoint it goes to cannot be loaded."""
    from graphkit.errors import CheckpointNotFoundError

    if isinstance(error, CheckpointNotFoundError) and save_error is not None:
        why = (
            "it was never saved: a save failed earlier in the run "
            f"({type(save_error).__name__}: {save_error}), and nothing was saved after that"
        )
    else:
        why = f"the checkpointer could not load it ({type(error).__name__}: {error})"
    return (
        f"Could not go back to checkpoint {checkpoint.id}:\n{why}.\n"
        "Nothing moved. Go back to a step saved before that, or Reset to start again."
    )


def _refuse_a_langgraph_thread(app: Any, config: Mapping[str, Any] | None) -> None:
    """Raise when ``config`` names a thread a LangGraph graph saved in its own saver: the
    session converts the graph and steps on graphkit's saver, so it would not see it."""
    from graphkit.bridge.convert import _is_langgraph_graph

    saver = getattr(app, "checkpointer", None)
    if not _is_langgraph_graph(app) or not hasattr(saver, "get_tuple") or not config:
        return
    try:
        saved = saver.get_tuple(dict(config))
    except Exception:  # no thread_id, or a saver that cannot say: not a saved thread
        return
    if saved is not None:
        thread = config.get("configurable", {}).get("thread_id")
        raise ValueError(
            f"Thread {thread!r} was saved by LangGraph, in the graph's own checkpointer; "
            "the debugger runs the graph converted to graphkit and does not step on "
            "LangGraph's saver. Open the thread with Debugger.from_run(app, "
            "open_langgraph_thread(app, config), config) (DebugSession.from_run without "
            "the widget), or pass an input to start a new run."
        )


def _check_recorded(run: Any, config: Any) -> None:
    """``from_run``'s ``run`` and ``config`` are what it reads (not, say, swapped)."""
    if not isinstance(run, Run):
        raise TypeError(
            f"from_run(app, run, config) opens a Run, got {type(run).__name__}: pass what "
            "graphkit.open_langgraph_thread(app, config) or app.trace(...) returned"
        )
    if config is not None and not isinstance(config, Mapping):
        raise TypeError(
            f"from_run()'s config is a dict, got {type(config).__name__}: pass "
            '{"configurable": {"thread_id": ...}}, the thread the run was read from'
        )


def _check_made_by(app: Any, run: Run) -> None:
    """Refuse a run whose steps ran nodes ``app`` does not have (another graph's run):
    stepping on would plan ``app``'s graph from a state it never made."""
    ran = {node for step in run.steps if step.plan for node in step.plan.nodes}
    missing = sorted(node for node in ran - set(app.spec.nodes) if not node.startswith("__"))
    if missing:
        raise ValueError(
            f"This run ran nodes {missing} that the graph given to from_run() does not "
            f"have (its nodes: {some_names(app.spec.nodes)}); pass the graph that made the run."
        )
