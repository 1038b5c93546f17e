"""Time travel in a ``DebugSession``: Back, Rewind, Reset and Resume.

Back after a step's Update restores the checkpoint the step started from through the
session's checkpointer and runs on from there (the thread forks, as a LangGraph replay
does); in the middle of a step it discards the plan and the results. Reset starts the
run again from its input; Resume answers the questions of a paused run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphkit.checkpoint import Checkpoint
from graphkit.diagnostics.reading import index_number
from graphkit.errors import warn
from graphkit.pregel.records import Superstep
from graphkit.types import Command
from graphkit.widgets.listeners import notifies

if TYPE_CHECKING:
    from graphkit.pregel.app import CompiledGraph
    from graphkit.pregel.stepper import Stepper

__all__ = ["TimeTravel"]


class TimeTravel:
    """Mixed into ``DebugSession``: what these methods need is its stepper, thread and
    the supersteps it keeps (``_start`` makes a stepper, ``_story`` numbers a step)."""

    app: CompiledGraph
    input: Any
    message: str
    origin_id: str | None
    shown: int | None
    thread_id: str
    undone: frozenset[int]
    _kept: list[Superstep]
    _passed: tuple[int, int] | None
    _paused_at: tuple[int, int] | None
    _renamed: dict[str, str]
    _stepper: Stepper
    questions: Any
    status: Any
    supersteps: Any
    thread_config: Any
    _go_live: Any
    _start: Any
    _story: Any
    _no_position: Any  # (Looking's: why rewind(index) found no step)

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
        index = index_number(index, "rewind")
        if not 0 <= index < len(applied):
            raise IndexError(self._no_position("rewind", index, applied))
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
        if self.status != "interrupted":  # (a cell run twice: say so where it ran)
            if self.status == "running":
                why = (
                    "the run is running and no interrupt() waits for an answer. Call "
                    "session.step() or session.run() to go on."
                )
            else:
                why = (
                    f"the run is over ({self.status}). session.back() goes back a step; "
                    "session.reset() starts again."
                )
            return self._not_resumed(f"Nothing to resume: {why}", why)
        asked, given = tuple(question for _, question in self.questions), answer
        if len(asked) > 1:  # parallel questions: LangGraph takes answers by interrupt id
            from graphkit.widgets.answers import answers_by_id

            answer = answers_by_id(asked, answer)
            if isinstance(answer, str):
                return self._not_resumed(answer, answer)
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
            said = f"{type(error).__name__}: {error}"
            return self._not_resumed(f"Not resumed: {said}", f"{said}; the run waits as it was.")
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

    def _not_resumed(self, message: str, why: str) -> None:
        """Say why ``resume`` did nothing: in ``message`` (the view shows it) and as a
        warning at the caller's line (a notebook cell showed nothing at all); the
        Debugger's resume box shows the message alone."""
        self.message = message
        warn(f"session.resume() resumed nothing: {why}")

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
