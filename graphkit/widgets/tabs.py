"""The debugger's tables: each tab's DataFrame of short texts, built when first looked
at, as HTML (``frame_html``, its notes above it), and what an empty one means at the
phase it is shown after (``empty_text``). ``graphkit.widgets.view`` puts them in a
``View``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from graphkit.extras import require
from graphkit.inspect.markup import breakable_names, escape, visible
from graphkit.inspect.values import show
from graphkit.pregel.records import Run, Superstep
from graphkit.render import PHASES

if TYPE_CHECKING:
    import pandas

    from graphkit.widgets.session import DebugSession

__all__ = ["TABLES", "empty_text", "frame_html"]


TABLES = ("tasks", "writes", "changes", "state", "subgraphs", "store", "checkpoints")
"""The debugger's tables, in tab order."""


_PHASE_NAMES = {"plan": "Plan", "execute": "Execute", "update": "Update"}


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


def frame_html(frame: pandas.DataFrame, empty: str = "no rows", name: str = "table") -> str:
    """A DataFrame of texts as an HTML table (pandas escapes every cell; a control or a
    bidirectional override in a node's or channel's name is written as its escape first,
    as ``escape`` writes it), in a box that scrolls sideways: ids of tasks and
    checkpoints make tables wider than a cell. An empty one is ``empty``, a sentence.
    The frame's ``attrs["notes"]`` go above the table as wrapped sentences: in a cell,
    a long note ran out of the box's view. A column's name may break after each ``_``
    where the box is too narrow (the changes tab's version_before kept a column of
    one-digit versions 14 characters wide, and its last column, reducer, out of view).
    The box is a named region (``name``) the Tab key reaches: the arrow keys scroll it.

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
    # (focusable, so the keyboard can scroll a wide table too; ``name`` says which it is)
    box = (
        f'<div class="gk-table-box" tabindex="0" role="region" aria-label="{escape(name)}" '
        f'style="overflow-x:auto;max-width:100%">{table}</div>'
    )
    return notes + box


_NOTE_STYLE = "white-space:normal;overflow-wrap:anywhere;line-height:1.4;margin:4px 0"


def _visible_cell(cell: Any) -> Any:
    return visible(cell) if isinstance(cell, str) else cell


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
