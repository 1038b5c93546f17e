"""Why a node did NOT run at a step, or never ran: the other half of ``why``.

Step N's Plan wakes a node only if step N-1's Update changed one of its trigger
channels. So the reasons are, in the order they happened: what step N-1's Update
changed instead (and who wrote it), a waiting edge still missing a source, a router
that chose other nodes, a write made *during* step N (visible only at N+1), a write
lost because its step failed, and the run having stopped. The answers for a step the
records do not hold, and for the whole run, are ``inspect.never_ran``'s.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from graphkit.channels import EMPTY
from graphkit.constants import START, TASKS
from graphkit.inspect.edited import cleared_by_edit, edit_cleared
from graphkit.inspect.explanation import Answer, Reason
from graphkit.inspect.findings import UNDECLARED, Finding, most_telling
from graphkit.inspect.never_ran import NO_STEP, NeverRan
from graphkit.inspect.stopped import is_edit
from graphkit.inspect.values import barrier_seen, join_names, show_error
from graphkit.inspect.waiting import still_waiting
from graphkit.inspect.wording import both, router_choice, sentence, wrote_in

if TYPE_CHECKING:
    from graphkit.checkpoint import Checkpoint
    from graphkit.inspect.history import History
    from graphkit.inspect.wiring import Wiring
    from graphkit.pregel.records import Superstep

__all__ = ["NO_STEP", "Finding", "NotRan"]

# The order the reasons are listed in: the order things happened.
_CHRONOLOGY = {"not_updated": 0, "not_sent": 0, "still_waiting": 0, "chose_otherwise": 1}


class NotRan(NeverRan):
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
        if (gap := self.history.unsaved_gap(n)) is not None:  # (no record of its tasks)
            return self._in_unsaved_steps(node, n, gap)
        if n == -1:
            text = "Step -1 is the input step: only the input task __input__ runs in it."
            summary = f"{node} did not run at step -1: it is the input step."
            return Answer(node, n, False, summary, (Reason("input_step", text, -1),))
        superstep = self.history.steps[n]
        if superstep.plan.tasks and all(t.kind == "input" for t in superstep.plan.tasks):
            return self._new_input(node, n, superstep)
        if is_edit(self.history, n) and (cleared := cleared_by_edit(superstep, node, self.wiring)):
            text = edit_cleared(superstep, node, self.wiring, cleared)
            summary = (
                f"{node} did not run at step {n}: step {n} is a state edit (update_state), "
                f"whose Update cleared {node}'s pending run."
            )
            return Answer(node, n, False, summary, (Reason("edit_cleared", text, n),))
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

    def _new_input(self, node: str, n: int, superstep: Superstep) -> Answer:
        """Step n is a later invoke's input step: it runs only the input task. An input
        (not None) starts the thread again from START, and its Update drops the runs the
        thread had pending, ``node``'s among them when step n-1's Update had written its
        trigger; a Command writes no __start__, and what was pending stays due."""
        results = superstep.execution.results if superstep.execution is not None else ()
        if not any(channel == START for r in results for channel, _ in r.writes):
            return self._command_input(node, n)
        text = (
            f"Step {n} is the input step of a new invoke on the thread: it was given an "
            "input, not None, so it runs only __input__, and the thread starts again from "
            "START."
        )
        phrase = f"step {n} is a new input, which started the thread again from START"
        before = superstep.checkpoint_before
        due = [c for c in self.wiring.triggers(node) if c in before.updated_channels]
        if due:
            text += (
                f" Step {n - 1}'s Update had written {join_names(due)}, so {node} was due at "
                f"step {n} (the thread had stopped before it finished); the new input's "
                f"Update cleared {join_names(due)}, so {node} never ran on it."
            )
            phrase += f" and dropped {node}'s pending run"
        if self._pending(before):
            text += (
                " To go on from a pause, call invoke(None, config), or "
                "invoke(Command(resume=...), config) to answer an interrupt()."
            )
        reason = Reason("new_input", text, n)
        return Answer(
            node, n, False, sentence(f"{node} did not run at step {n}: {phrase}"), (reason,)
        )

    def _command_input(self, node: str, n: int) -> Answer:
        """Step n is the input step of an invoke given a Command (graphkit records one;
        LangGraph's thread does not): the thread goes on where it was."""
        text = (
            f"Step {n} is the input step of an invoke given a Command: it runs only "
            "__input__, which applies the Command's update and goto. A Command writes no "
            "__start__, so the thread does not start over: what it had left to run stays "
            f"due, and runs at step {n + 1}."
        )
        later = f"{node} runs at step {n + 1}" if n + 1 in self.history.ran_at(node) else ""
        summary = (
            f"{node} did not run at step {n}: step {n} is the input step of an invoke given a "
            f"Command, which runs only __input__{'; ' + later if later else ''}."
        )
        return Answer(node, n, False, summary, (Reason("input_step", text, n),))

    def _pending(self, before: Checkpoint) -> bool:
        """Whether the thread had a node left to run when the new input came: a trigger
        of some node that step n-1's Update wrote."""
        return any(
            channel in before.updated_channels
            for name in self.wiring.node_names()
            for channel in self.wiring.triggers(name)
        )

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
        gap = self.history.ran_unsaved(node, n)  # (it ran later than that, when not saved)
        if gap is not None and gap.start is not None and (not earlier or gap.start > earlier[-1]):
            last = f" {node} last ran in steps {gap.after + 1} to {gap.start}, not saved."
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
            rank = None if self.wiring.declares(source, node) else UNDECLARED
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
