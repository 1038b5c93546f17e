"""A run as tables: records → plain rows (pure functions) → pandas DataFrame.

Each ``*_rows`` function (``graphkit.inspect.table_rows``, re-exported here) turns
records into a list of dicts and imports nothing heavy; ``run_frame`` and
``superstep_frame`` put the rows into a DataFrame, importing pandas only when called.
Cells hold the run's values themselves; pass ``readable=True`` for the short text
``show`` gives them instead, in a DataFrame a notebook shows whole and laid out for
reading (``readable_frame.ReadableFrame``).

| kind | one row per | columns |
|---|---|---|
| ``tasks`` | task | step, node, kind, triggers, packet, attempts, duration, cached, reused, error, worker, started_by, task_id |
| ``writes`` | write | step, task_id, node, channel, value |
| ``changes`` | channel change | step, channel, before, after, version_before, version_after, writers, values, reducer |
| ``state`` | step with an Update | step, then one column per state key (every key of the schema) |
| ``subgraphs`` | subgraph run a task started | step, node, call, kept, saved_in, status, steps, namespace, task_id |
| ``store`` | store operation a task made | step, node, op, namespace, key, given, returned, attempt, task_id |
| ``timeline`` | executed task | see ``graphkit.inspect.timeline`` |

The ``state`` and ``changes`` tables show the runtime's own channels (``__start__``,
``branch:to:*``, ``join:*``, ``__pregel_*``) only with ``internal=True``.
"""  # noqa: E501

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from graphkit.extras import require
from graphkit.inspect.history import starts_unsaved
from graphkit.inspect.table_rows import (
    COLUMNS,
    KINDS,
    change_rows,
    run_rows,
    state_columns,
    state_rows,
    subgraph_rows,
    superstep_rows,
    task_rows,
    write_rows,
)
from graphkit.inspect.values import show, show_error
from graphkit.unsaved import NotSaved, not_saved

if TYPE_CHECKING:
    import pandas

    from graphkit.pregel.records import Run, Superstep

__all__ = [
    "COLUMNS",
    "KINDS",
    "change_rows",
    "data_frame",
    "run_frame",
    "run_rows",
    "state_columns",
    "state_rows",
    "subgraph_rows",
    "superstep_frame",
    "superstep_rows",
    "task_rows",
    "unsaved_notes",
    "write_rows",
]

# Columns whose cells are run values; ``readable=True`` turns them into text.
_VALUE_COLUMNS = {
    "tasks": ("packet", "error"),
    "writes": ("value",),
    "changes": ("before", "after"),
    "superstep": ("before", "value"),
    "subgraphs": (),
    "store": ("given", "returned"),
}
# Columns whose cells are tuples, and how ``readable=True`` joins them with ", " (given
# the tuple and its row as it was): names as they are and whole (``flights``, not
# ``(flights,)``; the ``node`` and ``channel`` columns are not cut either), the values an
# Update applied as ``show`` writes a value, a removal naming the message it removed.
_TUPLE_COLUMNS: dict[str, dict[str, Callable[[tuple[Any, ...], dict[str, Any]], str]]] = {
    "tasks": {"triggers": lambda names, row: ", ".join(names)},
    "changes": {
        "writers": lambda names, row: ", ".join(names),
        "values": lambda values, row: _cut(
            ", ".join(show(value, before=row["before"]) for value in values)
        ),
    },
}


def run_frame(
    run: Run, kind: str = "tasks", *, readable: bool = False, internal: bool = False
) -> pandas.DataFrame:
    """Table ``kind`` of a run as a DataFrame (what ``Run.to_frame`` returns).

    >>> from graphkit.inspect.examples import counter_run
    >>> frame = run_frame(counter_run(), "state")
    >>> list(frame.columns), frame["n"].tolist()
    (['step', 'n'], [<empty>, 1, 2])
    >>> run_frame(counter_run(), "changes", readable=True)["after"].tolist()
    ['1', '2']
    >>> run_frame(counter_run(), "changes", internal=True)["channel"].tolist()[:2]
    ['__start__', 'n']
    """
    rows = run_rows(run, kind, internal=internal)
    if kind == "state":
        columns: Sequence[str] = ("step", *state_columns(run, internal))
        value_columns: Sequence[str] = columns[1:]
    elif kind == "timeline":
        from graphkit.inspect.timeline import TIMELINE_COLUMNS

        columns, value_columns = TIMELINE_COLUMNS, ()
    else:
        columns, value_columns = COLUMNS[kind], _VALUE_COLUMNS[kind]
    if not readable:
        return _noted(_frame(rows, columns, ()), unsaved_notes(run, kind))
    if "task_id" in columns:
        _shorten_ids(rows)
    frame = _frame(rows, columns, value_columns, _TUPLE_COLUMNS.get(kind, {}))
    # (imported once the frame is built: without pandas, the table's error names the extra)
    from graphkit.inspect.readable_frame import readable_frame

    return _noted(readable_frame(frame), unsaved_notes(run, kind))


_UNSAVED = {
    "tasks": "which tasks ran in them is not known; __input__ stands in for them",
    "writes": "what their tasks wrote is not known, so no row shows it (not that they "
    "wrote nothing)",
    "changes": "the writers and values of step {n}'s changes read 'unknown' because who "
    "wrote them, and what, is not known (not the runtime)",
    "state": "the state before step {n} is not known",
    "timeline": "which tasks ran in them, and when, is not known",
    "subgraphs": "any subgraph run their tasks started is not known",
    "store": "what their tasks did with the store is not known",
}


def unsaved_notes(run: Run, kind: str) -> list[str]:
    """What table ``kind`` of a thread some of whose steps were not saved (its beginning,
    or a later run's steps) cannot show (a DataFrame's ``attrs["notes"]``, which a
    readable frame and the debugger show above it): an empty writes table read as
    "nothing was written".

    >>> from graphkit.inspect.examples import counter_run
    >>> unsaved_notes(counter_run(), "writes")
    []
    """
    if kind not in _UNSAVED:
        return []
    notes = []
    for stand_in in _stand_ins(run):
        n = stand_in.start
        if stand_in.after is not None and kind == "state":
            continue  # (the state after step ``after`` was saved)
        steps = f"steps {stand_in.after + 1} to {n}" if stand_in.after is not None else ""
        notes.append(
            f"{steps.capitalize() or f'The steps up to step {n}'} were not saved by LangGraph "
            f"(a run with durability='exit' saves only its last checkpoint): "
            f"{_UNSAVED[kind].format(n=n)}."
        )
    return notes


def _stand_ins(run: Run) -> list[NotSaved]:
    """The ``NotSaved`` of each ``__input__`` task standing in for steps not saved (the
    first step of a thread whose beginning was not saved brings its state in, marked or
    not)."""
    found = [
        unsaved
        for superstep in run.steps
        for result in (superstep.execution.results if superstep.execution else ())
        if (unsaved := not_saved(result)) is not None and unsaved.start is not None
    ]
    if starts_unsaved(run) and not any(unsaved.after is None for unsaved in found):
        found.insert(0, NotSaved(True, start=run.steps[0].step))
    return found


def _noted(frame: pandas.DataFrame, notes: list[str]) -> pandas.DataFrame:
    if notes:
        frame.attrs["notes"] = notes
    return frame


def superstep_frame(superstep: Superstep, *, readable: bool = False) -> pandas.DataFrame:
    """One step's Plan, Execute and Update rows as one DataFrame.

    >>> from graphkit.inspect.examples import counter_run
    >>> superstep_frame(counter_run().steps[2])["phase"].tolist()
    ['plan', 'execute', 'update', 'update']
    """
    if not readable:
        return _frame(superstep_rows(superstep), COLUMNS["superstep"], ())
    frame = _frame(superstep_rows(superstep), COLUMNS["superstep"], _VALUE_COLUMNS["superstep"])
    from graphkit.inspect.readable_frame import readable_frame

    return readable_frame(frame)


def _shorten_ids(rows: list[dict[str, Any]], length: int = 8) -> None:
    """Each row's ``task_id`` cut to its first ``length`` characters, longer where two
    ids of the table would read alike (as git shortens a commit id). A whole id wrapped
    at its hyphens in JupyterLab and made every row three lines tall; the frame without
    ``readable`` keeps the whole ids, to look a task up by.

    >>> rows = [{"task_id": "b4db3854-9595-8612-59d4-2be9ca977a0f"}, {"task_id": "__input__"}]
    >>> _shorten_ids(rows)
    >>> [row["task_id"] for row in rows]
    ['b4db3854', '__input__']
    """
    ids = {row["task_id"] for row in rows if isinstance(row["task_id"], str)}
    while length < 36 and len({_short_id(i, length) for i in ids}) < len(ids):
        length += 4
    for row in rows:
        row["task_id"] = _short_id(row["task_id"], length)


def _short_id(task_id: Any, length: int) -> Any:
    """A task id cut to ``length``; the runtime's own ids (``__input__``) stay whole."""
    if not isinstance(task_id, str) or task_id.startswith("__"):
        return task_id
    return task_id[:length]


def _frame(
    rows: list[dict[str, Any]],
    columns: Sequence[str],
    readable: Sequence[str],
    tuples: Mapping[str, Callable[[tuple[Any, ...], dict[str, Any]], str]] | None = None,
) -> pandas.DataFrame:
    for row in rows if readable or tuples else ():
        joined = {
            name: join(row[name], row) if isinstance(row[name], tuple) else row[name]  # "unknown"
            for name, join in (tuples or {}).items()
        }
        for name in readable:
            value = row[name]
            if isinstance(value, BaseException) or (name == "error" and value is None):
                row[name] = show_error(value)
            elif name == "packet" and row["kind"] != "push":  # (only a Send gives one)
                row[name] = ""
            else:
                row[name] = show(value)
        row.update(joined)
    frame = data_frame(rows, columns)
    # whole numbers that may be missing (a task not executed, a channel's first version)
    integers = {
        name: "Int64"
        for name in ("attempts", "version_before")
        if name in frame and not any(isinstance(value, str) for value in frame[name])  # unknown
    }
    return frame.astype(integers) if integers else frame


def data_frame(rows: list[dict[str, Any]], columns: Sequence[str]) -> pandas.DataFrame:
    """``rows`` as a DataFrame whose text columns keep None where a row has none.

    pandas 3 reads a column of text as its string dtype, whose missing value is NaN:
    a first checkpoint's ``parent_id``, a task's ``started_by`` read ``NaN``.

    >>> data_frame([{"id": "b", "parent": "a"}, {"id": "a", "parent": None}], ["id", "parent"])
      id parent
    0  b      a
    1  a   None
    """
    pandas = require("pandas", extra="notebook", feature="run.to_frame()")

    frame = pandas.DataFrame(rows, columns=list(columns))
    for name in columns:
        if isinstance(frame[name].dtype, pandas.StringDtype) and frame[name].isna().any():
            frame[name] = pandas.Series(
                [row.get(name) for row in rows], index=frame.index, dtype=object
            )
    return frame


def _cut(text: str, width: int = 60) -> str:
    """``text`` cut as ``show`` cuts a value."""
    return text if len(text) <= width else text[: width - 1] + "…"
