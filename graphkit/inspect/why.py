"""``run.why(node, step)``: why a node ran at a step, or why it did not.

A node runs at step N when step N-1's Update changed one of its trigger channels
(``branch:to:<node>``, written by an edge or a router of the node before it, or
``join:<a>+<b>:<node>``, a waiting edge, once all of its sources wrote) to a version
the node has not seen. So "why did it run" follows the trigger's version back to the
Update that wrote it; "why did it not run" looks at what step N-1's Update changed
instead, what step N itself wrote (visible only at N+1), which waiting edge is still
open, which router chose otherwise, and whether the run had stopped.

Without the compiled graph the records cannot tell a static edge from a router, so
answers say "an edge or conditional edge of X"; pass ``graph=app`` for exact wording.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphkit.constants import END, START, TASKS
from graphkit.diagnostics import some_names
from graphkit.diagnostics.names import near_miss
from graphkit.diagnostics.reading import check_node_name, step_number
from graphkit.inspect.cached import MAYBE, cached_reason, maybe_cached, maybe_cached_reason
from graphkit.inspect.dropped import dropped_reasons, read_dropped
from graphkit.inspect.edited import edited_before
from graphkit.inspect.explanation import Answer, Explanation, Reason
from graphkit.inspect.failed import failure_reasons
from graphkit.inspect.findings import Finding
from graphkit.inspect.handed_up import handed_up
from graphkit.inspect.history import History
from graphkit.inspect.in_subgraph import in_subgraph
from graphkit.inspect.resumed import resumed_reason_text, reused_call_reason, reused_reason
from graphkit.inspect.retried import retried_reason_text
from graphkit.inspect.separate_edges import separate_edges
from graphkit.inspect.started import input_before_records, input_reason, started_by
from graphkit.inspect.unsaved import not_saved, not_saved_reason, written_unsaved
from graphkit.inspect.values import branch_target, join_names, show
from graphkit.inspect.why_not import NotRan
from graphkit.inspect.wiring import Wiring
from graphkit.inspect.woken_before import sent_before, woken_before
from graphkit.inspect.wording import both, who_when, wrote_in
from graphkit.pregel.stepper import INPUT_TASK

if TYPE_CHECKING:
    from graphkit.pregel.records import Run

__all__ = ["why"]

_EDITED_SEND = "a state edit (update_state) sent it a packet (Send)"


def why(run: Run, node: str, step: int | None = None, *, graph: Any = None) -> Explanation:
    """Explain why ``node`` ran (or did not) at ``step``; with ``step=None``, at every
    step where it ran, or why it never ran.

    >>> from graphkit.inspect.examples import forecast_run
    >>> run = forecast_run()
    >>> print(why(run, "weather", step=1))  # doctest: +NORMALIZE_WHITESPACE
    weather did not run at step 1: planner wrote branch:to:weather in step 1, and a
    write becomes visible only in the next step, so weather runs at step 2.
      - Step 1's Plan wakes the nodes whose trigger channels step 0's Update changed:
      branch:to:planner (written by __start__). branch:to:weather was not among them.
      - planner wrote branch:to:weather during step 1's Execute (through an edge or
      conditional edge of planner). Writes are applied in step 1's Update, after every
      task of step 1 finished, so the write becomes visible only in the next step:
      weather runs at step 2.
    """
    if graph is not None:
        _check_graph(graph)
    history, wiring = History(run), Wiring(run, graph)
    # The learner's nodes: the input step's task and START's are the runtime's
    # (asking about them still works, but listing them hid the names one meant).
    nodes = [name for name in wiring.node_names() if name not in (INPUT_TASK, START)]
    nodes = nodes or wiring.node_names()
    check_node_name(node, "run.why(node)", nodes)
    if step is not None:
        step = step_number(step, "run.why(node, step)")
    if not wiring.knows(node):
        # (a name a router chose but no task ran is no node: listing it as one made a
        # learner asking about 'billing' think 'Billing' was the graph's spelling; and a
        # name the runtime dropped was answered "no edge or router chose Billing")
        dropped, stopped = wiring.chosen_not_run()
        chose = [f"{some_names(dropped)}, no node's name"] if dropped else []
        chose += [f"{some_names(stopped)}, never run"] if stopped else []
        told = [f"a router or Command chose {'; '.join(chose)}"] if chose else []
        # (a misspelt Send is in the records too: a packet no push task took)
        senders, unsent = _sent_to_no_node(history, wiring)
        if unsent:
            told.append(
                f"a Send from {join_names(senders)} named {some_names(unsent)}, no node's name"
            )
        also = f" ({'; '.join(told)})" if told else ""
        if node in (END, "END"):
            fix = "END is where a run stops, not a node that runs: ask about the node "
            fix += "that routed to END."
        elif inner := in_subgraph(run, node, graph):
            fix = inner
        elif slip := near_miss(node, nodes):
            fix = f"Did you mean {slip!r}?"
        elif wiring.has_graph:
            fix = "Check the name's spelling."
        else:
            fix = "To ask about a node the run never came near, pass the graph: "
            fix += "run.why(node, graph=app)."
        raise ValueError(
            f"Node {node!r} is not in this {'graph' if wiring.has_graph else 'run'}; its "
            f"nodes are {some_names(nodes)}{also}. {fix}"
        )
    if step is not None and step < -1:
        raise ValueError(f"Steps start at -1 (the input step); there is no step {step}.")
    ran, not_ran = _Ran(history, wiring), NotRan(history, wiring)
    ran_at = history.ran_at(node)
    if step is None:
        answers = [ran.ran(node, number) for number in ran_at] or [not_ran.never_ran(node)]
    elif step in ran_at:
        answers = [ran.ran(node, step)]
    else:
        answers = [not_ran.not_ran(node, step)]
    return Explanation(node, step, tuple(answers))


def _check_graph(graph: Any) -> None:
    """A ``TypeError`` unless ``graph`` is a compiled graph (graphkit's or LangGraph's):
    anything else was ignored, and the answer then said to pass the graph; a builder
    met an ``AttributeError`` inside."""
    from graphkit.bridge.convert import _is_langgraph_graph

    if hasattr(graph, "spec") or _is_langgraph_graph(graph):
        return
    fix = "builder.compile()" if hasattr(graph, "add_node") else "app"
    shown = "" if " object at 0x" in repr(graph) else f" {graph!r}"  # (no address)
    raise TypeError(
        f"run.why(node, graph=...) takes the compiled graph the run ran, got the "
        f"{type(graph).__name__}{shown}: pass graph={fix}."
    )


class _Ran:
    """Answers "why did ``node`` run at step n"."""

    def __init__(self, history: History, wiring: Wiring) -> None:
        self.history = history
        self.wiring = wiring

    def ran(self, node: str, n: int) -> Answer:
        superstep = self.history.steps[n]
        tasks = [task for task in superstep.plan.tasks if task.node == node]
        started = superstep.execution.results if superstep.execution is not None else ()
        tasks += [r.task for r in started if r.task.node == node and r.task.parent]
        found: list[Finding] = []
        for task in tasks:
            if task.parent is not None:
                found.append(started_by(superstep, task))
            elif task.kind == "input":
                found.append(Finding("it is the input step's task", input_reason(node, n, n)))
            elif task.kind == "push":
                found.append(self._packet(node, task.path, n))
            else:
                for channel in task.triggers:
                    found.extend(
                        self._trigger(node, channel, task.trigger_versions.get(channel), n)
                    )
        found = list(dict.fromkeys(found))  # (two calls by one caller: one reason)
        woken_by_edge = any(f.reason.kind in ("edge", "waiting_edge") for f in found)
        separate = separate_edges(self.history, self.wiring, node, n) if woken_by_edge else None
        because = found[0].phrase if found else "a trigger channel changed"
        retried = [r for r in started if r.task.node == node and r.failed_attempts]
        resumed = [r for r in started if r.task.node == node and r.answers]
        cached = [r for r in started if r.task.node == node and r.cached]
        reused = [r for r in started if r.task.node == node and r.reused]
        # (a functional-API call a resume reused returned its saved result to the caller)
        calls_reused = bool(reused) and all(r.task.kind == "call" for r in reused)
        unsaved = [r for r in started if r.task.node == node and not_saved(r) is not None]
        unsaid = not cached and maybe_cached(node, started, self.wiring)
        times = f" ({len(tasks)} tasks)" if len(tasks) > 1 else ""
        if (
            len(tasks) == 1 and retried and retried[0].attempts is not None
        ):  # (each attempt ran it from its start: said first)
            times = f" ({len(retried[0].failed_attempts) + 1} attempts)"
        edit = edited_before(self.history, n)
        reasons = (
            *(f.reason for f in found),
            *((separate,) if separate else ()),
            *(Reason("retried", retried_reason_text(r) or "", n, None, (node,)) for r in retried),
            *(
                Reason("resumed", resumed_reason_text(r, started) or "", n, None, (node,))
                for r in resumed
            ),
            *((cached_reason(node, n, len(cached), self.wiring),) if cached else ()),
            *(
                (reused_reason(node, n, len(reused), len(tasks)),)
                if reused and not calls_reused
                else ()
            ),
            *((reused_call_reason(node, n, len(reused)),) if calls_reused else ()),
            *((maybe_cached_reason(node, n, self.wiring),) if unsaid else ()),
            *((not_saved_reason(node, n, unsaved),) if unsaved else ()),
            *dropped_reasons(superstep, node),
            *failure_reasons(superstep, node),
            *read_dropped(self.history, superstep, node),
            *((edit[1],) if edit else ()),
        )
        # a step stopped after its Plan (a breakpoint, the debugger between phases) has
        # not run its tasks yet: they are planned
        did = "ran" if superstep.execution is not None else "is planned to run"
        after = f", after {edit[0]}" if edit and because != _EDITED_SEND else ""
        summary = f"{node} {did} at step {n}{times} because {because}{after}{MAYBE * unsaid}."
        if cached and len(cached) == len(tasks):  # (its writes were the cache's: it did not run)
            summary = (
                f"{node} was planned at step {n}{times} because {because}{after}; the node "
                f"cache served its writes, so it did not run."
            )
        if reused and len(reused) == len(tasks) and calls_reused:
            summary = (
                f"{node} was called at step {n}{times} because {because}; the run was "
                f"resumed and {'its saved results' if len(reused) > 1 else 'its saved result'}"
                " went back to the caller, so its code did not run again."
            )
        elif reused and len(reused) == len(tasks):  # (a resume applied its saved writes)
            summary = (
                f"{node} was planned at step {n}{times} because {because}{after}; its "
                "writes were saved before the run stopped, so it did not run again."
            )
        if unsaved and len(unsaved) == len(tasks) and superstep.update is None:
            summary = (  # (nothing saved: it may not have finished, and will run again)
                f"{node} was planned at step {n}{times} because {because}{after}; nothing of "
                "it was saved, so it may not have finished, and going on runs it again."
            )
        return Answer(node, n, True, summary, reasons)

    def _packet(self, node: str, path: tuple[Any, ...], n: int) -> Finding:
        """A push task: which task sent its packet, in which step (or the state edit
        step n planned from, whose packets replaced what was sent before it)."""
        index = path[1] if len(path) > 1 and isinstance(path[1], int) else -1
        m, sends = self.history.queued(n)
        if not sends:  # (a checkpoint that does not keep its packets: the last Sends)
            m, sends = n - 1, self.history.sends(n - 1)
        if not 0 <= index < len(sends):
            reason = Reason("push", f"{node} was sent a packet (Send) in step {n - 1}.", n - 1)
            return Finding("it was sent a packet (Send)", reason)
        sender, packet = sends[index]
        if sender is None:
            return self._edited_packet(node, packet, n, m)
        how = self._send_way(sender, node, m)
        text = (
            f"{sender} sent {show(packet, 80)} in step {m} (through {how}); "
            f"step {m}'s Update queued it, so step {m + 1}'s Plan made a push task for it, "
            "with the packet's value as its whole input."
        ) + handed_up(self.history.steps.get(m), sender)
        reason = Reason("push", text, m, None, (sender,))
        return Finding(f"{sender} sent it a packet (Send) in step {m}", reason)

    def _send_way(self, sender: str, node: str, m: int) -> str:
        """How ``sender``'s packet to ``node`` in step ``m`` was sent: through its Command
        (its output holds it) or a router. A thread LangGraph saved keeps no node's
        output, so no Command: the graph tells (a router that can choose ``node``, or a
        Command its declared destinations allow), or both ways are named (it said "a
        router" for a node that has none)."""
        if sender in self.history.commanded((sender,), node, m):
            return "its Command"
        superstep = self.history.steps.get(m)
        results = superstep.execution.results if superstep and superstep.execution else ()
        if not any(r.task.node == sender and r.attempts is None for r in results):
            return "a router"  # (graphkit's own run: its output would hold a Command)
        router = bool(self.wiring.exact and self.wiring.routers(sender, node))
        command = node in self.wiring.destinations(sender)
        if self.wiring.exact and router != command:
            return "a router" if router else "its Command"
        return "a router or its Command"

    def _edited_packet(self, node: str, packet: Any, n: int, m: int | None) -> Finding:
        """A packet no recorded step sent: the checkpoint step n planned from is a state
        edit (or Back's fork of one: the packets replaced some a recorded step sent, step
        m when the records hold the edit), or the records begin with it."""
        checkpoint = self.history.steps[n].checkpoint_before
        earlier = self.history.written(TASKS, None, before=n if m is None else m)
        if checkpoint.source != "update" and (earlier is None or checkpoint.source != "fork"):
            if (sent := sent_before(self.history, self.wiring, packet, n)) is not None:
                return sent
            start = self.history.start_words or f"the checkpoint step {n} planned from"
            text = (
                f"{show(packet, 80)} was already queued in {start}, by a node the records "
                f"do not show, so step {n}'s Plan made a push task for it."
            )
            reason = Reason("push", text, None)
            return Finding(f"it was sent a packet (Send) before {start}", reason)
        instead = (
            f", in place of the packets {join_names(dict.fromkeys(earlier[1].writers))} "
            f"sent in step {earlier[0]}"
            if earlier is not None and earlier[1].writers
            else ""
        )
        source = "checkpoint source 'update'"
        if checkpoint.source == "fork":  # (the debugger's Back restored the edited state)
            source = "restored by a fork, checkpoint source 'fork'"
        text = (
            f"A state edit (update_state) queued {show(packet, 80)}{instead}: step {n} ran "
            f"from the edited state ({source}), so its Plan made a push task "
            "for the edited packet, with the packet's value as its whole input."
        )
        return Finding(_EDITED_SEND, Reason("push", text, m))

    def _trigger(self, node: str, channel: str, version: int | None, n: int) -> list[Finding]:
        origin = self.history.written(channel, version, before=n)
        if channel == START:
            if origin is None or self.history.before_records(channel, version, n):
                return [input_before_records(node, n, self.history.start_words)]
            m = origin[0]
            return [
                Finding(f"the input was written to __start__ in step {m}", input_reason(node, n, m))
            ]
        if self.history.before_records(channel, version, n):
            return [woken_before(self.history, self.wiring, node, channel, version, n)]
        if origin is None:
            text = f"{channel} had a version {node} had not seen (v{version})."
            return [Finding(f"{channel} changed", Reason("channel", text, None, channel))]
        m, change = origin
        if change.unsaved is not None and change.unsaved.start is not None:
            return [written_unsaved(node, channel, change, n)]
        if self.wiring.deferred(node):
            return self._released(node, channel, m, change.version_after)
        writers = tuple(dict.fromkeys(change.writers))
        parts = self.wiring.barrier(channel)
        if parts is not None:
            edge = f"[{', '.join(parts[0])}] → {node}"
            wrote = self.history.writes_since_reset(channel, m)
            when = who_when(parts[0], wrote)
            text = (
                f"{node} waits for every source of the waiting edge {edge} ({channel}): "
                f"{when}. Step {m}'s Update completed it, so step {m + 1}'s Plan woke {node}."
            )
            reason = Reason("waiting_edge", text, m, channel, tuple(wrote))
            return [Finding(f"the waiting edge {edge} was complete: {when}", reason)]
        if not writers:
            text = f"The runtime changed {channel} in step {m}, so step {m + 1}'s Plan woke {node}."
            return [Finding(f"{channel} changed in step {m}", Reason("channel", text, m, channel))]
        if writers == (INPUT_TASK,) and branch_target(channel) is None:  # a Pregel's input
            text = (
                f"Step {m} (the input step) wrote the run's input to {channel}; its Update "
                f"applied it, so step {m + 1}'s Plan woke {node}."
            )
            reason = Reason("input", text, m, channel, writers)
            return [Finding(f"the input was written to {channel} in step {m}", reason)]
        via = self.wiring.via(writers, node, channel, self.history.commanded(writers, node, m))
        text = (
            f"{channel} was written in step {m} by {via}; "
            f"step {m}'s Update applied it (version {change.version_after}), so step "
            f"{m + 1}'s Plan woke {node}."
        )
        text += "".join(self._besides_command(writer, node, m) for writer in writers)
        text += "".join(handed_up(self.history.steps.get(m), writer) for writer in writers)
        kind = "edge" if branch_target(channel) else "channel"
        reason = Reason(kind, text, m, channel, writers)
        return [Finding(f"{both(writers)} wrote {channel} in step {m}", reason)]

    def _besides_command(self, writer: str, node: str, m: int) -> str:
        """A node that routed with ``Command(goto=...)`` in step ``m`` and also has an edge
        to ``node``: both are followed (a leftover ``add_edge`` beside a Command sent a
        billing question to the tech desk too, and the answer named only the edge).
        Nothing when its task returned no Command that step."""
        chose = [getattr(d, "node", d) for d in self.history.goto(writer, m)]
        if chose and node not in chose:
            goto = chose[0] if len(chose) == 1 else chose
            return (
                f" {writer} also returned Command(goto={goto!r}), which did not choose "
                f"{node}: a Command's goto is followed besides its node's edges and routers, "
                f"not instead of them."
            )
        # A thread LangGraph saved keeps no node's output, so no Command: the nodes it
        # woke that only its Command could have (declared, with no edge or router to
        # them) say it returned one that step. A step that returned a plain dict woke none.
        went = [
            d
            for d in self.history.chosen(writer, m)
            if d != node
            and d in self.wiring.destinations(writer)
            and not self.wiring.static_edge(writer, d)
            and not self.wiring.routers(writer, d)
        ]
        if not chose and went and self.wiring.static_edge(writer, node):
            return (
                f" {writer} also routes with Command(goto=...) (to {join_names(went)}): its "
                f"edge to {node} is followed whatever the Command chooses, besides it."
            )
        return ""

    def _released(self, node: str, channel: str, m: int, version: int) -> list[Finding]:
        """A deferred node's trigger: written earlier, held back, and released by step
        m's Update because nothing else was left to run."""
        wrote = self.history.writes_since_reset(channel, m)
        writers, steps = tuple(wrote), sorted(set(wrote.values()))
        parts = self.wiring.barrier(channel)
        if parts is not None:
            held = (
                f"{node} waits for every source of the waiting edge [{', '.join(parts[0])}] → "
                f"{node} ({channel}): {who_when(parts[0], wrote)}; {node} was added with "
                "defer=True, so the complete edge was held back instead of waking "
                f"{node} in the next step."
            )
            kind = "waiting_edge"
        else:
            commanded = self.history.commanded(writers, node, steps[-1]) if steps else []
            via = self.wiring.via(writers, node, channel, commanded)
            written = (
                f"{channel} was written in step {steps[0]} by {via}"
                if len(steps) == 1
                else f"{channel} was written by {via} ({who_when(writers, wrote)})"
            )
            held = (
                f"{written}; {node} was added with defer=True, so the write was held back "
                f"instead of waking {node} in the next step."
            )
            kind = "edge"
        released = (
            "A deferred node waits until the run has nothing else to run: step "
            f"{m}'s Update woke no other node, so it released {channel} (version {version}) "
            f"and step {m + 1}'s Plan woke {node}."
        )
        phrase = (
            f"{wrote_in(writers, channel, steps)}, and {node} is deferred: it waits until the "
            "run has nothing else to run"
        )
        first = steps[0] if steps else m
        return [
            Finding(phrase, Reason(kind, held, first, channel, writers)),
            Finding(phrase, Reason("deferred", released, m, channel)),
        ]


def _sent_to_no_node(history: History, wiring: Wiring) -> tuple[list[str], list[str]]:
    """Who sent packets (``Send``) the runtime dropped, and the names they were sent to:
    names of no node, for which the next Plan made no push task."""
    nodes = set(wiring.node_names())
    senders: dict[str, None] = {}
    unsent: dict[str, None] = {}
    for n, superstep in sorted(history.steps.items()):
        for result in superstep.execution.results if superstep.execution else ():
            source = result.task.node
            for target in history.dropped_sends(source, n):
                if target not in nodes:
                    senders[source], unsent[target] = None, None
    return list(senders), list(unsent)
