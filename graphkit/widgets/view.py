"""What the debugger shows, as plain data: the ``View`` of one superstep at one phase.

``build_view(session)`` looks at the live step (or the one the slider chose);
``view_at(session, index, phase)`` at any recorded step and phase, which is what the
HTML export precomputes. Both only read records: the SVG is the session's one layout
restyled by ``render.highlight``, the tables come from ``graphkit.inspect``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from graphkit.extras import require
from graphkit.inspect.markup import breakable_names, escape, visible
from graphkit.inspect.mutated import lost_in_loop
from graphkit.inspect.values import is_internal, show, show_error
from graphkit.pregel.records import Run, Superstep
from graphkit.render import PHASES, highlight
from graphkit.unsaved import not_saved
from graphkit.widgets.answers import waiting_questions
from graphkit.widgets.panels import FailedUpdate, starting_values, state_html
from graphkit.widgets.story import story_label, story_number, story_steps

if TYPE_CHECKING:
    import pandas

    from graphkit.widgets.session import DebugSession

__all__ = [
    "TABLES",
    "View",
    "build_view",
    "empty_text",
    "frame_html",
    "has_unsaved",
    "legend_html",
    "phases_of",
    "view_at",
]

TABLES = ("tasks", "writes", "changes", "state", "subgraphs", "store", "checkpoints")
"""The debugger's tables, in tab order."""

_PHASE_NAMES = {"plan": "Plan", "execute": "Execute", "update": "Update"}

_SWATCH = (
    '<span class="gk-key" style="white-space:nowrap">'
    '<svg width="26" height="16" style="vertical-align:-3px">'
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
    keys = [(c, label) for c, label in _KEYS if unsaved or c != "not-saved"]
    return (
        '<div class="gk-legend">'
        + " &nbsp; ".join(_SWATCH.format(classes, label) for classes, label in keys)
        + "</div>"
    )


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
            return frame_html(self.tables[kind], _UNSAVED_STORE)
        return frame_html(self.tables[kind], empty_text(kind, self.phase, failed=self.failed_here))

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


def failed_update(session: DebugSession, superstep: Superstep) -> FailedUpdate | None:
    """``superstep``'s Update, if it is the one that ended the run by raising (every task
    finished): the channel the error names and who wrote it. Lesson 03's conflict (two
    nodes write a plain key in one step) drew the writers as "wrote, pending", and
    nothing said which channel's Update failed."""
    error = session.error
    execution = superstep.execution
    if session.status != "error" or error is None or superstep.update is not None:
        return None
    if execution is None or any(r.error is not None for r in execution.results):
        return None  # (a task raised: the view marks it, and its status says so)
    writers: dict[str, list[str]] = {}
    for result in execution.results:
        for channel, _ in result.writes:
            writers.setdefault(channel, []).append(result.task.node)
    channel, by_reducer = _failed_channel(error, [c for c in writers if not is_internal(c)])
    if not channel:  # (the error's words name no channel: a plain key written twice)
        kinds = session.app.spec.channels
        named = [c for c, who in writers.items() if len(who) > 1 and _plain(kinds.get(c))]
        channel = max(named, key=lambda c: len(writers[c]), default="")
    who = tuple(dict.fromkeys(writers.get(channel, ())))
    count = len(writers.get(channel, ()))
    from graphkit.errors import InvalidUpdateError

    if by_reducer:
        reducer = getattr(session.app.spec, "reducer_names", {}).get(channel)
        reason = f"its reducer{f' {reducer}' if reducer else ''} raised {type(error).__name__}"
    elif isinstance(error, InvalidUpdateError) and count > 1:
        reason = f"{count} writes in one step, and a plain key keeps one value per step"
    else:
        reason = f"the Update raised {type(error).__name__} on these writes"
    return FailedUpdate(type(error).__name__, channel, who, reason)


def _failed_channel(error: BaseException, written: list[str]) -> tuple[str, bool]:
    """The channel whose Update raised, in the runtime's own words (and whether its
    reducer raised): a reducer's error says nothing of the channel, its note does
    ("applied its writes to channel 'results'"); a conflict says "wrote 'results'". A
    name quoted elsewhere (a reducer's own message quoting another key) is a last resort.

    >>> error = TypeError("unsupported operand type(s) for +: 'int' and 'list'")
    >>> error.add_note("While step 1 applied its writes to channel 'results': its ...")
    >>> _failed_channel(error, ["topic", "results"])
    ('results', True)
    """
    for note in getattr(error, "__notes__", ()):
        for channel in written:
            if f"applied its writes to channel {channel!r}:" in str(note):
                return channel, True
    text = str(error)
    for channel in written:
        if f"wrote {channel!r}" in text:
            return channel, False
    return next((channel for channel in written if repr(channel) in text), ""), False


def _plain(channel: Any) -> bool:
    from graphkit.channels import LastValue

    return type(channel) is LastValue


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


def step_label(step: int | None) -> str:
    """``"step 3"``, ``"input step"`` for -1, ``"not started"`` for None."""
    if step is None:
        return "not started"
    return "input step" if step == -1 else f"step {step}"


def status_text(session: DebugSession) -> str:
    """One line on how the run stands: running, done, paused or failed (where, why)."""
    stepper = session.stepper
    status, number = session.status, story_number(session, stepper.step_number)
    if status == "running":
        # (as the step label says: before the input step's Plan, the run has not started)
        state = "running" if session.supersteps else "not started"
        first = " (the input step)" if number == -1 else ""
        return f"{state}: step {number}{first} waits for its {session.next_phase}"
    if status == "done":
        return "done: no node was triggered by the last Update"
    last = session.supersteps[-1] if session.supersteps else None
    results = last.execution.results if last is not None and last.execution is not None else ()
    if status == "interrupted":
        asked = session.questions
        if not asked:
            return f"paused by a compiled breakpoint at step {number}: Resume goes on"
        # (the question in full, or nearly: it is what the human has to answer; with its
        # id when several wait, as Resume takes an answer for each by its id)
        questions = waiting_questions(asked)
        where = story_number(session, last.step) if last else number
        return f"interrupted at step {where}: {questions}"
    if status == "drained":
        reason = stepper.context.runtime.control.drain_reason
        return f"drained before step {number} ({reason}): a drain was requested"
    failed = next((r for r in results if r.error is not None), None)
    if failed is not None:
        where = story_number(session, failed.task.step)
        text = f"error in node {failed.task.node!r} at step {where}: {show_error(failed.error)}"
        return text + _no_context(session, failed.error)
    if status == "error" and last is not None and last.execution and last.update is None:
        where = story_number(session, last.step)  # (every task finished: the Update raised)
        return f"error in step {where}'s Update: {show_error(session.error)}"
    # (a loop that never ended because its exit flag was set and lost: said first, as the
    # error's own advice, "check that a conditional edge eventually routes to END", is
    # what the learner already did)
    lost = lost_in_loop(session.supersteps) if status == "out_of_steps" else ""
    return f"{status} at step {number}: {lost + '. ' if lost else ''}{show_error(session.error)}"


def _no_context(session: DebugSession, error: BaseException | None) -> str:
    """A hint for a node that failed on a None (as reading ``runtime.context.tone`` does)
    in a session given no ``context=`` for a graph with a ``context_schema``: its
    ``runtime.context`` was None (a run record does not keep it). Another error gets none."""
    schema = getattr(session.app, "context_schema", None)
    if schema is None or session.context is not None or not _read_none(error, schema):
        return ""
    name = getattr(schema, "__name__", "the context")
    return (
        f" (the graph has a context_schema, {name}, and this debugger was given no "
        f"context: pass context={name}(...) to Debugger or DebugSession, or their from_run)"
    )


def _read_none(error: BaseException | None, schema: Any) -> bool:
    """True for an error reading a None as the context is read: an attribute the schema
    names (``.tone``; a state value's ``None.upper()`` is not the context's), ``.get``
    or a subscript."""
    if not isinstance(error, AttributeError | TypeError) or "NoneType" not in str(error):
        return False
    name = getattr(error, "name", None)  # (the attribute an AttributeError read on None)
    fields = {
        n
        for klass in getattr(schema, "__mro__", ())
        for n in vars(klass).get("__annotations__", {})
    }
    return not isinstance(name, str) or name == "get" or name in fields


_NONE_IN_STEP = {
    "tasks": "no tasks in this step",
    "writes": "no writes in this step",
    "changes": "no changes in this step",
    "subgraphs": "no subgraph runs in this step",
    "store": "no store operations in this step",
}
_UNSAVED_STORE = (
    "unknown: LangGraph does not save what a task did with the store, so a thread read "
    "from its saver shows none; a step run here (Step, or from_langgraph(app).trace) shows them"
)
_NOT_YET = {
    "writes": "execute",  # (the phase that fills the table: before it, nothing to show)
    "subgraphs": "execute",
    "store": "execute",
    "changes": "update",
}


def empty_text(kind: str, phase: str | None, *, failed: bool = False) -> str:
    """What an empty table ``kind`` means for a step shown after ``phase`` (None: the
    run has not started; ``failed``: the step ended the run with an error). "no rows yet"
    said of a finished step's subgraphs that some were still to come.

    >>> empty_text("subgraphs", "update"), empty_text("changes", "plan")
    ('no subgraph runs in this step', "none yet: this step's Update has not run")
    >>> empty_text("changes", "execute", failed=True)
    "none: this step's Update never ran"
    """
    if kind == "checkpoints":
        return "no checkpoint saved yet" if phase is None else "no checkpoint saved"
    if phase is None:
        return "none yet: the run has not started"
    if kind == "state":
        return "none yet: no step's Update has run"
    filled_by = _NOT_YET.get(kind, "plan")
    if PHASES.index(phase) < PHASES.index(filled_by):
        name = _PHASE_NAMES[filled_by]
        if failed:  # (a failed step goes no further: its later phases never come)
            return f"none: this step's {name} never ran"
        return f"none yet: this step's {name} has not run"
    return _NONE_IN_STEP[kind]


def frame_html(frame: pandas.DataFrame, empty: str = "no rows") -> str:
    """A DataFrame of texts as an HTML table (pandas escapes every cell; a control or a
    bidirectional override in a node's or channel's name is written as its escape first,
    as ``escape`` writes it), in a box that scrolls sideways: ids of tasks and
    checkpoints make tables wider than a cell. An empty one is ``empty``, a sentence.
    The frame's ``attrs["notes"]`` go above the table as wrapped sentences: in a cell,
    a long note ran out of the box's view. A column's name may break after each ``_``
    where the box is too narrow (the changes tab's version_before kept a column of
    one-digit versions 14 characters wide, and its last column, reducer, out of view).

    >>> html = frame_html(__import__("pandas").DataFrame({"version_before": ["a_b"]}))
    >>> "<th>version_<wbr>before</th>" in html, "<td>a_b</td>" in html
    (True, True)
    """
    notes = "".join(
        f'<p class="gk-table-note" style="{_NOTE_STYLE}">{escape(note)}</p>'
        for note in frame.attrs.get("notes", ())
    )
    if frame.empty:  # (its notes say why, as of a thread's steps that were not saved)
        return f'{notes}<p class="gk-empty">{escape(empty)}</p>'
    frame = frame.apply(lambda column: column.map(_visible_cell)).rename(columns=_visible_cell)
    table = frame.to_html(index=False, border=0, classes="gk-table", escape=True, na_rep="")
    table = breakable_names(table)
    box = f'<div class="gk-table-box" style="overflow-x:auto;max-width:100%">{table}</div>'
    return notes + box


_NOTE_STYLE = "white-space:normal;overflow-wrap:anywhere;line-height:1.4;margin:4px 0"


def _visible_cell(cell: Any) -> Any:
    return visible(cell) if isinstance(cell, str) else cell


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


def _tables(
    session: DebugSession, superstep: Superstep | None, run: Run, checkpoints: bool
) -> Mapping[str, pandas.DataFrame]:
    """The tables of a view, each built when first looked at: a step shows one tab at a
    time, and the checkpoints table reads the whole thread from the saver."""
    from graphkit.inspect.tables import run_frame

    this_step = Run((superstep,) if superstep is not None else (), {}, session.status)

    def build(kind: str) -> pandas.DataFrame:
        pandas = require("pandas", extra="notebook", feature="the debugger's tables")
        if kind == "checkpoints":
            return _checkpoints(session) if checkpoints else pandas.DataFrame()
        frame = _tidy(run_frame(run if kind == "state" else this_step, kind, readable=True))
        if kind == "store" and not frame.empty:  # (a look-up in the wrong namespace)
            from graphkit.widgets.store_hints import with_store_hints

            frame = with_store_hints(frame, session.app.store)
        return frame

    return _LazyTables(build)


class _LazyTables(Mapping[str, Any]):
    """``TABLES`` as a mapping whose values are built on first access, then kept."""

    def __init__(self, build: Any) -> None:
        self._build = build
        self._built: dict[str, Any] = {}

    def __getitem__(self, kind: str) -> Any:
        if kind not in TABLES:
            raise KeyError(f"No table {kind!r}; the debugger's tables are {list(TABLES)}.")
        if kind not in self._built:
            self._built[kind] = self._build(kind)
        return self._built[kind]

    def __iter__(self) -> Any:
        return iter(TABLES)

    def __len__(self) -> int:
        return len(TABLES)


def _checkpoints(session: DebugSession) -> pandas.DataFrame:
    """The thread's checkpoints, newest first, each cell a short text."""
    pandas = require("pandas", extra="notebook", feature="the debugger's tables")

    from graphkit.inspect.threads import CHECKPOINT_COLUMNS, checkpoint_rows

    keys = session.app.spec.state_keys
    rows = checkpoint_rows(session.app, session.thread_config)
    texts = [
        {key: _cell(row.get(key)) for key in CHECKPOINT_COLUMNS}
        # a state value as the state tab shows it: a string quoted and cut short too (a
        # long one went in whole, once per checkpoint, into the widget and the export)
        | {key: "" if row.get(key) is None else show(row.get(key)) for key in keys}
        for row in rows
    ]
    return pandas.DataFrame(texts, columns=[*CHECKPOINT_COLUMNS, *keys])


def _tidy(frame: pandas.DataFrame) -> pandas.DataFrame:
    """Every cell as short text: tuples of names joined, durations in ms, gaps blank."""
    if "duration" in frame:
        frame["duration"] = [_duration(value) for value in frame["duration"]]
    frame = frame.astype(object)
    return frame.where(frame.notna(), None).map(_cell)


def _duration(value: Any) -> str:
    if isinstance(value, str):  # "unknown": a task of a thread read from LangGraph
        return value
    return f"{value * 1000:.2f} ms" if isinstance(value, float) and value == value else ""


def _cell(value: Any) -> str:
    if value is None or isinstance(value, str):
        return value or ""
    if isinstance(value, tuple) and all(isinstance(item, str) for item in value):
        return ", ".join(value)
    return show(value)
