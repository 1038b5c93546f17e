"""Why a task ran whose trigger was written before the run's records begin, in words.

A resumed run (``invoke(None, config)`` after a failure or an interrupt), a replay of an
older checkpoint, and a thread whose first steps were not saved all begin their records
at a checkpoint: the step whose edge, router or waiting edge chose the node is not in
them. ``why`` once said "branch:to:prices was written before the checkpoint this run
started from, by a node the records do not show": a runtime channel, and no answer. The
checkpoint says which channels its step changed (``updated_channels``), so the step is
known; the thread's history, when ``why`` has the graph and its checkpointer, keeps
the writes of that step's tasks against the checkpoint before it; and the graph's
wiring names the one edge or router that can lead to the node.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphkit.constants import START, TASKS
from graphkit.inspect.explanation import Reason
from graphkit.inspect.findings import Finding
from graphkit.inspect.values import branch_target, join_names, show

if TYPE_CHECKING:
    from graphkit.checkpoint import Checkpoint
    from graphkit.inspect.history import History
    from graphkit.inspect.wiring import Wiring

__all__ = ["sent_before", "woken_before"]


def woken_before(
    history: History, wiring: Wiring, node: str, channel: str, version: int | None, n: int
) -> Finding:
    """Why ``node`` ran at step ``n`` on ``channel``'s ``version``, which the checkpoint
    the records begin from already held: which edge or router chose it, in which step."""
    start = history.start
    assert start is not None  # (only asked when the records begin at a checkpoint)
    step = start.step if channel in start.updated_channels else None
    taken = _taken(wiring, node, channel, _writers(wiring, start, node, channel, step))
    start_words = history.start_words
    at = f", version {version}" if version is not None else ""
    if history.unsaved_start:  # (a thread saved only at its end: no resume, no replay)
        phrase = f"{taken} in step {step}, whose checkpoint is the thread's first saved one"
        text = (
            f"{_capital(taken)} in step {step}, which made {start_words}"
            if step is not None
            else f"{_capital(taken)} before {start_words}"
        )
        text += (
            f" (it wrote {channel}{at}), and {node} had not run on it, so step {n}'s Plan "
            f"woke {node}. The steps before it were not saved, so their records are not here."
        )
    else:
        phrase = f"{taken} in step {step}, and this run started from that step's checkpoint"
        text = (
            f"In step {step}, before this run, {taken}"
            if step is not None
            else f"Before {start_words}, {taken}"
        )
        text += (
            f" (it wrote {channel}{at}). This run started from the checkpoint saved after "
            f"step {start.step} (a resume goes on from the thread's last checkpoint, a replay "
            f"from the one it names), in which {node} had not yet run on that write, so step "
            f"{n}'s Plan, made again from it, woke {node}."
        )
    if step is None:
        phrase = f"{taken} before {start_words}"
    if taken.startswith("an edge or router") and not wiring.has_graph:
        text += " Pass the graph (run.why(node, graph=app)) to name the edge or router."
    reason = Reason("before_records", text, history.first, channel)
    return Finding(phrase, reason)


def sent_before(history: History, wiring: Wiring, packet: Any, n: int) -> Finding | None:
    """Why a push task ran at step ``n`` on ``packet``, which a step before the records
    (a resumed run's, a replay's) sent: who sent it and when, or None when the checkpoint
    step ``n`` planned from is not the one the records begin from, or no step sent it."""
    start = history.start
    if start is None or history.unsaved_start or TASKS not in start.updated_channels:
        return None
    if history.steps[n].checkpoint_before.id != start.id:
        return None
    step = start.step
    senders = _saved_writers(wiring.graph, start, TASKS)
    who = join_names(senders) if senders else "a node of that step"
    text = (
        f"{who} sent {show(packet, 80)} in step {step}, before this run (a Send, from a "
        f"router or a Command). This run started from the checkpoint saved after step {step} "
        f"(a resume goes on from the thread's last checkpoint, a replay from the one it "
        f"names), where the packet was still queued, so step {n}'s Plan, made again from "
        "it, made a push task for it, with the packet's value as its whole input."
    )
    if not senders and not wiring.has_graph:
        text += " Pass the graph (run.why(node, graph=app)) to name the sender."
    phrase = f"{who if senders else 'a node'} sent it a packet (Send) in step {step}, and "
    phrase += "this run started from that step's checkpoint"
    return Finding(phrase, Reason("push", text, None, None, senders or ()))


def _taken(wiring: Wiring, node: str, channel: str, writers: tuple[str, ...] | None) -> str:
    """``the edge START → prices was taken``, ``plan's router 'route' chose prices``,
    ``the waiting edge [a, b] → c was complete``: what chose ``node``, in words."""
    if (parts := wiring.barrier(channel)) is not None:
        return f"the waiting edge [{', '.join(parts[0])}] → {node} was complete"
    if branch_target(channel) is None:  # (a low-level Pregel's channel: its writers)
        return f"{join_names(writers)} wrote {channel}" if writers else f"{channel} was written"
    if not writers:
        return f"an edge or router chose {node}"
    via = wiring.via(writers, node, channel)
    if via.startswith("the edge ") and " and " not in via:
        return f"{via} was taken"
    return f"{via} chose {node}"


def _writers(
    wiring: Wiring, start: Checkpoint, node: str, channel: str, step: int | None
) -> tuple[str, ...] | None:
    """The nodes whose writes to ``channel`` made it hold what the records begin from:
    the thread's history says, else the graph's wiring when one node leads to ``node``."""
    if step is not None and (saved := _saved_writers(wiring.graph, start, channel)):
        return saved
    if not wiring.exact or branch_target(channel) is None:
        return None
    sources = [
        source
        for source in (START, *wiring.node_names())
        if wiring.static_edge(source, node)
        or wiring.routers(source, node)
        or node in wiring.destinations(source)
    ]
    return (sources[0],) if len(sources) == 1 else None


def _saved_writers(graph: Any, start: Checkpoint, channel: str) -> tuple[str, ...] | None:
    """Who wrote ``channel`` in the step that saved ``start``, from the thread's history:
    a task's writes are kept against the checkpoint its step ran from (``start``'s
    parent), named by task id; that checkpoint's tasks name the ids' nodes."""
    saver = getattr(graph, "checkpointer", None)
    if saver is None or isinstance(saver, bool) or start.parent_id is None:
        return None
    try:  # (a saver that needs a thread id to list, or keeps no writes: nothing to say)
        found = next(iter(saver.list({"configurable": {"checkpoint_id": start.parent_id}})))
        ids = {task for task, written, _ in found.pending_writes or () if written == channel}
        names = {task.id: task.name for task in graph.get_state(found.config).tasks}
    except Exception:
        return None
    if not ids or not ids <= names.keys():
        return None
    return tuple(dict.fromkeys(name for task, name in names.items() if task in ids))


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
