"""The state panel: the values of the step shown, and what its phase does to them.

After Plan the panel shows the values the step reads; after Execute each channel a
task wrote carries its *pending* writes (not applied yet, so the value is unchanged);
after Update each changed channel shows *before → after*. The drawing says the same
with dashed (pending) and solid (applied) lines, so the two phases never look alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphkit.channels import EMPTY
from graphkit.inspect.markup import escape
from graphkit.inspect.mutated import mutated_in
from graphkit.inspect.values import is_internal, show
from graphkit.pregel.records import Superstep

__all__ = ["STATE_CSS", "FailedUpdate", "starting_values", "state_html"]

STATE_CSS = """
.gk-state-table { border-collapse: collapse;
  font: 12px ui-monospace, 'DejaVu Sans Mono', monospace; }
.gk-state-table th, .gk-state-table td { border: 1px solid rgba(127,127,127,.35); padding: 2px 6px;
  text-align: left; vertical-align: top; white-space: pre-wrap; overflow-wrap: anywhere; }
/* (a channel's name whole: with the values' break-anywhere it was the column given up,
   'question' read as 'questi' / 'on') */
.gk-state-table th:first-child, .gk-state-table td:first-child { white-space: nowrap;
  overflow-wrap: normal; }
/* (a short value whole too: beside the long note of a failed Update, 'fruit' broke as
   "'fruit" / "'", the value column given up as the channel's was) */
.gk-state-table td:nth-child(2) { min-width: 12ch; }
.gk-state-table tr.gk-pending td:first-child { border-left: 3px dashed #009e73; }
.gk-state-table tr.gk-changed td:first-child { border-left: 4px solid #009e73; }
.gk-state-table tr.gk-changed td { font-weight: 600; }
.gk-state-table tr.gk-failed td:first-child { border-left: 4px solid #d55e00; }
.gk-state-table tr.gk-failed td { font-weight: 600; }
.gk-state-table tr.gk-lost td:first-child { border-left: 3px dotted #d55e00; }
.gk-state-caption { font-size: 12px; opacity: .8; margin: 2px 0; }
"""
"""Styles of the panel: pending rows dashed, changed rows solid, both bluish green; the
row of a channel whose Update failed solid vermillion, as the error marks in the drawing,
and of a key a node set in its input and did not return (lost) dotted vermillion."""


def starting_values(app: Any) -> dict[str, Any]:
    """What each state key of ``app`` holds before anything writes it: a reducer's ``0``
    or ``[]``, which no checkpoint saves (LangGraph's neither) until a write changes it."""
    channels = getattr(getattr(app, "spec", None), "channels", {})
    starts = {name: channel.checkpoint() for name, channel in channels.items()}
    return {name: value for name, value in starts.items() if value is not EMPTY}


def state_html(
    superstep: Superstep | None,
    phase: str | None,
    values: Any = None,
    starts: Mapping[str, Any] | None = None,
    failed: FailedUpdate | None = None,
) -> str:
    """The panel for ``superstep`` as of ``phase`` (``values``: the state before any step;
    ``starts``: what a key no checkpoint holds yet starts from, ``starting_values(app)``;
    ``failed``: the step's Update raised, and on which channel).

    >>> state_html(None, None, {"n": 1})
    '<div class="gk-state-caption">the state (no step yet)</div><table class="gk-state-table"><tr><th>channel</th><th>value</th><th>this step</th></tr><tr><td>n</td><td>1</td><td></td></tr></table>'
    """  # noqa: E501
    notes: dict[str, tuple[str, str]] = {}
    if superstep is None or phase is None:
        caption, current = "the state (no step yet)", dict(values or {})
    elif phase == "update" and superstep.update is not None:
        caption = "after Update: the changed channels, before → after (applied)"
        current = dict(superstep.update.checkpoint.channel_values)
        for change in superstep.update.changes:
            notes[change.channel] = ("gk-changed", f"{show(change.before)} → {show(change.after)}")
    else:
        current = dict(superstep.checkpoint_before.channel_values)
        caption = "the state this step reads"
        if phase in ("execute", "update") and superstep.execution is not None:
            caption = "after Execute: pending writes, not applied yet (the values are unchanged)"
            pending: dict[str, list[str]] = {}
            for result in superstep.execution.results:
                for channel, value in result.writes:
                    text = show(value, before=current.get(channel))
                    pending.setdefault(channel, []).append(f"{text} from {result.task.node}")
            for channel, writes in pending.items():
                notes[channel] = ("gk-pending", "pending: " + "; ".join(writes))
            if failed is not None:
                caption = (
                    f"step {superstep.step}'s Update failed ({failed.error}): none of these "
                    "pending writes was applied (the values are unchanged)"
                )
                if failed.channel in pending:
                    writes = "; ".join(pending[failed.channel])
                    notes[failed.channel] = ("gk-failed", f"{writes}: {failed.reason}")
    if superstep is not None and phase in ("execute", "update"):
        # (a key set in a node's input and not returned: no write shows it, and the loop
        # whose exit flag was set so never ends)
        for result, mutated in mutated_in(superstep):
            for key, _, now in mutated.changes:
                lost = f"lost: {result.task.node} set it to {show(now)} in its input, not returned"
                notes.setdefault(key, ("gk-lost", lost))
    if superstep is not None:  # (a reducer key nothing wrote yet: the run's tables show 0 too)
        current.update(
            (name, value) for name, value in (starts or {}).items() if name not in current
        )
    names = [name for name in dict.fromkeys([*current, *notes]) if not is_internal(name)]
    rows = "".join(_row(name, current.get(name, EMPTY), notes.get(name)) for name in names)
    if not names:
        return f'<div class="gk-state-caption">{escape(caption)}: no values yet</div>'
    header = "<tr><th>channel</th><th>value</th><th>this step</th></tr>"
    return (
        f'<div class="gk-state-caption">{escape(caption)}</div>'
        f'<table class="gk-state-table">{header}{rows}</table>'
    )


@dataclass(frozen=True, slots=True)
class FailedUpdate:
    """A step whose Update raised: the error's class name, the channel it names (or
    ``""``), the nodes that wrote that channel, and the reason in a learner's words."""

    error: str
    channel: str
    writers: tuple[str, ...]
    reason: str


def _row(name: str, value: Any, note: tuple[str, str] | None) -> str:
    css, text = note or ("", "")
    opening = f'<tr class="{css}">' if css else "<tr>"
    cells = "".join(f"<td>{escape(cell)}</td>" for cell in (name, show(value), text))
    return opening + cells + "</tr>"
