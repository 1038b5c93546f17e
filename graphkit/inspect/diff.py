"""``run.diff(a, b)``: which state keys differ between two steps, and how.

Each step's state is the checkpoint its Update produced; a step whose Update did not
run (it failed) has the state it started from. Keys are the state keys (the runtime's
own channels are left out); a key that holds nothing shows as ``<empty>``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graphkit.channels import EMPTY
from graphkit.diagnostics.reading import step_number
from graphkit.inspect.markup import BORDER, FONT_STYLE, MUTED, UPDATE, UPDATE_TEXT, escape
from graphkit.inspect.tables import state_columns
from graphkit.inspect.values import same_value, show
from graphkit.render.text import terminal_text

if TYPE_CHECKING:
    from graphkit.pregel.records import Run

__all__ = ["StateDiff", "diff"]


@dataclass(frozen=True, slots=True, repr=False)
class StateDiff:
    """The state keys whose values differ between step ``step_a`` and ``step_b``:
    ``changes[key] == (value at a, value at b)``; falsy when nothing differs.

    >>> print(StateDiff(1, 2, {"n": (1, 2)}))
    From step 1 to step 2, 1 state key changed:
      n  1 -> 2
    """

    step_a: int
    step_b: int
    changes: Mapping[str, tuple[Any, Any]]

    def __bool__(self) -> bool:
        return bool(self.changes)

    def __str__(self) -> str:
        if not self.changes:
            return f"No state key differs between step {self.step_a} and step {self.step_b}."
        count = len(self.changes)
        lines = [
            f"From step {self.step_a} to step {self.step_b}, "
            f"{count} state key{'s' * (count != 1)} changed:"
        ]
        width = max(len(key) for key in self.changes)
        for key, (before, after) in self.changes.items():
            lines.append(f"  {key:<{width}}  {show(before, 40)} -> {show(after, 40)}")
        return "\n".join(map(terminal_text, lines))  # keys may hold control characters

    def __repr__(self) -> str:
        return f"StateDiff(step {self.step_a} -> {self.step_b}, changed={list(self.changes)})"

    def _repr_html_(self) -> str:
        return diff_html(self)


def diff(run: Run, step_a: int, step_b: int) -> StateDiff:
    """The state keys whose values differ between the states after two steps.

    >>> from graphkit.inspect.examples import forecast_run
    >>> print(diff(forecast_run(), 1, 3))
    From step 1 to step 3, 4 state keys changed:
      forecast   <empty> -> 'sunny'
      headlines  <empty> -> 'market up'
      summary    <empty> -> 'sunny; market up'
      tokens     100 -> 200
    """
    call = "run.diff(step_a, step_b)"
    step_a, step_b = step_number(step_a, call), step_number(step_b, call)
    values_a, values_b = _state(run, step_a), _state(run, step_b)
    changes = {}
    for key in state_columns(run):
        before, after = values_a.get(key, EMPTY), values_b.get(key, EMPTY)
        if not same_value(before, after):
            changes[key] = (before, after)
    return StateDiff(step_a, step_b, changes)


def diff_html(state_diff: StateDiff) -> str:
    """The diff as an HTML table (key, value at a, value at b).

    >>> "<table" in diff_html(StateDiff(1, 2, {"n": (1, 2)}))
    True
    """
    cell = f"padding:2px 8px;border-bottom:1px solid {BORDER};text-align:left"
    mono = "font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px"
    rows = "".join(
        f'<tr><td style="{cell};{mono}">{escape(key)}</td>'
        f'<td style="{cell};{mono}">{escape(show(before, 60))}</td>'
        f'<td style="{cell};{mono}">{escape(show(after, 60))}</td></tr>'
        for key, (before, after) in state_diff.changes.items()
    )
    head = (
        f'<tr><th style="{cell}">key</th><th style="{cell}">step {state_diff.step_a}</th>'
        f'<th style="{cell}">step {state_diff.step_b}</th></tr>'
    )
    body = f'<table style="border-collapse:collapse">{head}{rows}</table>' if rows else ""
    title = f"state diff · step {state_diff.step_a} → step {state_diff.step_b}"
    note = "" if rows else f'<div style="color:{MUTED}">no state key differs</div>'
    return (
        f'<div style="{FONT_STYLE};background:{UPDATE[0]};border-left:3px solid {UPDATE[1]};'
        f'padding:6px 10px;border-radius:4px;max-width:1000px">'
        f'<div style="font-weight:600;color:{UPDATE_TEXT}">{escape(title)}</div>{body}{note}</div>'
    )


def _state(run: Run, step: int) -> Mapping[str, Any]:
    superstep = run.step(step)  # raises KeyError naming the steps the run has
    checkpoint = superstep.checkpoint or superstep.checkpoint_before
    return checkpoint.channel_values
