"""Why a node did not run at the step after the run's last: the run has not gone on.

A run stopped between steps (the debugger, a LangGraph thread whose process ended
during a step, a state edit not followed by ``invoke(None, config)``) did not reach
its next step. A node the last Update made due there would run first when it goes
on: said so, with why the run stopped there, the author who saw the worker die in
that node is not told "the run has not reached step 3". Due means what the next Plan
runs: a trigger newer than the node has seen, a waiting edge all of whose sources
have written, and a deferred node only when no other node is due.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphkit.channels import EMPTY
from graphkit.inspect.explanation import Reason
from graphkit.inspect.values import barrier_seen

if TYPE_CHECKING:
    from graphkit.checkpoint import Checkpoint
    from graphkit.inspect.history import History
    from graphkit.inspect.wiring import Wiring

__all__ = ["is_edit", "not_reached"]


def not_reached(history: History, wiring: Wiring, node: str, n: int) -> tuple[Reason, str]:
    """The reason, and its phrase for a summary, of ``node`` not run at step ``n``,
    after the last step of a run that stopped (neither finished nor failed)."""
    run, last = history.run, history.last
    after = last + 1
    text = f"The run has not reached step {n} yet (its next step is {after})."
    due = _due(history, wiring, node) if run.status == "running" and n == after else None
    if due is None:
        return Reason("not_reached", text, after), f"the run has not reached step {n} yet"
    text = (
        f"Step {after} would run {node} (step {last}'s Update changed {due}), and the run "
        f"stopped before it: nothing of step {after} is in the records. A thread LangGraph "
        "saved stops so when its process ended during the step (or it was run with "
        "interrupt_before, or reached its recursion limit); going on (invoke(None, config), "
        f"the debugger's Step) runs {node}."
    )
    if is_edit(history, last):  # (nothing stopped it: an edit runs no node)
        text = (
            f"Step {after} would run {node} (step {last}'s Update changed {due}). Step "
            f"{last} is a state edit (update_state): an edit saves the edited state and runs "
            f"no node, so nothing ran after it. Going on (invoke(None, config), the "
            f"debugger's Step) runs {node}."
        )
    phrase = f"the run stopped before step {after}, which would run {node}"
    return Reason("not_reached", text, after, due), phrase


def is_edit(history: History, step: int) -> bool:
    """Whether step ``step`` is a state edit (``update_state``), not a step of nodes."""
    superstep = history.get(step)
    return superstep is not None and any(t.kind == "update" for t in superstep.plan.tasks)


def _due(history: History, wiring: Wiring, node: str) -> str | None:
    """The trigger channel of ``node`` the run's last Update changed to a version the
    node has not seen, so that the next Plan runs it; None if there is none (a waiting
    edge still missing a source, a deferred node behind another that is due)."""
    final = history.final_checkpoint()
    if final is None or history.steps[history.last].update is None:
        return None
    channel = _woken(wiring, node, final)
    if channel is None or not wiring.deferred(node):
        return channel
    others = [n for n in wiring.node_names() if n != node and not wiring.deferred(n)]
    return None if any(_woken(wiring, other, final) for other in others) else channel


def _woken(wiring: Wiring, node: str, final: Checkpoint) -> str | None:
    """A trigger channel of ``node`` newer in ``final`` than the node has seen, and
    available (a waiting edge all of whose sources have written)."""
    seen = final.versions_seen.get(node) or {}
    for channel in wiring.triggers(node):
        version = final.channel_versions.get(channel)
        if version is None or version <= seen.get(channel, 0):
            continue
        parts = wiring.barrier(channel)
        if parts is None or set(parts[0]) <= barrier_seen(final.channel_values.get(channel, EMPTY)):
            return channel
    return None
