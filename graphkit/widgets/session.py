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

This module drives the run; going back, resetting and resuming are ``TimeTravel``'s
(``widgets.travel``), choosing what the view shows ``Looking``'s (``widgets.looking``),
and opening a recorded run ``FromRun``'s (``widgets.recorded``).
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from graphkit.diagnostics.reading import step_number
from graphkit.diagnostics.threads import config_not_dict
from graphkit.errors import warn
from graphkit.pregel.config import loose_keys_configurable
from graphkit.pregel.records import Plan, Run, Superstep
from graphkit.render.highlight import PHASES
from graphkit.widgets.listeners import Notifier, notifies
from graphkit.widgets.looking import Looking
from graphkit.widgets.recorded import FromRun, _refuse_a_langgraph_thread
from graphkit.widgets.travel import TimeTravel

if TYPE_CHECKING:
    from graphkit.pregel.app import CompiledGraph
    from graphkit.pregel.stepper import Stepper
    from graphkit.widgets.predict import Prediction, Score
    from graphkit.widgets.view import View

_NO_VALUE: Any = object()

__all__ = ["DebugSession"]


class DebugSession(FromRun, TimeTravel, Looking, Notifier):
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
        from graphkit.bridge.convert import graph_for

        if config is not None and not isinstance(config, Mapping):
            raise TypeError(config_not_dict(config))  # (dict("t1") said "update sequence")
        # a thread_id beside configurable is the run's thread, as the runtime reads it
        config = loose_keys_configurable(config)
        if input is None:
            _refuse_a_langgraph_thread(app, config)
        app = graph_for(app, "DebugSession")  # a compiled LangGraph graph is converted here
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
        """Plan the next step; returns the ``Plan``. Out of turn (not time to plan, or
        the run is over) it plans nothing, warns saying what to call instead, and
        returns None."""
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
        a node with a breakpoint pauses after its Plan; the next ``step`` goes on. After
        the run is over it runs nothing, warns, and returns None, as ``plan`` does."""
        self._go_live()
        if self._over():  # (the last superstep, returned, read as if it had run again)
            warn(f"session.step() ran nothing: {self._out_of_turn('step')}")
            return None
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
        step: int | None = None,
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
        only the first try counts in ``score``. ``step``: the step the guess is about; a
        session that has moved past it (a cell that steps it run twice) is told, not judged.

        >>> from graphkit.inspect.examples import forecast_graph
        >>> session = DebugSession(forecast_graph(), {"topic": "today", "tokens": 0})
        >>> # three steps: the input step, __start__ and planner
        >>> _ = session.step(), session.step(), session.step()
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
        if nodes is not None:
            nodes = reveal.guessed_nodes(self, nodes)
        elif not isinstance(channel, str):  # (it was quoted as a name: "No state channel '3'")
            raise TypeError(
                f"predict(channel=...) takes a state key's name, a str, got the "
                f"{type(channel).__name__} {channel!r}; the state's keys are "
                f"{list(self.app.spec.state_keys)}."
            )
        if step is not None:
            step = step_number(step, "predict(step=...)")
        kind = "nodes" if nodes is not None else "channel"
        last = self._revealed
        again = last[2] if last is not None and last[:2] == (kind, self.position) else None
        if step is not None and self.next_phase is not None:
            judged = self._judged_step(again)
            if judged != step:
                raise ValueError(
                    f"This guess is about step {step}, but the session is at step {judged}: "
                    "a cell that steps it ran again, or the cells ran out of order. Run the "
                    "cells again from the one that makes the DebugSession."
                )
        if nodes is not None:
            prediction, revealed = reveal.reveal_nodes(self, nodes, again)
        else:
            prediction, revealed = reveal.reveal_channel(self, str(channel), value, again)
        self._revealed = (kind, self.position, revealed)
        if again is None:  # (a retry, made knowing the answer, does not count)
            self.predictions = (*self.predictions, prediction)
            return prediction
        return reveal.as_second_try(prediction, self.predictions, self.score)

    @property
    def score(self) -> Score:
        """How many of this session's predictions were right (kept across Back/Reset)."""
        from graphkit.widgets.predict import Score

        score = Score()
        for prediction in self.predictions:
            score = score.add(prediction.correct)
        return score

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

    def _phase(self, phase: str) -> Any:
        """Run ``phase`` if it is next. Out of turn, warn where the call was (a notebook
        cell run twice shows the ``None`` as nothing at all; the widget's buttons for a
        phase out of turn are disabled, and its view shows ``message``)."""
        self._go_live()
        if self._over() or self.next_phase != phase:
            warn(f"session.{phase}() ran nothing: {self._out_of_turn(phase)}")
            return None
        return self._call(getattr(self._stepper, phase))

    def _paused_by(self) -> tuple[str, str] | None:
        """What a paused run waits on and the call that goes on, or None if it is not
        paused: an ``interrupt()``'s answer, or a compiled breakpoint, which asks nothing."""
        if self.status != "interrupted":
            return None
        if self.questions:
            return "at an interrupt(), waiting for its answer", "session.resume(answer)"
        return "by a compiled breakpoint", "session.resume()"

    def _out_of_turn(self, phase: str) -> str:
        """Why ``phase`` cannot run now, and what to call instead; sets ``message``."""
        if paused := self._paused_by():  # (paused, not over)
            why, call = paused
            if not self.questions:  # (which breakpoints: a learner set none in this session)
                why += " (interrupt_before/interrupt_after), which asks nothing"
            return (
                f"the run is paused {why}. Call {call} to go on; session.back() goes back a step."
            )
        if self.status != "running":
            return (
                f"the run is over ({self.status}). session.back() goes back a step; "
                "session.reset() starts again."
            )
        number = self._story(self._stepper.step_number)
        self.message = f"Step {number} waits for {self.next_phase}."
        steps = self.supersteps
        if self.next_phase == "plan" and steps:  # (a cell of the step before, run again)
            before = self._story(steps[-1].step)
            return (
                f"step {before}'s {phase} ran already, and step {number} waits for plan. "
                f"Call session.plan(), or session.step() to run all of step {number}."
            )
        done = PHASES.index(phase) < PHASES.index(self.next_phase)
        return (
            f"step {number} waits for {self.next_phase}"
            + (f", its {phase} ran already" if done else "")
            + f". Call session.{self.next_phase}(), or session.step() to finish the step."
        )

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
        """Whether the run has stopped (over, or paused); if so ``message`` says which."""
        if paused := self._paused_by():  # (paused, not over: Resume goes on)
            self.message = f"The run is paused {paused[0]}: Resume goes on; Back or Reset go back."
            return True
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

    def _judged_step(self, again: Any) -> int:
        """The step, as the learner is told it, a prediction judges: the next one, or
        the one just revealed again (a ``Plan``, or a ``(number, Update)`` pair)."""
        if again is None:
            return self._story(self.stepper.step_number)
        return again[0] if isinstance(again, tuple) else self._story(again.step)

    def _story(self, recorded: int) -> int:
        from graphkit.widgets.story import story_number

        return story_number(self, recorded)

    def _go_live(self) -> None:
        self.shown = None
