"""Where a route a subgraph node wrote really came from: a handoff inside its subgraph.

A swarm's agent is a subgraph; its ``tools`` node runs a handoff tool that returns
``Command(graph=Command.PARENT, goto=...)``. The runtime stops the subgraph there and the
parent's task returns that ``Command`` as its node's own, so the parent's records say
only that the agent's node routed. ``why`` adds, from the subgraph's run, which of its
nodes (and which tool call) sent the ``Command`` up. A thread LangGraph saved keeps no
subgraph run of a handoff, so it adds nothing there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphkit.errors import ParentCommand
from graphkit.inspect.values import handoff, show

if TYPE_CHECKING:
    from graphkit.pregel.records import Superstep

__all__ = ["handed_up"]


def handed_up(superstep: Superstep | None, writer: str) -> str:
    """A sentence on the handoff inside ``writer``'s subgraph whose ``Command`` its task
    returned in ``superstep`` ("" when it returned its own, or the records don't say)."""
    execution = superstep.execution if superstep is not None else None
    for result in execution.results if execution is not None else ():
        if result.task.node != writer or not result.routed_up:
            continue
        for subrun in reversed(result.subruns):
            sent = handoff(subrun)
            origin = _origin(subrun, sent) if sent is not None else None
            if origin is not None:
                return (
                    f" That Command came from inside {writer}'s subgraph: {origin} returned "
                    f"Command(graph=Command.PARENT, goto={show(sent.goto, 60)}) in the "
                    f"subgraph's step {subrun.steps[-1].step}, which stopped the subgraph's run "
                    f"(handed off) and became {writer}'s own return."
                )
    return ""


def _origin(subrun: Any, sent: Any) -> str | None:
    """``its tools node, running the tool transfer_to_writer,``: the subgraph's task that
    raised the handoff in its last step (with the tool call its packet carried)."""
    last = subrun.steps[-1] if subrun.steps else None
    execution = last.execution if last is not None else None
    for result in execution.results if execution is not None else ():
        error = result.error
        if isinstance(error, ParentCommand) and error.command is sent:
            packet = result.task.input
            call = packet.get("tool_call") if isinstance(packet, dict) else None
            name = call.get("name") if isinstance(call, dict) else None
            tool = f", running the tool {name}," if isinstance(name, str) else ""
            return f"its {result.task.node} node{tool}"
    return None
