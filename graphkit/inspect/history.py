"""What a run's records say happened to each channel and node, step by step.

``why`` asks these questions; they are plain look-ups over the supersteps, kept apart
so that the explanations read as reasoning, not as record walking.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from graphkit.channels import EMPTY
from graphkit.constants import TASKS
from graphkit.inspect.values import branch_target
from graphkit.unsaved import NotSaved, not_saved

if TYPE_CHECKING:
    from graphkit.checkpoint import Checkpoint
    from graphkit.pregel.records import ChannelChange, Run, Superstep

__all__ = ["History", "stand_in", "starts_unsaved"]


class History:
    """Look-ups over the supersteps of ``run``.

    >>> from graphkit.inspect.examples import forecast_run
    >>> history = History(forecast_run())
    >>> history.ran_at("weather"), history.chosen("planner", 1)
    ([2], ('weather', 'news'))
    >>> history.writes_since_reset("join:weather+news:summarize", upto=2)
    {'news': 2, 'weather': 2}
    """

    def __init__(self, run: Run) -> None:
        self.run = run
        self.steps = {superstep.step: superstep for superstep in run.steps}
        self.last = run.steps[-1].step if run.steps else -2
        self.first = run.steps[0].step if run.steps else -1
        # Records that begin after the input step start from a saved state they did
        # not see made: a resumed run's (the checkpoint it loaded), or a thread whose
        # first saved checkpoint is a later step's (durability="exit", a crash).
        self.unsaved_start = starts_unsaved(run)
        # The steps LangGraph did not save in the middle of a thread (a run with
        # durability="exit" after a saved one): a stand-in task, not the tasks that ran.
        self.gaps = [
            gap for s in run.steps if (gap := stand_in(s)) is not None and gap.after is not None
        ]
        self.start: Checkpoint | None = None
        self.start_words = ""
        if self.unsaved_start and run.steps[0].update is not None:
            self.start = run.steps[0].update.checkpoint
            self.start_words = f"the thread's first saved checkpoint (step {self.first})"
        elif self.first > -1:
            self.start = run.steps[0].checkpoint_before
            # ("saved after": that step made it, so the step is before it, never after)
            self.start_words = (
                f"the checkpoint this run started from (saved after step {self.start.step})"
            )

    def before_records(self, channel: str, version: int | None, step: int) -> bool:
        """True when ``channel``'s ``version``, which woke a task at ``step``, was
        written before the records begin: it is in the state they start from."""
        if self.start is None:
            return False
        if version is not None and self.start.channel_versions.get(channel) != version:
            return False
        origin = self.written(channel, version, before=step)
        if origin is None:
            return True
        m, change = origin
        return self.unsaved_start and m == self.first and not change.writers

    def ran_before_records(self, node: str) -> dict[str, int]:
        """The trigger versions ``node`` had seen in the state the records begin from:
        it ran before them (empty when it had not, or the records begin at the input)."""
        if self.start is None:
            return {}
        return dict(self.start.versions_seen.get(node) or {})

    def unsaved_gap(self, n: int) -> NotSaved | None:
        """The stand-in for the steps not saved in the middle of the thread that ``n`` is
        one of (None: step ``n`` was saved, or is before the records)."""
        return next((g for g in self.gaps if g.after is not None and g.after < n <= g.start), None)

    def ran_unsaved(self, node: str, before: int) -> NotSaved | None:
        """The latest stand-in before step ``before`` whose steps ``node`` ran in, as the
        checkpoint they made says (which of them, and how often, was not saved)."""
        found = [g for g in self.gaps if g.start is not None and g.start < before]
        return next((g for g in reversed(found) if node in g.ran), None)

    def get(self, step: int) -> Superstep | None:
        """The superstep numbered ``step``, or None if the run has none."""
        return self.steps.get(step)

    def ran_at(self, node: str) -> list[int]:
        """The steps whose Plan had a task for ``node``, or in which a task for it started
        while the step ran (an error handler, a called task)."""
        return [superstep.step for superstep in self.run.steps if node in _tasks_of(superstep)]

    def final_checkpoint(self) -> Checkpoint | None:
        """The last state the run reached (before a failed step's missing Update)."""
        if not self.run.steps:
            return None
        end = self.run.steps[-1]
        return end.checkpoint or end.checkpoint_before

    def changes(self, channel: str) -> Iterator[tuple[int, ChannelChange]]:
        """Every applied change of ``channel`` that some task wrote, with its step."""
        for superstep in self.run.steps:
            change = _change(superstep, channel)
            if change is not None and change.writers:
                yield superstep.step, change

    def written(
        self, channel: str, version: int | None, before: int
    ) -> tuple[int, ChannelChange] | None:
        """The latest step before ``before`` whose Update set ``channel`` to
        ``version`` (to any version, if None)."""
        for step in range(before - 1, -2, -1):
            change = _change(self.steps.get(step), channel)
            if change is not None and (version is None or change.version_after == version):
                return step, change
        return None

    def writes_since_reset(self, channel: str, upto: int) -> dict[str, int]:
        """Which task wrote ``channel`` in which step since it was last emptied, in the
        order they wrote: the sources of a waiting edge's barrier, or the writes a
        deferred node's trigger held back."""
        wrote: dict[str, int] = {}
        for step in range(upto, -2, -1):
            change = _change(self.steps.get(step), channel)
            if change is None:
                continue
            if not change.writers:
                if change.after is not EMPTY:
                    continue  # released for a deferred node: still the same round
                break  # reset after its node ran: older writes belong to an earlier round
            for writer in change.writers:
                wrote.setdefault(writer, step)
        return dict(sorted(wrote.items(), key=lambda item: (item[1], item[0])))

    def chosen(self, source: str, step: int) -> tuple[str, ...]:
        """The nodes ``source``'s task woke in ``step`` (its ``branch:to:*`` writes)."""
        superstep = self.steps.get(step)
        execution = superstep.execution if superstep is not None else None
        targets = (
            target
            for result in (execution.results if execution is not None else ())
            if result.task.node == source
            for channel, _ in result.writes
            if (target := branch_target(channel)) is not None
        )
        return tuple(dict.fromkeys(targets))

    def sent(self, source: str, step: int) -> tuple[str, ...]:
        """The nodes ``source``'s task sent a packet to in ``step`` (its ``Send``s)."""
        superstep = self.steps.get(step)
        execution = superstep.execution if superstep is not None else None
        targets = (
            str(getattr(value, "node", value))
            for result in (execution.results if execution is not None else ())
            if result.task.node == source
            for channel, value in result.writes
            if channel == TASKS
        )
        return tuple(dict.fromkeys(targets))

    def dropped_sends(self, source: str, step: int) -> tuple[str, ...]:
        """The nodes ``source`` sent to in ``step`` that the next Plan made no push task
        for: no nodes of the graph, so the runtime dropped those Sends (with a warning)."""
        later = self.steps.get(step + 1)
        if later is None and not (step == self.last and self.run.status == "done"):
            return ()  # (the run stopped first: nothing says what became of them)
        # (a run that finished after the step planned no task: not even for a Send)
        pushed = {t.node for t in later.plan.tasks if t.kind == "push"} if later else set()
        return tuple(node for node in self.sent(source, step) if node not in pushed)

    def dropped(self, source: str, step: int) -> tuple[str, ...]:
        """The names ``source`` chose in ``step`` that are not nodes: the Update had no
        channel for them, so it dropped the write (a router's misspelt return value)."""
        superstep = self.steps.get(step)
        if superstep is None or superstep.update is None:
            return ()
        update = superstep.update
        return tuple(
            t for t in self.chosen(source, step) if update.change(f"branch:to:{t}") is None
        )

    def unapplied_writers(self, channel: str, step: int) -> tuple[str, ...]:
        """Who wrote ``channel`` in ``step`` if that step failed before its Update."""
        superstep = self.steps.get(step)
        if superstep is None or superstep.update is not None or superstep.execution is None:
            return ()
        writers = (
            result.task.node
            for result in superstep.execution.results
            if any(written == channel for written, _ in result.writes)
        )
        return tuple(dict.fromkeys(writers))

    def sends(self, step: int) -> list[tuple[str, Any]]:
        """The ``Send`` packets step ``step``'s Update queued, as (sender, packet)."""
        change = _change(self.steps.get(step), TASKS)
        if change is None or not change.writers:
            return []
        return list(zip(change.writers, change.values, strict=False))

    def queued(self, step: int) -> tuple[int | None, list[tuple[str | None, Any]]]:
        """The ``Send`` packets step ``step``'s Plan made push tasks for, as (sender,
        packet), and the step whose Update queued them: the packets are read from the
        checkpoint the step planned from, so a state edit in between (``update_state``,
        whose packets no recorded step sent: step and senders None) shows what ran."""
        superstep = self.steps.get(step)
        if superstep is None:
            return None, []
        checkpoint = superstep.checkpoint_before
        packets = list(checkpoint.channel_values.get(TASKS) or ())
        version = checkpoint.channel_versions.get(TASKS)
        origin = self.written(TASKS, version, before=step) if version is not None else None
        if origin is None:
            return None, [(None, packet) for packet in packets]
        m, change = origin
        # (a converted thread records an edit as a step whose task is the update's: no
        # node sent its packets)
        edits = {t.node for t in self.steps[m].plan.tasks if t.kind == "update"}
        senders = [None if writer in edits else writer for writer in change.writers]
        return m, list(zip(senders, packets or change.values, strict=False))

    def sent_to(self, node: str) -> list[int]:
        """The steps in which some task sent ``node`` a packet."""
        return [
            step
            for step, change in self.changes(TASKS)
            if any(getattr(packet, "node", None) == node for packet in change.values)
        ]

    def goto(self, node: str, step: int) -> list[Any]:
        """The destinations of the ``Command`` ``node`` returned in ``step`` (if any)."""
        superstep = self.steps.get(step)
        execution = superstep.execution if superstep is not None else None
        found: list[Any] = []
        for result in execution.results if execution is not None else ():
            if result.task.node != node:
                continue
            output = result.output
            for item in output if isinstance(output, (list, tuple)) else [output]:
                destinations = getattr(item, "destinations", None)
                if hasattr(item, "goto") and callable(destinations):
                    found.extend(destinations())
        return found

    def commanded(self, writers: tuple[str, ...], node: str, step: int) -> list[str]:
        """The writers whose ``Command(goto=...)`` in ``step`` named ``node``."""
        return [
            writer
            for writer in writers
            if any(getattr(d, "node", d) == node for d in self.goto(writer, step))
        ]


def stand_in(superstep: Superstep) -> NotSaved | None:
    """The ``NotSaved`` of the ``__input__`` task standing in for steps LangGraph did not
    save, when ``superstep`` is that stand-in: a thread's first (its beginning not saved)
    or one in its middle (``after`` set: a later run with durability="exit")."""
    results = superstep.execution.results if superstep.execution is not None else ()
    found = (not_saved(result) for result in results)
    return next((u for u in found if u is not None and u.start is not None), None)


def starts_unsaved(run: Run) -> bool:
    """True for a thread read from a saver whose first saved checkpoint is a later
    step's: its first superstep only brings that state in (no task wrote it)."""
    return bool(run.steps) and brings_unsaved_state(run.steps[0])


def brings_unsaved_state(superstep: Superstep) -> bool:
    """True for the superstep a thread whose beginning was not saved starts with: it
    brings in the first saved checkpoint, a later step's, whose making was not saved."""
    return superstep.step > -1 and superstep.checkpoint_before.source == "empty"


def _change(superstep: Superstep | None, channel: str) -> ChannelChange | None:
    if superstep is None or superstep.update is None:
        return None
    return superstep.update.change(channel)


def _tasks_of(superstep: Superstep) -> list[str]:
    """The node of each task of a step: planned, then started while it ran."""
    started = superstep.execution.results if superstep.execution is not None else ()
    return [*superstep.plan.nodes, *(r.task.node for r in started if r.task.parent)]
