"""The DataFrame a ``readable=True`` table is: a real ``pandas.DataFrame`` that shows its
short texts whole, laid out for reading, in a notebook.

pandas cuts every cell of a notebook table at ``display.max_colwidth`` (50 characters),
so a value ``show`` had already shortened to 60, with its own ``…``, was cut a second
time with pandas' ``...``; and JupyterLab squeezed the value columns (before, after,
value, a state key) into tall rows while ids kept their room. A ``ReadableFrame`` is
pandas' own table with neither: its cells whole, the ids, steps and flags on one line
each (a whole 36-character checkpoint id still breaks at its hyphens), every value
column at least as wide as its text, up to ``VALUE_WIDTH`` characters (``VALUE_ROOM``
between a table's values), and wrapped between words past that, text left-aligned and
each row's cells at its top. The layout is a ``<style>`` block scoped to the table by
a class; colours stay JupyterLab's own (its theme variables), so it reads the same in
the dark theme.

It is still a DataFrame: ``isinstance``, ``.loc``, filtering, ``set_index``,
``to_csv`` and equality behave as pandas', a slice or a filtered frame is a
``ReadableFrame`` too, and ``print(frame)`` is pandas' text with its cells whole. Only
a check of the class tells it from a plain frame: ``assert_frame_equal(expected, frame)``
with a plain ``expected`` wants ``check_frame_type=False``.

This module imports pandas: only the functions that build a readable frame import it.

>>> from graphkit.inspect.examples import counter_run
>>> frame = counter_run().to_frame("changes", readable=True)
>>> type(frame).__name__, isinstance(frame, __import__("pandas").DataFrame)
('ReadableFrame', True)
>>> type(frame[frame.step >= 1].set_index("step")).__name__
'ReadableFrame'
"""

from __future__ import annotations

import hashlib
from collections.abc import Hashable

import pandas

from graphkit.inspect.markup import breakable_names, escape

__all__ = ["NARROW", "NOT_VALUES", "ReadableFrame", "readable_frame", "styled"]

NARROW = frozenset(
    {
        *("step", "phase", "kind", "attempts", "attempt", "duration", "cached", "reused"),
        "worker",
        *("task_id", "checkpoint_id", "parent_id", "fork_of", "thread", "ns", "source"),
        *("version_before", "version_after", "call", "kept", "status", "steps", "op"),
        *("start", "end", "wait", "barrier"),
    }
)
"""Columns of ids, step numbers, flags and times: kept on one line (an id broken at its
hyphens made every row three lines tall)."""

NOT_VALUES = NARROW | {
    *("node", "channel", "triggers", "writers", "reducer", "detail", "next"),
    *("namespace", "key", "saved_in", "started_by"),
}
"""Every column that is not a value; any other column (``before``, ``after``, ``value``,
``values``, ``packet``, ``error``, ``given``, ``returned``, a state key) is one, and gets
the room."""

VALUE_WIDTH = 24
"""The most characters a value column is kept from wrapping at: one of ``show``'s
60-character values then takes three lines."""
VALUE_ROOM = 40
"""The characters the value columns of one table are kept from wrapping at, between
them: three take 13 each, so a whole ``changes`` table fits beside JupyterLab's file browser
on a 1280-pixel screen."""
MIN_VALUE_WIDTH = 12
"""The fewest characters a value column is kept from wrapping at (a ``state`` table has
one column per state key)."""
ONE_LINE = 24
"""The longest id kept on one line: a readable task id (8 characters) is, a whole
checkpoint id (36) breaks at its hyphens rather than push the values out of view."""


class ReadableFrame(pandas.DataFrame):
    """A DataFrame of short texts (``run.to_frame(kind, readable=True)``) that a notebook
    shows whole and laid out for reading; see the module's docstring."""

    @property
    def _constructor(self) -> type[ReadableFrame]:
        # a slice, a filtered frame, set_index's result keep the look
        return ReadableFrame

    def __repr__(self) -> str:
        with pandas.option_context("display.max_colwidth", None):
            table = super().__repr__()
        # what the rows cannot show (``attrs["notes"]``: steps a thread did not save)
        return "".join(f"{note}\n" for note in self.attrs.get("notes", ())) + table

    def _repr_html_(self) -> str | None:
        with pandas.option_context("display.max_colwidth", None):
            html = super()._repr_html_()
        if html is None or not html.startswith("<div>"):  # (info view, or HTML turned off)
            return html
        notes = "".join(f"<p>{escape(note)}</p>" for note in self.attrs.get("notes", ()))
        return notes + styled(html, self)


def readable_frame(frame: pandas.DataFrame) -> ReadableFrame:
    """``frame`` as a ``ReadableFrame`` (its data shared, not copied).

    >>> frame = readable_frame(pandas.DataFrame({"step": [0], "after": ["'sunny'"]}))
    >>> frame["after"].tolist(), type(frame).__name__
    (["'sunny'"], 'ReadableFrame')
    """
    return ReadableFrame(frame)


def styled(html: str, frame: pandas.DataFrame) -> str:
    """pandas' notebook table ``html`` of ``frame`` in a box whose class scopes the
    layout's rules, its column names breakable after each ``_`` (``version_before`` had
    kept a column of one-digit versions 14 characters wide).

    >>> frame = pandas.DataFrame({"step": [1], "version_before": [2], "after": ["x" * 30]})
    >>> html = styled(frame._repr_html_(), frame)
    >>> html.startswith('<div class="gk-readable gk-readable-')
    True
    >>> "<th>version_<wbr>before</th>" in html, "min-width: 24ch" in html
    (True, True)
    """
    rules = "\n".join(_rules(frame))
    scope = "gk-readable-" + hashlib.sha256(rules.encode()).hexdigest()[:10]
    style = rules.replace("SCOPE", f".{scope} table.dataframe")
    # (after pandas' own rules, which set an index cell's vertical-align as specifically)
    html = html.replace("<div>", f'<div class="gk-readable {scope}">', 1)
    html = html.replace("<table", f"<style>\n{style}\n</style>\n<table", 1)
    return breakable_names(html)


def _rules(frame: pandas.DataFrame) -> list[str]:
    """The CSS rules for ``frame``'s columns as pandas shows them, each column found by
    its place from the row's end (the index's cells before it vary: a MultiIndex
    writes a label once for its rows). ``SCOPE`` stands for the table.

    >>> frame = pandas.DataFrame({"step": [1], "task_id": ["b4db3854"], "after": ["x" * 9]})
    >>> print("\\n".join(_rules(frame)))
    SCOPE td, SCOPE tbody tr th
    {vertical-align: top}
    SCOPE td:nth-last-child(3),
    SCOPE td:nth-last-child(2)
    {white-space: nowrap}
    SCOPE td:nth-last-child(1)
    {white-space: normal; overflow-wrap: normal; word-break: normal; min-width: 9ch}
    SCOPE td:nth-last-child(2),
    SCOPE thead th:nth-last-child(2),
    SCOPE td:nth-last-child(1),
    SCOPE thead th:nth-last-child(1)
    {text-align: left}
    """
    rules = ["SCOPE td, SCOPE tbody tr th\n{vertical-align: top}"]
    nowrap, values, left = [], [], []
    for place, name, column in _shown_columns(frame):
        cell = f"SCOPE td:nth-last-child({place})"
        if name in NARROW:
            if _longest(column, ONE_LINE + 1) <= ONE_LINE:
                nowrap.append(cell)
        elif name not in NOT_VALUES:
            values.append((cell, _longest(column, VALUE_WIDTH)))
        if not pandas.api.types.is_numeric_dtype(column.dtype):
            left.append(cell)
            if not isinstance(frame.columns, pandas.MultiIndex):
                left.append(f"SCOPE thead th:nth-last-child({place})")
    if nowrap:
        rules.append(",\n".join(nowrap) + "\n{white-space: nowrap}")
    # the room shared out: three value columns of 60 characters fit beside the others
    floor = min(VALUE_WIDTH, max(MIN_VALUE_WIDTH, VALUE_ROOM // max(len(values), 1)))
    for cell, longest in values:
        wrap = "white-space: normal; overflow-wrap: normal; word-break: normal"
        rules.append(f"{cell}\n{{{wrap}; min-width: {min(floor, longest)}ch}}")
    if left:
        rules.append(",\n".join(left) + "\n{text-align: left}")
    return rules


def _shown_columns(frame: pandas.DataFrame) -> list[tuple[int, Hashable, pandas.Series]]:
    """Each column pandas' notebook table shows, with its place from the row's end: all
    of them, or the first and last halves when ``display.max_columns`` leaves some out
    (a ``...`` column between them); two columns of one name are left as pandas shows
    them."""
    columns = list(frame.columns)
    most = pandas.get_option("display.max_columns")
    shown: list[Hashable | None] = columns
    if most and len(columns) > most:
        half = most // 2
        shown = [*columns[:half], None, *columns[-half:]] if half >= 1 else []
    found = []
    for place, name in zip(range(len(shown), 0, -1), shown, strict=True):
        column = frame[name] if name is not None else None
        if isinstance(column, pandas.Series):
            found.append((place, name, column))
    return found


def _longest(column: pandas.Series, most: int) -> int:
    """The characters of ``column``'s widest cell, counted up to ``most`` (a long
    table's first rows say enough)."""
    longest = 0
    for value in column.head(200):
        longest = max(longest, len(value) if isinstance(value, str) else len(str(value)))
        if longest >= most:
            return most
    return longest
