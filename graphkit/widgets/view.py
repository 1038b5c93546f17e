"""What the debugger shows, as plain data: the ``View`` of one superstep at one phase.

``build_view(session)`` looks at the live step (or the one the slider chose);
``view_at(session, index, phase)`` at any recorded step and phase, which is what the
HTML export precomputes. Both only read records: the SVG is the session's one layout
restyled by ``render.highlight``, the tables come from ``graphkit.inspect``
(``graphkit.widgets.tabs`` builds each tab; ``graphkit.widgets.run_status`` says how
the run stands).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from graphkit.inspect.markup import escape
from graphkit.pregel.records import Run, Superstep
from graphkit.render import PHASES, highlight
from graphkit.unsaved import not_saved
from graphkit.widgets.panels import starting_values, state_html
from graphkit.widgets.run_status import failed_update, status_text, step_label
from graphkit.widgets.story import story_label, story_steps
from graphkit.widgets.tabs import (
    _PHASE_NAMES,
    _UNSAVED_STORE,
    TABLES,
    _tables,
    empty_text,
    frame_html,
)

if TYPE_CHECKING:
    import pandas

    from graphkit.widgets.session import DebugSession

__all__ = [  # (TABLES, empty_text, frame_html, failed_update, status_text, step_label:
    # re-exported from tabs and run_status, where they moved)
    "TABLES",
    "View",
    "as_of",
    "build_view",
    "empty_text",
    "failed_update",
    "frame_html",
    "has_unsaved",
    "legend_html",
    "legend_keys",
    "phases_of",
    "status_text",
    "step_label",
    "view_at",
]


_SWATCH = (
    '<span class="gk-key" style="white-space:nowrap">'
    '<svg width="26" height="16" style="vertical-align:-3px" aria-hidden="true">'
    '<g class="gk-node {0}"><rect x="2" y="2" width="22" height="12" rx="3" '
    'fill="#f2f0ff" stroke="#7b6fd0"/></g></svg>&nbsp;{1}</span>'
)
_KEYS = (
    ("planned", "planned"),
    ("running", "running"),
    ("wrote pending", "wrote, pending (after Execute)"),
    ("wrote applied", "applied (after Update)"),
    ("wrote-nothing", "ran, wrote nothing"),
    ("not-saved", "writes not saved"),
    ("cached", "from the cache"),
    ("interrupted", "interrupted"),
    ("error", "error"),
)


def legend_html(unsaved: bool = False) -> str:
    """A key for the phase classes; the swatches take their colours and lines (solid,
    dotted, dashed, dash-dot) from the stylesheet the graph's SVG carries, so they always
    match it. "writes not saved" is keyed only when ``unsaved`` (``has_unsaved``): in a
    run with no such task the key named something the picture can never show.

    >>> "writes not saved" in legend_html(), "ran, wrote nothing" in legend_html()
    (False, True)
    """
    return (
        '<div class="gk-legend">'
        + " &nbsp; ".join(_SWATCH.format(classes, label) for classes, label in legend_keys(unsaved))
        + "</div>"
    )


def legend_keys(unsaved: bool = False) -> list[tuple[str, str]]:
    """The legend's keys: each the drawing's classes (space-separated) and its label.

    >>> legend_keys()[:2]
    [('planned', 'planned'), ('running', 'running')]
    """
    return [(c, label) for c, label in _KEYS if unsaved or c != "not-saved"]


def has_unsaved(steps: Iterable[Superstep]) -> bool:
    """Whether a task of ``steps`` has no write saved (only a thread read from LangGraph
    whose process ended has one: ``graphkit.unsaved``)."""
    return any(
        not_saved(result) is not None
        for step in steps
        if step.execution is not None
        for result in step.execution.results
    )


@dataclass(frozen=True, slots=True, repr=False)
class View:
    """One superstep at one phase, ready to show: the restyled SVG, labels, tables.

    ``index`` is the superstep's position among the session's recorded supersteps
    (None before the run started), ``step`` its number (the input step is -1) and
    ``phase`` the last phase it completed; ``live`` is False while the slider shows an
    earlier step. ``tables`` maps each of ``TABLES`` to a DataFrame of short texts;
    ``failed_here`` is True at the phase the step that ended the run with an error
    stopped after (its later phases never ran; at an earlier one they had not yet).
    """

    svg: str
    index: int | None
    count: int
    step: int | None
    phase: str | None
    next_phase: str | None
    live: bool
    status: str
    step_label: str
    phase_label: str
    status_text: str
    message: str = ""
    why_text: str = ""
    why_html: str = ""
    state_html: str = ""
    tables: Mapping[str, pandas.DataFrame] = field(default_factory=dict)
    failed_here: bool = False
    unsaved_store: bool = False

    def table_html(self, kind: str) -> str:
        """Table ``kind`` as an HTML table (every cell escaped), or what its being empty
        means at this phase."""
        if kind == "store" and self.unsaved_store:
            return frame_html(self.tables[kind], _UNSAVED_STORE, f"{kind} table")
        empty = empty_text(kind, self.phase, failed=self.failed_here)
        return frame_html(self.tables[kind], empty, f"{kind} table")

    def __repr__(self) -> str:
        return f"View(step={self.step}, phase={self.phase!r}, status={self.status!r})"

    def _repr_html_(self) -> str:
        return (
            f"<div><b>{escape(self.step_label)}</b> · {escape(self.phase_label)}"
            f"<br>{escape(self.status_text)}</div>"
            # (a graph wider than the cell scrolls in its box, not the whole page)
            f'<div class="gk-graph" style="max-width:100%;overflow-x:auto">{self.svg}</div>'
        )


def build_view(session: DebugSession) -> View:
    """The view of the step the session shows: the live one, or the slider's.

    >>> from graphkit.inspect.examples import forecast_graph
    >>> from graphkit.widgets import DebugSession
    >>> session = DebugSession(forecast_graph(), {"topic": "today", "tokens": 0})
    >>> build_view(session).phase_label
    'next: Plan'
    >>> _ = session.step(); build_view(session)
    View(step=-1, phase='update', status='running')
    """
    steps = session.supersteps
    if not steps:
        return _empty_view(session)
    index = len(steps) - 1 if session.shown is None else session.shown
    return view_at(session, index, steps[index].phase)


def view_at(session: DebugSession, index: int, phase: str, *, checkpoints: bool = True) -> View:
    """The view of ``session.supersteps[index]`` as it was right after ``phase``."""
    steps = story_steps(session)  # numbered as the learner is told, not as forks number
    superstep = as_of(steps[index], phase)
    last_step = index == len(steps) - 1
    live = session.shown is None and last_step and phase == steps[index].phase
    before = Run((*steps[:index], superstep), session.values, session.status)
    explanation = _why(session, before, superstep.step)
    failed = failed_update(session, superstep) if last_step else None
    return View(
        svg=highlight(session.graph_svg, superstep, phase, failed=failed.writers if failed else ()),
        index=index,
        count=len(steps),
        step=superstep.step,
        phase=phase,
        next_phase=session.next_phase,
        live=live,
        status=session.status,
        step_label=story_label(session, session.supersteps[index].step),
        phase_label=_phase_label(session, phase, live),
        status_text=status_text(session),
        message=session.message,
        why_text=_why_text(explanation),
        why_html=_why_html(explanation),
        state_html=state_html(superstep, phase, starts=starting_values(session.app), failed=failed),
        tables=_tables(session, superstep, before, checkpoints),
        failed_here=session.status == "error" and last_step and phase == steps[index].phase,
        unsaved_store=_read_from_langgraph(superstep),
    )


def _read_from_langgraph(superstep: Superstep) -> bool:
    """True for a step of a thread read from LangGraph's saver, which keeps no task's
    attempts (None) and no store operations: its empty store tab said "no store
    operations in this step" of a step whose node had searched the store."""
    results = superstep.execution.results if superstep.execution is not None else ()
    return any(result.attempts is None for result in results)


def as_of(superstep: Superstep, phase: str) -> Superstep:
    """``superstep`` as it was right after ``phase``: the later records left out."""
    if phase == "plan":
        return dataclasses.replace(superstep, execution=None, update=None)
    if phase == "execute":
        return dataclasses.replace(superstep, update=None)
    return superstep


def phases_of(superstep: Superstep) -> tuple[str, ...]:
    """The phases ``superstep`` completed, in order."""
    return PHASES[: PHASES.index(superstep.phase) + 1]


def _empty_view(session: DebugSession) -> View:
    return View(
        svg=highlight(session.graph_svg, None, "plan"),
        index=None,
        count=0,
        step=None,
        phase=None,
        next_phase=session.next_phase,
        live=True,
        status=session.status,
        step_label=step_label(None),
        phase_label=f"next: {_PHASE_NAMES.get(session.next_phase or '', '-')}",
        status_text=status_text(session),
        message=session.message,
        state_html=state_html(None, None, session.values),
        tables=_tables(session, None, Run((), {}, session.status), True),
    )


def _phase_label(session: DebugSession, phase: str, live: bool) -> str:
    done = f"after {_PHASE_NAMES[phase]}"
    if not live:
        return f"{done} · looking back"
    if session.next_phase is None:
        return f"{done} · run {session.status}"
    return f"{done} · next: {_PHASE_NAMES[session.next_phase]}"


def _why(session: DebugSession, run: Run, step: int) -> Any:
    if session.selected is None:
        return None
    try:
        return run.why(session.selected, step, graph=session.app)
    except Exception as error:  # an explanation must never break the view
        return _Unexplained(f"Cannot explain {session.selected!r} at step {step}: {error}")


@dataclass(frozen=True, slots=True)
class _Unexplained:
    text: str

    def __str__(self) -> str:
        return self.text


def _why_text(explanation: Any) -> str:
    """The answer as text for a box that wraps its own lines (the exported page's):
    ``str()`` breaks lines at 88 columns, which a narrower box would break again."""
    if explanation is None:
        return ""
    if isinstance(explanation, _Unexplained):
        return explanation.text
    return explanation.text(width=None)


def _why_html(explanation: Any) -> str:
    if explanation is None:
        return ""
    if isinstance(explanation, _Unexplained):
        return f"<p>{escape(explanation.text)}</p>"
    return explanation._repr_html_()
