"""Why a node never ran, or did not run at a step outside the steps the records hold.

Past the run's last step the run had stopped: it finished (its last Update woke no
node, a state edit perhaps), reached its recursion limit, failed, or has not gone on
yet. Before the records begin they cannot say which tasks ran. Over the whole run,
each trigger of the node was never written, or its waiting edge never completed, or a
router that could have chosen it never did. ``NotRan`` (``inspect.why_not``) answers
these from here: ``NeverRan`` is its base, and these answers use its findings for one
step (``_waiting``, ``_written_in``, ``_chose_otherwise``, ``_choices``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphkit.channels import EMPTY
from graphkit.inspect.edited import cleared_by_edit, edit_woke_nothing
from graphkit.inspect.explanation import Answer, Reason
from graphkit.inspect.findings import UNDECLARED, Finding, most_telling
from graphkit.inspect.stopped import is_edit, not_reached
from graphkit.inspect.values import barrier_seen, join_names, show_error
from graphkit.inspect.wording import router_choice, sentence

if TYPE_CHECKING:
    from graphkit.inspect.history import History
    from graphkit.inspect.wiring import Wiring
    from graphkit.unsaved import NotSaved

__all__ = ["NO_STEP", "NeverRan"]

NO_STEP = (
    "the checkpoint it went on from planned no task (get_state(config).next == ()): a "
    "finished thread, or one whose last state edit woke no node (an edit made without "
    "as_node is made as the node that ran last, and runs only that node's edges); give an "
    "input, or make the edit as a node that leads on (update_state(config, values, "
    "as_node=...))"
)
"""Why a run that went on from a checkpoint (``invoke(None, config)``) ran no step."""


class NeverRan:
    """Answers "why did ``node`` never run", and "why did it not run at step n" for a
    step after the run's last or before its records begin: ``NotRan``'s, which
    inherits them and has the findings for one step they use."""

    history: History
    wiring: Wiring

    def _stopped(self, node: str, n: int) -> Answer:
        run, last = self.history.run, self.history.last
        after = last + 1
        extra: list[Reason] = []
        if run.status == "done":
            text = (
                f"Step {after} planned no task: step {last}'s Update changed no trigger "
                "channel, so the run finished."
            )
            phrase = f"the run finished at step {after} (no node was triggered)"
            edit = self.history.get(last)
            edited = is_edit(self.history, last)
            cleared = edited and edit is not None and cleared_by_edit(edit, node, self.wiring)
            if edited:
                phrase = f"the run finished at step {after}: step {last}'s state edit woke no node"
            if cleared:
                phrase += f" and cleared {node}'s pending run"
            # (a step asked after the end is often the wrong step: say where the node ran,
            # or why it never did, rather than only that nothing ran there)
            ran_at = self.history.ran_at(node)
            if ran_at:
                text += f" {node} last ran at step {ran_at[-1]}."
                phrase += f"; {node} last ran at step {ran_at[-1]}"
            if edit is not None and edited:
                text += " " + edit_woke_nothing(edit, node, self.wiring)
            reason = Reason("finished", text, after)
            if not ran_at and not cleared:
                never = self.never_ran(node)
                extra.extend(never.reasons)
                phrase += f", and {never.summary.removesuffix('.')}"
        elif run.status == "out_of_steps":
            final = self.history.final_checkpoint()
            due = final is not None and any(
                channel in final.updated_channels for channel in self.wiring.triggers(node)
            )
            where = f", where {node} was due to run" if due else ""
            loop = self._loop(node, after) if due else ""
            text = (
                f"The run reached its recursion limit before step {after} (GraphRecursionError)"
                f"{where}.{loop} Raise config['recursion_limit'] if the graph needs more "
                "steps, or check that a router eventually routes to END."
            )
            reason = Reason("recursion_limit", text, after)
            phrase = f"the recursion limit stopped the run before step {after}{where}"
        elif run.status == "error":
            text = f"Step {last} failed ({show_error(run.error)}), so no later step ran."
            reason = Reason("failed", text, last)
            phrase = f"the run failed at step {last}"
            for channel in self.wiring.triggers(node):
                extra.extend(f.reason for f in self._written_in(node, last, channel))
        else:
            reason, phrase = not_reached(self.history, self.wiring, node, n)
        summary = sentence(f"{node} did not run at step {n}: {phrase}")
        return Answer(node, n, False, summary, (reason, *extra))

    def _loop(self, node: str, after: int) -> str:
        """The router that kept a looping run going (langgraph#148): back from ``node``,
        due at step ``after``, through the edges that woke each node, to the first
        router; said when it chose its node every time it ran, never END."""
        target, step, seen = node, after, set()
        while target not in seen:
            seen.add(target)
            woken = [
                origin
                for channel in self.wiring.triggers(target)
                if (origin := self.history.written(channel, None, before=step)) is not None
                and origin[0] == step - 1
            ]
            if len(woken) != 1 or len(woken[0][1].writers) != 1:
                return ""
            source = woken[0][1].writers[0]
            if self.wiring.routers(source, target):
                runs = self.history.ran_at(source)
                if len(runs) < 2 or any(target not in self._choices(source, run) for run in runs):
                    return ""
                steps = join_names([str(run) for run in runs])
                if len(runs) > 3:
                    steps = f"{len(runs)} times, from step {runs[0]} to step {runs[-1]}"
                else:
                    steps = f"at steps {steps}"
                words = self.wiring.router_words(source, target)
                return (
                    f" {source} ran {steps}, and each time its {words} chose {target} again, "
                    "never END: the loop had no way out. If it should have ended, look at "
                    "what that router read: run.to_frame('state') shows the state after "
                    "each of those steps."
                )
            target, step = source, woken[0][0]
        return ""

    def _before_records(self, node: str, n: int) -> Answer:
        """Step n is before the records begin (or is the saved state they begin with)."""
        start, history = self.history.start_words, self.history
        if n == history.first:  # the state brought in, not the tasks that made it
            text = (
                f"The records begin with {start}: they hold the state step {n} saved, not "
                "which tasks ran in it (the steps before it were not saved)."
            )
        else:
            text = f"Step {n} is before {start}, where the records of this run begin."
        seen = history.ran_before_records(node)
        if seen:
            text += f" {_ran_before(node, seen)}"
        summary = f"{node} at step {n}: the records do not show step {n}, which is before {start}."
        if n == history.first:
            summary = (
                f"{node} at step {n}: the records hold only the state step {n} saved, "
                "not which tasks ran in it."
            )
        return Answer(node, n, False, summary, (Reason("before_records", text, n),))

    def _in_unsaved_steps(self, node: str, n: int, gap: NotSaved) -> Answer:
        """Step n is one of the steps LangGraph did not save in the middle of the thread
        (``gap``): the checkpoint they made says whether ``node`` ran in them, not when."""
        steps = f"steps {gap.after + 1 if gap.after is not None else 0} to {gap.start}"
        ran = node in gap.ran
        text = (
            f"Step {n} is one of {steps}, which LangGraph did not save (a run with "
            f"durability='exit' saves only its last checkpoint): the records hold the state "
            f"step {gap.start} saved, not which tasks ran in those steps. "
        )
        if ran:
            text += (
                f"That checkpoint shows {node} ran in them (it had seen new versions of its "
                f"triggers since step {gap.after}), but not in which step, nor why."
            )
            summary = (
                f"{node} ran in {steps}, which were not saved; whether at step {n} is not known."
            )
        else:
            text += (
                f"That checkpoint shows {node} did not run in them (it had seen no new "
                f"version of its triggers since step {gap.after})."
            )
            summary = f"{node} did not run in {steps}, which were not saved (so not at step {n})."
        return Answer(node, n, False, summary, (Reason("not_saved", text, n),))

    def never_ran(self, node: str) -> Answer:
        """Why ``node`` was not planned at any step of the run."""
        if not self.history.run.steps and self.history.run.status == "done":
            text = f"This run ran no step: {NO_STEP}."
            return Answer(node, None, False, f"{node} never ran: this run ran no step.", (
                Reason("finished", text, None),
            ))  # fmt: skip
        seen = self.history.ran_before_records(node)
        if seen:
            start, first = self.history.start_words, self.history.first
            text = (
                f"{node} did not run in the steps the records show, which begin at "
                f"{start}. {_ran_before(node, seen)}"
            )
            summary = f"{node} did not run in this run's records: it ran before {start}."
            return Answer(node, None, False, summary, (Reason("before_records", text, first),))
        if (gap := self.history.ran_unsaved(node, self.history.last + 1)) is not None:
            answer = self._in_unsaved_steps(node, gap.start, gap)
            return Answer(node, None, False, answer.summary, answer.reasons)
        failed = self.wiring.handled_by(node)
        if failed is not None and self.history.unsaved_start:
            start, first = self.history.start_words, self.history.first
            text = (
                f"{node} did not run in the steps the records show, which begin at {start}. "
                f"It is {failed}'s error handler: it runs when {failed} raises, which no "
                "checkpoint records, and the steps before it were not saved (a run with "
                "durability='exit' saves only its last checkpoint), so whether it ran "
                "before them is not known."
            )
            summary = (
                f"{node} did not run in this run's records, which begin at {start}; whether "
                "it ran before them was not saved."
            )
            return Answer(node, None, False, summary, (Reason("before_records", text, first),))
        found: list[Finding] = []
        final, last = self.history.final_checkpoint(), self.history.last
        triggers = self.wiring.triggers(node)
        # a node reached only by a waiting edge never needs its branch channel written
        waits = any(self.wiring.barrier(channel) is not None for channel in triggers)
        only_waits = waits and not self.wiring.reached_directly(node)
        missing: list[str] = []  # sources a waiting edge into it still waits for
        for channel in triggers:
            parts = self.wiring.barrier(channel)
            if parts is not None and final is not None:
                seen = final.channel_values.get(channel, EMPTY)
                unapplied = self.history.unapplied_writers(channel, last)
                found.extend(
                    self._waiting(
                        node, channel, parts[0], seen, last, "by the run's end", unapplied
                    )
                )
                missing += [
                    s
                    for s in parts[0]
                    if s not in barrier_seen(seen) and s not in missing and s not in unapplied
                ]
            elif parts is None and not only_waits and not any(self.history.changes(channel)):
                unwritten = self._unwritten(node, channel)
                unapplied = self._written_in(node, last, channel) if last >= -1 else []
                found.extend(unapplied or [unwritten])
        if only_waits:
            # A router that could choose any node also "never chose" this one, but the
            # waiting edge is what wakes it: say why its missing sources never ran.
            found.extend(f for f in self._never_chosen(node) if f.rank is None)
            found.extend(self._never_chosen(*missing))
        else:
            found.extend(self._never_chosen(node))
        if self.history.run.status != "done":
            stopped = self._stopped(node, last + 1)
            found.append(Finding(stopped.summary.split(": ", 1)[1][:-1], stopped.reasons[0]))
        phrase = most_telling(found, "none of its trigger channels changed")
        reasons = tuple(f.reason for f in found)
        return Answer(node, None, False, sentence(f"{node} never ran: {phrase}"), reasons)

    def _unwritten(self, node: str, channel: str) -> Finding:
        """Nothing wrote ``node``'s trigger ``channel`` in the whole run. Where a router
        that could reach ``node`` sent packets instead (map-reduce), a Send is how it
        would have come: say that nothing sent it one, not only that no name chose it."""
        senders = [
            result.task.node
            for step in self.history.steps.values()
            for result in (step.execution.results if step.execution else ())
            if self.wiring.may_route(result.task.node, node)
            and self.history.sent(result.task.node, step.step)
        ]
        if not senders:
            text = f"Nothing wrote {channel} in this run: no edge or router chose {node}."
            return Finding(
                f"nothing wrote {channel} in this run", Reason("never_written", text, None, channel)
            )
        text = (
            f"Nothing sent {node} a packet (Send) in this run, and no edge or router chose "
            f"it by name ({channel} was never written)."
        )
        reason = Reason("never_written", text, None, channel)
        return Finding(f"nothing sent {node} a packet in this run", reason)

    def _never_chosen(self, *nodes: str) -> list[Finding]:
        """One finding per router that could have chosen ``nodes`` and never did: one
        for all the nodes it passed over at the same steps, whose sentence is the same."""
        missed: dict[tuple[str, tuple[int, ...], str, int | None], list[str]] = {}
        for node in nodes:
            by_source: dict[str, list[int]] = {}
            for n in sorted(self.history.steps):
                for finding in self._chose_otherwise(node, n + 1):
                    by_source.setdefault(finding.reason.writers[0], []).append(n)
            for source, steps in by_source.items():
                words = self.wiring.router_words(source, node)
                rank = None if self.wiring.declares(source, node) else UNDECLARED
                missed.setdefault((source, tuple(steps), words, rank), []).append(node)
        found = []
        for (source, steps, words, rank), targets in missed.items():
            chosen = tuple(dict.fromkeys(t for n in steps for t in self._choices(source, n)))
            dropped = tuple(
                dict.fromkeys(t for n in steps for t in self.history.dropped(source, n))
            )
            if chosen and any(not self._choices(source, n) for n in steps):
                chosen = (*chosen, "END")  # (a loop's router choosing END at its last step)
            at = join_names([str(n) for n in steps])
            ran = f"{source} ran at step{'s' * (len(steps) > 1)} {at}, and its {words}"
            text, choice = router_choice(ran, chosen, dropped, tuple(targets))
            reason = Reason("chose_otherwise", text, max(steps), None, (source,))
            found.append(Finding(f"{source} chose {choice}", reason, rank))
        return found


def _ran_before(node: str, seen: dict[str, int]) -> str:
    """That ``node`` ran before the records begin, as the state they start from says."""
    versions = ", ".join(f"{channel} v{version}" for channel, version in sorted(seen.items()))
    return (
        f"That checkpoint shows {node} had run before it (it had seen {versions}), but "
        "not when or why."
    )
