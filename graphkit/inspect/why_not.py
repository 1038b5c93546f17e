"""Why a node did NOT run at a step, or never ran: the other half of ``why``.

Step N's Plan wakes a node only if step N-1's Update changed one of its trigger
channels. So the reasons are, in the order they happened: what step N-1's Update
changed instead (and who wrote it), a waiting edge still missing a source, a router
that chose other nodes, a write made *during* step N (visible only at N+1), a write
lost because its step failed, and the run having stopped.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, NamedTuple

from graphkit.channels import EMPTY
from graphkit.constants import TASKS
from graphkit.inspect.edited import edit_woke_nothing
from graphkit.inspect.explanation import Answer, Reason
from graphkit.inspect.stopped import is_edit, not_reached
from graphkit.inspect.values import barrier_seen, join_names, show_error
from graphkit.inspect.waiting import still_waiting
from graphkit.inspect.wording import both, router_choice, sentence, wrote_in

if TYPE_CHECKING:
    from graphkit.checkpoint import Checkpoint
    from graphkit.inspect.history import History
    from graphkit.inspect.wiring import Wiring

__all__ = ["NO_STEP", "Finding", "NotRan"]

NO_STEP = (
    "the checkpoint it went on from planned no task (get_state(config).next == ()): a "
    "finished thread, or one whose last state edit woke no node (an edit made without "
    "as_node is made as the node that ran last, and runs only that node's edges); give an "
    "input, or make the edit as a node that leads on (update_state(config, values, "
    "as_node=...))"
)
"""Why a run that went on from a checkpoint (``invoke(None, config)``) ran no step."""


class Finding(NamedTuple):
    """A reason, with the short phrase a one-line summary uses for it."""

    phrase: str  # short, for the one-line summary
    reason: Reason
    rank: int | None = None  # how telling, if not as its kind says (see _TELLING)


# Which finding makes the summary when there are several (lowest first); a router
# without a path_map "could" choose any node, so its choice ranks after an open
# waiting edge (_UNDECLARED) ...
_TELLING = {
    "deferred": 0,
    "next_step": 0,
    "unapplied": 1,
    "chose_otherwise": 2,
    "still_waiting": 3,
}
_UNDECLARED = 4
# ... and the order the reasons are listed in: the order things happened.
_CHRONOLOGY = {"not_updated": 0, "not_sent": 0, "still_waiting": 0, "chose_otherwise": 1}


class NotRan:
    """Answers "why did ``node`` not run at step n" and "why did it never run".

    >>> from graphkit.inspect.examples import forecast_run
    >>> from graphkit.inspect.history import History
    >>> from graphkit.inspect.wiring import Wiring
    >>> run = forecast_run()
    >>> NotRan(History(run), Wiring(run)).not_ran("summarize", 2).kinds
    ['still_waiting', 'next_step']
    """

    def __init__(self, history: History, wiring: Wiring) -> None:
        self.history = history
        self.wiring = wiring

    def not_ran(self, node: str, n: int) -> Answer:
        """Why ``node`` was not planned at step ``n``."""
        if n > self.history.last:
            return self._stopped(node, n)
        if n < self.history.first or (n == self.history.first and self.history.unsaved_start):
            return self._before_records(node, n)
        if n == -1:
            text = "Step -1 is the input step: only the input task __input__ runs in it."
            summary = f"{node} did not run at step -1: it is the input step."
            return Answer(node, n, False, summary, (Reason("input_step", text, -1),))
        superstep = self.history.steps[n]
        found: list[Finding] = []
        for channel in self._relevant_triggers(node):
            found.extend(self._not_woken(node, n, channel, superstep.checkpoint_before))
            found.extend(self._written_in(node, n, channel))
        found.extend(self._chose_otherwise(node, n))
        if self.history.sent_to(node):
            found.extend(self._sends(node, n))
        reasons = sorted((f.reason for f in found), key=lambda r: _CHRONOLOGY.get(r.kind, 2))
        phrase = most_telling(found, "none of its trigger channels changed")
        summary = sentence(f"{node} did not run at step {n}: {phrase}")
        return Answer(node, n, False, summary, tuple(reasons))

    def _relevant_triggers(self, node: str) -> list[str]:
        """Its waiting edges, and the other triggers someone wrote in this run (a node
        reached only through a waiting edge never has its branch channel written)."""
        triggers = self.wiring.triggers(node)
        relevant = [
            channel
            for channel in triggers
            if self.wiring.barrier(channel) is not None or any(self.history.changes(channel))
        ]
        if relevant or self.history.sent_to(node):
            return relevant  # a node only ever sent packets has no channel worth naming
        return list(triggers)

    def _not_woken(self, node: str, n: int, channel: str, before: Checkpoint) -> list[Finding]:
        """Step n's Plan did not see ``channel`` change (or its waiting edge is open)."""
        parts = self.wiring.barrier(channel)
        value = before.channel_values.get(channel, EMPTY)
        held = (
            value is not EMPTY
            and channel not in before.updated_channels
            and self.wiring.deferred(node)
        )
        if parts is not None:
            waiting = self._waiting(
                node, channel, parts[0], value, n - 1, f"by step {n - 1}'s Update"
            )
            return waiting or ([self._deferred(node, n, channel, n - 1)] if held else [])
        if channel in before.updated_channels:
            return []
        if held:
            return [self._deferred(node, n, channel, n - 1)]
        woke = []
        for name in sorted(c for c in before.updated_channels if self.wiring.is_trigger(c)):
            written = self.history.written(name, None, before=n)
            writers = tuple(dict.fromkeys(written[1].writers)) if written else ()
            woke.append(f"{name} (written by {join_names(writers)})" if writers else name)
        earlier = [step for step in self.history.ran_at(node) if step < n]
        last = f" {node} last ran at step {earlier[-1]}." if earlier else ""
        changed = ", ".join(woke) or self._no_trigger_changed(n - 1)
        text = (
            f"Step {n}'s Plan wakes the nodes whose trigger channels step {n - 1}'s Update "
            f"changed: {changed}. {channel} was not among them.{self._push_tasks(n, woke)}"
            f"{last}"
        )
        reason = Reason("not_updated", text, n - 1, channel)
        return [Finding(f"nothing wrote {channel} in step {n - 1}", reason)]

    def _no_trigger_changed(self, m: int) -> str:
        """``none``, and what step m's Update changed instead (the writes of its tasks)."""
        superstep = self.history.get(m)
        changed = []
        for change in superstep.update.changes if superstep and superstep.update else ():
            writers = join_names(dict.fromkeys(change.writers))
            if change.channel == TASKS and writers:
                changed.append(f"{TASKS} (the Sends of {writers})")
            elif writers:
                changed.append(f"{change.channel} (written by {writers})")
        return f"none; that Update changed only {join_names(changed)}" if changed else "none"

    def _push_tasks(self, n: int, woke: list[str]) -> str:
        """Where step n's push tasks came from: the Sends step n-1's Update queued."""
        sends = self.history.sends(n - 1)
        if not sends:
            return ""
        counts = Counter(getattr(packet, "node", "?") for _, packet in sends)
        each = join_names([f"{count} for {target}" for target, count in counts.items()])
        where = "the Sends in " + TASKS if woke else "those Sends"
        return f" Step {n}'s push tasks came from {where}: {each}."

    def _waiting(
        self,
        node: str,
        channel: str,
        sources,
        seen: Any,
        upto: int,
        when: str,
        unapplied: tuple[str, ...] = (),
    ) -> list[Finding]:
        """The waiting edge is still missing some sources (``graphkit.inspect.waiting``)."""
        found = still_waiting(self.history, (node, channel, sources), seen, upto, when, unapplied)
        return [Finding(*found)] if found is not None else []

    def _written_in(self, node: str, n: int, channel: str) -> list[Finding]:
        """The trigger was written during step n itself: visible only at step n+1 (or
        never, if step n failed)."""
        superstep = self.history.steps[n]
        change = superstep.update.change(channel) if superstep.update is not None else None
        if change is not None and change.writers:
            parts = self.wiring.barrier(channel)
            if parts is not None and barrier_seen(change.after) != set(parts[0]):
                return []  # the edge is still incomplete: "still waiting" says it all
            if self.wiring.deferred(node) and channel not in superstep.update.updated_channels:
                return [self._deferred(node, n, channel, n)]
            writers = tuple(dict.fromkeys(change.writers))
            later = self.history.get(n + 1)
            runs = "runs" if later is not None and node in later.plan.nodes else "would be woken"
            through = self._through(writers, node, channel, n)
            text = (
                f"{join_names(writers)} wrote {channel} during step {n}'s Execute{through}. "
                f"Writes are applied in step {n}'s "
                f"Update, after every task of step {n} finished, so the write becomes visible "
                f"only in the next step: {node} {runs} at step {n + 1}."
            )
            phrase = (
                f"{both(writers)} wrote {channel} in step {n}, and a write becomes visible "
                f"only in the next step, so {node} {runs} at step {n + 1}"
            )
            return [Finding(phrase, Reason("next_step", text, n, channel, writers))]
        writers = self.history.unapplied_writers(channel, n)
        if not writers:
            return []
        if self.history.run.error is None:  # stopped before the Update, which may yet run
            return [self._not_applied_yet(node, channel, n, writers)]
        text = (
            f"{join_names(writers)} wrote {channel} in step {n}, but the step failed "
            f"({show_error(self.history.run.error)}), so its Update never ran and the write "
            "was never applied."
        )
        phrase = f"{join_names(writers)} wrote {channel} in step {n}, but that step failed"
        return [Finding(phrase, Reason("unapplied", text, n, channel, writers))]

    def _not_applied_yet(
        self, node: str, channel: str, n: int, writers: tuple[str, ...]
    ) -> Finding:
        """Step n stopped after its Execute without failing (the debugger between phases,
        a task paused in ``interrupt()``, a LangGraph thread whose process ended): its
        writes are kept, and the Update applies them when the run goes on."""
        through = self._through(writers, node, channel, n)
        waits = self._still_waits(node, channel, n, writers)
        text = (
            f"{join_names(writers)} wrote {channel} during step {n}'s Execute{through}, and "
            f"the run stopped before step {n}'s Update, so the write is not applied yet. "
            f"The step's finished writes are kept with its checkpoint: when the run goes on "
            "(the debugger's Update, a resume, invoke(None, config) on the thread), they are "
            f"applied and {waits or f'{node} runs at step {n + 1}'}."
        )
        then = f"; applied, {waits}" if waits else f", so {node} would run at step {n + 1}"
        phrase = (
            f"{both(writers)} wrote {channel} in step {n}, and the run stopped before that "
            f"step's Update{then}"
        )
        return Finding(phrase, Reason("next_step", text, n, channel, writers))

    def _still_waits(self, node: str, channel: str, n: int, writers: tuple[str, ...]) -> str | None:
        """What keeps ``node`` waiting once step n's kept writes are applied: the rest of
        its waiting edge, or its ``defer=True``; None when it then runs at step n+1."""
        parts = self.wiring.barrier(channel)
        if parts is not None:
            before = self.history.steps[n].checkpoint_before.channel_values.get(channel, EMPTY)
            seen = barrier_seen(before) | set(writers)
            missing = [source for source in parts[0] if source not in seen]
            if missing:
                edge = f"[{', '.join(parts[0])}] → {node}"
                return f"the waiting edge {edge} still waits for {join_names(missing)}"
        if self.wiring.deferred(node):
            return f"{node}, added with defer=True, runs once the run has nothing else to run"
        return None

    def _through(self, writers: tuple[str, ...], node: str, channel: str, n: int) -> str:
        """`` (through the edge a → b)``: the way step ``n``'s writers reached ``node``;
        nothing for a channel they write themselves (a low-level Pregel's), where the way
        is the writers the sentence already names."""
        commanded = self.history.commanded(writers, node, n)
        if self.wiring.direct(channel, commanded):
            return ""
        return f" (through {self.wiring.via(writers, node, channel, commanded)})"

    def _deferred(self, node: str, n: int, channel: str, upto: int) -> Finding:
        """``node`` is deferred: the writes to its trigger up to step ``upto`` are held
        back until the run has nothing else to run."""
        wrote = self.history.writes_since_reset(channel, upto)
        writers, steps = tuple(wrote), sorted(set(wrote.values()))
        commanded = self.history.commanded(writers, node, steps[-1]) if steps else []
        via = self.wiring.via(writers, node, channel, commanded)
        who = wrote_in(writers, channel, steps)
        held = (
            f"step {steps[0]}'s Update held the write back"
            if len(steps) == 1
            else f"the Updates of steps {join_names([str(s) for s in steps])} held the writes back"
        )
        later = [step for step in self.history.ran_at(node) if step > n]
        runs = f"{node} runs at step {later[0]}." if later else f"The run ended before {node} ran."
        if not later and self.history.run.status not in ("done", "error", "out_of_steps"):
            # (the debugger mid-run, a paused thread: the run has not got there yet)
            last = self.history.get(self.history.last)
            following = f"the run's next step is {self.history.last + 1}"
            if last is not None and last.update is None:  # (paused or stopped inside it)
                following = f"the run stopped inside step {last.step} and goes on with it"
            runs = (
                f"{node} has not run yet: {following}, and it runs {node} at the first step "
                "with nothing else to run."
            )
        superstep = self.history.get(n)
        if superstep is not None and upto < n and superstep.plan.nodes:
            runs = runs.replace("The run ended", "the run ended")  # (after a semicolon)
            runs = f"Step {n}'s Plan woke {join_names(superstep.plan.nodes)} instead; {runs}"
        text = (
            f"{who} (through {via}), and {node} was added with defer=True: a deferred node "
            f"waits until the run has nothing else to run, so {held}. {runs}"
        )
        phrase = f"{who}, but {node} is deferred: it waits until the run has nothing else to run"
        phrase += f", so it runs at step {later[0]}" if later else ""
        reason = Reason("deferred", text, steps[0] if steps else upto, channel, writers)
        return Finding(phrase, reason)

    def _sends(self, node: str, n: int) -> list[Finding]:
        """Packets for ``node``: none sent in step n-1, or one sent in step n itself."""
        found = []
        if not any(getattr(p, "node", None) == node for _, p in self.history.sends(n - 1)):
            text = f"Nothing sent {node} a packet (Send) in step {n - 1}."
            reason = Reason("not_sent", text, n - 1)
            found.append(Finding(f"nothing sent {node} a packet in step {n - 1}", reason))
        senders = tuple(
            dict.fromkeys(s for s, p in self.history.sends(n) if getattr(p, "node", None) == node)
        )
        if senders:
            later = self.history.get(n + 1)
            runs = "runs" if later is not None and node in later.plan.nodes else "would run"
            text = (
                f"{join_names(senders)} sent {node} a packet (Send) during step {n}'s Execute; "
                f"step {n}'s Update queues it, so it becomes visible only in the next step: "
                f"{node} {runs} at step {n + 1}."
            )
            phrase = (
                f"{both(senders)} sent it a packet in step {n}, and a write becomes visible "
                f"only in the next step, so {node} {runs} at step {n + 1}"
            )
            found.append(Finding(phrase, Reason("next_step", text, n, None, senders)))
        return found

    def _chose_otherwise(self, node: str, n: int) -> list[Finding]:
        """Routers that ran in step n-1 and could have chosen ``node``, but did not."""
        previous = self.history.get(n - 1)
        found = []
        for result in previous.execution.results if previous and previous.execution else ():
            source = result.task.node
            if result.error is not None or not self.wiring.may_route(source, node):
                continue
            chosen = self._choices(source, n - 1)
            if node in chosen:
                continue
            dropped = self.history.dropped(source, n - 1)
            ran = f"{source} ran in step {n - 1} and its {self.wiring.router_words(source, node)}"
            text, choice = router_choice(ran, chosen, dropped, node, f" in step {n - 1}")
            reason = Reason("chose_otherwise", text, n - 1, None, (source,))
            rank = None if self.wiring.declares(source, node) else _UNDECLARED
            found.append(Finding(f"{source} chose {choice}", reason, rank))
        return found

    # -- the run had stopped, or the node never ran -------------------------------------------

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
            if edited:
                phrase = f"the run finished at step {after}: step {last}'s state edit woke no node"
            # (a step asked after the end is often the wrong step: say where the node ran,
            # or why it never did, rather than only that nothing ran there)
            ran_at = self.history.ran_at(node)
            if ran_at:
                text += f" {node} last ran at step {ran_at[-1]}."
                phrase += f"; {node} last ran at step {ran_at[-1]}"
            if edit is not None and edited:
                text += " " + edit_woke_nothing(edit, node, self.wiring)
            reason = Reason("finished", text, after)
            if not ran_at:
                never = self.never_ran(node)
                extra.extend(never.reasons)
                phrase += f", and {never.summary.removesuffix('.')}"
        elif run.status == "out_of_steps":
            final = self.history.final_checkpoint()
            due = final is not None and any(
                channel in final.updated_channels for channel in self.wiring.triggers(node)
            )
            where = f", where {node} was due to run" if due else ""
            text = (
                f"The run reached its recursion limit before step {after} (GraphRecursionError)"
                f"{where}. Raise config['recursion_limit'] if the graph needs more steps, or "
                "check that a router eventually routes to END."
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
                rank = None if self.wiring.declares(source, node) else _UNDECLARED
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

    def _choices(self, source: str, step: int) -> tuple[str, ...]:
        """What ``source``'s router chose in ``step``: the nodes it woke, then its ``Send``s
        ("a Send to c"); none is END (a step whose router only sent chose no END)."""
        dropped = self.history.dropped_sends(source, step)
        sent = (
            f"a Send to {node!r} (not a node)" if node in dropped else f"a Send to {node}"
            for node in self.history.sent(source, step)
        )
        return (*self.history.chosen(source, step), *sent)


def _ran_before(node: str, seen: dict[str, int]) -> str:
    """That ``node`` ran before the records begin, as the state they start from says."""
    versions = ", ".join(f"{channel} v{version}" for channel, version in sorted(seen.items()))
    return (
        f"That checkpoint shows {node} had run before it (it had seen {versions}), but "
        "not when or why."
    )


def most_telling(found: list[Finding], default: str) -> str:
    """The phrase of the most telling finding (``default`` if there is none)."""
    if not found:
        return default
    telling = min(found, key=lambda f: _TELLING.get(f.reason.kind, 9) if f.rank is None else f.rank)
    return telling.phrase
